/**
 * Start-up as a user meets it, through `bin/modelplane.js` (which runs the
 * compiled `dist/` when it is fresh, else builds it first here): each figure
 * a median of fresh processes, printed beside its target (the targets below,
 * on a quiet 2-core machine). Never asserts: a loaded machine shows in the load
 * average printed first.
 *
 * - `modelplane --help` <= 300 ms
 * - `modelplane plan examples/quickstart/` <= 1 s
 * - `modelplane plan` of a generated 100-cluster / 50-deployment fleet <= 4 s
 * - one function's cold start (`node dist/functions/<f>/main.js`, spawn to
 *   the first answered RunFunction) <= 300 ms
 * - `modelplane serve --all`, spawn to every function answering <= 3 s
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunFunctionRequest } from '@crossplane-org/function-sdk-typescript';
import { dial, functionFolders, REPO_ROOT } from '../cli/functions.js';
import { writeFleet } from './fleet.js';
import { pct } from './stats.js';

const BIN = join(REPO_ROOT, 'bin', 'modelplane.js');

function median(xs: number[]): number {
  return pct(xs, 50);
}

function line(label: string, ms: number[], target: number): void {
  const m = median(ms);
  const verdict = m <= target ? 'ok' : 'OVER';
  console.log(`${label.padEnd(52)} median ${m.toFixed(0).padStart(6)} ms (${ms.length} runs)   target <= ${target} ms  ${verdict}`);
}

function timed(args: string[]): number {
  const start = performance.now();
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: REPO_ROOT, stdio: 'ignore' });
  const ms = performance.now() - start;
  if (r.status !== 0 && r.status !== 4) throw new Error(`modelplane ${args.join(' ')} exited ${r.status}`);
  return ms;
}

/** A run of `count` consecutive free loopback ports (probed, never a fixed port). */
async function freePorts(count: number): Promise<number> {
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const s = createServer();
      s.once('error', () => resolve(false));
      s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
    });
  for (;;) {
    const base = 20000 + Math.floor(Math.random() * 40000);
    let ok = true;
    for (let i = 0; i < count && ok; i++) ok = await free(base + i);
    if (ok) return base;
  }
}

function runFunction(target: string): Promise<void> {
  const client = dial(target);
  const req = RunFunctionRequest.fromPartial({
    observed: { composite: { resource: { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceClass', metadata: { name: 'a' }, spec: { devices: [] } } } },
  });
  return new Promise<void>((resolve, reject) =>
    client.runFunction(req, { deadline: Date.now() + 30_000 }, (err: Error | null) => {
      client.close();
      if (err) reject(err);
      else resolve();
    }),
  );
}

/** Spawn to the first answered RunFunction of one compiled function. */
async function coldStart(folder: string): Promise<number> {
  const start = performance.now();
  const child = spawn(process.execPath, [join(REPO_ROOT, 'dist', 'functions', folder, 'main.js'), '--insecure', '--address', '127.0.0.1:0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /"port":(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}`)));
  });
  await runFunction(`127.0.0.1:${port}`);
  const ms = performance.now() - start;
  child.kill('SIGKILL');
  return ms;
}

/** Spawn `serve --all` to every function answering one RunFunction; then SIGTERM, checking it exits. */
async function serveAll(): Promise<number> {
  const n = functionFolders().length;
  const base = await freePorts(n);
  const start = performance.now();
  const child = spawn(process.execPath, [BIN, 'serve', '--all', '--base-port', String(base)], { stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      if (err.includes('serving ')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
  await Promise.all(Array.from({ length: n }, (_, i) => runFunction(`127.0.0.1:${base + i}`)));
  const ms = performance.now() - start;
  child.removeAllListeners('exit');
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  return ms;
}

export default async function (): Promise<void> {
  const stamp = join(REPO_ROOT, 'dist', '.build-stamp');
  if (!existsSync(stamp)) {
    console.log('dist/ not built: building (npm run build)');
    spawnSync(process.execPath, [join(REPO_ROOT, 'scripts', 'build.mjs')], { cwd: REPO_ROOT, stdio: 'inherit' });
  }
  console.log(`load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}; dist built ${statSync(stamp).mtime.toISOString()}`);
  timed(['--help']); // warm the file cache
  line('modelplane --help', Array.from({ length: 7 }, () => timed(['--help'])), 300);
  line('modelplane plan examples/quickstart/', Array.from({ length: 3 }, () => timed(['plan', join(REPO_ROOT, 'examples/quickstart')])), 1000);
  const dir = mkdtempSync(join(tmpdir(), 'mp-fleet-'));
  writeFleet(dir, { clusters: 100, deployments: 50, services: 20 });
  line('modelplane plan (100 clusters, 50 deployments)', [timed(['plan', dir])], 4000);
  const cold: number[] = [];
  await coldStart('compose-inference-class');
  for (let i = 0; i < 5; i++) cold.push(await coldStart('compose-inference-class'));
  line('function cold start (compose-inference-class)', cold, 300);
  line('modelplane serve --all, every function answering', [await serveAll(), await serveAll()], 3000);
}
