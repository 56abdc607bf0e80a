/**
 * What the cloud-cluster functions (compose-eks-cluster, compose-vultr-cluster)
 * share: reading their XR, the `SpecValid` condition, pool problems, and the
 * hold path of a spec that cannot be composed at all
 * (spec/cloud-providers.md §1.1).
 *
 * Guarantees:
 * - A cloud XR that cannot be composed as asked is never an exception and
 *   never tears anything down (spec/README.md item 2): a spec that does not
 *   parse keeps every observed child and the status fields the function
 *   wrote; a pool that cannot be composed is reported by name while the rest
 *   of the cluster is composed.
 * - Only the spec decides what is composed: the XR's status (written by us and
 *   by Crossplane) is never parsed, so it can never block composition.
 * - Pools are visited in name order and pool messages are joined in that
 *   order, so the same input always gives the same text.
 *
 * Divergence from the reference (spec/cloud-providers.md §1.1 "no function
 * writes status.conditions"): the `SpecValid` condition is written when the
 * input is invalid, and written True afterwards only if the XR already
 * carries it, so a fixed input clears the report and a valid one adds nothing.
 */
import type { z } from 'zod';
import {
  type ComposeRequest,
  type ComposeResult,
  type Condition,
  condition,
  emptyResult,
  getPath,
  type JsonObject,
  type KubeObject,
  type Result,
  warning,
} from './function.js';
import { withoutNulls } from './json.js';
import { keepAndWarn } from './keep.js';
import { compareStrings } from './order.js';
import { formatZodIssues } from './zod-issues.js';

/** Condition type reporting whether the XR's spec can be composed as asked. */
export const SPEC_VALID = 'SpecValid';
/** Reason of a False {@link SPEC_VALID} for a spec that does not parse. */
export const REASON_INVALID_SPEC = 'InvalidSpec';
/** Reason of a False {@link SPEC_VALID} for one or more pools that cannot be composed. */
export const REASON_INVALID_NODE_POOL = 'InvalidNodePool';
/** Reason of a True {@link SPEC_VALID}. */
export const REASON_VALID = 'Valid';

/** The closing sentence of every pool problem. */
export const POOL_KEPT = 'Nothing new is composed for this pool; what exists is kept.';

/** A pool that cannot be composed, with the message naming it and the fix. */
export interface PoolProblem {
  pool: string;
  message: string;
}

/** The message of a cloud XR (`kind`, e.g. `EKSCluster`) whose spec cannot be composed at all. */
export function invalidSpecMessage(kind: string, issues: string): string {
  return `${kind} spec is invalid: ${issues}. Fix the fields named; nothing is changed until then.`;
}

/** A generated XR parser (`functions/lib/generated/<plural>.ts`), XRD defaults applied. */
export type XrParser<S> = (obj: unknown) => { success: true; data: { spec: S } } | { success: false; error: z.ZodError };

/** A cloud XR as its function reads it, or the message of why it cannot be read. */
export type CloudXr<S> = { name: string; namespace: string; spec: S } | { invalid: string };

/**
 * Reads a namespaced cloud XR: its spec with `null` fields pruned (the
 * InferenceCluster passes unset bounds as explicit `null`s, meaning "use the
 * default", as the API server would prune them) and the XRD's defaults
 * applied, its name and namespace. A spec that does not parse,
 * or a missing name or namespace, is `{invalid}` with
 * {@link invalidSpecMessage} naming the fields.
 */
export function readCloudXr<S>(composite: KubeObject, kind: string, parse: XrParser<S>): CloudXr<S> {
  const { status: _status, ...xr } = composite;
  const parsed = parse({ ...xr, spec: withoutNulls(xr['spec']) });
  const name = composite.metadata?.name;
  const namespace = composite.metadata?.namespace;
  if (!parsed.success || !name || !namespace) {
    const issues = parsed.success ? 'metadata.name and metadata.namespace are required' : formatZodIssues('', parsed.error);
    return { invalid: invalidSpecMessage(kind, issues) };
  }
  return { name, namespace, spec: parsed.data.spec };
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

/** The pools with their positions in `spec.nodePools` (for field paths), sorted by name. */
export function poolsByName<P extends { name: string }>(pools: readonly P[]): { pool: P; index: number }[] {
  return pools.map((pool, index) => ({ pool, index })).sort((a, b) => compareStrings(a.pool.name, b.pool.name));
}

/**
 * The conditions and results of a composed cluster: {@link SPEC_VALID} from
 * the pool problems (reason `InvalidNodePool`), and one Warning per problem.
 */
export function poolReport(composite: KubeObject, problems: readonly PoolProblem[]): Pick<ComposeResult, 'conditions' | 'results'> {
  const messages = problems.map((p) => p.message);
  const results: Result[] = messages.map((m) => warning(m, REASON_INVALID_NODE_POOL));
  return { conditions: specValidCondition(composite, REASON_INVALID_NODE_POOL, messages), results };
}

/** What a cloud function keeps of itself when its spec cannot be composed. */
export interface KeepCluster {
  /** Keys marked ready whenever composed (provider configs, a StorageClass). */
  alwaysReady: Iterable<string>;
  /** `status` fields the function writes; each kept as the XR carries it. */
  statusFields: readonly string[];
}

/**
 * Input that cannot be composed at all: every observed child kept (the keys
 * of `keep.alwaysReady` marked ready), the status fields the function wrote
 * kept (no `status` when none is set), {@link SPEC_VALID} False with `reason`
 * and `message`, and a Warning with the same reason and message.
 */
export function keepCluster(req: ComposeRequest, keep: KeepCluster, reason: string, message: string): ComposeResult {
  const result = keepAndWarn(emptyResult(), req.observed, { type: SPEC_VALID, reason, message, warningReason: true });
  for (const key of keep.alwaysReady) {
    const r = result.resources[key];
    if (r) result.resources[key] = { ...r, ready: true };
  }
  const kept: JsonObject = {};
  for (const field of keep.statusFields) {
    const value = getPath(req.composite, 'status', field);
    if (value !== undefined) kept[field] = structuredClone(value);
  }
  if (Object.keys(kept).length > 0) result.status = kept;
  return result;
}
