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
  // an explicit stack, not recursion: objects may nest 10,000 levels (functions/lib/wire)
  const stack: [unknown, JsonObject | unknown[]][] = [];
  const copy = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object') return v;
    const c: JsonObject | unknown[] = Array.isArray(v) ? [] : {};
    stack.push([v, c]);
    return c;
  };
  const root = copy(value);
  while (stack.length > 0) {
    const [src, dst] = stack.pop()!;
    if (Array.isArray(src)) {
      const out = dst as unknown[];
      for (let i = 0; i < src.length; i++) out.push(copy(src[i]));
    } else {
      const out = dst as JsonObject;
      for (const [k, v] of Object.entries(src as JsonObject)) if (v !== null && v !== undefined) out[k] = copy(v) as JsonObject[string];
    }
  }
  return root as T;
}

/**
 * A deep copy of a plain JSON value (objects, arrays, primitives; `undefined`
 * fields kept, key order kept), as `structuredClone` makes of such data but
 * several times faster: the builders copy large manifests (vendored CRDs) on
 * every reconcile. Anything else (a Date, a Map, a Buffer) is copied by
 * `structuredClone`. Any depth (an explicit stack).
 */
export function cloneJson<T>(value: T): T {
  const stack: [unknown, JsonObject | unknown[]][] = [];
  const copy = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object') return v;
    const proto = Object.getPrototypeOf(v);
    if (Array.isArray(v)) {
      const c: unknown[] = [];
      stack.push([v, c]);
      return c;
    }
    if (proto !== Object.prototype && proto !== null) return structuredClone(v);
    const c: JsonObject = {};
    stack.push([v, c]);
    return c;
  };
  const root = copy(value);
  while (stack.length > 0) {
    const [src, dst] = stack.pop()!;
    if (Array.isArray(src)) {
      const out = dst as unknown[];
      for (let i = 0; i < src.length; i++) out.push(copy(src[i]));
    } else {
      const out = dst as JsonObject;
      for (const k of Object.keys(src as JsonObject)) out[k] = copy((src as JsonObject)[k]) as JsonObject[string];
    }
  }
  return root as T;
}
