/**
 * The capacity ledger (docs/design.md#the-capacity-ledger): what the
 * ModelReplicas on one InferenceCluster hold in each of its pools, published
 * by the cluster's own function as `status.gpuPools[].used`, so that a
 * ModelDeployment's scheduler charges other deployments from the clusters
 * instead of requiring every ModelReplica of the fleet.
 *
 * Shape (per pool; units: nodes, devices):
 *   used: { nodes, devices: [{name, count}], holders: [{namespace, deployment,
 *           pods: [{replica, count, devices: [{name, count}], wholeNode?,
 *                   placed?, overCapacity?}]}] }
 * - `holders`: one per owning deployment (namespace, label
 *   modelplane.ai/deployment), sorted by (namespace, deployment); its pods are
 *   runs of identical pods of one replica (`replica`, its name; `placed`, its
 *   creationTimestamp), replica by replica in arrival order, a replica's
 *   pods in the order capacity.ts charges them (engines, members and pods in
 *   spec order). Only claiming members hold anything (docs/kinds/modeldeployment.md#capacity).
 * - `overCapacity: true`: the replica is not Ready and did not fit after
 *   every older replica of the pool (arrival.ts): its pods are Pending and
 *   hold nothing; its scheduler re-places it.
 * - `nodes` and `devices` are the totals of charging every holder in arrival
 *   order into the pool ({@link PoolCapacity}, first fit): for people and
 *   `modelplane plan`; the scheduler charges from `holders`.
 *
 * The one accounting rule, both sides: arrival order (arrival.ts). The
 * scheduler puts its own replicas in place of its own entry (so nothing is
 * counted twice and a replica the cluster has not seen yet is still
 * charged), and charges the others as the cluster decided. With an
 * up-to-date ledger the scheduler's view of a pool is exactly the cluster's.
 *
 * Lenient and total: a holder entry that names a device the pool does not
 * publish charges nothing for that device (as a stamped claim with no
 * matching device did before); `used` that is not an object is "not
 * published". The XRD's schema check (fleet.ts) catches garbage before.
 */
import type { JsonObject } from '../function.js';
import { chargeSlots, compareSlots, type Slot } from './arrival.js';
import { type Capacity, observedPods, type PodDemand, PoolCapacity } from './capacity.js';
import type { FleetCluster, LedgerHolder, LedgerRun, ObservedReplica, Pool, PoolDevice, PoolLedger } from './model.js';

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

/** The pods replica `r` holds on `pool`, as runs of identical demands in order, each naming the replica. */
export function holdingRuns(pool: Pool, r: ObservedReplica): LedgerRun[] {
  const runs: LedgerRun[] = [];
  for (const e of r.engines) {
    for (const m of e.members) {
      if (m.claims.length === 0 || m.nodePoolName !== pool.name) continue;
      for (const d of observedPods(pool, m)) {
        const last = runs[runs.length - 1];
        if (last !== undefined && sameDemand(last, d)) last.count++;
        else {
          const run: LedgerRun = { count: 1, devices: d.devices.map(([i, n]) => [i, n] as const), whole: d.whole, replica: r.name };
          if (r.created !== '') run.placed = r.created;
          runs.push(run);
        }
      }
    }
  }
  return runs;
}

function podsOf(runs: readonly LedgerRun[]): PodDemand[] {
  const pods: PodDemand[] = [];
  for (const run of runs) {
    const d: PodDemand = { devices: run.devices, whole: run.whole };
    for (let i = 0; i < run.count; i++) pods.push(d);
  }
  return pods;
}

/** Our replica's slot: charged as it runs when Ready, only if it fits otherwise (arrival.ts). */
function replicaSlot(pool: Pool, r: ObservedReplica): { slot: Slot; runs: LedgerRun[] } {
  const runs = holdingRuns(pool, r);
  return { runs, slot: { placed: r.created, namespace: r.namespace, deployment: r.deployment, replica: r.name, pods: podsOf(runs), mode: r.ready ? 'force' : 'fit' } };
}

/**
 * A published holder's slots, one per replica (consecutive runs naming the
 * same replica and time): charged as the cluster decided, its over-capacity
 * runs skipped (`skip`).
 */
export function publishedSlots(h: LedgerHolder): Slot[] {
  const slots: Slot[] = [];
  let last: { replica: string | undefined; placed: string | undefined; over: boolean } | undefined;
  for (const run of h.runs) {
    const over = run.overCapacity === true;
    const prev = slots[slots.length - 1];
    if (prev !== undefined && last !== undefined && last.replica === run.replica && last.placed === run.placed && last.over === over) {
      prev.pods.push(...podsOf([run]));
      continue;
    }
    slots.push({ placed: run.placed ?? '', namespace: h.namespace, deployment: h.deployment, replica: run.replica ?? '', pods: podsOf([run]), mode: over ? 'skip' : 'force' });
    last = { replica: run.replica, placed: run.placed, over };
  }
  return slots;
}

/**
 * The ledger of one pool from the replicas on its cluster (any deployment,
 * sorted by (namespace, name)): the `used` object the InferenceCluster
 * publishes, every replica charged in arrival order (arrival.ts).
 */
export function poolLedger(pool: Pool, replicas: readonly ObservedReplica[]): JsonObject {
  const held: { r: ObservedReplica; runs: LedgerRun[]; slot: Slot }[] = [];
  for (const r of replicas) {
    const { runs, slot } = replicaSlot(pool, r);
    if (runs.length > 0) held.push({ r, runs, slot });
  }
  const cap = new PoolCapacity(pool);
  const holds = chargeSlots(
    cap,
    held.map((h) => h.slot),
  );
  held.forEach((h, i) => {
    if (!holds[i]) for (const run of h.runs) run.overCapacity = true;
  });
  const groups = new Map<string, { holder: Holder; held: typeof held }>();
  for (const h of held) {
    const holder = { namespace: h.r.namespace, deployment: h.r.deployment };
    const key = holderKey(holder);
    let g = groups.get(key);
    if (g === undefined) {
      g = { holder, held: [] };
      groups.set(key, g);
    }
    g.held.push(h);
  }
  const name = (i: number) => pool.devices[i]?.name ?? '';
  const devices = cap
    .usedDevices()
    .map((count, i) => ({ name: name(i), count }))
    .filter((d) => d.count > 0);
  const holders = [...groups.keys()].sort(cmp).map((key) => {
    const g = groups.get(key)!;
    const inOrder = [...g.held].sort((x, y) => compareSlots(x.slot, y.slot));
    return {
      namespace: g.holder.namespace,
      deployment: g.holder.deployment,
      pods: inOrder.flatMap((h) =>
        h.runs.map((run) => {
          const pod: JsonObject = { replica: run.replica ?? '', count: run.count, devices: run.devices.map(([i, n]) => ({ name: name(i), count: n })) };
          if (run.whole) pod['wholeNode'] = true;
          if (run.placed !== undefined) pod['placed'] = run.placed;
          if (run.overCapacity) pod['overCapacity'] = true;
          return pod;
        }),
      ),
    };
  });
  return { nodes: Math.max(0, cap.usedNodes), devices, holders };
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
    runs: arr(h['pods']).map((p) => {
      const run: LedgerRun = {
        count: typeof p['count'] === 'number' && p['count'] > 0 ? Math.floor(p['count']) : 0,
        whole: p['wholeNode'] === true,
        devices: arr(p['devices']).flatMap((d) => {
          const i = typeof d['name'] === 'string' ? index.get(d['name']) : undefined;
          const n = typeof d['count'] === 'number' && d['count'] > 0 ? Math.floor(d['count']) : 0;
          return i === undefined ? [] : [[i, n] as const];
        }),
      };
      if (typeof p['replica'] === 'string') run.replica = p['replica'];
      if (typeof p['placed'] === 'string') run.placed = p['placed'];
      if (p['overCapacity'] === true) run.overCapacity = true;
      return run;
    }),
  }));
  holders.sort((a, b) => cmp(holderKey(a), holderKey(b)));
  return { holders };
}

/** The first pool of `cluster` that publishes no ledger yet, or undefined. */
export function unpublishedLedger(cluster: FleetCluster): string | undefined {
  return cluster.pools.find((p) => p.used === undefined)?.name;
}

/**
 * The pool where the cluster's published ledger says replica `r` is over
 * capacity (its runs marked `overCapacity`, arrival.ts), or undefined: it
 * fits, or the cluster has not charged it yet (then it is not judged).
 */
export function overCapacityIn(cluster: FleetCluster, r: ObservedReplica): string | undefined {
  const key = holderKey(r);
  for (const p of cluster.pools) {
    for (const h of p.used?.holders ?? []) {
      if (holderKey(h) !== key) continue;
      if (h.runs.some((run) => run.overCapacity === true && run.replica === r.name)) return p.name;
    }
  }
  return undefined;
}

/**
 * The free capacity of every cluster for deployment `self`: each pool charged
 * from its published ledger in charge order (arrival.ts) as the cluster
 * decided (runs over capacity skipped), with `self`'s own entry replaced by
 * `ours` (this deployment's replicas) that `charged` accepts, each as it
 * runs, so nothing is counted twice and a replica the cluster has not seen
 * yet still counts. A pool without a ledger is charged with ours only (it
 * takes no new replica anyway: scheduling.ts refuses the cluster).
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
  const selfKey = holderKey(self);
  const capacity: Capacity = new Map();
  for (const c of clusters) {
    const mine = byCluster.get(c.name) ?? [];
    capacity.set(
      c.name,
      c.pools.map((p) => {
        const cap = new PoolCapacity(p);
        const slots: Slot[] = [];
        for (const h of p.used?.holders ?? []) if (holderKey(h) !== selfKey) slots.push(...publishedSlots(h));
        for (const r of mine) {
          const { runs, slot } = replicaSlot(p, r);
          if (runs.length > 0) slots.push({ ...slot, mode: 'force' });
        }
        if (slots.length > 0) chargeSlots(cap, slots);
        return cap;
      }),
    );
  }
  return capacity;
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
      if (p['overCapacity'] !== undefined && typeof p['overCapacity'] !== 'boolean') return `${at}.pods[${k}].overCapacity: expected a boolean`;
      for (const f of ['replica', 'placed'] as const) {
        if (p[f] !== undefined && typeof p[f] !== 'string') return `${at}.pods[${k}].${f}: expected a string`;
      }
      const d = countedEntries(p['devices'], `${at}.pods[${k}].devices`);
      if (d !== undefined) return d;
    }
  }
  return undefined;
}
