/**
 * Equality of two JSON values exactly as their `JSON.stringify` texts would
 * compare, without building the texts: the store of `modelplane plan`
 * compares every desired object with the stored one on every reconcile, and
 * building both texts of large objects (CRDs, whole fleets in a status) was
 * a large share of a plan's time and memory.
 *
 * Guarantees (JSON.stringify's rules, ECMA-262 §25.5.2): object keys compare
 * in order (`{a,b}` and `{b,a}` differ, as their texts do); a property whose
 * value is undefined, a function or a symbol is absent; in an array such a
 * value, like NaN and ±Infinity anywhere, is `null`; -0 is 0. Values with a
 * `toJSON` method (Date, Buffer) are compared through it. Plain JSON data
 * only: cycles are not detected (stored objects have none).
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  a = norm(a);
  b = norm(b);
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(inArray(a[i]), inArray(b[i]))) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = presentKeys(a as Record<string, unknown>);
  const kb = presentKeys(b as Record<string, unknown>);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    if (ka[i] !== kb[i]) return false;
    if (!jsonEqual((a as Record<string, unknown>)[ka[i]!], (b as Record<string, unknown>)[kb[i]!])) return false;
  }
  return true;
}

/** What JSON.stringify writes for a value before looking inside it: toJSON applied, non-finite numbers as null. */
function norm(v: unknown): unknown {
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') v = (v as { toJSON(): unknown }).toJSON();
  if (typeof v === 'number' && !Number.isFinite(v)) return null;
  if (v instanceof Number || v instanceof String || v instanceof Boolean) return v.valueOf();
  return v;
}

/** An array element that JSON.stringify writes as null. */
function inArray(v: unknown): unknown {
  return v === undefined || typeof v === 'function' || typeof v === 'symbol' ? null : v;
}

/** Own enumerable string keys whose values JSON.stringify writes, in its order. */
function presentKeys(o: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const k of Object.keys(o)) {
    const v = o[k];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    out.push(k);
  }
  return out;
}
