/**
 * Processes of a dev control plane: the private network namespace that holds
 * them (so nothing listens beyond its own loopback, REAL-CONTROL-PLANE.md:
 * Crossplane core binds its metrics and probe ports on every interface), and
 * starting, waiting for and stopping each component by pid.
 *
 * The namespace is held by one `sleep infinity` started under `unshare -n`;
 * everything else is started inside it (`nsenter -t <pid> -n`), so it lives
 * exactly as long as its processes. Creating it needs root (CAP_SYS_ADMIN).
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { alive, type ComponentState } from './state.js';

/** Why a network namespace cannot be made here, or undefined when it can. */
export function netnsUnsupportedReason(): string | undefined {
  if (process.platform !== 'linux') return 'needs Linux network namespaces';
  for (const tool of ['unshare', 'nsenter', 'ip']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `needs ${tool} (util-linux / iproute2) on PATH`;
  }
  const probe = spawnSync('unshare', ['-n', 'true']);
  if (probe.status !== 0) return 'cannot create a network namespace (unshare -n needs root or CAP_SYS_ADMIN)';
  return undefined;
}

/**
 * Starts the holder of a new network namespace with its loopback up.
 * @returns the holder's pid.
 * @throws Error when the namespace cannot be created.
 */
export function createNetns(): number {
  const holder = spawn('unshare', ['-n', '--', 'sh', '-c', 'ip link set lo up && exec sleep infinity'], {
    detached: true,
    stdio: 'ignore',
  });
  holder.unref();
  const pid = holder.pid;
  if (pid === undefined) throw new Error('could not start unshare -n');
  for (let i = 0; i < 50; i++) {
    const r = spawnSync('nsenter', ['-t', String(pid), '-n', 'ip', '-o', 'link', 'show', 'lo']);
    if (r.status === 0 && r.stdout.toString().includes('UP')) return pid;
    spawnSync('sleep', ['0.1']);
  }
  throw new Error('the network namespace did not come up (loopback stays down)');
}

/** argv that runs `argv` inside the namespace held by `netns`. */
export function inNetns(netns: number, argv: string[]): string[] {
  return ['nsenter', '-t', String(netns), '-n', '--', ...argv];
}

/** True when this process runs inside the namespace held by `netns`. */
export function insideNetns(netns: number): boolean {
  try {
    return execFileSync('readlink', ['/proc/self/ns/net']).toString() === execFileSync('readlink', [`/proc/${netns}/ns/net`]).toString();
  } catch {
    return false;
  }
}

/**
 * Starts one component detached from this process (it outlives `dev up`),
 * output appended to `logs/<name>.log`.
 */
export function startComponent(
  logs: string,
  name: string,
  argv: string[],
  opts: { env?: NodeJS.ProcessEnv; listens: string; cwd?: string },
): ComponentState {
  mkdirSync(logs, { recursive: true });
  const log = join(logs, `${name}.log`);
  const fd = openSync(log, 'a');
  let child: ChildProcess;
  try {
    child = spawn(argv[0]!, argv.slice(1), {
      detached: true,
      stdio: ['ignore', fd, fd],
      env: { ...process.env, ...opts.env },
      ...(opts.cwd ? { cwd: opts.cwd } : {}),
    });
  } finally {
    closeSync(fd);
  }
  child.unref();
  if (child.pid === undefined) throw new Error(`${name}: could not start ${argv[0]}`);
  return { name, pid: child.pid, log, listens: opts.listens };
}

/** The last `n` lines of a log, for an error message. */
export function tail(file: string, n = 8): string {
  if (!existsSync(file)) return '';
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
  return lines.slice(-n).map((l) => `    ${l.slice(0, 300)}`).join('\n');
}

/**
 * Polls `check` every `everyMs` until it resolves true.
 * @throws Error naming `what`, with the component's last log lines, when `timeoutMs` passes or it exits.
 */
export async function waitUntil(
  what: string,
  check: () => Promise<boolean>,
  opts: { timeoutMs: number; everyMs?: number; component?: ComponentState },
): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      if (await check()) return;
    } catch (err) {
      last = err;
    }
    const c = opts.component;
    if (c && !alive(c.pid)) throw new Error(`${what}: ${c.name} exited; last lines of ${c.log}:\n${tail(c.log)}`);
    if (Date.now() > deadline) {
      const why = last instanceof Error ? ` (last error: ${last.message})` : '';
      throw new Error(`${what}: not ready after ${Math.round(opts.timeoutMs / 1000)}s${why}${c ? `; last lines of ${c.log}:\n${tail(c.log)}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, opts.everyMs ?? 250));
  }
}

/** Stops a process: SIGTERM, then SIGKILL after `graceMs`. Resolves once it is gone. */
export async function stopPid(pid: number, graceMs = 10_000): Promise<void> {
  if (!alive(pid)) return;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + graceMs;
  while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (alive(pid)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone in between
    }
    while (alive(pid)) await new Promise((r) => setTimeout(r, 50));
  }
}
