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
 * gives the same text.
 *
 * Divergence from the reference (spec/cloud-providers.md §1.1 "no function
 * writes status.conditions"): the `SpecValid` condition is written when the
 * input is invalid, and written True afterwards only if the XR already
 * carries it, so a fixed input clears the report and a valid one adds nothing.
 */
import { type Condition, condition, getPath, type KubeObject } from '../lib/function.js';
import type { VultrClusterNodePool } from '../lib/generated/vultrclusters.js';
import { SYSTEM_POOL_NAME } from './resources.js';

/** Condition type reporting whether the XR's spec can be composed as asked. */
export const SPEC_VALID = 'SpecValid';
/** Reason of a False {@link SPEC_VALID} for a spec that does not parse. */
export const REASON_INVALID_SPEC = 'InvalidSpec';
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
 */
export function poolProblem(pool: VultrClusterNodePool, index: number): PoolProblem | undefined {
  const at = `spec.nodePools[${index}]`;
  if (pool.name === SYSTEM_POOL_NAME) {
    return {
      pool: pool.name,
      message: `${at}.name: "${SYSTEM_POOL_NAME}" is reserved for the cluster's inline system pool; rename the pool. ${KEPT}`,
    };
  }
  if (pool.plan === undefined) {
    const message =
      pool.className !== undefined
        ? `${at} (${pool.name}): InferenceClass ${pool.className} has no Vultr plan (spec.provisioning.vultr.plan); set it on the class or point the pool at a Vultr class. ${KEPT}`
        : `${at} (${pool.name}): plan is required; set ${at}.plan. ${KEPT}`;
    return { pool: pool.name, message };
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

/** The message of a VultrCluster whose spec does not parse. */
export function invalidSpecMessage(issues: string): string {
  return `VultrCluster spec is invalid: ${issues}. Fix the fields named; nothing is changed until then.`;
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
