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
 * only: cycles are not detected (stored objects have none). Any depth (no
 * recursion).
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  // An explicit stack, not recursion: objects may nest 10,000 levels (functions/lib/wire).
  const stack: [unknown, unknown][] = [[a, b]];
  while (stack.length > 0) {
    let [x, y] = stack.pop()!;
    if (x === y) continue;
    x = norm(x);
    y = norm(y);
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) stack.push([inArray(x[i]), inArray(y[i])]);
      continue;
    }
    if (Array.isArray(y)) return false;
    const kx = presentKeys(x as Record<string, unknown>);
    const ky = presentKeys(y as Record<string, unknown>);
    if (kx.length !== ky.length) return false;
    for (let i = 0; i < kx.length; i++) {
      if (kx[i] !== ky[i]) return false;
      stack.push([(x as Record<string, unknown>)[kx[i]!], (y as Record<string, unknown>)[ky[i]!]]);
    }
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
