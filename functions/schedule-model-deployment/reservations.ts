/**
 * Room kept for the replicas ahead in an over-capacity queue, so that a
 * burst that lost the same pool does not all land on the next cluster too.
 *
 * When a burst of deployments took the same free devices
 * (docs/concepts.md#capacity-across-deployments), the cluster's ledger marks the losers over capacity,
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
import { compareSlots, type Slot } from '../lib/fleet/arrival.js';
import type { Capacity, PodDemand } from '../lib/fleet/capacity.js';
import { publishedSlots } from '../lib/fleet/ledger.js';
import type { FleetCluster, Pool } from '../lib/fleet/model.js';

/** One of our replicas over capacity: where it waits. */
export interface Waiting {
  cluster: string;
  pool: string;
  /** The ModelReplica's name, as the ledger lists it. */
  replica: string;
}

/** The over-capacity replicas of `pool`, as the cluster published them, in arrival order. */
function queueOf(pool: Pool): Slot[] {
  return (pool.used?.holders ?? [])
    .flatMap(publishedSlots)
    .filter((s) => s.mode === 'skip')
    .sort(compareSlots);
}

/** `pods` (device indices of pool `from`) against `to`'s devices, by name; undefined when a device is not there. */
function demandsOn(from: Pool, to: Pool, pods: readonly PodDemand[]): PodDemand[] | undefined {
  const out: PodDemand[] = [];
  for (const p of pods) {
    const devices: [number, number][] = [];
    for (const [i, n] of p.devices) {
      const name = from.devices[i]?.name;
      const at = to.devices.findIndex((d) => d.name === name && (d.claim ?? 'DRA') === 'DRA');
      if (at < 0) return undefined;
      devices.push([at, n]);
    }
    out.push({ devices, whole: p.whole || to.exclusive });
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
    const ourOwn = (q: Slot) => q.namespace === self.namespace && q.deployment === self.deployment;
    const at = queue.findIndex((q) => ourOwn(q) && q.replica === w.replica);
    for (const q of queue.slice(0, Math.max(0, at))) {
      const key = `${q.namespace}\u0000${q.deployment}\u0000${q.replica}`;
      if (seen.has(key) || ourOwn(q)) continue;
      seen.add(key);
      if (placeGuess(q, pool, w.cluster, clusters, eligible, capacity)) reserved++;
    }
  }
  return reserved;
}

function placeGuess(
  q: Slot,
  pool: Pool,
  from: string,
  clusters: readonly FleetCluster[],
  eligible: (c: FleetCluster) => boolean,
  capacity: Capacity,
): boolean {
  for (const c of clusters) {
    if (c.name === from || !eligible(c)) continue;
    const caps = capacity.get(c.name) ?? [];
    for (const cap of caps) {
      const pods = demandsOn(pool, cap.pool, q.pods);
      if (pods !== undefined && cap.place(pods) !== undefined) return true;
    }
  }
  return false;
}
