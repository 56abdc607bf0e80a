/**
 * Shared plumbing of the conformance tests: where the real Crossplane binaries
 * are, our functions served over gRPC for both renderers, the example folders,
 * and running `modelplane render` and the real render on the same inputs.
 *
 * Binaries (built by `npm run crossplane:build`, see tools/crossplane/README.md):
 * - `.cache/bin/crossplane-core`: Crossplane core v2.4, whose `internal render`
 *   is the real render engine (one XR reconcile against an in-memory client);
 * - `.cache/bin/crossplane`: the real CLI v2.5: its `composition render`
 *   drives that engine (`--crossplane-binary`), its `resource validate`
 *   validates.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = join(ROOT, '.cache/bin');
export const CLI = join(BIN, 'crossplane');
export const CORE = join(BIN, 'crossplane-core');
export const VALIDATE_CACHE = join(ROOT, '.cache/crossplane-validate');
export const SHARED = resolve(ROOT, '../shared');

/** The one line a skipped conformance test shows. */
export const SKIP_MESSAGE =
  'real Crossplane CLI not built (.cache/bin/crossplane missing): run npm run crossplane:build (needs Go)';

/**
 * `describe` when the binaries are built; otherwise registers one skipped test
 * named after {@link SKIP_MESSAGE} instead of the suite (and, with `log`,
 * prints that line once), so a laptop without Go sees one line, not a list.
 */
export function skipUnlessBuilt(title: string, opts: { log?: boolean } = {}): (name: string, fn: () => void) => void {
  if (realCrossplaneAvailable()) return (name, fn) => describe(name, fn);
  if (opts.log) console.log(`conformance: skipped: ${SKIP_MESSAGE}`);
  return () => describe(title, () => it.skip(SKIP_MESSAGE, () => {}));
}

/** True when the real binaries have been built. */
export function realCrossplaneAvailable(): boolean {
  return [CLI, CORE].every((f) => existsSync(f));
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a program to completion (never rejects). */
export function run(file: string, args: string[], opts: { cwd?: string; timeoutMs?: number } = {}): Promise<Run> {
  return new Promise((done) => {
    execFile(
      file,
      args,
      { cwd: opts.cwd ?? ROOT, maxBuffer: 256 * 1024 * 1024, timeout: opts.timeoutMs ?? 120_000, encoding: 'utf8' },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

/** One render input folder (examples/<name>/ convention). */
export interface Example {
  name: string;
  dir: string;
  xr: string;
  composition: string;
  functions: string;
  observed?: string;
  required?: string;
  credentials?: string;
  expected?: string;
  /** apis/<plural>/definition.yaml of the XR's kind, when there is one. */
  xrd?: string;
}

/**
 * Every render example under `root` (default `examples/`, or the
 * comma-separated folders in MODELPLANE_CONFORMANCE_EXAMPLES): folders with
 * xr.yaml, composition.yaml and functions.yaml.
 */
export function renderExamples(): Example[] {
  const roots = (process.env.MODELPLANE_CONFORMANCE_EXAMPLES ?? join(ROOT, 'examples')).split(',').filter(Boolean);
  const out: Example[] = [];
  for (const root of roots.map((r) => resolve(ROOT, r))) {
    if (!existsSync(root)) continue;
    const dirs = ['xr.yaml', 'composition.yaml', 'functions.yaml'].every((f) => existsSync(join(root, f)))
      ? [root]
      : readdirSync(root)
          .sort()
          .map((d) => join(root, d));
    for (const dir of dirs) {
      const f = (n: string) => join(dir, n);
      if (!['xr.yaml', 'composition.yaml', 'functions.yaml'].every((n) => existsSync(f(n)))) continue;
      const ex: Example = { name: basename(dir), dir, xr: f('xr.yaml'), composition: f('composition.yaml'), functions: f('functions.yaml') };
      for (const [key, file] of [
        ['observed', 'observed.yaml'],
        ['required', 'required.yaml'],
        ['credentials', 'credentials.yaml'],
        ['expected', 'expected.yaml'],
      ] as const) {
        if (existsSync(f(file))) ex[key] = f(file);
      }
      const xrd = xrdFor(ex.xr);
      if (xrd) ex.xrd = xrd;
      out.push(ex);
    }
  }
  return out;
}

/** The XRD in apis/<plural>/definition.yaml that defines the XR's kind. */
export function xrdFor(xrFile: string): string | undefined {
  const xr = firstDoc(xrFile);
  const [group] = String(xr.apiVersion ?? '').split('/');
  const apis = join(ROOT, 'apis');
  if (!existsSync(apis)) return undefined;
  for (const d of readdirSync(apis).sort()) {
    const def = join(apis, d, 'definition.yaml');
    if (!existsSync(def)) continue;
    const xrd = firstDoc(def);
    const spec = (xrd.spec ?? {}) as { group?: string; names?: { kind?: string } };
    if (spec.group === group && spec.names?.kind === xr.kind) return def;
  }
  return undefined;
}

type Obj = Record<string, unknown>;

function firstDoc(file: string): Obj {
  const doc = parseAllDocuments(readFileSync(file, 'utf8')).find((d) => d.contents !== null);
  return (doc?.toJS() ?? {}) as Obj;
}

/** The flags an example implies, identical for both renderers. */
export function exampleArgs(ex: Example, opts: { xrd?: boolean } = {}): string[] {
  // Both renderers measure durations (cluster health) against render's fixed time, not the clock.
  const args: string[] = ['--context-values', 'modelplane.ai/now="2024-01-01T00:00:00Z"'];
  if (ex.observed) args.push('-o', ex.observed);
  if (ex.required) args.push('-e', ex.required);
  if (ex.credentials) args.push('--function-credentials', ex.credentials);
  if (opts.xrd && ex.xrd) args.push('--xrd', ex.xrd);
  return args;
}

/** How the real `composition render` is invoked: the CLI's own command. */
export const REAL_RENDER: readonly string[] = [CLI, 'composition', 'render'];

/** The real render of XR, Composition, Functions (+ flags) with the core binary as engine. */
export function realRender(xr: string, composition: string, functions: string, flags: string[]): Promise<Run> {
  const [file, ...pre] = REAL_RENDER;
  return run(file!, [...pre, xr, composition, functions, ...flags, '--crossplane-binary', CORE]);
}

/** `modelplane render` on the same inputs. */
export function ourRender(xr: string, composition: string, functions: string, flags: string[]): Promise<Run> {
  return run(process.execPath, [join(ROOT, 'bin/modelplane.js'), 'render', xr, composition, functions, ...flags]);
}

/** Our functions, served over gRPC by `modelplane serve --all`, and their Function manifests. */
export interface Served {
  /** A functions file (Development runtime) naming every served function. */
  functionsFile: string;
  stop(): Promise<void>;
}

/** Starts `modelplane serve --all` on a free-looking port range; resolves once every function serves. */
export async function serveFunctions(): Promise<Served> {
  let lastError = '';
  for (let attempt = 0; attempt < 4; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 30_000);
    try {
      return await serveOnce(base);
    } catch (err) {
      lastError = (err as Error).message;
    }
  }
  throw new Error(`modelplane serve did not start: ${lastError}`);
}

function serveOnce(basePort: number): Promise<Served> {
  const dir = mkdtempSync(join(tmpdir(), 'mp-conformance-'));
  const functionsFile = join(dir, 'functions.yaml');
  const child: ChildProcess = spawn(
    process.execPath,
    [join(ROOT, 'bin/modelplane.js'), 'serve', '--all', '--base-port', String(basePort)],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  const stop = () =>
    new Promise<void>((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', () => done());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
    });
  return new Promise((done, fail) => {
    const timer = setTimeout(() => {
      void stop();
      fail(new Error(`timed out; stderr: ${stderr.trim()}`));
    }, 90_000);
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (/^serving \d+ function/m.test(stderr)) {
        clearTimeout(timer);
        writeFileSync(functionsFile, stdout);
        done({ functionsFile, stop });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`exited with ${code}: ${stderr.trim()}`));
    });
  });
}
