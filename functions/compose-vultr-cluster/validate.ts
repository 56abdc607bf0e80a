/**
 * Input checks of compose-vultr-cluster and their messages.
 *
 * Guarantees: a VultrCluster that cannot be composed as asked is never an
 * exception and never tears anything down (docs/design.md#keep-what-exists). A spec
 * that does not parse keeps every observed child; a pool that cannot be
 * composed (its name is not a label value, its class has no Vultr plan, or
 * it takes the reserved name `system`) is reported by name and keeps its observed node pool while the
 * rest of the cluster is composed normally. Every message names the field
 * and the fix; messages are sorted by pool name, so the same input always
 * gives the same text. The `SpecValid` condition (and its divergence from
 * the reference), the unparsable-spec path and the pool report are shared
 * with the other clouds in `functions/lib/cloud-cluster.ts`.
 */
import { commonPoolProblem, type PoolProblem, type PoolShape } from '../lib/cloud-cluster.js';
import type { VultrClusterNodePool } from '../lib/generated/vultrclusters.js';

/** What a Vultr pool's shape is. */
export const VULTR_SHAPE: PoolShape = { cloud: 'Vultr', noun: 'plan', fields: ['plan'] };

/**
 * The problem with a pool, or undefined when it can be composed.
 * @param index the pool's position in `spec.nodePools` (for the field path)
 */
export function poolProblem(pool: VultrClusterNodePool, index: number): PoolProblem | undefined {
  return commonPoolProblem(pool, index, {
    systemPool: "the cluster's inline system pool",
    shape: VULTR_SHAPE,
    hasShape: pool.plan !== undefined,
  });
}
