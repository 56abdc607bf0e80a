/**
 * The capacity ledger (issue 17, spec/README.md item 17): what the
 * ModelReplicas on one InferenceCluster hold in each of its pools, published
 * by the cluster's own function as `status.gpuPools[].used`, so that a
 * ModelDeployment's scheduler charges other deployments from the clusters
 * instead of requiring every ModelReplica of the fleet.
 *
 * Shape (per pool; units: nodes, devices):
 *   used: { nodes, devices: [{name, count}], holders: [{namespace, deployment,
 *           pods: [{count, devices: [{name, count}], wholeNode?}]}] }
 * - `holders`: one per owning deployment (namespace, label
 *   modelplane.ai/deployment), sorted by (namespace, deployment); its pods are
 *   runs of identical pods in the order capacity.ts charges them (its
 *   replicas by name, then engines, members and pods in spec order). Only
 *   claiming members hold anything (model-side.md §3.4).
 * - `nodes` and `devices` are the totals of charging every holder in that
 *   order into the pool ({@link PoolCapacity}, first fit): for people and
 *   `modelplane plan`; the scheduler charges from `holders`.
 *
 * The one accounting rule, both sides: {@link chargeLedger} charges a pool
 * holder by holder in (namespace, deployment) order; the scheduler puts its
 * own replicas in its own slot (replacing what the ledger says it holds, so
 * nothing is counted twice and a replica the cluster has not seen yet is
 * still charged). With an up-to-date ledger the scheduler's view of a pool
 * is exactly the cluster's.
 *
 * Lenient and total: a holder entry that names a device the pool does not
 * publish charges nothing for that device (as a stamped claim with no
 * matching device did before); `used` that is not an object is "not
 * published". The XRD's schema check (fleet.ts) catches garbage before.
 */
import type { JsonObject } from '../lib/function.js';
import { type Capacity, observedPods, type PodDemand, PoolCapacity } from './capacity.js';
import type { FleetCluster, LedgerHolder, ObservedReplica, Pool, PoolDevice, PoolLedger } from './model.js';

/** A deployment's identity in the ledger: (namespace, deployment). */
export interface Holder {
  namespace: string;
  deployment: string;
}

function holderKey(h: Holder): string {
  return `${h.namespace}\u0000${h.deployment}`;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sameDemand(a: PodDemand, b: PodDemand): boolean {
  return a.whole === b.whole && a.devices.length === b.devices.length && a.devices.every(([i, n], k) => b.devices[k]![0] === i && b.devices[k]![1] === n);
}

/** The pods `replicas` (already sorted by name) hold on `pool`, as runs of identical demands, in charge order. */
export function holdingRuns(pool: Pool, replicas: readonly ObservedReplica[]): LedgerHolder['runs'] {
  const runs: LedgerHolder['runs'] = [];
  for (const r of replicas) {
    for (const e of r.engines) {
      for (const m of e.members) {
        if (m.claims.length === 0 || m.nodePoolName !== pool.name) continue;
        for (const d of observedPods(pool, m)) {
          const last = runs[runs.length - 1];
          if (last !== undefined && sameDemand(last, d)) last.count++;
          else runs.push({ count: 1, devices: d.devices.map(([i, n]) => [i, n] as const), whole: d.whole });
        }
      }
    }
  }
  return runs;
}

function chargeRuns(cap: PoolCapacity, runs: LedgerHolder['runs']): void {
  for (const run of runs) {
    const d: PodDemand = { devices: run.devices, whole: run.whole };
    for (let i = 0; i < run.count; i++) cap.force(d);
  }
}

/**
 * Charges `cap` holder by holder in (namespace, deployment) order from
 * `holders`, except `self`, whose slot charges `ownRuns` instead (when given).
 */
export function chargeLedger(cap: PoolCapacity, holders: readonly LedgerHolder[], self?: { holder: Holder; runs: LedgerHolder['runs'] }): void {
  const selfKey = self === undefined ? undefined : holderKey(self.holder);
  let selfDone = self === undefined;
  for (const h of holders) {
    const key = holderKey(h);
    if (!selfDone && cmp(selfKey!, key) <= 0) {
      chargeRuns(cap, self!.runs);
      selfDone = true;
    }
    if (key === selfKey) continue;
    chargeRuns(cap, h.runs);
  }
  if (!selfDone) chargeRuns(cap, self!.runs);
}

/**
 * The ledger of one pool from the replicas on its cluster (any deployment,
 * sorted by (namespace, name)): the `used` object the InferenceCluster publishes.
 */
export function poolLedger(pool: Pool, replicas: readonly ObservedReplica[]): JsonObject {
  const groups = new Map<string, { holder: Holder; replicas: ObservedReplica[] }>();
  for (const r of replicas) {
    const holder = { namespace: r.namespace, deployment: r.deployment };
    const key = holderKey(holder);
    let g = groups.get(key);
    if (g === undefined) {
      g = { holder, replicas: [] };
      groups.set(key, g);
    }
    g.replicas.push(r);
  }
  const holders: LedgerHolder[] = [];
  for (const key of [...groups.keys()].sort(cmp)) {
    const g = groups.get(key)!;
    const runs = holdingRuns(pool, g.replicas);
    if (runs.length > 0) holders.push({ ...g.holder, runs });
  }
  const cap = new PoolCapacity(pool);
  chargeLedger(cap, holders);
  const name = (i: number) => pool.devices[i]?.name ?? '';
  const devices = cap
    .usedDevices()
    .map((count, i) => ({ name: name(i), count }))
    .filter((d) => d.count > 0);
  return {
    nodes: Math.max(0, cap.usedNodes),
    devices,
    holders: holders.map((h) => ({
      namespace: h.namespace,
      deployment: h.deployment,
      pods: h.runs.map((run) => {
        const pod: JsonObject = { count: run.count, devices: run.devices.map(([i, n]) => ({ name: name(i), count: n })) };
        if (run.whole) pod['wholeNode'] = true;
        return pod;
      }),
    })),
  };
}

function arr(v: unknown): JsonObject[] {
  // a loop, not filter(): Array.prototype.filter takes a slow path on frozen arrays (plan's store objects)
  const out: JsonObject[] = [];
  if (!Array.isArray(v)) return out;
  for (let i = 0; i < v.length; i++) {
    const x: unknown = v[i];
    if (typeof x === 'object' && x !== null && !Array.isArray(x)) out.push(x as JsonObject);
  }
  return out;
}

/** Reads a published `gpuPools[].used` against the pool's `devices`; undefined when not published (not an object). */
export function readLedger(raw: unknown, devices: readonly PoolDevice[]): PoolLedger | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const published = arr((raw as JsonObject)['holders']);
  if (published.length === 0) return { holders: [] }; // nothing held: no device index to build
  const index = new Map<string, number>();
  devices.forEach((d, i) => {
    if (typeof d?.name === 'string' && !index.has(d.name)) index.set(d.name, i);
  });
  const holders: LedgerHolder[] = published.map((h) => ({
    namespace: typeof h['namespace'] === 'string' ? h['namespace'] : '',
    deployment: typeof h['deployment'] === 'string' ? h['deployment'] : '',
    runs: arr(h['pods']).map((p) => ({
      count: typeof p['count'] === 'number' && p['count'] > 0 ? Math.floor(p['count']) : 0,
      whole: p['wholeNode'] === true,
      devices: arr(p['devices']).flatMap((d) => {
        const i = typeof d['name'] === 'string' ? index.get(d['name']) : undefined;
        const n = typeof d['count'] === 'number' && d['count'] > 0 ? Math.floor(d['count']) : 0;
        return i === undefined ? [] : [[i, n] as const];
      }),
    })),
  }));
  holders.sort((a, b) => cmp(holderKey(a), holderKey(b)));
  return { holders };
}

/** The first pool of `cluster` that publishes no ledger yet, or undefined. */
export function unpublishedLedger(cluster: FleetCluster): string | undefined {
  return cluster.pools.find((p) => p.used === undefined)?.name;
}

/**
 * The free capacity of every cluster for deployment `self`: each pool
 * charged from its published ledger, with `self`'s own slot replaced by
 * `ours` (this deployment's replicas, sorted by name) that `charged`
 * accepts. A pool without a ledger is charged with ours only (it takes no
 * new replica anyway: scheduling.ts refuses the cluster).
 */
export function ledgerCapacity(
  clusters: readonly FleetCluster[],
  ours: readonly ObservedReplica[],
  charged: (r: ObservedReplica) => boolean,
  self: Holder,
): Capacity {
  const byCluster = new Map<string, ObservedReplica[]>();
  for (const r of ours) {
    if (r.engines.length === 0 || !charged(r)) continue;
    const list = byCluster.get(r.clusterName) ?? [];
    list.push(r);
    byCluster.set(r.clusterName, list);
  }
  const out: Capacity = new Map();
  for (const c of clusters) {
    const mine = byCluster.get(c.name) ?? [];
    out.set(
      c.name,
      c.pools.map((p) => {
        const cap = new PoolCapacity(p);
        chargeLedger(cap, p.used?.holders ?? [], { holder: self, runs: holdingRuns(p, mine) });
        return cap;
      }),
    );
  }
  return out;
}

const isObj = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown, min: number): boolean => typeof v === 'number' && Number.isInteger(v) && v >= min;

function countedEntries(v: unknown, at: string): string | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v)) return `${at}: expected an array`;
  if (v.length > 16) return `${at}: at most 16 items, got ${v.length}`;
  for (const [i, d] of v.entries()) {
    if (!isObj(d)) return `${at}[${i}]: expected an object`;
    if (typeof d['name'] !== 'string') return `${at}[${i}].name: expected a string`;
    if (!isInt(d['count'], 0)) return `${at}[${i}].count: expected an integer >= 0`;
  }
  return undefined;
}

/**
 * Why a published `gpuPools[].used` does not have the XRD's shape, as
 * `<field path below used>: <problem>` (`.nodes: expected an integer >= 0`),
 * or undefined. Written out rather than through the generated zod schema:
 * every call reads every cluster's ledger, and this walk is several times
 * cheaper (bench ledger). Unknown fields are not checked (the API server
 * prunes them from status).
 */
export function ledgerProblem(used: unknown): string | undefined {
  if (!isObj(used)) return ': expected an object';
  if (!isInt(used['nodes'], 0)) return '.nodes: expected an integer >= 0';
  const devices = countedEntries(used['devices'], '.devices');
  if (devices !== undefined) return devices;
  const holders = used['holders'];
  if (holders === undefined) return undefined;
  if (!Array.isArray(holders)) return '.holders: expected an array';
  for (const [i, h] of holders.entries()) {
    const at = `.holders[${i}]`;
    if (!isObj(h)) return `${at}: expected an object`;
    if (typeof h['namespace'] !== 'string') return `${at}.namespace: expected a string`;
    if (typeof h['deployment'] !== 'string') return `${at}.deployment: expected a string`;
    if (!Array.isArray(h['pods'])) return `${at}.pods: expected an array`;
    for (const [k, p] of (h['pods'] as unknown[]).entries()) {
      if (!isObj(p)) return `${at}.pods[${k}]: expected an object`;
      if (!isInt(p['count'], 1)) return `${at}.pods[${k}].count: expected an integer >= 1`;
      if (p['wholeNode'] !== undefined && typeof p['wholeNode'] !== 'boolean') return `${at}.pods[${k}].wholeNode: expected a boolean`;
      const d = countedEntries(p['devices'], `${at}.pods[${k}].devices`);
      if (d !== undefined) return d;
    }
  }
  return undefined;
}
