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
  // Two parallel stacks of the pairs still to compare (no pair array per node).
  const xs: unknown[] = [a];
  const ys: unknown[] = [b];
  while (xs.length > 0) {
    let x = xs.pop();
    let y = ys.pop();
    if (x === y) continue;
    x = norm(x);
    y = norm(y);
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) {
        xs.push(inArray(x[i]));
        ys.push(inArray(y[i]));
      }
      continue;
    }
    if (Array.isArray(y)) return false;
    if (!sameEntries(x as Record<string, unknown>, y as Record<string, unknown>, xs, ys)) return false;
  }
  return true;
}

/**
 * Whether `x` and `y` have the same present keys (those JSON.stringify
 * writes) in the same order; if so, pushes their values pairwise. Without
 * absent values (the usual case) the key lists are compared as they are.
 */
function sameEntries(x: Record<string, unknown>, y: Record<string, unknown>, xs: unknown[], ys: unknown[]): boolean {
  const kx = Object.keys(x);
  const ky = Object.keys(y);
  if (kx.length === ky.length) {
    let plain = true;
    for (let i = 0; i < kx.length; i++) {
      const k = kx[i]!;
      if (k !== ky[i] || absent(x[k]) || absent(y[k])) {
        plain = false;
        break;
      }
    }
    if (plain) {
      for (let i = 0; i < kx.length; i++) {
        xs.push(x[kx[i]!]);
        ys.push(y[kx[i]!]);
      }
      return true;
    }
  }
  const px = presentKeys(x, kx);
  const py = presentKeys(y, ky);
  if (px.length !== py.length) return false;
  for (let i = 0; i < px.length; i++) {
    if (px[i] !== py[i]) return false;
    xs.push(x[px[i]!]);
    ys.push(y[px[i]!]);
  }
  return true;
}

/** A property value JSON.stringify leaves out of an object. */
function absent(v: unknown): boolean {
  return v === undefined || typeof v === 'function' || typeof v === 'symbol';
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
  return absent(v) ? null : v;
}

/** Of `keys` (`o`'s own enumerable string keys), those whose values JSON.stringify writes, in its order. */
function presentKeys(o: Record<string, unknown>, keys: string[]): string[] {
  const out: string[] = [];
  for (const k of keys) if (!absent(o[k])) out.push(k);
  return out;
}
