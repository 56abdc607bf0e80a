/**
 * The scheduler at Crossplane's cadence (bench/scheduler.bench.ts, after the
 * warm-loop table): a real core does not call a function with the same
 * request back to back. It reconciles different XRs in turn, each when a
 * watch fires or its poll comes round, with idle gaps of seconds to a minute
 * between calls to one function (as on the dev control plane). The gaps cost
 * what a warm loop never shows: V8's idle-time memory reducer, which after a
 * few idle seconds runs full collections that shrink the heap and age
 * compiled code (the image turns it off, cli/node-flags.ts), and more that
 * is not yet explained (README "Performance"); distinct XRs, measured apart,
 * cost nothing.
 *
 * {@link cadenceRun} calls RunFunction with `xrs` distinct ModelDeployments
 * (each `replicas` replicas, steady over the same fleet) in turn, sleeping a
 * seeded gap drawn log-uniformly from [`minGapS`, `maxGapS`] seconds before
 * each call (mean about 14 s for 1–60 s), and returns each call's end-to-end
 * time with the gap before it. Nothing is asserted (bench/run.ts).
 */
import type { ChildProcess } from 'node:child_process';
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

/**
 * Runs the cadence against a started function: `calls` RunFunctions over
 * `xrs` distinct steady deployments of `replicas` replicas on `clusters`
 * InferenceClusters, round robin, each after a seeded idle gap. The requests
 * are encoded before the first call (as core encodes in Go, outside the
 * function's time); the first call of each XR is made once untimed with no
 * gap, as a warm process has served every XR before.
 * @param call one RunFunction with encoded request bytes, resolving with the response bytes
 */
export async function cadenceRun(
  call: (bytes: Buffer) => Promise<Buffer>,
  opts: { clusters: number; replicas: number; xrs: number; calls: number; gaps: [number, number]; seed: number },
): Promise<CadenceCall[]> {
  const fleet = Array.from({ length: opts.clusters }, (_, i) => cluster(i));
  const xrs = Array.from({ length: opts.xrs }, (_, k) => {
    const xr = deployment(opts.replicas);
    xr.metadata = { ...xr.metadata, name: `cadence-${k}` };
    return { name: `cadence-${k}`, bytes: encodeRunFunctionRequest(request(steady({ xr, clusters: fleet, replicas: [], observed: {} }))) };
  });
  for (const x of xrs) await call(x.bytes);
  const rnd = mulberry32(opts.seed);
  const [lo, hi] = opts.gaps;
  const out: CadenceCall[] = [];
  for (let i = 0; i < opts.calls; i++) {
    const x = xrs[i % xrs.length]!;
    const gapS = lo * (hi / lo) ** rnd();
    await new Promise((r) => setTimeout(r, gapS * 1000));
    const t = performance.now();
    await call(x.bytes);
    out.push({ xr: x.name, gapS, ms: performance.now() - t });
  }
  return out;
}

/** One report line: p50, p95 and max of a cadence run, and the p50 of the calls after gaps of at least 15 s. */
export function cadenceLine(label: string, calls: CadenceCall[]): string {
  const ms = calls.map((c) => c.ms);
  const long = calls.filter((c) => c.gapS >= 15).map((c) => c.ms);
  const f = (x: number) => x.toFixed(1);
  return `${label}: e2e p50 ${f(pct(ms, 50))} ms, p95 ${f(pct(ms, 95))}, max ${f(Math.max(...ms))} over ${calls.length} calls; after >= 15 s idle (${long.length}) p50 ${long.length ? f(pct(long, 50)) : '-'} ms`;
}

/** Kills a started function and waits for it to exit. */
export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
