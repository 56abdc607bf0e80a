/**
 * Plumbing of the end-to-end suite: one dev control plane (`modelplane dev
 * up`, in its own directory `.cache/e2e`) shared by the suite, kubectl run
 * against it through `modelplane dev kubectl` exactly as a person would, and
 * polling helpers that fail with the last state they saw.
 *
 * The suite needs the Go-built control plane (`.cache/bin`, built by
 * scripts/kube-build.sh and scripts/crossplane-build.sh), a network
 * namespace (root) and the provider CRD snapshot (../shared/crds); without
 * them it is one skipped test saying which is missing.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';
import { missingBinaries } from '../../cli/dev/components.js';
import { kubectlArgv } from '../../cli/dev/lifecycle.js';
import { netnsUnsupportedReason } from '../../cli/dev/processes.js';

export const ROOT = resolve(fileURLToPath(import.meta.url), '../../..');
export const E2E_DIR = join(ROOT, '.cache', 'e2e');
export const SEEDS = resolve(ROOT, '../shared/corpus/seeds');
export const CRDS = resolve(ROOT, '../shared/crds');

/** Why the suite cannot run here, or undefined when it can. */
export function e2eUnavailable(): string | undefined {
  const missing = missingBinaries();
  if (missing.length > 0) return `control plane not built (${missing.length} missing, e.g. ${missing[0]}): run bash scripts/kube-build.sh && npm run crossplane:build (needs Go)`;
  const ns = netnsUnsupportedReason();
  if (ns) return `dev up ${ns}`;
  if (!existsSync(join(CRDS, 'eks.aws.m.upbound.io'))) return `provider CRD snapshot not found at ${CRDS}`;
  return undefined;
}

/** `describe` when the suite can run; otherwise one skipped test naming why. */
export function describeE2E(title: string, fn: () => void): void {
  const why = e2eUnavailable();
  if (why === undefined) {
    describe.sequential(title, fn);
    return;
  }
  console.log(`e2e: skipped: ${why}`);
  describe(title, () => it.skip(`skipped: ${why}`, () => {}));
}

/** What a command printed and how it exited. */
export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `modelplane ARGS...` against the suite's control plane. */
export function modelplane(args: string[], opts: { input?: string; timeoutMs?: number } = {}): Run {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'modelplane.js'), ...args], {
    cwd: ROOT,
    env: { ...process.env, MODELPLANE_DEV_DIR: E2E_DIR },
    encoding: 'utf8',
    input: opts.input,
    timeout: opts.timeoutMs ?? 600_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status ?? 1, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/** `kubectl ARGS...` on the control plane (or a workload API server: `true` is workload 0). */
export function kubectl(args: string[], opts: { input?: string; workload?: boolean | number } = {}): Run {
  const flag = opts.workload === undefined || opts.workload === false ? [] : opts.workload === true ? ['--workload'] : [`--workload=${opts.workload}`];
  return modelplane(['dev', ...flag, 'kubectl', ...args], opts);
}

/** A running `kubectl ... --watch`: every line it printed so far, and how to stop it. */
export interface Watch {
  lines: string[];
  /** What kubectl printed on stderr (why a watch ended early). */
  errors: string[];
  /** Stops kubectl (its process group), by pid. */
  stop(): void;
}

/**
 * `kubectl ARGS...` (a `--watch`) on the control plane, in the background:
 * unlike polling, it sees every version of the object, so a state that lasts
 * one reconcile is not missed. A watch the server or kubectl ends is started
 * again (as every Kubernetes client re-watches), each end noted in `errors`;
 * a new watch first lists the object's current version again. `workload`:
 * on that workload API server instead.
 */
export function watchKubectl(args: string[], opts: { workload?: boolean | number } = {}): Watch {
  const [cmd, ...rest] = kubectlArgv(E2E_DIR, args, opts.workload ?? false);
  const lines: string[] = [];
  const errors: string[] = [];
  let stopped = false;
  let child: ReturnType<typeof spawn>;
  const run = () => {
    child = spawn(cmd!, rest, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => errors.push(chunk.trim()));
    let partial = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      lines.push(...parts.filter((l) => l.length > 0));
    });
    child.on('exit', (code, signal) => {
      errors.push(`kubectl exited (${code ?? signal})`);
      if (!stopped && errors.length < 200) setTimeout(run, 200);
    });
  };
  run();
  return {
    lines,
    errors,
    stop: () => {
      stopped = true;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    },
  };
}

/** `kubectl ARGS... -o json`, parsed. @throws Error with kubectl's message when it fails. */
export function kubectlJson<T = Record<string, unknown>>(args: string[], opts: { workload?: boolean | number } = {}): T {
  const r = kubectl([...args, '-o', 'json'], opts);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr.trim()}`);
  return JSON.parse(r.stdout) as T;
}

/** A Kubernetes object as kubectl prints it. */
export interface Obj {
  kind?: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string>; creationTimestamp?: string; deletionTimestamp?: string };
  spec?: Record<string, unknown>;
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] } & Record<string, unknown>;
}

/** The items of `kubectl get KIND ...`. */
export function items(args: string[], opts: { workload?: boolean | number } = {}): Obj[] {
  return kubectlJson<{ items: Obj[] }>(['get', ...args], opts).items;
}

/** A condition's status, or undefined. */
export function condition(o: Obj | undefined, type: string): string | undefined {
  return o?.status?.conditions?.find((c) => c.type === type)?.status;
}

/**
 * Polls `check` (every 2 s) until it returns a value other than undefined.
 * @throws Error naming `what` and the last thing `describe` said about the state.
 */
export async function eventually<T>(what: string, check: () => T | undefined, opts: { timeoutMs?: number; state?: () => string } = {}): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 300_000);
  let last: unknown;
  for (;;) {
    try {
      const v = check();
      if (v !== undefined) return v;
      last = undefined;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      let state = '';
      try {
        state = opts.state?.() ?? '';
      } catch (err) {
        state = String(err);
      }
      throw new Error(`${what}: not reached in ${Math.round((opts.timeoutMs ?? 300_000) / 1000)}s${last ? ` (last error: ${(last as Error).message})` : ''}${state ? `\n${state}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 2000));
  }
}

/** `kubectl get` of the kinds a failing wait should show. */
export function snapshot(kinds = 'inferenceclusters,modeldeployments,modelreplicas,modelendpoints,modelservices'): string {
  const r = kubectl(['get', kinds, '-A']);
  const c = kubectl(['get', 'composite', '-A', '-o', 'jsonpath={range .items[*]}{.kind}/{.metadata.name}: {range .status.conditions[*]}{.type}={.status} {.reason} {.message}; {end}{"\\n"}{end}']);
  return `${r.stdout}${r.stderr}\n${c.stdout}`;
}
