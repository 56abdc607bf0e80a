/**
 * The capacity ledger an InferenceCluster publishes
 * (docs/design.md#the-capacity-ledger): `status.gpuPools[].used`, what the ModelReplicas placed on this
 * cluster hold in each pool, computed with the fleet scheduler's own
 * accounting (functions/lib/fleet/ledger.ts, capacity.ts),
 * so a ModelDeployment's scheduler charges other deployments from here
 * instead of requiring every ModelReplica of the fleet.
 *
 * Guarantees:
 * - Counted: the `model-replicas` requirement's items (label
 *   modelplane.ai/cluster=<this cluster>) whose `spec.clusterName` is this
 *   cluster (where they run), any namespace and deployment.
 * - Replicas read (present, or none exist): every published pool carries a
 *   `used` (zero usage is `{nodes: 0, devices: [], holders: []}`).
 * - Replicas not fetched yet: the ledger already published for a pool of
 *   the same name is kept as it was; a pool that never had one publishes
 *   none (the scheduler then places nothing new here: unknown is not free).
 * - Arrival order (lib/fleet/arrival.ts): Ready replicas
 *   are charged first, then the others oldest first; one that does not fit
 *   is marked `overCapacity` (its pods would stay Pending), which is what
 *   its deployment's scheduler acts on.
 * - Deterministic: replicas sorted by (namespace, name), holders by
 *   (namespace, deployment), their runs by arrival.
 */
import { getPath, type JsonObject, type KubeObject, type RequiredRead } from '../function.js';
import { readPool, readReplicas } from './fleet.js';
import { poolLedger } from './ledger.js';

/** The pools `pools` (as {@link gpuPools} builds them) with their `used` ledger, for cluster `name`. */
export function withUsage(pools: readonly JsonObject[], replicas: RequiredRead, name: string, xr: KubeObject): JsonObject[] {
  if (replicas.state === 'pending') {
    const published = getPath(xr, 'status', 'gpuPools');
    const previous = new Map<string, unknown>();
    for (const p of Array.isArray(published) ? published : []) {
      if (p && typeof p === 'object' && typeof (p as JsonObject)['name'] === 'string' && (p as JsonObject)['used'] !== undefined) {
        previous.set((p as JsonObject)['name'] as string, (p as JsonObject)['used']);
      }
    }
    return pools.map((p) => {
      const used = previous.get(String(p['name']));
      return used === undefined ? p : { ...p, used: structuredClone(used) as JsonObject };
    });
  }
  const here = readReplicas(replicas.state === 'present' ? replicas.items : []).filter((r) => r.clusterName === name);
  return pools.map((p) => ({ ...p, used: poolLedger(readPool(p, false), here) }));
}
