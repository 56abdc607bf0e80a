/**
 * Structural defaulting, as the API server applies it to custom resources
 * before validation (k8s.io/apiextensions-apiserver
 * `pkg/apiserver/schema/defaulting`), and `crossplane resource validate` does
 * as its first step (docs/composition.md#validation).
 *
 * Rules copied:
 * - a property absent from a present object gets a deep copy of its `default`;
 *   defaults inside that default are applied too;
 * - a `null` for a non-nullable property is dropped, then defaulted if it has
 *   a default (`PruneNonNullableNullsWithoutDefaults` + `Default`);
 * - defaults apply inside array items and map values, never to an absent parent.
 * The input is never mutated.
 */
import type { JSONSchemaProps } from './types.js';

/** Returns a deep copy of `value` with the schema's defaults applied. */
export function applyDefaults(schema: JSONSchemaProps | undefined, value: unknown): unknown {
  if (schema === undefined || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => applyDefaults(schema.items, v));
  const out: Record<string, unknown> = {};
  const mapSchema = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  for (const [k, v] of Object.entries(value)) {
    const child = schema.properties?.[k] ?? mapSchema;
    if (v === null && child !== undefined && !child.nullable && schema.properties?.[k] !== undefined) continue;
    out[k] = applyDefaults(child, v);
  }
  for (const [k, child] of Object.entries(schema.properties ?? {})) {
    if (out[k] === undefined && child.default !== undefined) out[k] = applyDefaults(child, structuredClone(child.default));
  }
  return out;
}
