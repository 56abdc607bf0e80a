/**
 * The metadata rules `crossplane render` (CLI v2.3, the "new engine") applies
 * to the XR and its composed resources, from docs/composition.md#readiness,
 * docs/composition.md#names-and-metadata-of-composed-resources,
 * docs/composition.md#output-format and docs/composition.md#what-our-harness-reproduces.
 *
 * Guarantees: every value is derived from the inputs only (no clock, no
 * randomness): the XR UID is a version-5 UUID of its identity, composed names
 * are `<generateName><first 12 hex of sha256(uid + resource name)>`, and every
 * condition carries the fixed time `2024-01-01T00:00:00Z`.
 */
import { createHash } from 'node:crypto';
import type { Condition, JsonObject, KubeObject } from '../../functions/lib/function.js';
import { UserError } from '../load.js';
import { uuidV5 } from '../objects.js';

/**
 * Whether an object passes the namespace and label parts of a required-resource
 * list selector (docs/composition.md#the-requirements-loop): an empty or absent namespace means every
 * namespace; every label must match exactly.
 */
export function inListSelector(
  o: KubeObject,
  sel: { namespace?: string | undefined; matchLabels?: { labels: Record<string, string> } | undefined },
): boolean {
  if (sel.namespace && o.metadata?.namespace !== sel.namespace) return false;
  return Object.entries(sel.matchLabels?.labels ?? {}).every(([k, v]) => o.metadata?.labels?.[k] === v);
}

/** The timestamp render writes on every condition. */
export const FIXED_TIME = '2024-01-01T00:00:00Z';
/** Annotation keying a composed resource to its pipeline entry. */
export const RESOURCE_NAME_ANNOTATION = 'crossplane.io/composition-resource-name';
/** Label naming the root XR of a composed tree. */
export const COMPOSITE_LABEL = 'crossplane.io/composite';

/** The UID render derives for an XR that has none. */
export function deterministicUid(xr: KubeObject): string {
  const apiVersion = xr.apiVersion.includes('/') ? xr.apiVersion : `/${xr.apiVersion}`;
  return uuidV5(`${apiVersion}, Kind=${xr.kind}\0${xr.metadata?.namespace ?? ''}\0${xr.metadata?.name ?? ''}`);
}

/**
 * Crossplane's deterministic composed-resource name (v2.0+): the
 * generateName followed by 12 hex characters of SHA-256(XR UID + resource
 * name), the prefix shortened so the whole stays within 63 characters.
 */
export function composedName(generateName: string, xrUid: string, resourceName: string): string {
  const suffix = createHash('sha256').update(xrUid + resourceName).digest('hex').slice(0, 12);
  return generateName.slice(0, 63 - suffix.length) + suffix;
}

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Kubernetes' RFC 1123 subdomain check on a composed name (at most 253 characters). */
export function checkName(name: string, resourceName: string): void {
  if (name.length > 253 || !DNS1123_SUBDOMAIN.test(name)) {
    throw new UserError(
      `composed resource "${resourceName}": metadata.name "${name}" is not a valid RFC 1123 subdomain (lower case alphanumerics, '-' and '.')`,
    );
  }
}

/** A condition as it appears on an object, with the fixed timestamp. */
export function stampCondition(c: Condition): JsonObject {
  const out: JsonObject = { lastTransitionTime: FIXED_TIME, reason: c.reason, status: c.status, type: c.type };
  if (c.message) out['message'] = c.message;
  return out;
}

/**
 * The XR's Ready condition from its composed resources' readiness
 * (docs/composition.md#readiness): Available when all are ready, otherwise Creating with
 * "Unready resources: a, b" / "a, b, and c" / "a, b, c, and N more" (sorted).
 * An explicit desired readiness overrides: true → Available, false → Creating
 * without a message.
 */
export function readyCondition(unready: string[], override: boolean | undefined): Condition {
  if (override === true) return { type: 'Ready', status: 'True', reason: 'Available' };
  if (override === false) return { type: 'Ready', status: 'False', reason: 'Creating' };
  if (unready.length === 0) return { type: 'Ready', status: 'True', reason: 'Available' };
  const names = [...unready].sort();
  // crossplane-runtime resource.StableNAndSomeMore(3, names).
  let list: string;
  if (names.length > 3) list = `${names.slice(0, 3).join(', ')}, and ${names.length - 3} more`;
  else if (names.length === 3) list = `${names[0]}, ${names[1]}, and ${names[2]}`;
  else list = names.join(', ');
  return { type: 'Ready', status: 'False', reason: 'Creating', message: `Unready resources: ${list}` };
}

/** Deep-merges `over` onto `base`: objects merge key by key, everything else is replaced. */
export function deepMerge(base: unknown, over: unknown): unknown {
  if (isObject(base) && isObject(over)) {
    const out: JsonObject = { ...base };
    for (const [k, v] of Object.entries(over)) out[k] = k in base ? deepMerge(base[k], v) : v;
    return out;
  }
  return over;
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
