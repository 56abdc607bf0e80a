/**
 * Watching a dev control plane from a benchmark (bench/convergence.bench.ts):
 * `kubectl get KIND -A --watch -o json --output-watch-events` run inside the
 * control plane's network namespace (its API server listens only on that
 * loopback, cli/dev/processes.ts), each event stamped with this process's
 * clock when it arrives, so a latency is measured to the millisecond rather
 * than from the API's one-second timestamps.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { kubectlArgv } from '../cli/dev/lifecycle.js';
import { inNetns } from '../cli/dev/processes.js';
import { PORTS, readState } from '../cli/dev/state.js';
import { ALL_KEYS, ETCD_ENDPOINT, type RangeBody, versionsOf } from '../cli/dev/quiet.js';

/** A Kubernetes object as the watch prints it (only what the bench reads). */
export interface WatchedObject {
  kind?: string;
  metadata: { name: string; namespace?: string; uid?: string; creationTimestamp?: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  status?: { conditions?: { type: string; status: string; reason?: string; lastTransitionTime?: string }[] } & Record<string, unknown>;
}

/** One watch event, with `at` the `performance.now()` of its arrival. */
export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: WatchedObject;
  at: number;
}

/**
 * Splits a stream of concatenated JSON values (kubectl's `-o json` watch
 * output: one pretty-printed object per event) into complete values. Feed
 * chunks; each returns the values completed by it. Strings and escapes are
 * tracked, so braces inside them do not count.
 */
export class JsonStreamSplitter {
  private buf = '';
  private depth = 0;
  private inString = false;
  private escaped = false;
  private start = -1;
  private scanned = 0;

  /** The complete top-level JSON texts the chunk finished. */
  push(chunk: string): string[] {
    this.buf += chunk;
    const out: string[] = [];
    for (let i = this.scanned; i < this.buf.length; i++) {
      const ch = this.buf[i];
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (ch === '\\') this.escaped = true;
        else if (ch === '"') this.inString = false;
        continue;
      }
      if (ch === '"') this.inString = true;
      else if (ch === '{') {
        if (this.depth === 0) this.start = i;
        this.depth++;
      } else if (ch === '}') {
        this.depth--;
        if (this.depth === 0 && this.start >= 0) {
          out.push(this.buf.slice(this.start, i + 1));
          this.start = -1;
        }
      }
    }
    if (this.depth === 0) {
      this.buf = '';
      this.scanned = 0;
    } else {
      this.buf = this.buf.slice(this.start);
      this.scanned = this.buf.length;
      this.start = 0;
    }
    return out;
  }
}

/** A running watch of one resource type across namespaces; {@link stop} ends it. */
export class DevWatch {
  private readonly child: ChildProcess;
  private readonly listeners = new Set<(e: WatchEvent) => void>();
  /** Every event seen so far, in arrival order. */
  readonly events: WatchEvent[] = [];

  constructor(dir: string, resource: string) {
    const argv = kubectlArgv(dir, ['get', resource, '-A', '--watch', '--output-watch-events', '-o', 'json']);
    this.child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'ignore'], detached: true });
    const split = new JsonStreamSplitter();
    this.child.stdout!.setEncoding('utf8');
    this.child.stdout!.on('data', (chunk: string) => {
      const at = performance.now();
      for (const text of split.push(chunk)) {
        const e = { ...(JSON.parse(text) as Omit<WatchEvent, 'at'>), at };
        this.events.push(e);
        for (const l of this.listeners) l(e);
      }
    });
  }

  /**
   * Resolves with the arrival time of the first event (already seen, or
   * coming) whose object satisfies `test`.
   * @throws Error after `timeoutMs` naming `what`.
   */
  until(what: string, test: (o: WatchedObject, e: WatchEvent) => boolean, timeoutMs = 600_000, since = 0): Promise<number> {
    const seen = this.events.find((e) => e.at >= since && e.type !== 'DELETED' && test(e.object, e));
    if (seen) return Promise.resolve(seen.at);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.listeners.delete(on);
        reject(new Error(`${what}: not seen in ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      const on = (e: WatchEvent) => {
        if (e.type === 'DELETED' || !test(e.object, e)) return;
        clearTimeout(timer);
        this.listeners.delete(on);
        resolve(e.at);
      };
      this.listeners.add(on);
    });
  }

  /** Ends the kubectl process (its whole group). */
  stop(): void {
    try {
      if (this.child.pid) process.kill(-this.child.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
}

/** `kubectl ARGS...` inside the control plane's namespace; stdout, or throws with stderr. */
export function devKubectl(dir: string, args: string[], input?: string): string {
  const argv = kubectlArgv(dir, args);
  const r = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', input, maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr.trim()}`);
  return r.stdout;
}

/**
 * The body of an HTTP request made from inside the control plane's namespace
 * (where etcd and core's metrics listen, on its loopback), by a Node child
 * there; POSTs `body` when given. @throws Error when the request fails.
 */
function fetchInside(dir: string, url: string, body?: string): string {
  const state = readState(dir);
  if (!state) throw new Error(`no dev control plane in ${dir}`);
  const init = body === undefined ? '{}' : JSON.stringify({ method: 'POST', body });
  const script = `fetch(${JSON.stringify(url)}, ${init}).then((r) => { if (!r.ok) throw new Error(String(r.status)); return r.text(); }).then((t) => process.stdout.write(t))`;
  const argv = inNetns(state.netns, [process.execPath, '-e', script]);
  const r = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${url}: ${r.stderr.trim().split('\n').pop() ?? ''}`);
  return r.stdout;
}

/** Crossplane core's Prometheus metrics text (its metrics port inside the namespace); empty when it cannot be read. */
export function coreMetrics(dir: string): string {
  try {
    return fetchInside(dir, `http://127.0.0.1:${PORTS.coreMetrics}/metrics`);
  } catch {
    return '';
  }
}

/** `key → version` of every etcd key, as `modelplane dev quiet` reads them (cli/dev/quiet.ts), from inside the namespace. */
export function etcdVersions(dir: string): Map<string, number> {
  return versionsOf(JSON.parse(fetchInside(dir, `${ETCD_ENDPOINT}/v3/kv/range`, JSON.stringify(ALL_KEYS))) as RangeBody);
}

/** One sample of a metric in a Prometheus text: its label set as written (`{a="x",b="y"}` or empty) and its value. */
export interface Sample {
  labels: string;
  value: number;
}

/** The samples of metric `name` (every label set) in a Prometheus text. */
export function samples(metrics: string, name: string): Sample[] {
  const out: Sample[] = [];
  for (const line of metrics.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (rest[0] !== '{' && rest[0] !== ' ') continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (Number.isFinite(value)) out.push({ labels: rest.slice(0, rest.lastIndexOf(' ')), value });
  }
  return out;
}

/** The sum of a counter's samples (every label set) in a Prometheus text. */
export function counterSum(metrics: string, name: string): number {
  return samples(metrics, name).reduce((n, x) => n + x.value, 0);
}
