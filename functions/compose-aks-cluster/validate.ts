/**
 * Input checks of compose-aks-cluster and their messages.
 *
 * Guarantees: an AKSCluster that cannot be composed as asked is never an
 * exception and never tears anything down (docs/design.md#keep-what-exists). A pool
 * that cannot be composed (its class has no AKS VM size, or it takes a name
 * the cluster's default node pool uses: `system`, or `systemtmp` while that
 * pool rotates) is reported by name and keeps its observed node pool while
 * the rest of the cluster is composed normally. The messages and the
 * `SpecValid` condition are shared with the other clouds in
 * `functions/lib/cloud-cluster.ts`; the XRD's own name pattern
 * (`^[a-z][a-z0-9]{0,11}$`) is the reference's.
 *
 * Divergence from the reference: a user pool named `system` or `systemtmp`
 * (an AKS agent pool name already taken) is refused instead of failing at
 * Azure.
 */
import { commonPoolProblem, POOL_KEPT, type PoolProblem, type PoolShape } from '../lib/cloud-cluster.js';
import type { AKSClusterNodePool } from '../lib/generated/aksclusters.js';
import { ROTATION_POOL_NAME } from './resources.js';

/** What an AKS pool's shape is. */
export const AKS_SHAPE: PoolShape = { cloud: 'AKS', noun: 'VM size', fields: ['vmSize'] };

/**
 * The problem with a pool, or undefined when it can be composed.
 * @param index the pool's position in `spec.nodePools` (for the field path)
 */
export function poolProblem(pool: AKSClusterNodePool, index: number): PoolProblem | undefined {
  if (pool.name === ROTATION_POOL_NAME) {
    return {
      pool: pool.name,
      message: `spec.nodePools[${index}].name: "${ROTATION_POOL_NAME}" is reserved for rotating the cluster's default node pool; rename the pool. ${POOL_KEPT}`,
    };
  }
  return commonPoolProblem(pool, index, {
    systemPool: "the cluster's default node pool",
    shape: AKS_SHAPE,
    hasShape: pool.vmSize !== undefined,
  });
}
