/**
 * Size and cost ranges for the static estimator, with cel-go's saturating
 * uint64 arithmetic (checker/cost.go SizeEstimate/CostEstimate): values are
 * bigint and stop at 2^64-1; cost factors multiply in float64 and round up.
 */

export const MAX = (1n << 64n) - 1n;
const TWO64 = 2 ** 64;

/** A [min, max] range of sizes or costs. */
export interface Range {
  readonly min: bigint;
  readonly max: bigint;
}

export const fixed = (n: bigint): Range => ({ min: n, max: n });
export const UNKNOWN: Range = { min: 0n, max: MAX };
export const sat = (x: bigint): bigint => (x > MAX ? MAX : x);
export const add = (a: Range, b: Range): Range => ({ min: sat(a.min + b.min), max: sat(a.max + b.max) });
export const mul = (a: Range, b: Range): Range => ({ min: sat(a.min * b.min), max: sat(a.max * b.max) });
export const minB = (a: bigint, b: bigint): bigint => (b < a ? b : a);
export const maxB = (a: bigint, b: bigint): bigint => (b > a ? b : a);
export const union = (x: Range, y: Range): Range => ({ min: minB(x.min, y.min), max: maxB(x.max, y.max) });

/** cel-go multiplyByCostFactor: ceil(x × f) in float64, saturating. */
function factor1(x: bigint, f: number): bigint {
  const xf = Number(x);
  if (xf > 0 && f > 0 && xf > TWO64 / f) return MAX;
  const c = Math.ceil(xf * f);
  if (c >= TWO64) return MAX;
  return BigInt(c);
}
export const factor = (r: Range, f: number): Range => ({ min: factor1(r.min, f), max: factor1(r.max, f) });

export const STRING_TRAVERSAL = 0.1;
export const REGEX_LENGTH = 0.25;

/**
 * Quantity and semver methods Kubernetes charges a flat cost of 1 for, both
 * in its static estimate and at run time (apiserver/pkg/cel/library/cost.go).
 */
export const UNIT_COST_METHODS: ReadonlySet<string> = new Set([
  'sign',
  'asInteger',
  'isInteger',
  'asApproximateFloat',
  'isGreaterThan',
  'isLessThan',
  'compareTo',
  'add',
  'sub',
  'major',
  'minor',
  'patch',
]);
