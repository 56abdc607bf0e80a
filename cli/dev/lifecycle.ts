/**
 * `modelplane dev down | status | kubectl ARGS...` for a control plane
 * started by `dev up` (up.ts).
 *
 * - `down` stops every process it recorded, newest first (SIGTERM, then
 *   SIGKILL after 10 s), then the namespace holder; once it returns nothing
 *   it started is running and nothing it opened listens. `--purge` also
 *   deletes the directory (etcd data, certificates, packages).
 * - `status` lists each process with its pid, whether it runs and what it
 *   serves; exit 0 when all run, 1 otherwise.
 * - `kubectl` runs the built kubectl inside the namespace with the admin
 *   kubeconfig, from any shell; its exit code is kubectl's.
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Table from 'cli-table3';
import { UserError } from '../load.js';
import { BIN, modelplaneArgs } from './components.js';
import { inNetns, stopPid } from './processes.js';
import { alive, type DevState, devPaths, readState, workloadServers, writeState } from './state.js';

/** Stops everything `state` recorded (newest first), then the namespace holder. */
export async function stopAll(dir: string, state: DevState | undefined): Promise<number> {
  if (!state) return 0;
  let stopped = 0;
  for (const c of [...state.components].reverse()) {
    if (alive(c.pid)) stopped++;
    await stopPid(c.pid);
  }
  if (alive(state.netns)) stopped++;
  await stopPid(state.netns, 2000);
  writeState(dir, { ...state, components: [], ready: false });
  rmSync(devPaths(dir).state, { force: true });
  return stopped;
}

/** `dev down`. */
export async function down(dir: string, purge: boolean): Promise<number> {
  const state = readState(dir);
  if (!state) {
    process.stderr.write(`dev down: nothing started from ${dir}\n`);
    if (purge) rmSync(dir, { recursive: true, force: true });
    return 0;
  }
  const n = await stopAll(dir, state);
  const still = [...state.components.map((c) => c.pid), state.netns].filter(alive);
  if (still.length > 0) throw new Error(`dev down: still running: pids ${still.join(', ')}`);
  if (purge) rmSync(dir, { recursive: true, force: true });
  process.stderr.write(`dev down: stopped ${n} process(es)${purge ? `; removed ${dir}` : ` (data kept in ${dir}; --purge removes it)`}\n`);
  return 0;
}

/** `dev status`. @returns 0 when every process runs. */
export function status(dir: string): number {
  const state = readState(dir);
  if (!state) {
    process.stdout.write(`no dev control plane from ${dir} (modelplane dev up starts one)\n`);
    return 1;
  }
  const table = new Table({ head: ['COMPONENT', 'PID', 'RUNNING', 'LISTENS (namespace loopback)', 'LOG'], style: { head: [], border: [] } });
  table.push(['network namespace', String(state.netns), alive(state.netns) ? 'yes' : 'no', '-', '-']);
  for (const c of state.components) table.push([c.name, String(c.pid), alive(c.pid) ? 'yes' : 'no', c.listens, c.log]);
  const all = alive(state.netns) && state.components.every((c) => alive(c.pid));
  process.stdout.write(`${table.toString()}\n`);
  process.stdout.write(
    all && state.ready
      ? `up since ${state.startedAt}; modelplane dev kubectl ... reaches it\n`
      : `${state.ready ? 'degraded' : 'not ready'}: ${all ? 'installing' : 'some processes are not running'}\n`,
  );
  return all ? 0 : 1;
}

/**
 * The argv of the built kubectl with ARGS inside the control plane's
 * namespace, with its admin kubeconfig (`workload`: the workload API
 * server's, `true` for workload 0, or its index). @throws UserError when no
 * control plane runs, or it has no such workload API server.
 */
export function kubectlArgv(dir: string, args: string[], workload: boolean | number = false): string[] {
  const state = readState(dir);
  if (!state || !alive(state.netns)) throw new UserError(`no dev control plane from ${dir} (modelplane dev up starts one)`);
  const paths = devPaths(dir);
  if (workload === false) return inNetns(state.netns, [join(BIN, 'kubectl'), '--kubeconfig', paths.kubeconfig, ...args]);
  const servers = workloadServers(paths, state);
  const index = workload === true ? 0 : workload;
  if (servers.length === 0) throw new UserError('this dev control plane has no workload API server (it was started with --no-workload)');
  const server = servers[index];
  if (server === undefined) throw new UserError(`--workload=${index}: this dev control plane runs workload API servers 0 to ${servers.length - 1} (dev up --workloads N)`);
  return inNetns(state.netns, [join(BIN, 'kubectl'), '--kubeconfig', server.kubeconfig, ...args]);
}

/** `dev kubectl ARGS...` (`workload`: against a workload API server, as {@link kubectlArgv}). @throws UserError as {@link kubectlArgv}. */
export function kubectl(dir: string, args: string[], workload: boolean | number = false): number {
  const argv = kubectlArgv(dir, args, workload);
  const r = spawnSync(argv[0]!, argv.slice(1), { stdio: 'inherit' });
  return r.status ?? 1;
}

/** Runs one of our commands inside the control plane's namespace; its exit code. @throws UserError when none runs. */
export function runInside(dir: string, args: string[]): number {
  const state = readState(dir);
  if (!state || !alive(state.netns)) throw new UserError(`no dev control plane from ${dir} (modelplane dev up starts one)`);
  const argv = inNetns(state.netns, modelplaneArgs(...args));
  return spawnSync(argv[0]!, argv.slice(1), { stdio: 'inherit' }).status ?? 1;
}
