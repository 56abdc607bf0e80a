/**
 * Cold start of one function process, as Crossplane's package runtime starts
 * it: `node dist/functions/<name>/main.js` (the image's ENTRYPOINT) from spawn
 * to the first answered RunFunction, and the process's RSS after answering.
 * Also the development path (`node --import tsx main.ts`, what
 * `modelplane serve` runs). Medians of several runs; targets: cold start
 * <= 300 ms, RSS <= 100 MB on a 2-core machine.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RunFunctionRequest, type RunFunctionResponse } from '@crossplane-org/function-sdk-typescript';
import { dial, REPO_ROOT } from '../cli/functions.js';
import { buildImageFunctions } from './image-build.js';
import { pct } from './stats.js';

const FUNCTION = 'compose-inference-class';
const RUNS = 7;

function median(xs: number[]): number {
  return pct(xs, 50);
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

async function once(args: string[]): Promise<{ ms: number; rss: number }> {
  const start = performance.now();
  const child = spawn(process.execPath, [...args, '--insecure', '--address', '127.0.0.1:0'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /"port":(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}`)));
  });
  const client = dial(`127.0.0.1:${port}`);
  const req = RunFunctionRequest.fromPartial({
    observed: { composite: { resource: { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceClass', metadata: { name: 'a' }, spec: { devices: [] } } } },
  });
  await new Promise<RunFunctionResponse>((resolve, reject) =>
    client.runFunction(req, { deadline: Date.now() + 20_000 }, (err, rsp) => (err ? reject(err) : resolve(rsp))),
  );
  const ms = performance.now() - start;
  const rss = rssMiB(child.pid!);
  client.close();
  child.kill('SIGKILL');
  return { ms, rss };
}

export default async function (): Promise<void> {
  const compiled = buildImageFunctions(FUNCTION);
  const variants: [string, string[]][] = [
    ['compiled (image entrypoint)', [compiled]],
    ['tsx (modelplane serve)', ['--import', 'tsx', join(REPO_ROOT, 'functions', FUNCTION, 'main.ts')]],
  ];
  for (const [label, args] of variants) {
    await once(args); // warm the OS file cache
    const runs: { ms: number; rss: number }[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await once(args));
    console.log(
      `${FUNCTION} ${label}: cold start median ${median(runs.map((r) => r.ms)).toFixed(0)} ms ` +
        `(min ${Math.min(...runs.map((r) => r.ms)).toFixed(0)}, max ${Math.max(...runs.map((r) => r.ms)).toFixed(0)}), ` +
        `RSS median ${median(runs.map((r) => r.rss)).toFixed(1)} MiB over ${RUNS} runs  [targets: <= 300 ms, <= 100 MB]`,
    );
  }
}
