/**
 * Kubernetes `resource.Quantity` (k8s.io/apimachinery/pkg/api/resource,
 * quantity.go, amount.go, suffix.go), ported operation by operation so that
 * parsing, comparison, arithmetic, the integer/float views and the canonical
 * string are the ones Kubernetes computes, quirks included:
 *
 * - a quantity is held either as a small `int64Amount` (value × 10^scale) or
 *   as an exact decimal, exactly when Go holds it so; `isInteger`/`asInteger`
 *   depend on that (`0.5Ki` is 512 but, being decimal-backed, not an integer);
 * - values are rounded up (away from zero) to 1n at parse time, BinarySI
 *   values are capped at 2^63-1;
 * - bare suffixes parse as zero (`Mi` is 0), `.` and `-` parse as zero;
 * - the canonical string of a value without a suffix for its exponent has no
 *   suffix at all (`1000E` renders as `1`), as in Kubernetes.
 *
 * No floating point is used except in `asApproximateFloat`, which reproduces
 * Go's `base * math.Pow10(exponent)`.
 *
 * Divergence: none in behaviour; decimals wider than 1,000,000 digits throw a
 * RangeError (see decimal.ts).
 */
import {
  addAmount,
  amountBase1024,
  amountCanonical,
  cmpAmount,
  decBase1024,
  decCanonical,
  goPow10,
  type Int64Amount,
  ZERO_AMOUNT,
} from './amount.js';
import { Dec, MAX_DIGITS, parseDec } from './decimal.js';
import { constructSuffix, interpretSuffix, type QuantityFormat } from './suffix.js';
import { INT64_MAX, inInt64, int64Multiply, negativeScaleInt64, positiveScaleInt64, wrap64 } from './int64.js';

export { goPow10 } from './amount.js';

/** How a quantity renders: the format of its suffix. */
export type { QuantityFormat };

/** The regular expression Kubernetes quotes in its format error. */
const SPLIT_RE = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';
/** resource.ErrFormatWrong text. */
export const ERR_FORMAT_WRONG = `quantities must match the regular expression '${SPLIT_RE}'`;
/** resource.ErrNumeric text. */
export const ERR_NUMERIC = 'unable to parse numeric part of quantity';
/** resource.ErrSuffix text. */
export const ERR_SUFFIX = "unable to parse quantity's suffix";

/** Thrown by parseQuantity; `message` is Kubernetes' error text. */
export class QuantityParseError extends Error {
  override readonly name = 'QuantityParseError';
}


const SUFFIX_CHARS = 'eEinumkKMGTP';

/** A mutable box around a decimal: Go's `*inf.Dec`, shared by struct copies. */
interface DecCell {
  v: Dec;
  /** Set once the shared decimal has been changed in place. */
  dirty?: boolean;
}

/**
 * A Kubernetes quantity. Construct with {@link parseQuantity} or
 * {@link Quantity.fromInt}. The public methods never change the receiver.
 *
 * The `cel*` methods reproduce what the Kubernetes CEL library does to the
 * receiver (see quantity library in k8s.io/apiserver/pkg/cel/library):
 * `compareTo`/`isGreaterThan`/`isLessThan` call the pointer method `Cmp`,
 * which converts an int64-backed receiver to a decimal when the other side is
 * decimal-backed (so a later `isInteger()` on the same value is false), and
 * `add`/`sub` copy the struct but share its `*inf.Dec`, so adding to a
 * decimal-backed value also changes that value. Both are observable in CEL
 * within one evaluation; the evaluator uses these methods to be faithful.
 */
export class Quantity {
  /** @internal int64 representation, used when `d` is undefined. */
  private i: Int64Amount;
  /** @internal decimal representation (Go's infDecAmount), when set. */
  private d: DecCell | undefined;
  /** The format the canonical string uses. */
  private fmt: QuantityFormat;
  /** @internal the cached string (Go caches the input when it is canonical). */
  private s: string;

  private constructor(i: Int64Amount, d: DecCell | undefined, format: QuantityFormat, s = '') {
    this.i = i;
    this.d = d;
    this.fmt = format;
    this.s = s;
  }

  /** resource.NewQuantity(value, format); value is wrapped to int64. */
  static fromInt(value: bigint, format: QuantityFormat = 'DecimalSI'): Quantity {
    return new Quantity({ value: wrap64(value), scale: 0 }, undefined, format);
  }

  /** @internal */
  static of(i: Int64Amount, d: Dec | undefined, format: QuantityFormat, s = ''): Quantity {
    return new Quantity(i, d ? { v: d } : undefined, format, s);
  }

  /** The format the canonical string uses. */
  get format(): QuantityFormat {
    return this.fmt;
  }

  /** True when the value is held as an exact decimal rather than an int64 amount. */
  get isDecimalBacked(): boolean {
    return this.d !== undefined;
  }

  /** The exact value as a decimal. */
  asDec(): Dec {
    return this.d ? this.d.v : new Dec(this.i.value, -this.i.scale);
  }

  /** True when the value is zero. */
  isZero(): boolean {
    return this.d ? this.d.v.sign() === 0 : this.i.value === 0n;
  }

  /** Quantity.Sign: -1, 0 or 1. */
  sign(): number {
    if (this.d) return this.d.v.sign();
    return this.i.value === 0n ? 0 : this.i.value > 0n ? 1 : -1;
  }

  /** Quantity.Cmp by value, -1, 0 or 1; the receiver is unchanged. */
  cmp(y: Quantity): number {
    if (!this.d && !y.d) return cmpAmount(this.i, y.i);
    return this.asDec().cmp(y.asDec());
  }

  /** Quantity.Cmp as the CEL library calls it: may convert the receiver to a decimal. */
  celCmp(y: Quantity): number {
    if (!this.d && !y.d) return cmpAmount(this.i, y.i);
    return this.toDec().v.cmp(y.asDec());
  }

  /** Quantity.Equal: equal by value. */
  equals(y: Quantity): boolean {
    return this.cmp(y) === 0;
  }

  /**
   * Quantity.AsInt64: the value when it is held as an int64 amount that is a
   * whole number within int64; undefined otherwise (always for decimal-backed
   * quantities, as in Kubernetes).
   */
  asInt64(): bigint | undefined {
    if (this.d) return undefined;
    const a = this.i;
    if (a.scale === 0) return a.value;
    if (a.scale < 0) return undefined;
    const [v, ok] = positiveScaleInt64(a.value, a.scale);
    return ok ? v : undefined;
  }

  /** Quantity.AsApproximateFloat64: `base * math.Pow10(exponent)` as Go computes it. */
  asApproximateFloat64(): number {
    let base: number;
    let exponent: number;
    if (this.d) {
      base = Number(this.d.v.unscaled);
      exponent = -this.d.v.scale;
    } else {
      base = Number(this.i.value);
      exponent = this.i.scale;
    }
    if (exponent === 0) return base;
    return base * goPow10(exponent);
  }

  /** Quantity.Add: a new quantity; the receiver is unchanged. */
  add(y: Quantity): Quantity {
    return this.copy(true).addInPlace(y, false);
  }

  /** Quantity.Sub: a new quantity; the receiver is unchanged. */
  sub(y: Quantity): Quantity {
    return this.copy(true).addInPlace(y, true);
  }

  /** `copy := *q; copy.Add(y)` as the CEL library does it (shares the decimal; the result is a pointer). */
  celAdd(y: Quantity): Quantity {
    const r = this.copy(false).addInPlace(y, false);
    r.pointer = true;
    return r;
  }

  /** `copy := *q; copy.Sub(y)` as the CEL library does it (shares the decimal; the result is a pointer). */
  celSub(y: Quantity): Quantity {
    const r = this.copy(false).addInPlace(y, true);
    r.pointer = true;
    return r;
  }

  /**
   * True for results of the CEL `add`/`sub`, which Kubernetes returns as
   * `*apiservercel.Quantity`: such a value compares fine on the left of `==`
   * but makes `quantity == result` fail with "no such overload".
   */
  get isPointer(): boolean {
    return this.pointer;
  }
  private pointer = false;

  private copy(deep: boolean): Quantity {
    const d = this.d && deep ? { v: this.d.v } : this.d;
    return new Quantity(this.i, d, this.fmt, this.s);
  }

  /** Go's `q.ToDec()`: converts an int64-backed receiver in place. */
  private toDec(): DecCell {
    if (!this.d) {
      this.d = { v: new Dec(this.i.value, -this.i.scale) };
      this.i = ZERO_AMOUNT;
      this.converted = true;
    }
    return this.d;
  }

  /** Set when a `cel*` method converted this receiver to a decimal. */
  private converted = false;

  /**
   * True when CEL evaluation changed this value's representation or value
   * (see the class comment); a caller that reuses the value across
   * evaluations replaces it with a {@link clone} of the original.
   */
  get touched(): boolean {
    return this.converted || this.d?.dirty === true;
  }

  /** An independent copy (its own decimal). */
  clone(): Quantity {
    return this.copy(true);
  }

  /** Quantity.Add / Quantity.Sub on this (a fresh struct copy). */
  private addInPlace(y: Quantity, subtract: boolean): Quantity {
    this.s = '';
    if (subtract) {
      if (this.isZero()) this.fmt = y.fmt;
      if (!this.d && !y.d) {
        const diff = addAmount(this.i, { value: wrap64(-y.i.value), scale: y.i.scale });
        if (diff) {
          this.i = diff;
          return this;
        }
      }
      const cell = this.toDec();
      cell.v = cell.v.sub(y.asDec());
      cell.dirty = true;
      return this;
    }
    if (!this.d && !y.d) {
      if (this.i.value === 0n) this.fmt = y.fmt;
      const sum = addAmount(this.i, y.i);
      if (sum) {
        this.i = sum;
        return this;
      }
    } else if (this.isZero()) {
      this.fmt = y.fmt;
    }
    const cell = this.toDec();
    cell.v = cell.v.add(y.asDec());
    cell.dirty = true;
    return this;
  }

  /** Quantity.String: the canonical form (`1536Mi`, `100m`, `1e3`), cached. */
  toString(): string {
    if (this.s === '') {
      const [number, suffix] = this.canonicalize();
      this.s = number + suffix;
    }
    return this.s;
  }

  private canonicalize(): [string, string] {
    if (this.isZero()) return ['0', ''];
    let format: QuantityFormat = this.fmt;
    let rounded: CanonicalBase1024 | undefined;
    if (format === 'BinarySI') {
      if (this.cmpInt64(-1024n) > 0 && this.cmpInt64(1024n) < 0) {
        format = 'DecimalSI';
      } else {
        const [r, exact] = this.asScale0();
        rounded = r;
        if (!exact) format = 'DecimalSI';
      }
    }
    if (format !== 'BinarySI' || !rounded) {
      const [number, exponent] = this.d ? decCanonical(this.d.v) : amountCanonical(this.i);
      return [number, constructSuffix(10, exponent, format)];
    }
    const [number, exponent] = rounded.base1024();
    return [number, constructSuffix(2, exponent * 10, format)];
  }

  private cmpInt64(y: bigint): number {
    if (this.d) return this.d.v.cmp(new Dec(y, 0));
    return cmpAmount(this.i, { value: y, scale: 0 });
  }

  /** Quantity.AsScale(0): rounded up to a whole number, and whether that was exact. */
  private asScale0(): [CanonicalBase1024, boolean] {
    if (this.d) {
      const d = this.d.v;
      const r = d.roundUp(0);
      return [{ base1024: () => decBase1024(r) }, r.cmp(d) === 0];
    }
    const a = this.i;
    if (a.scale >= 0) return [{ base1024: () => amountBase1024(a) }, true];
    const [v, exact] = negativeScaleInt64(a.value, -a.scale);
    const r: Int64Amount = { value: v, scale: 0 };
    return [{ base1024: () => amountBase1024(r) }, exact];
  }
}

interface CanonicalBase1024 {
  base1024(): [string, number];
}

/** resource.ParseQuantity; throws {@link QuantityParseError} with Kubernetes' message. */
export function parseQuantity(str: string): Quantity {
  const q = parseQuantityOrError(str);
  if (typeof q === 'string') throw new QuantityParseError(q);
  return q;
}

/**
 * What a quantity whose exact value would need more than MAX_DIGITS decimal
 * digits gives instead of a value (Kubernetes would compute it, for minutes):
 * a deliberate divergence, documented in index.ts.
 */
export const ERR_TOO_LARGE = `quantity too large: its exact value needs more than ${MAX_DIGITS.toLocaleString('en-US')} decimal digits`;

/**
 * resource.ParseQuantity without throwing: the quantity or Kubernetes' error
 * text ({@link ERR_TOO_LARGE} for a value beyond this engine's digit bound).
 */
export function parseQuantityOrError(str: string): Quantity | string {
  try {
    return parseQuantityUnbounded(str);
  } catch (e) {
    if (e instanceof RangeError) return ERR_TOO_LARGE;
    throw e;
  }
}

function parseQuantityUnbounded(str: string): Quantity | string {
  if (str.length === 0) return ERR_FORMAT_WRONG;
  if (str === '0') return Quantity.of(ZERO_AMOUNT, undefined, 'DecimalSI', str);
  const parts = splitQuantity(str);
  if (typeof parts === 'string') return parts;
  const { positive, value, num, denom, suffix } = parts;
  const interpreted = interpretSuffix(suffix);
  if (!interpreted) return ERR_SUFFIX;
  const { base, exponent } = interpreted;
  let format = interpreted.format;

  let precision = 0;
  let scale = 0;
  let mantissa = 1n;
  if (format === 'BinarySI') {
    if (exponent >= 0 && denom.length === 0) {
      mantissa = 1n << BigInt(exponent);
      precision = 15 - num.length - Math.trunc((exponent * 3) / 10) - 1;
    } else {
      precision = -1;
    }
  } else {
    scale = exponent;
    precision = 18 - (num.length + denom.length);
  }
  if (precision >= 0) {
    scale -= denom.length;
    if (scale >= -9) {
      const shifted = num + denom;
      const v = BigInt(shifted);
      if (!inInt64(v)) return ERR_NUMERIC;
      const [product, ok] = int64Multiply(v, mantissa);
      if (ok) {
        const result = positive ? product : wrap64(-product);
        const amount: Int64Amount = { value: result, scale };
        let canonical = false;
        if (format === 'BinarySI') canonical = exponent % 10 === 0 && (v & 7n) !== 0n;
        else canonical = scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
        return Quantity.of(amount, undefined, format, canonical ? str : '');
      }
    }
  }

  let amount = parseDec(value);
  if (!amount) return ERR_NUMERIC;
  if (base === 10) amount = new Dec(amount.unscaled, amount.scale - exponent);
  else amount = new Dec(amount.unscaled * (1n << BigInt(exponent)), amount.scale);
  const negative = amount.sign() === -1;
  if (negative) amount = amount.neg();
  if (amount.unscaled !== 0n) amount = amount.roundUp(9);
  if (format === 'BinarySI' && amount.cmp(MAX_ALLOWED) > 0) amount = MAX_ALLOWED;
  if (format === 'BinarySI' && amount.cmp(DEC_ONE) < 0 && amount.cmp(DEC_ZERO) > 0) format = 'DecimalSI';
  if (negative) amount = amount.neg();
  return Quantity.of(ZERO_AMOUNT, amount, format);
}

/** True when Kubernetes parses the string as a quantity. */
export function isQuantity(str: string): boolean {
  return typeof parseQuantityOrError(str) !== 'string';
}

const MAX_ALLOWED = new Dec(INT64_MAX, 0);
const DEC_ONE = new Dec(1n, 0);
const DEC_ZERO = new Dec(0n, 0);

interface QuantityParts {
  positive: boolean;
  value: string;
  num: string;
  denom: string;
  suffix: string;
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/** resource.parseQuantityString. */
function splitQuantity(str: string): QuantityParts | string {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (str[0] === '-') {
    positive = false;
    pos++;
  } else if (str[0] === '+') {
    pos++;
  }
  while (true) {
    if (pos >= end) return { positive, value: '0', num: '0', denom: '', suffix: '' };
    if (str[pos] !== '0') break;
    pos++;
  }
  let i = pos;
  while (i < end && isDigit(str[i])) i++;
  let num = str.slice(pos, i);
  if (i >= end) return { positive, value: str, num, denom: '', suffix: '' };
  pos = i;
  if (num.length === 0) num = '0';
  let denom = '';
  if (str[pos] === '.') {
    pos++;
    let j = pos;
    while (j < end && isDigit(str[j])) j++;
    denom = str.slice(pos, j);
    if (j >= end) return { positive, value: str, num, denom, suffix: '' };
    pos = j;
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  let k = pos;
  while (k < end && SUFFIX_CHARS.includes(str[k]!)) k++;
  if (k >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  pos = k;
  if (str[pos] === '-' || str[pos] === '+') pos++;
  while (pos < end && isDigit(str[pos])) pos++;
  if (pos >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  return ERR_FORMAT_WRONG;
}
