/**
 * Go int64 / uint64 arithmetic on bigint: wrapping conversions and the
 * overflow-checked helpers of k8s.io/apimachinery/pkg/api/resource/math.go.
 *
 * Every function takes and returns values inside the int64 range
 * [-2^63, 2^63-1] unless its name says otherwise.
 */

/** Smallest int64, -2^63. */
export const INT64_MIN = -(1n << 63n);
/** Largest int64, 2^63-1. */
export const INT64_MAX = (1n << 63n) - 1n;
/** Largest uint64, 2^64-1. */
export const UINT64_MAX = (1n << 64n) - 1n;

/** Go's int64(x): wraps to 64-bit two's complement. */
export function wrap64(x: bigint): bigint {
  return BigInt.asIntN(64, x);
}

/** True when x fits in int64. */
export function inInt64(x: bigint): boolean {
  return x >= INT64_MIN && x <= INT64_MAX;
}

/** True when x fits in uint64. */
export function inUint64(x: bigint): boolean {
  return x >= 0n && x <= UINT64_MAX;
}

/** resource.int64Add: a+b and whether it did not overflow. */
export function int64Add(a: bigint, b: bigint): [bigint, boolean] {
  const c = wrap64(a + b);
  if (a > 0n && b > 0n) {
    if (c < 0n) return [0n, false];
  } else if (a < 0n && b < 0n) {
    if (c > 0n) return [0n, false];
    if (a === INT64_MIN && b === INT64_MIN) return [0n, false];
  }
  return [c, true];
}

/** resource.int64Multiply. */
export function int64Multiply(a: bigint, b: bigint): [bigint, boolean] {
  if (a === 0n || b === 0n || a === 1n || b === 1n) return [wrap64(a * b), true];
  if (a === INT64_MIN || b === INT64_MIN) return [0n, false];
  const c = wrap64(a * b);
  return [c, c / b === a];
}

/** resource.int64MultiplyScale (and the 10/100/1000 variants, which are this with b fixed). */
export function int64MultiplyScale(a: bigint, b: bigint): [bigint, boolean] {
  if (a === 0n || a === 1n) return [wrap64(a * b), true];
  if (a === INT64_MIN && b !== 1n) return [0n, false];
  const c = wrap64(a * b);
  return [c, c / b === a];
}

/** resource.positiveScaleInt64: base * 10^scale, scale >= 0. */
export function positiveScaleInt64(base: bigint, scale: number): [bigint, boolean] {
  switch (scale) {
    case 0:
      return [base, true];
    case 1:
      return int64MultiplyScale(base, 10n);
    case 2:
      return int64MultiplyScale(base, 100n);
    case 3:
      return int64MultiplyScale(base, 1000n);
    case 6:
      return int64MultiplyScale(base, 1000000n);
    case 9:
      return int64MultiplyScale(base, 1000000000n);
    default: {
      let value = base;
      for (let i = 0; i < scale; i++) {
        const [v, ok] = int64MultiplyScale(value, 10n);
        if (!ok) return [0n, false];
        value = v;
      }
      return [value, true];
    }
  }
}

/** resource.negativeScaleInt64: base / 10^scale rounded away from zero, and whether exact. */
export function negativeScaleInt64(base: bigint, scale: number): [bigint, boolean] {
  if (scale === 0) return [base, true];
  let value = base;
  let fraction = false;
  for (let i = 0; i < scale; i++) {
    if (!fraction && value % 10n !== 0n) fraction = true;
    value = value / 10n;
    if (value === 0n) {
      if (fraction) return [base > 0n ? 1n : -1n, false];
      return [0n, true];
    }
  }
  if (fraction) value = base > 0n ? value + 1n : value - 1n;
  return [value, !fraction];
}

/** resource.divideByScaleInt64: (quotient, remainder, exact). */
export function divideByScaleInt64(base: bigint, scale: number): [bigint, bigint, boolean] {
  if (scale === 0) return [base, 0n, true];
  if (scale >= 18) return [0n, base, false];
  const divisor = 10n ** BigInt(scale);
  return [base / divisor, base % divisor, true];
}

/** resource.removeInt64Factors: strips factors of `base` (Go wrap on -MinInt64 included). */
export function removeInt64Factors(value: bigint, base: bigint): [bigint, number] {
  let times = 0;
  let result = value;
  const negative = result < 0n;
  if (negative) result = wrap64(-result);
  while (result >= base && result % base === 0n) {
    times++;
    result = result / base;
  }
  if (negative) result = wrap64(-result);
  return [result, times];
}
