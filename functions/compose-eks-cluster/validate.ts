/**
 * Input checks of compose-eks-cluster and their messages.
 *
 * Guarantees: an EKSCluster that cannot be composed as asked is never an
 * exception and never tears anything down (spec/README.md item 2). A spec
 * that does not parse, or whose subnet CIDRs are unusable, keeps every
 * observed child. A pool that cannot be composed (its class has no EKS
 * instance type, it takes the reserved name `system`, or it names a zone the
 * cluster has no subnet in) is reported by name and keeps its observed node
 * group and launch template while the rest of the cluster is composed
 * normally. Messages name the field and the fix and are sorted by pool name.
 * The `SpecValid` condition, the unparsable-spec path and the pool report are
 * shared with compose-vultr-cluster in `functions/lib/cloud.ts`.
 *
 * Divergences from the reference (spec/cloud-providers.md §1.1, §9 quirks):
 * the `SpecValid` condition (see functions/lib/cloud.ts); a user pool named `system`
 * (which would overwrite the injected system node group) and a zone outside
 * the cluster's subnets (a dangling subnet reference) are refused.
 */
import { POOL_KEPT, type PoolProblem } from '../lib/cloud.js';
import type { EKSClusterNodePool } from '../lib/generated/eksclusters.js';
import type { Zone } from './aws.js';
import { SYSTEM_POOL } from './nodegroups.js';

/** Reason of a False `SpecValid` condition (functions/lib/cloud.ts) for unusable subnet CIDRs. */
export const REASON_INVALID_NETWORKING = 'InvalidNetworking';

/**
 * The problem with a pool, or undefined when it can be composed.
 * @param index the pool's position in `spec.nodePools` (for the field path)
 * @param zones the cluster's zones (one per subnet CIDR)
 */
export function poolProblem(pool: EKSClusterNodePool, index: number, zones: readonly Zone[]): PoolProblem | undefined {
  const at = `spec.nodePools[${index}]`;
  if (pool.name === SYSTEM_POOL) {
    return {
      pool: pool.name,
      message: `${at}.name: "${SYSTEM_POOL}" is reserved for the injected system node group; rename the pool. ${POOL_KEPT}`,
    };
  }
  if (pool.instanceType === undefined) {
    const message =
      pool.className !== undefined
        ? `${at} (${pool.name}): InferenceClass ${pool.className} has no EKS instance type (spec.provisioning.eks.instanceType); set it on the class or point the pool at an EKS class. ${POOL_KEPT}`
        : `${at} (${pool.name}): instanceType is required; set ${at}.instanceType. ${POOL_KEPT}`;
    return { pool: pool.name, message };
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

/** The message of unusable subnet CIDRs (each error already names its field and fix). */
export function invalidNetworkingMessage(errors: readonly string[]): string {
  return `${errors.join(' ')} Nothing is changed until then.`;
}
