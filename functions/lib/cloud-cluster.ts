/**
 * What the five cloud-cluster functions (compose-eks-cluster,
 * compose-gke-cluster, compose-aks-cluster, compose-nebius-cluster,
 * compose-vultr-cluster) share: reading their XR, the `SpecValid` condition,
 * the pool checks every cloud makes (a label-value name, the reserved
 * `system` name, a class without this cloud's provisioning block) and their
 * messages, and the hold path of a spec that cannot be composed at all
 * (docs/clouds.md#invalid-input).
 *
 * Guarantees:
 * - A cloud XR that cannot be composed as asked is never an exception and
 *   never tears anything down (docs/design.md#keep-what-exists): a spec that does not
 *   parse keeps every observed child and the status fields the function
 *   wrote; a pool that cannot be composed is reported by name while the rest
 *   of the cluster is composed.
 * - Only the spec decides what is composed: the XR's status (written by us and
 *   by Crossplane) is never parsed, so it can never block composition.
 * - Pools are visited in name order and pool messages are joined in that
 *   order, so the same input always gives the same text.
 * - A pool that cannot be composed keeps every observed child of its own
 *   (its node pool, launch template…): a problem never deletes a pool.
 *
 * Divergence from the reference (where no cloud function writes
 * status.conditions; docs/clouds.md#invalid-input): the `SpecValid` condition is written when the
 * input is invalid, and written True afterwards only if the XR already
 * carries it, so a fixed input clears the report and a valid one adds nothing.
 */
import type { z } from 'zod';
import {
  type ComposeRequest,
  type ComposeResult,
  type Condition,
  condition,
  type DesiredResource,
  emptyResult,
  getPath,
  type JsonObject,
  type KubeObject,
  keepObserved,
  type Result,
  warning,
} from './function.js';
import { keepAndWarn } from './keep.js';
import type { ProviderConfigRef } from './objects.js';
import { compareStrings } from './order.js';
import { readComposite } from './xr.js';

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

/**
 * A Kubernetes label value (the node label `modelplane.ai/pool=<name>`): at
 * most 63 characters, alphanumerics, `-`, `_` and `.`, starting and ending
 * with an alphanumeric. The XRDs carry the same rule (a CEL rule on every
 * pool name, so the schema does not reject the whole spec); the functions
 * check it too, so an XR that bypassed the API server is refused per pool.
 */
export const LABEL_VALUE = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
/** Maximum length of a Kubernetes label value. */
export const MAX_LABEL_VALUE = 63;

/** True when `name` is a Kubernetes label value ({@link LABEL_VALUE}, at most {@link MAX_LABEL_VALUE} characters). */
export function isLabelValue(name: string): boolean {
  return name.length <= MAX_LABEL_VALUE && LABEL_VALUE.test(name);
}

/** Name of the system pool every cloud injects; reserved for user pools. */
export const SYSTEM_POOL = 'system';

/** A pool that cannot be composed, with the message naming it and the fix. */
export interface PoolProblem {
  pool: string;
  message: string;
}

/** What a cloud calls a pool's shape, for the message of a pool that has none. */
export interface PoolShape {
  /** The cloud as the InferenceClass names it: `EKS`, `GKE`, `AKS`, `Nebius`, `Vultr`. */
  cloud: 'EKS' | 'GKE' | 'AKS' | 'Nebius' | 'Vultr';
  /** What the class lacks, e.g. `instance type`, `platform and preset`. */
  noun: string;
  /** The pool fields that carry the shape, e.g. `['instanceType']`. */
  fields: readonly string[];
}

/** The common shape of a pool, as every cloud's pools have it. */
export interface CloudPool {
  name: string;
  className?: string | undefined;
}

/**
 * The problem every cloud checks before its own, or undefined:
 * 1. the name is not a Kubernetes label value (it could never label a node);
 * 2. the name is `system`, the injected system pool's (`systemPool` says
 *    what that is on this cloud, e.g. `the injected system node group`);
 * 3. a shape field is missing (`hasShape` false): the pool's class has no
 *    provisioning block for this cloud (the InferenceCluster passes
 *    `className` without a shape), or, without `className`, the field
 *    itself is missing.
 * @param index the pool's position in `spec.nodePools` (for the field path)
 */
export function commonPoolProblem(
  pool: CloudPool,
  index: number,
  opts: { systemPool: string; shape: PoolShape; hasShape: boolean },
): PoolProblem | undefined {
  const at = `spec.nodePools[${index}]`;
  if (!isLabelValue(pool.name)) {
    return {
      pool: pool.name,
      message: `${at}.name: ${JSON.stringify(pool.name)} is not a Kubernetes label value (at most ${MAX_LABEL_VALUE} letters, digits, '-', '_' or '.', beginning and ending with a letter or digit), so it cannot label the pool's nodes; rename the pool. ${POOL_KEPT}`,
    };
  }
  if (pool.name === SYSTEM_POOL) {
    return { pool: pool.name, message: `${at}.name: "${SYSTEM_POOL}" is reserved for ${opts.systemPool}; rename the pool. ${POOL_KEPT}` };
  }
  if (!opts.hasShape) return { pool: pool.name, message: noShapeMessage(at, pool, opts.shape) };
  return undefined;
}

/** The message of a pool without its shape: names the class (or the fields) and the fix. */
export function noShapeMessage(at: string, pool: CloudPool, shape: PoolShape): string {
  const { cloud, noun, fields } = shape;
  const block = `spec.provisioning.${cloud.toLowerCase()}`;
  if (pool.className !== undefined) {
    const classFields = fields.map((f) => `${block}.${f}`).join(', ');
    const article = /^[AEIOU]/.test(cloud) ? 'an' : 'a';
    const them = fields.length > 1 ? 'them' : 'it';
    return `${at} (${pool.name}): InferenceClass ${pool.className} has no ${cloud} ${noun} (${classFields}); set ${them} on the class or point the pool at ${article} ${cloud} class. ${POOL_KEPT}`;
  }
  const verb = fields.length > 1 ? 'are' : 'is';
  return `${at} (${pool.name}): ${fields.join(' and ')} ${verb} required; set ${fields.map((f) => `${at}.${f}`).join(' and ')}. ${POOL_KEPT}`;
}

/**
 * Keeps the observed children of a pool that cannot be composed: each of
 * `keys` observed is added to `into` as observed (never deleted).
 */
export function keepPoolChildren(observed: ComposeRequest['observed'], keys: readonly string[], into: Record<string, DesiredResource>): void {
  for (const key of keys) {
    const seen = observed[key];
    if (seen) Object.assign(into, keepObserved({ [key]: seen }));
  }
}

/** `spec.providerConfigRef` of every cloud MR: `spec.credentials` with its defaults (docs/clouds.md#credentials). */
export function cloudProviderConfigRef(credentials: { type?: string; name?: string } | undefined): ProviderConfigRef {
  const kind = credentials?.type === 'ProviderConfig' ? 'ProviderConfig' : 'ClusterProviderConfig';
  return { kind, name: credentials?.name || 'default' };
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
  // One way to read an XR (lib/xr.ts): status left out, nulls pruned, problems naming each field.
  const read = readComposite<{ spec: S }>(composite, parse);
  if (!read.ok) return { invalid: invalidSpecMessage(kind, read.problem) };
  const name = composite.metadata?.name;
  const namespace = composite.metadata?.namespace;
  if (typeof name !== 'string' || name === '' || typeof namespace !== 'string' || namespace === '') {
    return { invalid: invalidSpecMessage(kind, 'metadata.name and metadata.namespace are required') };
  }
  return { name, namespace, spec: read.xr.spec };
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
 * Everything kept as it is: every observed child (the keys of
 * `keep.alwaysReady` marked ready) and the status fields the function wrote
 * (no `status` when none is set). No condition, result or requirement.
 */
export function keepComposed(req: ComposeRequest, keep: KeepCluster): ComposeResult {
  const result = emptyResult();
  result.resources = keepObserved(req.observed);
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

/**
 * Input that cannot be composed at all: {@link keepComposed}, plus
 * {@link SPEC_VALID} False with `reason` and `message`, and a Warning with
 * the same reason and message.
 */
export function keepCluster(req: ComposeRequest, keep: KeepCluster, reason: string, message: string): ComposeResult {
  const result = keepComposed(req, keep);
  return keepAndWarn(result, req.observed, { type: SPEC_VALID, reason, message, warningReason: true }, () => result.resources);
}
