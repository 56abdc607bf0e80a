/**
 * The scheduler at Crossplane's cadence (bench/scheduler.bench.ts, after the
 * warm-loop table): a real core does not call a function with the same
 * request back to back. It reconciles different XRs in turn, each when a
 * watch fires or its poll comes round, with idle gaps of seconds to a minute
 * between calls to one function (as on the dev control plane). The gaps cost
 * what a warm loop never shows, measured so far: V8's idle-time memory
 * reducer (full collections that shrink the heap and age compiled code) and
 * the young generation shrunk to its floor by the first collection after a
 * gap (the image turns both off, cli/node-flags.ts); and, with neither, the
 * same work still takes longer on a processor that has been idle
 * (docs/development.md#performance). Distinct XRs, measured apart, cost nothing.
 *
 * {@link cadenceRun} calls RunFunction from this Node process;
 * {@link cadenceRunGo} has tools/fn-client make the same calls as core
 * makes them (Go's gRPC and protobuf, a client that idles too) and also
 * reports what core's own marshalling costs around each call. Both call
 * `xrs` distinct ModelDeployments (each `replicas` replicas, steady over the
 * same fleet) in turn, sleeping a seeded gap drawn log-uniformly from
 * [`minGapS`, `maxGapS`] seconds before each call (mean about 14 s for
 * 1–60 s), and return each call's end-to-end time with the gap before it.
 * Nothing is asserted (bench/run.ts).
 */
import { type ChildProcess, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../cli/root.js';
import { encodeRunFunctionRequest } from '../functions/lib/wire/codec.js';
import { mulberry32 } from '../scripts/oracle/grammar.js';
import { cluster, deployment, request, steady } from './scheduler-fleet.js';
import { pct } from './stats.js';

/** How many calls the cadence run makes (`SCHEDULER_CADENCE_CALLS`, default 24: about 6 minutes at 1–60 s gaps). */
export const CADENCE_CALLS = Number(process.env['SCHEDULER_CADENCE_CALLS'] ?? 24);
/** Idle gaps in seconds, `SCHEDULER_CADENCE_GAPS=min-max` (default `1-60`). */
export const CADENCE_GAPS = (process.env['SCHEDULER_CADENCE_GAPS'] ?? '1-60').split('-').map(Number) as [number, number];

/** One call of the cadence run: the idle gap before it (s) and its end-to-end time (ms). */
export interface CadenceCall {
  xr: string;
  gapS: number;
  ms: number;
}

/** The seeded gaps (s) of a cadence run: log-uniform in `gaps`, one per call. */
export function cadenceGaps(opts: { calls: number; gaps: [number, number]; seed: number }): number[] {
  const rnd = mulberry32(opts.seed);
  const [lo, hi] = opts.gaps;
  return Array.from({ length: opts.calls }, () => lo * (hi / lo) ** rnd());
}

/** The `xrs` distinct steady deployments of a cadence run, encoded: `{name, bytes}` in call order. */
export function cadenceRequests(opts: { clusters: number; replicas: number; xrs: number }): Array<{ name: string; bytes: Uint8Array }> {
  const fleet = Array.from({ length: opts.clusters }, (_, i) => cluster(i));
  return Array.from({ length: opts.xrs }, (_, k) => {
    const xr = deployment(opts.replicas);
    xr.metadata = { ...xr.metadata, name: `cadence-${k}` };
    return { name: `cadence-${k}`, bytes: encodeRunFunctionRequest(request(steady({ xr, clusters: fleet, replicas: [], observed: {} }))) };
  });
}

/** Options of a cadence run. */
export interface CadenceOptions {
  clusters: number;
  replicas: number;
  xrs: number;
  calls: number;
  gaps: [number, number];
  seed: number;
}

/**
 * Runs the cadence against a started function from this (Node) process:
 * `calls` RunFunctions over `xrs` distinct steady deployments of `replicas`
 * replicas on `clusters` InferenceClusters, round robin, each after a seeded
 * idle gap. The requests are encoded before the first call; the first call
 * of each XR is made once untimed with no gap, as a warm process has served
 * every XR before.
 * @param call one RunFunction with encoded request bytes, resolving with the response bytes
 */
export async function cadenceRun(call: (bytes: Buffer) => Promise<Buffer>, opts: CadenceOptions): Promise<CadenceCall[]> {
  const xrs = cadenceRequests(opts).map((x) => ({ name: x.name, bytes: Buffer.from(x.bytes) }));
  for (const x of xrs) await call(x.bytes);
  const out: CadenceCall[] = [];
  for (const [i, gapS] of cadenceGaps(opts).entries()) {
    const x = xrs[i % xrs.length]!;
    await new Promise((r) => setTimeout(r, gapS * 1000));
    const t = performance.now();
    await call(x.bytes);
    out.push({ xr: x.name, gapS, ms: performance.now() - t });
  }
  return out;
}

/** A call of the Go client's run: {@link CadenceCall} (`ms` the RunFunction on the wire) plus core's Go marshal and unmarshal around it (ms). */
export interface GoCadenceCall extends CadenceCall {
  marshalMs: number;
  unmarshalMs: number;
}

/**
 * Builds tools/fn-client (a Go client that calls RunFunction as Crossplane
 * core does) into `.cache/bin/fn-client`; returns its path, or the reason it
 * cannot be built (no Go, or the build failed).
 */
export function buildFnClient(): { path: string } | { reason: string } {
  const path = join(REPO_ROOT, '.cache', 'bin', 'fn-client');
  try {
    execFileSync('go', ['build', '-o', path, '.'], { cwd: join(REPO_ROOT, 'tools', 'fn-client'), stdio: ['ignore', 'ignore', 'pipe'] });
    return { path };
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: Buffer };
    return { reason: e.code === 'ENOENT' ? "'go' is not on PATH" : `go build tools/fn-client failed: ${e.stderr?.toString().trim() ?? e.message}` };
  }
}

/**
 * The same cadence as {@link cadenceRun}, with the calls made by the Go
 * client `fnClient` (tools/fn-client) at `address`: Go's grpc client and
 * protobuf, idling between calls as core does. Blocks until the run ends.
 * @throws Error with the client's stderr when it fails
 */
export function cadenceRunGo(fnClient: string, address: string, opts: CadenceOptions): GoCadenceCall[] {
  const dir = mkdtempSync(join(tmpdir(), 'modelplane-cadence-'));
  try {
    const xrs = cadenceRequests(opts);
    const files = xrs.map((x, k) => {
      const f = join(dir, `${k}.bin`);
      writeFileSync(f, x.bytes);
      return f;
    });
    const gaps = cadenceGaps(opts).map((g) => g.toFixed(3));
    const out = execFileSync(fnClient, ['--address', address, '--gaps', gaps.join(','), ...files], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return out
      .trim()
      .split('\n')
      .map((line) => {
        const [k, gap, marshal, rpc, unmarshal] = line.split(' ').map(Number) as [number, number, number, number, number];
        return { xr: xrs[k]!.name, gapS: gap, ms: rpc, marshalMs: marshal, unmarshalMs: unmarshal };
      });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One report line: p50, p95 and max of a cadence run, and the p50 of the calls after gaps of at least 15 s. */
export function cadenceLine(label: string, calls: CadenceCall[]): string {
  const ms = calls.map((c) => c.ms);
  const long = calls.filter((c) => c.gapS >= 15).map((c) => c.ms);
  const f = (x: number) => x.toFixed(1);
  return `${label}: e2e p50 ${f(pct(ms, 50))} ms, p95 ${f(pct(ms, 95))}, max ${f(Math.max(...ms))} over ${calls.length} calls; after >= 15 s idle (${long.length}) p50 ${long.length ? f(pct(long, 50)) : '-'} ms`;
}

/** {@link cadenceLine} for a Go client's run, followed by what core's own Go protobuf work adds around each call (p50). */
export function goCadenceLine(label: string, calls: GoCadenceCall[]): string {
  const f = (x: number) => x.toFixed(1);
  const marshal = pct(calls.map((c) => c.marshalMs), 50);
  const unmarshal = pct(calls.map((c) => c.unmarshalMs), 50);
  const whole = pct(calls.map((c) => c.marshalMs + c.ms + c.unmarshalMs), 50);
  return `${cadenceLine(label, calls)}; core's Go marshal of the request p50 ${f(marshal)} ms and unmarshal of the response ${f(unmarshal)} ms come on top (all three: p50 ${f(whole)} ms)`;
}

/** Kills a started function and waits for it to exit. */
export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
