/**
 * Input checks of compose-gke-cluster and their messages.
 *
 * Guarantees: a GKECluster that cannot be composed as asked is never an
 * exception and never tears anything down (docs/design.md#keep-what-exists). A pool
 * that cannot be composed (its name is not a label value, it takes the
 * reserved name `system`, or its class has no GKE machine type) is reported
 * by name and keeps its observed node pool while the rest of the cluster is
 * composed normally. The messages and the `SpecValid` condition are shared
 * with the other clouds in `functions/lib/cloud-cluster.ts`.
 *
 * Divergence from the reference (docs/clouds.md#invalid-input): a user
 * pool named `system`, which would overwrite the injected system node pool,
 * is refused.
 */
import { commonPoolProblem, type PoolProblem, type PoolShape } from '../lib/cloud-cluster.js';
import type { GKEClusterNodePool } from '../lib/generated/gkeclusters.js';

/** What a GKE pool's shape is. */
export const GKE_SHAPE: PoolShape = { cloud: 'GKE', noun: 'machine type', fields: ['machineType'] };

/**
 * The problem with a pool, or undefined when it can be composed.
 * @param index the pool's position in `spec.nodePools` (for the field path)
 */
export function poolProblem(pool: GKEClusterNodePool, index: number): PoolProblem | undefined {
  return commonPoolProblem(pool, index, {
    systemPool: 'the injected system node pool',
    shape: GKE_SHAPE,
    hasShape: pool.machineType !== undefined,
  });
}
