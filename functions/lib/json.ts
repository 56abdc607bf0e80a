/**
 * Plain-JSON helpers shared by the function cores.
 *
 * Guarantees: every helper returns fresh objects and arrays (except that
 * {@link copyJson} shares frozen ones) and never mutates its input; key order
 * is kept.
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
  return copyTree(value, () => false, (v) => v !== null && v !== undefined);
}

/**
 * A deep copy of a JSON value, as `structuredClone` makes it, except that a
 * frozen object or array (see {@link deepFrozen}) is shared, not copied: it
 * cannot change, so sharing it is as good as a copy, and a composed resource
 * that embeds a large vendored manifest (the Gateway API CRDs are 600 KB)
 * costs nothing per reconcile. Own keys only (a `__proto__` key stays a key).
 */
export function copyJson<T>(value: T): T {
  return copyTree(value, (v) => Object.isFrozen(v), () => true);
}

/**
 * A deep copy of a plain JSON value that shares nothing with its input (not
 * even frozen parts: the copy is always writable), key order and `undefined`
 * fields kept, as `structuredClone` makes of such data but several times
 * faster (the builders copy large manifests on every reconcile). Anything
 * else (a Date, a Map, a Buffer) is copied by `structuredClone`. Any depth.
 */
export function cloneJson<T>(value: T): T {
  return copyTree(value, () => false, () => true);
}

/**
 * The one deep-copy walk of this module: objects and arrays copied (own keys,
 * each defined as data, so a `__proto__` key stays a key), except those
 * `share` says to reuse as they are; an object's entries whose value `keep`
 * refuses are left out (array items always stay). A value that is not a
 * plain object or array (a Date, a Map) is copied by `structuredClone`.
 */
function copyTree<T>(value: T, share: (v: object) => boolean, keep: (v: unknown) => boolean): T {
  // an explicit stack, not recursion: objects may nest 10,000 levels (functions/lib/wire)
  const stack: [object, JsonObject | unknown[]][] = [];
  const copy = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object' || share(v)) return v;
    const proto = Object.getPrototypeOf(v);
    if (!Array.isArray(v) && proto !== Object.prototype && proto !== null) return structuredClone(v);
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
      const keys = Object.keys(src);
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i]!;
        const v = (src as JsonObject)[k];
        if (!keep(v)) continue;
        // An assignment makes the same own data property, several times faster than defineProperty;
        // only `__proto__` needs defining (assigned, it would set the prototype).
        if (k === '__proto__') Object.defineProperty(out, k, { value: copy(v), writable: true, enumerable: true, configurable: true });
        else out[k] = copy(v);
      }
    }
  }
  return root as T;
}

/**
 * `value` with every object and array in it frozen (in place), for module
 * constants that composed resources share (see {@link copyJson}).
 * @returns `value`
 */
export function deepFrozen<T>(value: T): T {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object' || Object.isFrozen(v)) continue;
    Object.freeze(v);
    for (const child of Object.values(v)) stack.push(child);
  }
  return value;
}
