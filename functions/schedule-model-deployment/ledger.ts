/**
 * The capacity ledger: free nodes per (cluster, pool) (model-side.md §3.4).
 *
 * Guarantees:
 * - Starts from every pool's published node budget (floored at 0) for every
 *   cluster in the fleet.
 * - Charges every ModelReplica that holds nodes there: other deployments'
 *   (another name or another namespace, spec/README.md item 4) and this
 *   deployment's replicas with a retained (cluster, index) identity. This
 *   deployment's dropped replicas are not charged: their nodes are being freed.
 * - A member costs its stamped nodes (0 without deviceRequests), charged to
 *   (spec.clusterName, nodePoolName) only when that pool is published; free
 *   counts may go negative (capacity promised before a pool shrank), and a
 *   negative pool takes nothing new.
 * Units: nodes.
 */
import type { FleetCluster, ObservedReplica } from './model.js';

/** Free nodes per cluster name, indexed like the cluster's `pools`. */
export type Ledger = Map<string, number[]>;

/**
 * Builds the ledger.
 * @param charged decides whether a replica is charged (not ours, or ours and retained)
 */
export function buildLedger(
  clusters: readonly FleetCluster[],
  replicas: readonly ObservedReplica[],
  charged: (r: ObservedReplica) => boolean,
): Ledger {
  const ledger: Ledger = new Map();
  const byName = new Map<string, FleetCluster>();
  for (const c of clusters) {
    ledger.set(
      c.name,
      c.pools.map((p) => p.nodes),
    );
    byName.set(c.name, c);
  }
  for (const r of replicas) {
    const free = ledger.get(r.clusterName);
    if (free === undefined || r.engines.length === 0 || !charged(r)) continue;
    const pools = byName.get(r.clusterName)!.pools;
    for (const e of r.engines) {
      for (const m of e.members) {
        if (m.cost === 0) continue;
        const pi = pools.findIndex((p) => p.name === m.nodePoolName);
        if (pi >= 0) free[pi]! -= m.cost;
      }
    }
  }
  return ledger;
}
