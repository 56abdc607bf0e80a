/**
 * The subset of gopkg.in/inf.v0 `Dec` that resource.Quantity uses: an exact
 * decimal `unscaled × 10^(-scale)` on bigint. Scales are ordinary numbers and
 * may be negative, as in inf.
 *
 * Guarantee: results are exact. The one divergence from Go is size: an
 * operation whose aligned operands would need more than MAX_DIGITS decimal
 * digits throws a RangeError instead of allocating gigabytes (Go would grind
 * on); the CEL evaluator turns that into an evaluation error.
 */

/** Largest number of decimal digits an aligned intermediate may have. */
export const MAX_DIGITS = 1_000_000;

/** An exact decimal number. Instances are immutable. */
export class Dec {
  /**
   * @param unscaled the integer digits
   * @param scale the value is unscaled × 10^(-scale)
   */
  constructor(
    readonly unscaled: bigint,
    readonly scale: number,
  ) {}

  /** Sign: -1, 0 or 1. */
  sign(): number {
    return this.unscaled === 0n ? 0 : this.unscaled > 0n ? 1 : -1;
  }

  /** inf.Dec.Neg. */
  neg(): Dec {
    return new Dec(-this.unscaled, this.scale);
  }

  /** inf.Dec.Cmp: -1, 0 or 1 by value. */
  cmp(other: Dec): number {
    const sa = this.sign();
    const sb = other.sign();
    if (sa !== sb) return sa < sb ? -1 : 1;
    if (sa === 0) return 0;
    if (Math.abs(this.scale - other.scale) <= 40) {
      const [a, b] = align(this, other);
      return a === b ? 0 : a < b ? -1 : 1;
    }
    // Same sign, far-apart scales: compare magnitudes by adjusted exponent first.
    const ea = digits(this.unscaled) - this.scale;
    const eb = digits(other.unscaled) - other.scale;
    if (ea !== eb) return (ea < eb ? -1 : 1) * sa;
    const [a, b] = align(this, other);
    return a === b ? 0 : a < b ? -1 : 1;
  }

  /** inf.Dec.Add: the scale of the result is the larger scale. */
  add(other: Dec): Dec {
    const [a, b, s] = alignWithScale(this, other);
    return new Dec(a + b, s);
  }

  /** inf.Dec.Sub: the scale of the result is the larger scale. */
  sub(other: Dec): Dec {
    const [a, b, s] = alignWithScale(this, other);
    return new Dec(a - b, s);
  }

  /** inf.Dec.Round(x, s, inf.RoundUp): rounds away from zero to scale s. */
  roundUp(s: number): Dec {
    if (s >= this.scale) return new Dec(this.unscaled * pow10(s - this.scale), s);
    const d = pow10(this.scale - s);
    let q = this.unscaled / d;
    if (this.unscaled % d !== 0n) q += this.unscaled > 0n ? 1n : -1n;
    return new Dec(q, s);
  }

  /** Exact decimal string, as inf.Dec.String (digits with the decimal point at scale). */
  toString(): string {
    if (this.scale <= 0) return (this.unscaled * pow10(-this.scale)).toString();
    const neg = this.unscaled < 0n;
    let abs = (neg ? -this.unscaled : this.unscaled).toString();
    if (abs.length <= this.scale) abs = '0'.repeat(this.scale - abs.length + 1) + abs;
    const cut = abs.length - this.scale;
    return `${neg ? '-' : ''}${abs.slice(0, cut)}.${abs.slice(cut)}`;
  }
}

const SMALL_POWERS = Array.from({ length: 64 }, (_, i) => 10n ** BigInt(i));

/** 10^n as bigint, n >= 0, bounded by MAX_DIGITS. */
export function pow10(n: number): bigint {
  const small = SMALL_POWERS[n];
  if (small !== undefined) return small;
  if (n > MAX_DIGITS) throw new RangeError(`decimal too large: 10^${n}`);
  return 10n ** BigInt(n);
}

/** Number of decimal digits of |x| (1 for 0). */
function digits(x: bigint): number {
  return (x < 0n ? -x : x).toString().length;
}

function align(a: Dec, b: Dec): [bigint, bigint] {
  const [x, y] = alignWithScale(a, b);
  return [x, y];
}

function alignWithScale(a: Dec, b: Dec): [bigint, bigint, number] {
  if (a.scale === b.scale) return [a.unscaled, b.unscaled, a.scale];
  if (a.scale > b.scale) return [a.unscaled, b.unscaled * pow10(a.scale - b.scale), a.scale];
  return [a.unscaled * pow10(b.scale - a.scale), b.unscaled, b.scale];
}

/**
 * inf.Dec.SetString: `[+-]digits[.digits]` (either side of the point may be
 * empty, but at least one digit). Returns undefined when the text is not that.
 */
export function parseDec(s: string): Dec | undefined {
  let unscaled = '';
  let dp = -1;
  let sawDigit = false;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch === '+' || ch === '-') {
      if (unscaled.length > 0 || dp >= 0) return undefined;
    } else if (ch === '.') {
      if (dp >= 0) return undefined;
      dp = unscaled.length;
      continue;
    } else if (ch >= '0' && ch <= '9') {
      sawDigit = true;
    } else {
      return undefined;
    }
    unscaled += ch;
  }
  if (!sawDigit) return undefined;
  const scale = dp >= 0 ? unscaled.length - dp : 0;
  return new Dec(BigInt(unscaled.startsWith('+') ? unscaled.slice(1) : unscaled), scale);
}
