/**
 * The two representations of a Kubernetes quantity's value, as
 * k8s.io/apimachinery/pkg/api/resource/amount.go and math.go handle them:
 * `int64Amount` (value × 10^scale within int64, with Go's overflow checks)
 * and the exact decimal (inf.Dec), their comparison and addition, and the
 * canonical digit/exponent forms the quantity string is built from.
 */
import { Dec } from './decimal.js';
import { divideByScaleInt64, int64Add, negativeScaleInt64, positiveScaleInt64, removeInt64Factors, wrap64 } from './int64.js';

/** resource.int64Amount: value × 10^scale. */
export interface Int64Amount {
  readonly value: bigint;
  readonly scale: number;
}

/** The zero int64Amount. */
export const ZERO_AMOUNT: Int64Amount = { value: 0n, scale: 0 };

/** int64Amount.Cmp. */
export function cmpAmount(a0: Int64Amount, b0: Int64Amount): number {
  let a = a0.value;
  let b = b0.value;
  if (a0.scale > b0.scale) {
    const [result, remainder, exact] = divideByScaleInt64(b, a0.scale - b0.scale);
    if (!exact) return amountDec(a0).cmp(amountDec(b0));
    if (result === a) return remainder === 0n ? 0 : remainder > 0n ? -1 : 1;
    b = result;
  } else if (a0.scale < b0.scale) {
    const [result, remainder, exact] = divideByScaleInt64(a, b0.scale - a0.scale);
    if (!exact) return amountDec(a0).cmp(amountDec(b0));
    if (result === b) return remainder === 0n ? 0 : remainder > 0n ? 1 : -1;
    a = result;
  }
  return a === b ? 0 : a < b ? -1 : 1;
}

export function amountDec(a: Int64Amount): Dec {
  return new Dec(a.value, -a.scale);
}

/** int64Amount.Add: the sum, or undefined when it does not fit. */
export function addAmount(a: Int64Amount, b: Int64Amount): Int64Amount | undefined {
  if (b.value === 0n) return a;
  if (a.value === 0n) return b;
  if (a.scale === b.scale) {
    const [c, ok] = int64Add(a.value, b.value);
    return ok ? { value: c, scale: a.scale } : undefined;
  }
  if (a.scale > b.scale) {
    const [c, ok] = positiveScaleInt64(a.value, a.scale - b.scale);
    if (!ok) return undefined;
    const [d, ok2] = int64Add(c, b.value);
    return ok2 ? { value: d, scale: b.scale } : undefined;
  }
  const [c, ok] = positiveScaleInt64(b.value, b.scale - a.scale);
  if (!ok) return undefined;
  const [d, ok2] = int64Add(a.value, c);
  return ok2 ? { value: d, scale: a.scale } : undefined;
}

/** int64Amount.AsCanonicalBytes: digits and a power-of-ten exponent that is a multiple of 3. */
export function amountCanonical(a: Int64Amount): [string, number] {
  let [amount, times] = removeInt64Factors(a.value, 10n);
  let exponent = a.scale + times;
  const r = exponent % 3;
  if (r === 1 || r === -2) {
    const [v, ok] = scaleBy(amount, 10n);
    if (!ok) return decCanonical(amountDec(a));
    amount = v;
    exponent -= 1;
  } else if (r === 2 || r === -1) {
    const [v, ok] = scaleBy(amount, 100n);
    if (!ok) return decCanonical(amountDec(a));
    amount = v;
    exponent -= 2;
  }
  return [amount.toString(), exponent];
}

/** int64MultiplyScale10 / int64MultiplyScale100. */
function scaleBy(a: bigint, f: bigint): [bigint, boolean] {
  if (a === 0n || a === 1n) return [a * f, true];
  if (a === -(1n << 63n)) return [0n, false];
  const c = wrap64(a * f);
  return [c, c / f === a];
}

/** infDecAmount.AsCanonicalBytes. */
export function decCanonical(d: Dec): [string, number] {
  let exponent = -d.scale;
  let amount = d.unscaled;
  while (amount !== 0n && amount % 10n === 0n) {
    amount /= 10n;
    exponent++;
  }
  while (exponent % 3 !== 0) {
    amount *= 10n;
    exponent--;
  }
  return [amount.toString(), exponent];
}

/** int64Amount.AsCanonicalBase1024Bytes. */
export function amountBase1024(a: Int64Amount): [string, number] {
  let value: bigint;
  if (a.scale < 0) {
    value = negativeScaleInt64(a.value, -a.scale)[0];
  } else {
    const [v, ok] = positiveScaleInt64(a.value, a.scale);
    if (!ok) return decBase1024(amountDec(a));
    value = v;
  }
  const [amount, exponent] = removeInt64Factors(value, 1024n);
  return [amount.toString(), exponent];
}

/** infDecAmount.AsCanonicalBase1024Bytes. */
export function decBase1024(d: Dec): [string, number] {
  let amount = d.roundUp(0).unscaled;
  let times = 0;
  while (amount !== 0n && amount % 1024n === 0n) {
    amount /= 1024n;
    times++;
  }
  return [amount.toString(), times];
}

const POW10_TAB = Array.from({ length: 32 }, (_, i) => Number(`1e${i}`));
const POW10_POS32 = Array.from({ length: 10 }, (_, i) => Number(`1e${i * 32}`));
const POW10_NEG32 = Array.from({ length: 11 }, (_, i) => Number(`1e-${i * 32}`));

/** Go's math.Pow10, table for table. */
export function goPow10(n: number): number {
  if (n >= 0 && n <= 308) return POW10_POS32[Math.trunc(n / 32)]! * POW10_TAB[n % 32]!;
  if (n >= -323 && n <= 0) return POW10_NEG32[Math.trunc(-n / 32)]! / POW10_TAB[-n % 32]!;
  return n > 0 ? Number.POSITIVE_INFINITY : 0;
}
