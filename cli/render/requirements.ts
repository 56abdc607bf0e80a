/**
 * Whether two responses asked for the same required resources: the render
 * engine's requirements loop ends when a step's requirements equal the
 * previous call's (docs/composition.md#the-requirements-loop). Crossplane compares them as
 * protobuf messages; {@link requirementsEqual} gives the same answer as
 * comparing their encodings with map keys sorted (proto3 rules: `matchName`
 * and `namespace` are optional, so an empty one differs from an unset one; a
 * message value that is set differs from an unset one even when empty; map
 * order does not count), without encoding anything: the loop runs this on
 * every call of every reconcile of a plan. test/render/requirements.test.ts
 * checks it against the SDK's encodings.
 */
import type { Requirements, ResourceSelector, SchemaSelector } from '@crossplane-org/function-sdk-typescript';

type Eq<V> = (a: V, b: V) => boolean;

/** Same keys (in any order) and equal values. */
function mapEqual<V>(a: Record<string, V> | undefined, b: Record<string, V> | undefined, eq: Eq<V>): boolean {
  const x = a ?? {};
  const y = b ?? {};
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  for (const k of keys) {
    if (!Object.hasOwn(y, k) || !eq(x[k]!, y[k]!)) return false;
  }
  return true;
}

/** Equal when both are unset, or both set and equal by `eq` (an unset message value encodes nothing; a set one, even empty, is encoded). */
function optional<V>(eq: Eq<V>): Eq<V | undefined> {
  return (a, b) => (a === undefined || b === undefined ? a === b : eq(a, b));
}

const str = (a: string | undefined, b: string | undefined) => (a ?? '') === (b ?? '');

const selectorEqual: Eq<ResourceSelector | undefined> = optional(
  (a: ResourceSelector, b: ResourceSelector) =>
    str(a.apiVersion, b.apiVersion) &&
    str(a.kind, b.kind) &&
    a.matchName === b.matchName &&
    a.namespace === b.namespace &&
    optional((x: { labels: Record<string, string> }, y: { labels: Record<string, string> }) => mapEqual(x.labels, y.labels, str))(a.matchLabels, b.matchLabels),
);

const schemaEqual: Eq<SchemaSelector | undefined> = optional((a: SchemaSelector, b: SchemaSelector) => str(a.apiVersion, b.apiVersion) && str(a.kind, b.kind));

/** True when `a` and `b` encode to the same bytes once their maps are sorted (both unset counts as equal; one unset does not). */
export function requirementsEqual(a: Requirements | undefined, b: Requirements | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return mapEqual(a.resources, b.resources, selectorEqual) && mapEqual(a.extraResources, b.extraResources, selectorEqual) && mapEqual(a.schemas, b.schemas, schemaEqual);
}
