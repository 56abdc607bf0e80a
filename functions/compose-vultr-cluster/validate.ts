/**
 * Input checks of compose-vultr-cluster and their messages.
 *
 * Guarantees: a VultrCluster that cannot be composed as asked is never an
 * exception and never tears anything down (spec/README.md item 2). A spec
 * that does not parse keeps every observed child; a pool that cannot be
 * composed (its class has no Vultr plan, or it takes the reserved name
 * `system`) is reported by name and keeps its observed node pool while the
 * rest of the cluster is composed normally. Every message names the field
 * and the fix; messages are sorted by pool name, so the same input always
 * gives the same text. The `SpecValid` condition (and its divergence from
 * the reference), the unparsable-spec path and the pool report are shared
 * with compose-eks-cluster in `functions/lib/cloud.ts`.
 */
import { POOL_KEPT, type PoolProblem } from '../lib/cloud.js';
import type { VultrClusterNodePool } from '../lib/generated/vultrclusters.js';
import { SYSTEM_POOL_NAME } from './resources.js';

/**
 * The problem with a pool, or undefined when it can be composed.
 * @param index the pool's position in `spec.nodePools` (for the field path)
 */
export function poolProblem(pool: VultrClusterNodePool, index: number): PoolProblem | undefined {
  const at = `spec.nodePools[${index}]`;
  if (pool.name === SYSTEM_POOL_NAME) {
    return {
      pool: pool.name,
      message: `${at}.name: "${SYSTEM_POOL_NAME}" is reserved for the cluster's inline system pool; rename the pool. ${POOL_KEPT}`,
    };
  }
  if (pool.plan === undefined) {
    const message =
      pool.className !== undefined
        ? `${at} (${pool.name}): InferenceClass ${pool.className} has no Vultr plan (spec.provisioning.vultr.plan); set it on the class or point the pool at a Vultr class. ${POOL_KEPT}`
        : `${at} (${pool.name}): plan is required; set ${at}.plan. ${POOL_KEPT}`;
    return { pool: pool.name, message };
  }
  return undefined;
}
