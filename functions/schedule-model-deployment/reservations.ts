/**
 * Room kept for the replicas ahead in an over-capacity queue, so that a
 * burst that lost the same pool does not all land on the next cluster too.
 *
 * When a burst of deployments took the same free devices (README: Capacity
 * across deployments), the cluster's ledger marks the losers over capacity,
 * oldest first (arrival.ts). Each loser's scheduler re-places its replica,
 * and all of them read the same ledgers: left alone, every one would pick the
 * same next cluster (ties go by cluster name), lose there again but one
 * pool's worth, and so on, one round per cluster. Instead each scheduler
 * first reserves, in the capacity its fill uses, room for the replicas ahead
 * of its own in the queue of that pool (same arrival order), each where fill
 * would put a replica of its shape: the first eligible cluster by name with
 * a pool whose devices (by name) take all its pods. Every loser computes the
 * same queue from the same ledgers, so the burst spreads in one round.
 *
 * A guess, never a promise: the replicas ahead may have selectors that send
 * them elsewhere. A wrong guess only leaves room unused for this call (the
 * next reconcile sees the real placements); it never overcommits, since a
 * reservation is a capacity.ts trial like any placement. Replicas of our own
 * deployment are not reserved for (our fill places them). Linear in the
 * queue ahead times the clusters tried.
 */
import { compareSlots, type Slot } from './arrival.js';
import type { Capacity, PodDemand } from './capacity.js';
import type { FleetCluster, Pool } from './model.js';

/** One of our replicas over capacity: where it waits. */
export interface Waiting {
  cluster: string;
  pool: string;
  /** The ModelReplica's name, as the ledger lists it. */
  replica: string;
}

/** A queued replica: its slot, and its pods as [device name, count] demands. */
interface Queued {
  slot: Slot;
  pods: { devices: [string, number][]; whole: boolean }[];
}

/** The over-capacity replicas of `pool` in arrival order. */
function queueOf(pool: Pool): Queued[] {
  const out: Queued[] = [];
  const name = (i: number) => pool.devices[i]?.name ?? '';
  for (const h of pool.used?.holders ?? []) {
    let last: Queued | undefined;
    for (const run of h.runs) {
      if (run.overCapacity !== true) {
        last = undefined;
        continue;
      }
      if (last === undefined || last.slot.replica !== (run.replica ?? '')) {
        last = { slot: { placed: run.placed ?? '', namespace: h.namespace, deployment: h.deployment, replica: run.replica ?? '', pods: [], mode: 'fit' }, pods: [] };
        out.push(last);
      }
      const devices = run.devices.map(([i, n]) => [name(i), n] as [string, number]);
      for (let k = 0; k < run.count; k++) last.pods.push({ devices, whole: run.whole });
    }
  }
  return out.sort((a, b) => compareSlots(a.slot, b.slot));
}

/** `pods` against `pool`'s devices by name; undefined when a device is not there. */
function demandsOn(pool: Pool, pods: Queued['pods']): PodDemand[] | undefined {
  const out: PodDemand[] = [];
  for (const p of pods) {
    const devices: [number, number][] = [];
    for (const [name, n] of p.devices) {
      const i = pool.devices.findIndex((d) => d.name === name && (d.claim ?? 'DRA') === 'DRA');
      if (i < 0) return undefined;
      devices.push([i, n]);
    }
    out.push({ devices, whole: p.whole || pool.exclusive });
  }
  return out;
}

/**
 * Charges into `capacity` room for the replicas of other deployments ahead
 * of each of `ours` in its pool's over-capacity queue. `clusters` sorted by
 * name; `eligible` says which may take a new replica. @returns how many
 * replicas room was reserved for.
 */
export function reserveAhead(
  ours: readonly Waiting[],
  clusters: readonly FleetCluster[],
  eligible: (c: FleetCluster) => boolean,
  capacity: Capacity,
  self: { namespace: string; deployment: string },
): number {
  const byName = new Map(clusters.map((c) => [c.name, c]));
  const seen = new Set<string>();
  let reserved = 0;
  for (const w of ours) {
    const pool = byName.get(w.cluster)?.pools.find((p) => p.name === w.pool);
    if (pool === undefined) continue;
    const queue = queueOf(pool);
    const at = queue.findIndex((q) => q.slot.namespace === self.namespace && q.slot.deployment === self.deployment && q.slot.replica === w.replica);
    for (const q of queue.slice(0, Math.max(0, at))) {
      const key = `${q.slot.namespace}\u0000${q.slot.deployment}\u0000${q.slot.replica}`;
      if (seen.has(key) || (q.slot.namespace === self.namespace && q.slot.deployment === self.deployment)) continue;
      seen.add(key);
      if (placeGuess(q, w.cluster, clusters, eligible, capacity)) reserved++;
    }
  }
  return reserved;
}

function placeGuess(q: Queued, from: string, clusters: readonly FleetCluster[], eligible: (c: FleetCluster) => boolean, capacity: Capacity): boolean {
  for (const c of clusters) {
    if (c.name === from || !eligible(c)) continue;
    const caps = capacity.get(c.name) ?? [];
    for (const cap of caps) {
      const pods = demandsOn(cap.pool, q.pods);
      if (pods !== undefined && cap.place(pods) !== undefined) return true;
    }
  }
  return false;
}
