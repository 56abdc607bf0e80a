/**
 * compose-inference-quota: measures what an InferenceQuota's namespace holds
 * across the fleet and publishes it; composes nothing (docs/quotas.md).
 * Enforcement is the ModelDeployment scheduler's, from this status.
 *
 * Guarantees:
 * - Requirements on every call: `clusters` (every InferenceCluster, as the
 *   scheduler requires them) and, per limit with a classSelector,
 *   `classes-<index>` (the InferenceClasses with those labels). While one is
 *   not fetched yet only the requirements are returned: no status is
 *   written from a half-read fleet.
 * - `status.limits[i]` per `spec.limits[i]`, in spec order: `index`, the
 *   limit (`devices` or `replicas`), `used` (lib/quota.ts `usage`: what the
 *   clusters' capacity ledgers say the namespace holds), and for a limit
 *   with a classSelector `selector` (the selector as text) and `classNames`
 *   (the matching classes, sorted; `[]` when none match). `status.summary`
 *   is the USED column: `6/8 devices, 1/2 gpu=h100 devices, 3/10 replicas`.
 * - Condition `Usage`: True `WithinQuota` when every limit holds at least
 *   what is used (a message names each selector that matches no class);
 *   True `OverQuota` when some limit is exceeded, the message naming each
 *   (lib/quota.ts `msgOverQuota`), with a Warning event when it becomes so.
 *   Over quota is a state of the fleet (a lowered quota, replicas placed
 *   before the quota): nothing is removed for it. The XR is Ready either way
 *   (it composes nothing; Crossplane derives Ready, and Ready's reason is
 *   Crossplane's own, so the verdict lives in `Usage`).
 * - Invalid spec (what the API server would refuse, lib/quota.ts
 *   `readQuota`): `Usage` False `InvalidSpec` and a Warning naming every
 *   field, never a Fatal result; the XR is not Ready and the status
 *   published before is kept as it was, so the scheduler keeps enforcing
 *   what it knew.
 * - Deterministic and quiet: the same fleet gives the same status; nothing
 *   in it moves between calls.
 * Divergence from Kubernetes' ResourceQuota: usage is measured from what
 * the fleet published, not admitted synchronously, so it can lag the fleet
 * by one reconcile of a cluster (docs/quotas.md#when-it-is-enforced).
 */
import {
  type ComposeRequest,
  type ComposeResult,
  condition,
  emptyResult,
  getPath,
  type JsonObject,
  type KubeObject,
  readRequired,
  readCondition,
  warning,
} from '../lib/function.js';
import { InferenceClassGVK } from '../lib/generated/inferenceclasses.js';
import { InferenceClusterGVK } from '../lib/generated/inferenceclusters.js';
import { compareStrings } from '../lib/order.js';
import { msgOverQuota, type QuotaLimit, readQuota, usage } from '../lib/quota.js';

/** Requirement names: every InferenceCluster, and the classes of limit `index`'s classSelector. */
export const REQ_CLUSTERS = 'clusters';
export const reqClasses = (index: number): string => `classes-${index}`;

/** Condition type and reasons. */
export const Usage = 'Usage';
export const Reason = { WithinQuota: 'WithinQuota', OverQuota: 'OverQuota', InvalidSpec: 'InvalidSpec' } as const;

/** `Invalid InferenceQuota: <field>: <problem>; …`. */
export const msgInvalidQuota = (errors: readonly string[]): string => `Invalid InferenceQuota: ${errors.join('; ')}`;

/** `spec.limits[1].classSelector gpu=h100 matches no InferenceClass, so the limit counts nothing`. */
export const msgNoClasses = (limit: QuotaLimit): string =>
  `spec.limits[${limit.index}].classSelector ${limit.selector ?? ''} matches no InferenceClass, so the limit counts nothing`;

/** `6/8 devices`, `1/2 gpu=h100 devices`, `3/10 replicas`: one limit of the USED column. */
export function summaryOf(limit: QuotaLimit, used: number): string {
  const scope = limit.selector === undefined ? '' : `${limit.selector} `;
  return `${used}/${limit.limit} ${scope}${limit.kind}`;
}

/** The `limits` and `summary` the XR published, as they were, or undefined. */
function keptStatus(status: unknown): JsonObject | undefined {
  if (typeof status !== 'object' || status === null || Array.isArray(status)) return undefined;
  const s = status as JsonObject;
  const out: JsonObject = {};
  if (Array.isArray(s['limits'])) out['limits'] = s['limits'];
  if (typeof s['summary'] === 'string') out['summary'] = s['summary'];
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The names of fetched InferenceClasses, sorted and distinct. */
function classNames(items: readonly KubeObject[]): string[] {
  const names = items.map((c) => c.metadata?.name).filter((n): n is string => typeof n === 'string' && n !== '');
  return [...new Set(names)].sort(compareStrings);
}

/** Composes an InferenceQuota: nothing composed; usage and the resolved classes in status. */
export function compose(req: ComposeRequest): ComposeResult {
  const result = emptyResult();
  const read = readQuota(req.composite);
  if (!read.ok) {
    const message = msgInvalidQuota(read.errors);
    const kept = keptStatus(req.composite['status']);
    if (kept !== undefined) result.status = kept;
    result.ready = false;
    result.conditions.push(condition(Usage, false, Reason.InvalidSpec, message));
    result.results.push(warning(message));
    return result;
  }
  const { namespace, limits: specLimits } = read.quota;

  result.requirements[REQ_CLUSTERS] = { apiVersion: InferenceClusterGVK.apiVersion, kind: InferenceClusterGVK.kind };
  const selectors = specLimits.filter((l) => l.selector !== undefined);
  for (const l of selectors) {
    const matchLabels = specMatchLabels(req.composite, l.index);
    result.requirements[reqClasses(l.index)] = { apiVersion: InferenceClassGVK.apiVersion, kind: InferenceClassGVK.kind, matchLabels };
  }
  const clusters = readRequired(req, REQ_CLUSTERS);
  const classes = selectors.map((l) => readRequired(req, reqClasses(l.index)));
  if (clusters.state === 'pending' || classes.some((c) => c.state === 'pending')) return result;

  // Resolved from what was fetched now, never from our own status (that is what the scheduler reads).
  const resolved = new Map<number, string[]>();
  selectors.forEach((l, k) => {
    const c = classes[k]!;
    resolved.set(l.index, c.state === 'present' ? classNames(c.items) : []);
  });
  const limits: QuotaLimit[] = specLimits.map((l) => {
    const names = resolved.get(l.index);
    if (names === undefined) return l;
    const { unresolved: _unresolved, ...rest } = l;
    return { ...rest, classNames: names };
  });
  const used = usage(clusters.state === 'present' ? clusters.items : [], namespace, limits);

  result.status = {
    summary: limits.map((l, i) => summaryOf(l, used[i]!)).join(', '),
    limits: limits.map((l, i) => {
      const entry: JsonObject = { index: l.index, [l.kind]: l.limit, used: used[i]! };
      if (l.selector !== undefined) entry['selector'] = l.selector;
      if (l.classNames !== undefined) entry['classNames'] = [...l.classNames];
      return entry;
    }),
  };
  const over = limits.flatMap((l, i) => (used[i]! > l.limit ? [msgOverQuota(l, used[i]!)] : []));
  if (over.length > 0) {
    const message = over.join('; ');
    result.conditions.push(condition(Usage, true, Reason.OverQuota, message));
    if (!wasOverQuota(req.composite)) result.results.push(warning(`Over quota: ${message}`, Reason.OverQuota));
  } else {
    const notes = limits.filter((l) => l.classNames !== undefined && l.classNames.length === 0).map(msgNoClasses);
    result.conditions.push(condition(Usage, true, Reason.WithinQuota, notes.join('; ')));
  }
  result.ready = true;
  return result;
}

/** The `matchLabels` of `spec.limits[index].classSelector`, copied (readQuota has checked them: a non-empty map of strings). */
function specMatchLabels(xr: KubeObject, index: number): Record<string, string> {
  const labels = getPath(xr, 'spec', 'limits', index, 'classSelector', 'matchLabels');
  return { ...(labels as Record<string, string>) };
}

/** True when the observed XR already says OverQuota (so the Warning is an event of the change, not of every call). */
function wasOverQuota(xr: KubeObject): boolean {
  if (readCondition(xr, Usage).state !== 'True') return false;
  const conditions = (xr['status'] as JsonObject | undefined)?.['conditions'];
  return Array.isArray(conditions) && conditions.some((c) => (c as JsonObject)?.['type'] === Usage && (c as JsonObject)['reason'] === Reason.OverQuota);
}
