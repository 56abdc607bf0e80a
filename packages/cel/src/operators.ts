/**
 * The implementations behind the standard declarations (stdlib.ts):
 * arithmetic with cel-go's int64/uint64 overflow checks, indexing and
 * membership, the type conversions with Go's strconv parsing and float
 * formatting, zero values, and the optional helpers.
 */
import { listSemantics, typedListAdd } from './typed-list.js';
import { INT64_MAX, INT64_MIN, UINT64_MAX } from './int64.js';
import { CelCIDR, CelIP } from './ip.js';
import {
  addDurations,
  addTimestamp,
  CelDuration,
  CelTimestamp,
  durationToString,
  negateDuration,
  parseDuration,
  parseTimestamp,
  subtractDuration,
  subtractDurations,
  subtractTimestamps,
  timestampFromUnix,
  timestampToString,
} from './time.js';
import {
  CelError,
  CelMap,
  CelOptional,
  CelUint,
  type CelValue,
  celCompare,
  celEquals,
  codePointLength,
  noSuchOverload,
  typeName,
} from './values.js';

const err = (m: string): never => {
  throw new CelError(m);
};
const overflow = (): never => err('integer overflow');
const uoverflow = (): never => err('unsigned integer overflow');

function checkInt(v: bigint): bigint {
  return v < INT64_MIN || v > INT64_MAX ? overflow() : v;
}

export function add(a: CelValue, b: CelValue): CelValue {
  if (typeof a === 'bigint' && typeof b === 'bigint') return checkInt(a + b);
  if (typeof a === 'number' && typeof b === 'number') return a + b;
  if (typeof a === 'string' && typeof b === 'string') return a + b;
  if (a instanceof CelUint && b instanceof CelUint) return a.v + b.v > UINT64_MAX ? uoverflow() : new CelUint(a.v + b.v);
  if (Array.isArray(a) && Array.isArray(b)) return listSemantics(a) !== undefined ? typedListAdd(a, b) : [...a, ...b];
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    const out = new Uint8Array(a.length + b.length);
    out.set(a);
    out.set(b, a.length);
    return out;
  }
  if (a instanceof CelDuration) {
    if (b instanceof CelDuration) return addDurations(a, b);
    if (b instanceof CelTimestamp) return addTimestamp(b, a);
  }
  if (a instanceof CelTimestamp && b instanceof CelDuration) return addTimestamp(a, b);
  throw noSuchOverload();
}

export function subtract(a: CelValue, b: CelValue): CelValue {
  if (typeof a === 'bigint' && typeof b === 'bigint') return checkInt(a - b);
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (a instanceof CelUint && b instanceof CelUint) return b.v > a.v ? uoverflow() : new CelUint(a.v - b.v);
  if (a instanceof CelDuration && b instanceof CelDuration) return subtractDurations(a, b);
  if (a instanceof CelTimestamp) {
    if (b instanceof CelDuration) return subtractDuration(a, b);
    if (b instanceof CelTimestamp) return subtractTimestamps(a, b);
  }
  throw noSuchOverload();
}

export function multiply(a: CelValue, b: CelValue): CelValue {
  if (typeof a === 'bigint' && typeof b === 'bigint') return checkInt(a * b);
  if (typeof a === 'number' && typeof b === 'number') return a * b;
  if (a instanceof CelUint && b instanceof CelUint) return a.v * b.v > UINT64_MAX ? uoverflow() : new CelUint(a.v * b.v);
  throw noSuchOverload();
}

export function divide(a: CelValue, b: CelValue): CelValue {
  if (typeof a === 'bigint' && typeof b === 'bigint') {
    if (b === 0n) return err('division by zero');
    if (a === INT64_MIN && b === -1n) return overflow();
    return a / b;
  }
  if (typeof a === 'number' && typeof b === 'number') return a / b;
  if (a instanceof CelUint && b instanceof CelUint) return b.v === 0n ? err('division by zero') : new CelUint(a.v / b.v);
  throw noSuchOverload();
}

export function modulo(a: CelValue, b: CelValue): CelValue {
  if (typeof a === 'bigint' && typeof b === 'bigint') {
    if (b === 0n) return err('modulus by zero');
    if (a === INT64_MIN && b === -1n) return overflow();
    return a % b;
  }
  if (a instanceof CelUint && b instanceof CelUint) return b.v === 0n ? err('modulus by zero') : new CelUint(a.v % b.v);
  throw noSuchOverload();
}

export function negate(a: CelValue): CelValue {
  if (typeof a === 'bigint') return a === INT64_MIN ? overflow() : -a;
  if (typeof a === 'number') return -a;
  if (a instanceof CelDuration) return negateDuration(a);
  throw noSuchOverload();
}

/** cel-go IndexOrError: an int, or a uint/double that converts losslessly. */
function listIndex(i: CelValue): number {
  if (typeof i === 'bigint') return Number(i);
  if (i instanceof CelUint && i.v <= INT64_MAX) return Number(i.v);
  if (typeof i === 'number' && Number.isInteger(i) && Math.abs(i) < 2 ** 63) return i;
  return err(`unsupported index value ${String(i)} in list`);
}

/** `_[_]` for lists and maps (and optional lists/maps, giving an optional). */
export function index(c: CelValue, i: CelValue): CelValue {
  if (Array.isArray(c)) {
    const n = listIndex(i);
    if (n < 0 || n >= c.length) return err(`index out of bounds: ${n}`);
    return c[n]!;
  }
  if (c instanceof CelMap) {
    const v = c.find(i);
    if (v === undefined) return err(`no such key: ${typeof i === 'string' ? i : String(i)}`);
    return v;
  }
  if (c instanceof CelOptional) {
    if (!c.hasValue()) return c;
    return optIndex(c.value!, i, true);
  }
  throw noSuchOverload();
}

/**
 * `_[?_]`: optional.none() when the index or key is absent. A map's fallback
 * (the DRA device's empty map for unknown domains) counts as present, except
 * for a map held inside an optional, which Kubernetes looks up plainly.
 */
export function optIndex(c: CelValue, i: CelValue, insideOptional = false): CelValue {
  if (c instanceof CelOptional) return c.hasValue() ? optIndex(c.value!, i, true) : c;
  if (Array.isArray(c)) {
    const n = listIndex(i);
    return n < 0 || n >= c.length ? CelOptional.NONE : CelOptional.of(c[n]!);
  }
  if (c instanceof CelMap) {
    if (insideOptional) return c.has(i) ? CelOptional.of(c.find(i)!) : CelOptional.NONE;
    const v = c.find(i);
    return v === undefined ? CelOptional.NONE : CelOptional.of(v);
  }
  throw noSuchOverload();
}

/** `_in_`: cel-go list.Contains (element errors count as no match) and map.Contains. */
export function inAggregate(v: CelValue, c: CelValue): CelValue {
  if (Array.isArray(c)) {
    for (const e of c) {
      try {
        if (celEquals(v, e)) return true;
      } catch {
        // cel-go ignores non-bool comparison results here
      }
    }
    return false;
  }
  if (c instanceof CelMap) return c.has(v);
  throw noSuchOverload();
}

export function size(v: CelValue): CelValue {
  if (typeof v === 'string') return BigInt(codePointLength(v));
  if (v instanceof Uint8Array || Array.isArray(v)) return BigInt(v.length);
  if (v instanceof CelMap) return BigInt(v.size);
  throw noSuchOverload();
}

export const cmp = (pred: (c: number) => boolean) => (args: readonly CelValue[]) => pred(celCompare(args[0]!, args[1]!));

/** Go strconv.FormatFloat(f, 'g', -1, 64) / fmt %g. */
export function formatDouble(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (f === Number.POSITIVE_INFINITY) return '+Inf';
  if (f === Number.NEGATIVE_INFINITY) return '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(f.toExponential())!;
  const exp = Number(m[4]);
  // strconv 'g' with the shortest precision uses %e when exp < -4 || exp >= 6.
  if (exp < -4 || exp >= 6) {
    const e = Math.abs(exp).toString().padStart(2, '0');
    return `${m[1]}${m[2]}${m[3] ? `.${m[3]}` : ''}e${exp < 0 ? '-' : '+'}${e}`;
  }
  return String(f);
}

/** strconv underscoreOK: underscores only between digits (or after a base prefix). */
function underscoreOK(str: string): boolean {
  let s = str;
  let saw = '^';
  let i = 0;
  if (s[0] === '-' || s[0] === '+') s = s.slice(1);
  let hex = false;
  if (s.length >= 2 && s[0] === '0' && 'bBoOxX'.includes(s[1]!)) {
    i = 2;
    saw = '0';
    hex = s[1] === 'x' || s[1] === 'X';
  }
  for (; i < s.length; i++) {
    const c = s[i]!;
    if ((c >= '0' && c <= '9') || (hex && /[a-fA-F]/.test(c))) {
      saw = '0';
      continue;
    }
    if (c === '_') {
      if (saw !== '0') return false;
      saw = '_';
      continue;
    }
    if (saw === '_') return false;
    saw = '!';
  }
  return saw !== '_';
}

/**
 * strconv.ParseFloat(s, 64): decimal (underscores between digits allowed),
 * hexadecimal with a `p` exponent, inf/infinity/nan; undefined when Go
 * rejects it or the value overflows.
 */
function parseGoFloat(s: string): number | undefined {
  const t = s.replace(/^[+-]/, '');
  if (/^(inf|infinity)$/i.test(t)) return s.startsWith('-') ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  if (/^nan$/i.test(s)) return Number.NaN;
  if (s.includes('_') && !underscoreOK(s)) return undefined;
  const u = s.replace(/_/g, '');
  let v: number;
  const hex = /^([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?\d+)$/.exec(u);
  if (hex) {
    const [, sign, int = '', frac = '', exp] = hex;
    if (int.length + frac.length === 0) return undefined;
    v = Number.parseInt(`${int}${frac}` || '0', 16) * 2 ** (Number(exp) - 4 * frac.length);
    if (sign === '-') v = -v;
  } else {
    if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(u)) return undefined;
    v = Number(u);
  }
  return Number.isFinite(v) ? v : undefined;
}

function parseGoInt(s: string, unsigned: boolean): bigint | undefined {
  if (!(unsigned ? /^\d+$/ : /^[+-]?\d+$/).test(s)) return undefined;
  const v = BigInt(s.replace(/^\+/, ''));
  if (unsigned) return v <= UINT64_MAX ? v : undefined;
  return v >= INT64_MIN && v <= INT64_MAX ? v : undefined;
}

const PARSE_BOOL: Record<string, boolean> = { 1: true, t: true, T: true, TRUE: true, true: true, True: true, 0: false, f: false, F: false, FALSE: false, false: false, False: false };

const conversionError = (from: CelValue, to: string): never => err(`type conversion error from '${typeName(from)}' to '${to}'`);

export function toInt(v: CelValue): CelValue {
  if (typeof v === 'bigint') return v;
  if (v instanceof CelDuration) return v.ns;
  if (v instanceof CelTimestamp) return v.unix;
  if (v instanceof CelUint) return v.v > INT64_MAX ? overflow() : v.v;
  if (typeof v === 'number') {
    if (!Number.isFinite(v) || v <= -(2 ** 63) || v >= 2 ** 63) return overflow();
    return BigInt(Math.trunc(v));
  }
  if (typeof v === 'string') return parseGoInt(v, false) ?? conversionError(v, 'int');
  throw noSuchOverload();
}

export function toUint(v: CelValue): CelValue {
  if (v instanceof CelUint) return v;
  if (typeof v === 'bigint') return v < 0n ? uoverflow() : new CelUint(v);
  if (typeof v === 'number') {
    if (!Number.isFinite(v) || v < 0 || v >= 2 ** 64) return uoverflow();
    return new CelUint(BigInt(Math.trunc(v)));
  }
  if (typeof v === 'string') {
    const u = parseGoInt(v, true);
    return u === undefined ? conversionError(v, 'uint') : new CelUint(u);
  }
  throw noSuchOverload();
}

export function toDouble(v: CelValue): CelValue {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof CelUint) return Number(v.v);
  if (typeof v === 'string') return parseGoFloat(v) ?? conversionError(v, 'double');
  throw noSuchOverload();
}

export function toCelString(v: CelValue): CelValue {
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof CelUint) return v.v.toString();
  if (typeof v === 'number') return formatDouble(v);
  if (typeof v === 'boolean') return String(v);
  if (v instanceof CelDuration) return durationToString(v);
  if (v instanceof CelTimestamp) return timestampToString(v);
  if (v instanceof CelIP || v instanceof CelCIDR) return v.toString();
  if (v instanceof Uint8Array) {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(v);
    } catch {
      return err('invalid UTF-8 in bytes, cannot convert to string');
    }
  }
  throw noSuchOverload();
}

export function toBool(v: CelValue): CelValue {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') return PARSE_BOOL[v] ?? conversionError(v, 'bool');
  throw noSuchOverload();
}

export function toBytes(v: CelValue): CelValue {
  if (v instanceof Uint8Array) return v;
  if (typeof v === 'string') return new TextEncoder().encode(v);
  throw noSuchOverload();
}

/** cel-go Zeroer: the zero value of its type. */
export function isZeroValue(v: CelValue): boolean {
  if (v === 0n || v === 0 || v === '' || v === false) return true;
  if (v instanceof CelUint) return v.v === 0n;
  if (v instanceof Uint8Array || Array.isArray(v)) return v.length === 0;
  if (v instanceof CelMap) return v.size === 0;
  if (v instanceof CelOptional) return !v.hasValue();
  if (v instanceof CelDuration) return v.ns === 0n;
  if (v instanceof CelTimestamp) return v.ns === GO_ZERO_TIME_NS;
  return false;
}

/** Go's zero time.Time, 0001-01-01T00:00:00Z, in Unix nanoseconds. */
const GO_ZERO_TIME_NS = -62135596800n * 1_000_000_000n;

export function toTimestamp(v: CelValue): CelValue {
  if (v instanceof CelTimestamp) return v;
  if (typeof v === 'bigint') return timestampFromUnix(v);
  if (typeof v === 'string') return parseTimestamp(v);
  throw noSuchOverload();
}

export function toDuration(v: CelValue): CelValue {
  if (v instanceof CelDuration) return v;
  if (typeof v === 'string') return parseDuration(v);
  if (typeof v === 'bigint') return conversionError(v, 'google.protobuf.Duration');
  throw noSuchOverload();
}


export function optValue(v: CelValue): CelValue {
  if (!(v instanceof CelOptional)) throw noSuchOverload();
  if (!v.hasValue()) return err('optional.none() dereference');
  return v.value!;
}

export function unwrapOpts(v: CelValue): CelValue {
  if (!Array.isArray(v)) throw noSuchOverload();
  const out: CelValue[] = [];
  for (const e of v) {
    if (!(e instanceof CelOptional)) return err(`value ${typeName(e)} is not optional`);
    if (e.hasValue()) out.push(e.value!);
  }
  return out;
}

export function mapInsert(a: readonly CelValue[]): CelValue {
  const m = a[0];
  if (!(m instanceof CelMap)) throw noSuchOverload();
  const out = CelMap.from(m.entries());
  if (a.length === 3) {
    out.insert(a[1]!, a[2]!);
    return out;
  }
  const other = a[1];
  if (!(other instanceof CelMap)) throw noSuchOverload();
  for (const [k, v] of other.entries()) out.insert(k, v);
  return out;
}
