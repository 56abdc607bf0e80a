/**
 * Plain-JSON helpers shared by the function cores.
 *
 * Guarantees: every helper returns fresh objects and arrays and never mutates
 * its input; key order is kept.
 */
import type { JsonObject } from './function.js';

/**
 * A deep copy of a JSON value with every object field that is `null` (or
 * `undefined`, which JSON cannot carry) dropped; array items are kept in
 * place. This is what the API server does to a non-nullable field before
 * defaulting (Kubernetes CRD structural defaulting: "nulls are pruned"), so a
 * field given as `null` then takes the XRD's default.
 */
export function withoutNulls<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutNulls) as T;
  if (value !== null && typeof value === 'object') {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) out[k] = withoutNulls(v);
    return out as T;
  }
  return value;
}
