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
 *
 * Divergences from the reference (spec/cloud-providers.md §1.1, §9 quirks):
 * the `SpecValid` condition is written when the input is invalid, and True
 * afterwards only if the XR already carries it; a user pool named `system`
 * (which would overwrite the injected system node group) and a zone outside
 * the cluster's subnets (a dangling subnet reference) are refused.
 */
import { type Condition, condition, getPath, type KubeObject } from '../lib/function.js';
import type { EKSClusterNodePool } from '../lib/generated/eksclusters.js';
import type { Zone } from './aws.js';
import { SYSTEM_POOL } from './nodegroups.js';

/** Condition type reporting whether the XR's spec can be composed as asked. */
export const SPEC_VALID = 'SpecValid';
/** Reason of a False {@link SPEC_VALID} for a spec that does not parse. */
export const REASON_INVALID_SPEC = 'InvalidSpec';
/** Reason of a False {@link SPEC_VALID} for unusable subnet CIDRs. */
export const REASON_INVALID_NETWORKING = 'InvalidNetworking';
/** Reason of a False {@link SPEC_VALID} for one or more pools that cannot be composed. */
export const REASON_INVALID_NODE_POOL = 'InvalidNodePool';
/** Reason of a True {@link SPEC_VALID}. */
export const REASON_VALID = 'Valid';

const KEPT = 'Nothing new is composed for this pool; what exists is kept.';

/** A pool that cannot be composed, with the message naming it and the fix. */
export interface PoolProblem {
  pool: string;
  message: string;
}

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
      message: `${at}.name: "${SYSTEM_POOL}" is reserved for the injected system node group; rename the pool. ${KEPT}`,
    };
  }
  if (pool.instanceType === undefined) {
    const message =
      pool.className !== undefined
        ? `${at} (${pool.name}): InferenceClass ${pool.className} has no EKS instance type (spec.provisioning.eks.instanceType); set it on the class or point the pool at an EKS class. ${KEPT}`
        : `${at} (${pool.name}): instanceType is required; set ${at}.instanceType. ${KEPT}`;
    return { pool: pool.name, message };
  }
  const known = zones.map((z) => z.az);
  const unknown = (pool.zones ?? []).map((az, j) => ({ az, j })).filter(({ az }) => !known.includes(az));
  if (unknown.length > 0) {
    const first = unknown[0]!;
    return {
      pool: pool.name,
      message: `${at}.zones[${first.j}]: ${first.az} is not a zone of this cluster (${known.join(', ')}); use one of them, or add a subnet CIDR to spec.networking.subnetCidrs. ${KEPT}`,
    };
  }
  return undefined;
}

/**
 * A copy of `value` without the object fields that are `null`, as the API
 * server prunes them from a non-nullable field before defaulting (Kubernetes
 * CRD defaulting, "nulls are pruned"). The InferenceCluster passes unset
 * bounds as explicit `null`s; they mean "use the default".
 */
export function pruneNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(pruneNulls);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = pruneNulls(v);
  return out;
}

/** The message of an EKSCluster whose spec cannot be composed at all. */
export function invalidSpecMessage(issues: string): string {
  return `EKSCluster spec is invalid: ${issues}. Fix the fields named; nothing is changed until then.`;
}

/** The message of unusable subnet CIDRs (each error already names its field and fix). */
export function invalidNetworkingMessage(errors: readonly string[]): string {
  return `${errors.join(' ')} Nothing is changed until then.`;
}

/**
 * The {@link SPEC_VALID} condition to return: False with the joined messages
 * when there are problems; True when there are none but the XR carries the
 * condition (to clear an earlier report); none otherwise.
 */
export function specValidCondition(composite: KubeObject, reason: string, messages: string[]): Condition[] {
  if (messages.length > 0) return [condition(SPEC_VALID, false, reason, messages.join(' '))];
  const conditions = getPath(composite, 'status', 'conditions');
  const carried = Array.isArray(conditions) && conditions.some((c) => getPath(c, 'type') === SPEC_VALID);
  return carried ? [condition(SPEC_VALID, true, REASON_VALID)] : [];
}
