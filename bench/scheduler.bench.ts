/**
 * Fleet scheduler benchmark (`npm run bench -- scheduler`): RunFunction of
 * schedule-model-deployment over real gRPC on loopback, for fleets of 10, 100
 * and 1,000 InferenceClusters (4 pools each, 4 GPU classes) and deployments
 * of 1, 10 and 100 replicas: a Leader + Worker gang whose members use 3
 * distinct CEL selectors.
 *
 * Four scenarios per size: `fresh` (nothing placed yet: every replica is
 * filled), `steady` (every replica exists, observed Ready: retain only,
 * endpoints composed), the call Crossplane repeats every poll, and
 * `rollout` (8-GPU pools, single-GPU replicas packed by devices, every
 * replica of the previous engine Ready and retiring, maxSurge 25%: the call
 * keeps them all and places the surge), and `policy` (`fresh` with tiers by
 * capacity type, a 50% on-demand floor, `optimize: Cost` and an
 * InferenceQuota checked on every placement; against `fresh`, target within
 * 10%, measured again at the end with the two interleaved call by call, so
 * that the order of the table does not bias the ratio). Clusters publish an EFA fabric so the gang places.
 *
 * Printed per size: end-to-end p50/p95 (ms, from sending the encoded request
 * to receiving the encoded response: the function's gRPC server, protobuf
 * decode, compose, encode and the loopback transfer; the client's own
 * protobuf work is done outside the timing, as Crossplane does it in Go), the
 * p50 of `schedule()` alone in this process (the scheduling.ts phases), and
 * at the end the function process's RSS (idle after start, VmRSS and peak
 * VmHWM) and the 100 → 1,000 cluster time ratio; then the codec
 * micro-benchmark: our codec (functions/lib/wire/) beside the SDK's on the
 * 1,000-cluster × 100-replica steady request and its response, as ratios.
 * The request size is printed per row. Targets are printed beside the
 * figures; nothing is asserted (bench/run.ts).
 *
 * The function runs as production runs it (Dockerfile): the esbuild bundle
 * of `npm run build` (bench/image-build.ts, as bench/coldstart.bench.ts
 * builds it), started with plain
 * node on `functions/<f>/main.js`. `SCHEDULER_BENCH_TSX=1` runs it through
 * tsx instead (no build step; about 50 MiB more RSS for the in-process
 * transpiler).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { FunctionRunnerServiceService, type RunFunctionRequest, type RunFunctionResponse } from '@crossplane-org/function-sdk-typescript';
import type * as grpc from '@grpc/grpc-js';
import { dial, REPO_ROOT, spawnFunction } from '../cli/functions.js';
import { FUNCTION_NODE_FLAGS } from '../cli/node-flags.js';
import { celMatcher } from '../functions/lib/fleet/cel-matcher.js';
import { decodeRunFunctionResponse, encodeRunFunctionRequest } from '../functions/lib/wire/codec.js';
import { codecBench, codecBenchInOwnProcess } from './codec.js';
import { buildFnClient, CADENCE_CALLS, CADENCE_GAPS, cadenceLine, cadenceRun, cadenceRunGo, goCadenceLine, stop } from './scheduler-cadence.js';
import { buildImageFunctions } from './image-build.js';
import { pct } from './stats.js';
import { cluster, deployment, policyScenario, request, rolloutDeployment, type Scenario, steady } from './scheduler-fleet.js';
import { readQuota } from '../functions/lib/quota.js';
import { readFleet, readReplicas } from '../functions/lib/fleet/fleet.js';
import { QuotaBudget, readDeployment, schedule } from '../functions/schedule-model-deployment/compose.js';

/** `SCHEDULER_BENCH_FLEETS=1000` (comma-separated) runs only those fleet sizes. */
const FLEETS = (process.env['SCHEDULER_BENCH_FLEETS'] ?? '10,100,1000').split(',').map(Number);
const REPLICAS = [1, 10, 100];


/** CPU time (user + system) the process has used, in ms (from /proc/<pid>/stat, 100 Hz ticks). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function vm(pid: number): { rss: number; hwm: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(text)?.[1] ?? 0) / 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

const RUN = FunctionRunnerServiceService.runFunction.path;
const raw = (b: Buffer) => b;

/** One RunFunction with pre-encoded request bytes; resolves with the response bytes. */
function call(client: grpc.Client, bytes: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    client.makeUnaryRequest(RUN, raw, raw, bytes, { deadline: Date.now() + 60_000 }, (err, rsp) => (err || !rsp ? reject(err) : resolve(rsp))),
  );
}

export async function timeGrpc(
  client: grpc.Client,
  pid: number,
  req: RunFunctionRequest,
  n: number,
): Promise<{ times: number[]; cpu: number; rsp: RunFunctionResponse }> {
  const bytes = encodeRunFunctionRequest(req);
  let out = await call(client, bytes);
  for (let i = 0; i < 3; i++) out = await call(client, bytes);
  const times: number[] = [];
  const cpu0 = cpuMs(pid);
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    out = await call(client, bytes);
    times.push(performance.now() - t);
  }
  return { times, cpu: (cpuMs(pid) - cpu0) / n, rsp: decodeRunFunctionResponse(out) };
}

function timeSchedule(s: Scenario, n: number): number[] {
  const read = readDeployment(s.xr);
  if (!read.ok) throw new Error(read.errors.join('; '));
  const fleet = readFleet(s.clusters);
  const replicas = readReplicas(s.replicas);
  const quotas = (s.quotas ?? []).flatMap((q) => {
    const r = readQuota(q);
    return r.ok ? [r.quota] : [];
  });
  const times: number[] = [];
  for (let i = 0; i < n + 3; i++) {
    const t = performance.now();
    // A budget per call, as the function builds one per call.
    const quota = quotas.length > 0 ? new QuotaBudget(quotas, s.clusters, read.deployment) : undefined;
    schedule({ deployment: read.deployment, fleet, replicas, fill: true, matcher: celMatcher, ...(quota ? { quota } : {}) });
    if (i >= 3) times.push(performance.now() - t);
  }
  return times;
}

const f = (ms: number) => ms.toFixed(1).padStart(7);

/**
 * Bundles the functions as the image does (bench/image-build.ts) and starts
 * this one with node and the image's Node flags (cli/node-flags.ts, or
 * `flags`); resolves with its port.
 */
export function startCompiled(flags: readonly string[] = FUNCTION_NODE_FLAGS): Promise<{ child: ChildProcess; port: number }> {
  const main = buildImageFunctions('schedule-model-deployment', 'inherit');
  const child = spawn(process.execPath, [...flags, main, '--insecure', '--address', '127.0.0.1:0'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let log = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      const port = /"port":(\d+)/.exec(log)?.[1];
      if (port !== undefined) resolve({ child, port: Number(port) });
    });
    child.on('exit', (code) => reject(new Error(`${main} exited with ${code}`)));
  });
}

export default async function (): Promise<void> {
  const tsx = process.env['SCHEDULER_BENCH_TSX'] === '1';
  const t0 = performance.now();
  const { child, port } = tsx ? await spawnFunction('schedule-model-deployment') : await startCompiled();
  process.stdout.write(`function runtime: ${tsx ? 'tsx (TypeScript transpiled in process)' : 'node on the esbuild bundle, as in the image'}\n`);
  await new Promise((r) => setTimeout(r, 500));
  const idle = vm(child.pid!);
  process.stdout.write(`function idle RSS (started, no call yet): ${idle.rss.toFixed(0)} MiB; start ${(performance.now() - t0).toFixed(0)} ms incl. the build (cold start: bench coldstart)\n`);
  const client = dial(`127.0.0.1:${port}`);
  const p50 = new Map<string, number>();
  let biggest: { req: RunFunctionRequest; rsp: RunFunctionResponse } | undefined;
  try {
    process.stdout.write('scenario  clusters replicas  placed  req MB   e2e p50   e2e p95  fn CPU/call  schedule() p50   (ms)\n');
    for (const mode of ['fresh', 'steady', 'rollout', 'policy'] as const) {
      for (const n of FLEETS) {
        const clusters = Array.from({ length: n }, (_, i) => cluster(i));
        for (const r of REPLICAS) {
          let s: Scenario = { xr: deployment(r), clusters, replicas: [], observed: {} };
          if (mode === 'steady') s = steady(s);
          if (mode === 'policy') s = policyScenario(r, clusters);
          if (mode === 'rollout') s = { ...steady({ xr: rolloutDeployment(r, 'main'), clusters, replicas: [], observed: {} }), xr: rolloutDeployment(r, 'next') };
          const iterations = n >= 1000 ? 20 : 50;
          const req = request(s);
          const size = encodeRunFunctionRequest(req).length / 1e6;
          const { times, cpu, rsp } = await timeGrpc(client, child.pid!, req, iterations);
          if (mode === 'steady' && n === 1000 && r === 100) biggest = { req, rsp };
          const placed = Object.keys(rsp.desired?.resources ?? {}).filter((k) => k.startsWith('replica-')).length;
          const sched = timeSchedule(s, iterations);
          p50.set(`${mode}/${n}/${r}`, pct(times, 50));
          process.stdout.write(
            `${mode.padEnd(9)} ${String(n).padStart(8)} ${String(r).padStart(8)} ${String(placed).padStart(7)} ${size.toFixed(2).padStart(6)} ${f(pct(times, 50))}   ${f(pct(times, 95))}      ${f(cpu)}   ${f(pct(sched, 50))}\n`,
          );
        }
      }
    }
    const mem = vm(child.pid!);
    process.stdout.write(`function RSS: ${mem.rss.toFixed(0)} MiB now, ${mem.hwm.toFixed(0)} MiB peak over every size up to 1,000 clusters (target <= 150 MiB); idle ${idle.rss.toFixed(0)} MiB\n`);
    for (const mode of ['fresh', 'steady', 'rollout']) {
      if (!p50.has(`${mode}/1000/100`) || !p50.has(`${mode}/100/100`)) continue;
      const ratio = p50.get(`${mode}/1000/100`)! / p50.get(`${mode}/100/100`)!;
      process.stdout.write(`${mode}: 100 -> 1,000 clusters at 100 replicas, e2e p50 ratio ${ratio.toFixed(1)} (target <= 10)\n`);
    }
    for (const mode of ['fresh', 'steady']) {
      if (!p50.has(`${mode}/1000/100`)) continue;
      process.stdout.write(`${mode}: 1,000 clusters x 100 replicas e2e p50 ${p50.get(`${mode}/1000/100`)!.toFixed(1)} ms (target <= 40 ms)\n`);
    }
    const largest = Math.max(...FLEETS);
    await policyAgainstFresh(client, largest);
    if (CADENCE_CALLS > 0) await cadenceReport(client, port, p50.get('steady/1000/100'));
    if (biggest) {
      const label = 'steady 1,000 clusters x 100 replicas';
      codecBench(`${label}, in this process (the bench's ~200 MB of fleets live: every decode pays old-generation GC)`, biggest.req, biggest.rsp, 10, false);
      codecBenchInOwnProcess(`${label}, in a process holding only the request (as a function server does)`, biggest.req, biggest.rsp, 10);
    }
  } finally {
    client.close();
    child.kill('SIGTERM');
  }
}

/**
 * The policy target (within 10% of fresh at the largest fleet, 100
 * replicas), measured interleaved so that neither pays for what ran before
 * it (the table runs policy last, after the other scenarios grew the
 * function's heap): calls alternate fresh, policy, policy, fresh, ... and
 * schedule() alone alternates the same way in this process.
 */
async function policyAgainstFresh(client: grpc.Client, n: number): Promise<void> {
  const clusters = Array.from({ length: n }, (_, i) => cluster(i));
  const fresh: Scenario = { xr: deployment(100), clusters, replicas: [], observed: {} };
  const policy = policyScenario(100, clusters);
  const bytes = [encodeRunFunctionRequest(request(fresh)), encodeRunFunctionRequest(request(policy))] as const;
  for (let i = 0; i < 3; i++) for (const b of bytes) await call(client, b);
  const e2e: [number[], number[]] = [[], []];
  const core: [number[], number[]] = [[], []];
  const rounds = n >= 1000 ? 40 : 100;
  for (let i = 0; i < rounds; i++) {
    for (const k of i % 2 === 0 ? [0, 1] : [1, 0]) {
      const t = performance.now();
      await call(client, bytes[k]!);
      e2e[k]!.push(performance.now() - t);
      core[k]!.push(timeSchedule(k === 0 ? fresh : policy, 1)[0]!);
    }
  }
  const [fe, pe] = [pct(e2e[0], 50), pct(e2e[1], 50)];
  const [fc, pc] = [pct(core[0], 50), pct(core[1], 50)];
  process.stdout.write(
    `policy (tiers, floor, Cost, a quota) vs fresh, ${n.toLocaleString('en-US')} clusters x 100 replicas, ${rounds} calls each interleaved: ` +
      `e2e p50 ${pe.toFixed(1)} vs ${fe.toFixed(1)} ms, ratio ${(pe / fe).toFixed(2)} (target <= 1.10); schedule() p50 ${pc.toFixed(2)} vs ${fc.toFixed(2)} ms\n`,
  );
}

/**
 * The cadence rows (bench/scheduler-cadence.ts): 1,000 clusters x 100
 * replicas, 10 distinct XRs in turn with seeded idle gaps, on the function
 * started as the image starts it (listening on `port`), called first by the
 * Go client that calls as core does (tools/fn-client; skipped with the reason
 * where Go is missing), then by this process's Node client; with
 * `SCHEDULER_CADENCE_COMPARE=1` also on a second process started without
 * the image's Node flags.
 */
async function cadenceReport(client: grpc.Client, port: number, steadyP50: number | undefined): Promise<void> {
  const [lo, hi] = CADENCE_GAPS;
  const opts = { clusters: 1000, replicas: 100, xrs: 10, calls: CADENCE_CALLS, gaps: CADENCE_GAPS, seed: 25 };
  process.stdout.write(`cadence: 1,000 clusters x 100 replicas, 10 distinct XRs in turn, ${CADENCE_CALLS} calls after idle gaps of ${lo}-${hi} s (log-uniform, seeded)\n`);
  const target = ` (target <= 40 ms p50; steady ${steadyP50?.toFixed(1) ?? '-'} ms)\n`;
  const go = buildFnClient();
  const runs: Array<[string, grpc.Client, number]> = [[`node ${FUNCTION_NODE_FLAGS.join(' ')} (the image's flags)`, client, port]];
  let bare: ChildProcess | undefined;
  if (process.env['SCHEDULER_CADENCE_COMPARE'] === '1') {
    const started = await startCompiled([]);
    bare = started.child;
    runs.push(['node with no flags', dial(`127.0.0.1:${started.port}`), started.port]);
  }
  try {
    for (const [label, c, p] of runs) {
      if ('path' in go) process.stdout.write(goCadenceLine(`${label}, Go client as core calls`, cadenceRunGo(go.path, `127.0.0.1:${p}`, opts)) + target);
      else process.stdout.write(`${label}, Go client: skipped, ${go.reason}\n`);
      process.stdout.write(cadenceLine(`${label}, this Node process as client`, await cadenceRun((bytes) => call(c, bytes), opts)) + target);
    }
  } finally {
    if (bare) {
      runs[1]![1].close();
      await stop(bare);
    }
  }
}
