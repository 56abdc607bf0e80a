/**
 * Input checks of compose-nebius-cluster and their messages.
 *
 * Guarantees: a NebiusCluster that cannot be composed as asked is never an
 * exception and never tears anything down (docs/design.md#keep-what-exists). A pool
 * that cannot be composed (its name is not a label value, it takes the
 * reserved name `system`, or its class has no Nebius platform and preset) is
 * reported by name and keeps its observed node group while the rest of the
 * cluster is composed normally. The messages and the `SpecValid` condition
 * are shared with the other clouds in `functions/lib/cloud-cluster.ts`.
 *
 * Divergence from the reference (docs/clouds.md#invalid-input): a user
 * pool named `system`, which would overwrite the injected system node group,
 * is refused.
 */
import { commonPoolProblem, type PoolProblem, type PoolShape } from '../lib/cloud-cluster.js';
import type { NebiusClusterNodePool } from '../lib/generated/nebiusclusters.js';

/** What a Nebius pool's shape is. */
export const NEBIUS_SHAPE: PoolShape = { cloud: 'Nebius', noun: 'platform and preset', fields: ['platform', 'preset'] };

/**
 * The problem with a pool, or undefined when it can be composed.
 * @param index the pool's position in `spec.nodePools` (for the field path)
 */
export function poolProblem(pool: NebiusClusterNodePool, index: number): PoolProblem | undefined {
  return commonPoolProblem(pool, index, {
    systemPool: 'the injected system node group',
    shape: NEBIUS_SHAPE,
    hasShape: pool.platform !== undefined && pool.preset !== undefined,
  });
}
