/**
 * The capacity ledger at fleet scale (docs/design.md#the-capacity-ledger;
 * `npm run bench -- ledger`).
 *
 * A generated fleet of 1,000 InferenceClusters (bench/scheduler-fleet.ts: 4
 * pools of 10 nodes, 8 GPUs a node) and 1,000 ModelDeployments × 10 replicas
 * (a Leader + Worker gang each, spread one replica per cluster: every cluster
 * holds 10 replicas of 10 deployments). The replicas are what the scheduler
 * composes for each deployment; the clusters' ledgers are what their function
 * publishes from them (lib/fleet/cluster-usage.ts).
 *
 * Printed, for the steady call of one deployment (its 10 replicas observed
 * Ready):
 * - the request size before the ledger (the old shape, built here: the clusters
 *   and every ModelReplica of the fleet under `all-replicas`) and after (the
 *   clusters with their ledgers and the deployment's `own-replicas`);
 * - RunFunction end-to-end p50 over real gRPC against the function as the
 *   image runs it (bench/scheduler.bench.ts startCompiled), for both
 *   requests. Today's function ignores `all-replicas`, so the "before" call
 *   times the wire (encode, transfer, decode of the 10,000 replicas) and our
 *   compose; the whole-fleet accounting the old compose did on top
 *   (readReplicas + buildCapacity over every replica) is timed in process
 *   and printed beside it, so before ≈ the sum of the two.
 * Then `modelplane plan` of a generated 1,000-cluster × 200-deployment fleet
 * (bench/fleet.ts) in a fresh process: wall time and peak RSS beside the
 * targets (60 s, 1 GiB). Nothing is asserted (bench/run.ts).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ready, RunFunctionRequest } from '@crossplane-org/function-sdk-typescript';
import * as grpc from '@grpc/grpc-js';
import { withUsage } from '../functions/lib/fleet/cluster-usage.js';
import type { JsonObject, KubeObject } from '../functions/lib/function.js';
import { encodeRunFunctionRequest } from '../functions/lib/wire/codec.js';
import { buildCapacity } from '../functions/lib/fleet/capacity.js';
import { celMatcher } from '../functions/lib/fleet/cel-matcher.js';
import { composeWith, REQ_REPLICAS } from '../functions/schedule-model-deployment/compose.js';
import { readFleet, readReplicas } from '../functions/lib/fleet/fleet.js';
import { writeFleet } from './fleet.js';
import { planOnce } from './plan.bench.js';
import { startCompiled, timeGrpc } from './scheduler.bench.js';
import { pct } from './stats.js';
import { cluster, deployment } from './scheduler-fleet.js';

const CLUSTERS = Number(process.env['LEDGER_BENCH_CLUSTERS'] ?? 1000);
const DEPLOYMENTS = Number(process.env['LEDGER_BENCH_DEPLOYMENTS'] ?? 1000);
const REPLICAS = 10;
const PLAN = { clusters: 1000, deployments: 200, services: 20 };
const READY = { conditions: [{ type: 'Ready', status: 'True', reason: 'Available' }] };

/** Deployment `j` of the fleet: the bench gang, named `dep-<j>`. */
function dep(j: number): KubeObject {
  const d = deployment(REPLICAS);
  return { ...d, metadata: { name: `dep-${String(j).padStart(4, '0')}`, namespace: 'ml-team' } };
}

/** A cluster without a ledger (the status before clusters published one). */
function bare(c: KubeObject): KubeObject {
  const status = c['status'] as JsonObject;
  const pools = (status['gpuPools'] as JsonObject[]).map(({ used: _u, ...p }) => p);
  return { ...c, status: { ...status, gpuPools: pools } };
}

interface Fleet {
  clusters: KubeObject[];
  /** Per deployment: its replicas as composed, observed Ready, by desired key. */
  replicas: Map<number, Record<string, KubeObject>>;
}

/** Places every deployment on its own 10 clusters (j·10 … j·10+9, mod the fleet), as the scheduler composes them. */
export function generate(): Fleet {
  const base = Array.from({ length: CLUSTERS }, (_, i) => bare(cluster(i)));
  const empty = base.map((c) => ({ ...c, status: { ...(c['status'] as JsonObject), gpuPools: withUsage((c['status'] as JsonObject)['gpuPools'] as JsonObject[], { state: 'absent' }, c.metadata!.name!, c) } }));
  const replicas = new Map<number, Record<string, KubeObject>>();
  const onCluster = new Map<string, KubeObject[]>();
  for (let j = 0; j < DEPLOYMENTS; j++) {
    const mine = Array.from({ length: REPLICAS }, (_, k) => empty[(j * REPLICAS + k) % CLUSTERS]!);
    const out = composeWith({ composite: dep(j), observed: {}, desired: {}, required: { clusters: mine, [REQ_REPLICAS]: [] }, context: {}, credentials: {} }, celMatcher);
    const observed: Record<string, KubeObject> = {};
    for (const [key, r] of Object.entries(out.resources)) {
      if (!key.startsWith('replica-')) continue;
      const obj = { ...structuredClone(r.resource), status: READY };
      observed[key] = obj;
      const c = obj.metadata!.labels!['modelplane.ai/cluster']!;
      onCluster.set(c, [...(onCluster.get(c) ?? []), obj]);
    }
    replicas.set(j, observed);
  }
  const clusters = base.map((c) => {
    const name = c.metadata!.name!;
    const items = onCluster.get(name) ?? [];
    const status = c['status'] as JsonObject;
    const read = items.length > 0 ? { state: 'present' as const, items } : { state: 'absent' as const };
    return { ...c, status: { ...status, gpuPools: withUsage(status['gpuPools'] as JsonObject[], read, name, c) } };
  });
  return { clusters, replicas };
}

function rfr(xr: KubeObject, observed: Record<string, KubeObject>, required: Record<string, KubeObject[]>): RunFunctionRequest {
  const items = (objs: KubeObject[]) => ({ items: objs.map((o) => ({ resource: o, connectionDetails: {}, ready: Ready.READY_UNSPECIFIED })) });
  const resources: Record<string, { resource: KubeObject; connectionDetails: Record<string, Buffer>; ready: Ready }> = {};
  for (const [k, o] of Object.entries(observed)) resources[k] = { resource: o, connectionDetails: {}, ready: Ready.READY_UNSPECIFIED };
  return RunFunctionRequest.fromPartial({
    meta: { tag: 'bench-ledger' },
    observed: { composite: { resource: xr, connectionDetails: {}, ready: Ready.READY_UNSPECIFIED }, resources },
    desired: { resources: {} },
    context: {},
    requiredResources: Object.fromEntries(Object.entries(required).map(([k, v]) => [k, items(v)])),
  });
}

const mb = (n: number) => `${(n / 1e6).toFixed(2)} MB`;

export default async function (): Promise<void> {
  const t0 = performance.now();
  const fleet = generate();
  const all = [...fleet.replicas.values()].flatMap((r) => Object.values(r));
  process.stdout.write(`fleet: ${CLUSTERS} clusters, ${DEPLOYMENTS} deployments x ${REPLICAS} replicas = ${all.length} ModelReplicas (generated in ${(performance.now() - t0).toFixed(0)} ms)\n`);

  const j = 0;
  const xr = dep(j);
  const own = fleet.replicas.get(j)!;
  const before = rfr(xr, own, { clusters: fleet.clusters.map(bare), 'all-replicas': all });
  const after = rfr(xr, own, { clusters: fleet.clusters, [REQ_REPLICAS]: Object.values(own) });
  const sizeBefore = encodeRunFunctionRequest(before).length;
  const sizeAfter = encodeRunFunctionRequest(after).length;
  const clustersOnly = encodeRunFunctionRequest(rfr(xr, own, { clusters: fleet.clusters })).length;
  process.stdout.write(
    `request of one deployment (steady, ${REPLICAS} replicas observed): before ${mb(sizeBefore)} (clusters + all-replicas: ${all.length} replicas), ` +
      `after ${mb(sizeAfter)} (clusters with ledgers + own-replicas: ${REPLICAS}); ${(sizeBefore / sizeAfter).toFixed(1)}x smaller; ` +
      `the clusters alone (with ledgers) ${mb(clustersOnly)}\n`,
  );

  const { child, port } = await startCompiled();
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), {
    'grpc.max_receive_message_length': 256 * 1024 * 1024,
    'grpc.max_send_message_length': 256 * 1024 * 1024,
  });
  try {
    const b = await timeGrpc(client, child.pid!, before, 10);
    const a = await timeGrpc(client, child.pid!, after, 20);
    const placed = (rsp: typeof a.rsp) => Object.keys(rsp.desired?.resources ?? {}).filter((k) => k.startsWith('replica-')).length;
    // What the old compose did on top: read every replica and charge them all (the whole-fleet accounting).
    const oldFleet = readFleet(fleet.clusters.map(bare)).clusters;
    const acct: number[] = [];
    for (let i = 0; i < 8; i++) {
      const t = performance.now();
      buildCapacity(oldFleet, readReplicas(all), () => true);
      acct.push(performance.now() - t);
    }
    process.stdout.write(
      `RunFunction e2e p50 over gRPC: before ${pct(b.times, 50).toFixed(1)} ms (wire + decode of the old-shape request; ${placed(b.rsp)} replicas kept) ` +
        `+ ${pct(acct, 50).toFixed(1)} ms old whole-fleet accounting (readReplicas + buildCapacity over ${all.length} replicas, in process) ` +
        `= ~${(pct(b.times, 50) + pct(acct, 50)).toFixed(0)} ms; after ${pct(a.times, 50).toFixed(1)} ms (${placed(a.rsp)} replicas kept); ` +
        `fn CPU/call before ${b.cpu.toFixed(0)} ms, after ${a.cpu.toFixed(0)} ms\n`,
    );
  } finally {
    client.close();
    child.kill('SIGTERM');
  }

  if (process.env['LEDGER_BENCH_PLAN'] === '0') return;
  const dir = mkdtempSync(join(tmpdir(), 'mp-ledger-fleet-'));
  writeFleet(dir, PLAN);
  const p = planOnce(dir, process.env['LEDGER_BENCH_PROF'] ? { NODE_OPTIONS: '--cpu-prof --cpu-prof-dir=.cache/ledger-prof' } : {});
  process.stdout.write(
    `plan of ${PLAN.clusters} clusters x ${PLAN.deployments} deployments (${PLAN.services} services): wall ${(p.ms / 1000).toFixed(1)} s [target <= 60 s], ` +
      `peak RSS ${p.rssMiB.toFixed(0)} MiB [target <= 1024 MiB]; ${p.summary}\n`,
  );
}
