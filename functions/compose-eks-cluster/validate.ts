/**
 * Input checks of compose-eks-cluster and their messages.
 *
 * Guarantees: an EKSCluster that cannot be composed as asked is never an
 * exception and never tears anything down (docs/design.md#keep-what-exists). A spec
 * that does not parse, or whose subnet CIDRs are unusable, keeps every
 * observed child. A pool that cannot be composed (its name is not a label
 * value, its class has no EKS instance type, it takes the reserved name
 * `system`, or it names a zone the cluster has no subnet in) is reported by name and keeps its observed node
 * group and launch template while the rest of the cluster is composed
 * normally; so is a Spot pool with a capacity block (a reservation cannot be
 * bought as Spot, docs/capacity-types.md#eks). Messages name the field and the fix and are sorted by pool name.
 * The `SpecValid` condition, the unparsable-spec path and the pool report are
 * shared with the other clouds in `functions/lib/cloud-cluster.ts`.
 *
 * Divergences from the reference (docs/clouds.md#invalid-input):
 * the `SpecValid` condition (see functions/lib/cloud-cluster.ts); a user pool named `system`
 * (which would overwrite the injected system node group) and a zone outside
 * the cluster's subnets (a dangling subnet reference) are refused.
 */
import { commonPoolProblem, POOL_KEPT, type PoolProblem, type PoolShape } from '../lib/cloud-cluster.js';
import type { EKSClusterNodePool } from '../lib/generated/eksclusters.js';
import type { Zone } from './aws.js';

/** What an EKS pool's shape is. */
export const EKS_SHAPE: PoolShape = { cloud: 'EKS', noun: 'instance type', fields: ['instanceType'] };

/** Reason of a False `SpecValid` condition (functions/lib/cloud-cluster.ts) for unusable subnet CIDRs. */
export const REASON_INVALID_NETWORKING = 'InvalidNetworking';

/**
 * The problem with a pool, or undefined when it can be composed.
 * @param index the pool's position in `spec.nodePools` (for the field path)
 * @param zones the cluster's zones (one per subnet CIDR)
 */
export function poolProblem(pool: EKSClusterNodePool, index: number, zones: readonly Zone[]): PoolProblem | undefined {
  const common = commonPoolProblem(pool, index, {
    systemPool: 'the injected system node group',
    shape: EKS_SHAPE,
    hasShape: pool.instanceType !== undefined,
  });
  if (common) return common;
  const at = `spec.nodePools[${index}]`;
  if (pool.capacityType === 'Spot' && pool.capacityBlock) {
    return { pool: pool.name, message: errSpotCapacityBlock(at) };
  }
  const known = zones.map((z) => z.az);
  const unknown = (pool.zones ?? []).map((az, j) => ({ az, j })).filter(({ az }) => !known.includes(az));
  if (unknown.length > 0) {
    const first = unknown[0]!;
    return {
      pool: pool.name,
      message: `${at}.zones[${first.j}]: ${first.az} is not a zone of this cluster (${known.join(', ')}); use one of them, or add a subnet CIDR to spec.networking.subnetCidrs. ${POOL_KEPT}`,
    };
  }
  return undefined;
}

/** Message: a Spot pool with a capacity block. */
export function errSpotCapacityBlock(at: string): string {
  return `${at}.capacityType: Spot cannot use ${at}.capacityBlock (a Capacity Block is a reservation); drop capacityType for the reservation, or drop capacityBlock for Spot. ${POOL_KEPT}`;
}

/** The message of unusable subnet CIDRs (each error already names its field and fix). */
export function invalidNetworkingMessage(errors: readonly string[]): string {
  return `${errors.join(' ')} Nothing is changed until then.`;
}
