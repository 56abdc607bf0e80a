/**
 * The one string order the composition functions sort by.
 *
 * Guarantees: {@link compareStrings} is a total order on strings, the order
 * `Array.prototype.sort()` uses without a comparator (UTF-16 code units), so
 * sorting records by a name field gives the same order as sorting the names
 * themselves with `.sort()`, as `Object.keys(...).sort()` does everywhere
 * else. It never depends on the locale (unlike `localeCompare`).
 *
 * Not for CEL: CEL (and Go) order strings by Unicode code point, which
 * differs from this order only for characters outside the Basic Multilingual
 * Plane; `packages/cel/src/values.ts` `compareCodePoints` does that.
 */

/** -1, 0 or 1 as `a` sorts before, with, or after `b` (UTF-16 code-unit order). */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
