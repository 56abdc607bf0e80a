/**
 * CEL runtime values and the value semantics of cel-go's `common/types`:
 * equality (heterogeneous numeric equality, list/map equality that ignores
 * element errors as cel-go does), ordering across int/uint/double, and map
 * keys. JavaScript representations:
 *
 * | CEL | JS |
 * | --- | --- |
 * | int | bigint (kept within int64) |
 * | uint | {@link CelUint} |
 * | double | number |
 * | string / bool / null | string / boolean / null |
 * | bytes | Uint8Array |
 * | list | readonly array |
 * | map | {@link CelMap} |
 * | kubernetes.Quantity / kubernetes.Semver | Quantity / Semver |
 * | optional | {@link CelOptional} |
 * | type | {@link CelTypeValue} |
 */
import { CelError } from './errors.js';
import { Quantity } from './quantity.js';
import { Semver } from './semver.js';
import { CelCIDR, CelIP } from './ip.js';
import { CelDuration, CelTimestamp } from './time.js';
import { CelURL } from './url.js';
import { CelFormat } from './format.js';
import { listSemantics, typedListEquals } from './typed-list.js';

export { CelError } from './errors.js';

/** Any CEL runtime value. */
export type CelValue =
  | bigint
  | number
  | string
  | boolean
  | null
  | CelUint
  | Uint8Array
  | readonly CelValue[]
  | CelMap
  | Quantity
  | Semver
  | CelOptional
  | CelTypeValue
  | CelTimestamp
  | CelDuration
  | CelIP
  | CelCIDR
  | CelURL
  | CelFormat
  | CelError;

/** A CEL uint (0 … 2^64-1). */
export class CelUint {
  constructor(readonly v: bigint) {}
}

/** A CEL type value (`type(x)`, `int`). */
export class CelTypeValue {
  constructor(readonly typeName: string) {}
}

/** A CEL optional value. */
export class CelOptional {
  static readonly NONE = new CelOptional(undefined);
  private constructor(readonly value: CelValue | undefined) {}
  static of(v: CelValue): CelOptional {
    return new CelOptional(v);
  }
  hasValue(): boolean {
    return this.value !== undefined;
  }
}

/** A normalized map key: strings, bools, integers (int and uint share keys, as cel-go compares them numerically), non-integral doubles. */
type Key = string | boolean | bigint | number;

/**
 * A CEL map. Keys are int, uint, bool or string. `fallback`, when set, is what
 * a lookup of a missing key returns (the DRA device's outer attribute and
 * capacity maps return an empty map); membership (`in`) and iteration see
 * only real keys.
 */
export class CelMap {
  private readonly m = new Map<Key, [CelValue, CelValue]>();
  constructor(readonly fallback?: CelValue) {}

  /** Builds a map from entries; a repeated key is an error. */
  static from(entries: Iterable<[CelValue, CelValue]>, fallback?: CelValue): CelMap {
    const map = new CelMap(fallback);
    for (const [k, v] of entries) map.insert(k, v);
    return map;
  }

  get size(): number {
    return this.m.size;
  }

  /** Adds an entry; throws on a repeated or unsupported key. */
  insert(k: CelValue, v: CelValue): void {
    const key = mapKey(k);
    if (key === undefined) throw new CelError(`unsupported key type: ${typeName(k)}`);
    if (this.m.has(key)) throw new CelError(`insert failed: key ${formatValue(k)} already exists`);
    this.m.set(key, [k, v]);
  }

  /** Sets a key as a map literal does (a repeated key overwrites; any scalar key). */
  set(k: CelValue, v: CelValue): void {
    const key = lookupKey(k);
    if (key === undefined) throw new CelError(`unsupported key type: ${typeName(k)}`);
    this.m.set(key, [k, v]);
  }

  /** Replaces the value of an existing key (used to restore device values between evaluations). */
  replace(k: CelValue, v: CelValue): void {
    const key = mapKey(k);
    if (key !== undefined && this.m.has(key)) this.m.set(key, [k, v]);
  }

  /** cel-go Map.Find: the value, the fallback for a missing key, or undefined. */
  find(k: CelValue): CelValue | undefined {
    const key = lookupKey(k);
    const hit = key === undefined ? undefined : this.m.get(key);
    if (hit) return hit[1];
    return this.fallback;
  }

  /** Membership of a real key. */
  has(k: CelValue): boolean {
    const key = lookupKey(k);
    return key !== undefined && this.m.has(key);
  }

  *keys(): IterableIterator<CelValue> {
    for (const [k] of this.m.values()) yield k;
  }

  *entries(): IterableIterator<[CelValue, CelValue]> {
    yield* this.m.values();
  }
}

/** A prefix no CEL string key starts with in practice, to give durations and timestamps their own keys. */
const TAG = '\u{10FFFF}';

function mapKey(k: CelValue): Key | undefined {
  if (typeof k === 'string' || typeof k === 'boolean' || typeof k === 'bigint') return k;
  if (k instanceof CelUint) return k.v;
  if (k instanceof CelDuration) return `${TAG}d${k.ns}`;
  if (k instanceof CelTimestamp) return `${TAG}t${k.ns}`;
  return undefined;
}

function lookupKey(k: CelValue): Key | undefined {
  if (typeof k === 'number') return Number.isInteger(k) ? BigInt(k) : k;
  return mapKey(k);
}

/** The CEL type name of a value, as `type(x)` reports it. */
export function typeName(v: CelValue): string {
  switch (typeof v) {
    case 'bigint':
      return 'int';
    case 'number':
      return 'double';
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
  }
  if (v === null) return 'null_type';
  if (v instanceof CelUint) return 'uint';
  if (v instanceof Uint8Array) return 'bytes';
  if (Array.isArray(v)) return 'list';
  if (v instanceof CelMap) return 'map';
  if (v instanceof Quantity) return 'kubernetes.Quantity';
  if (v instanceof Semver) return 'kubernetes.Semver';
  if (v instanceof CelOptional) return 'optional_type';
  if (v instanceof CelTypeValue) return 'type';
  if (v instanceof CelTimestamp) return 'google.protobuf.Timestamp';
  if (v instanceof CelDuration) return 'google.protobuf.Duration';
  if (v instanceof CelIP) return 'net.IP';
  if (v instanceof CelCIDR) return 'net.CIDR';
  if (v instanceof CelURL) return 'kubernetes.URL';
  if (v instanceof CelFormat) return 'kubernetes.NamedFormat';
  return 'error';
}

/** A short rendering for error messages. */
export function formatValue(v: CelValue): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v instanceof CelUint) return `${v.v}u`;
  if (v === null) return 'null';
  if (Array.isArray(v)) return `[${v.map(formatValue).join(', ')}]`;
  if (v instanceof CelTypeValue) return v.typeName;
  return String(v);
}

/** The error cel-go reports when no overload accepts the runtime arguments. */
export function noSuchOverload(): CelError {
  return new CelError('no such overload');
}

/** Compares an int with a double as cel-go compareIntDouble does (the int is converted). */
function cmpNumbers(a: number, b: number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** float64(math.MinInt64), float64(math.MaxInt64), float64(math.MaxUint64) as Go rounds them. */
const INT64_MIN_F = -(2 ** 63);
const INT64_MAX_F = 2 ** 63;
const UINT64_MAX_F = 2 ** 64;

function cmpDoubleInt(d: number, i: bigint): number {
  if (d < INT64_MIN_F) return -1;
  if (d > INT64_MAX_F) return 1;
  return cmpNumbers(d, Number(i));
}

function cmpDoubleUint(d: number, u: bigint): number {
  if (d < 0) return -1;
  if (d > UINT64_MAX_F) return 1;
  return cmpNumbers(d, Number(u));
}

/**
 * cel-go Comparer.Compare: -1/0/1 for int, uint, double (across types), bool,
 * string (by code point), bytes. Throws for NaN and unsupported pairs.
 */
export function celCompare(a: CelValue, b: CelValue): number {
  if (typeof a === 'bigint') {
    if (typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
    if (typeof b === 'number') {
      if (Number.isNaN(b)) throw new CelError('NaN values cannot be ordered');
      return -cmpDoubleInt(b, a);
    }
    if (b instanceof CelUint) return a < 0n || b.v > 9223372036854775807n ? -1 : a < b.v ? -1 : a > b.v ? 1 : 0;
    throw noSuchOverload();
  }
  if (typeof a === 'number') {
    if (Number.isNaN(a)) throw new CelError('NaN values cannot be ordered');
    if (typeof b === 'number') {
      if (Number.isNaN(b)) throw new CelError('NaN values cannot be ordered');
      return cmpNumbers(a, b);
    }
    if (typeof b === 'bigint') return cmpDoubleInt(a, b);
    if (b instanceof CelUint) return cmpDoubleUint(a, b.v);
    throw noSuchOverload();
  }
  if (a instanceof CelUint) {
    if (b instanceof CelUint) return a.v < b.v ? -1 : a.v > b.v ? 1 : 0;
    if (typeof b === 'bigint') return -(b < 0n || a.v > 9223372036854775807n ? -1 : b < a.v ? -1 : b > a.v ? 1 : 0);
    if (typeof b === 'number') {
      if (Number.isNaN(b)) throw new CelError('NaN values cannot be ordered');
      return -cmpDoubleUint(b, a.v);
    }
    throw noSuchOverload();
  }
  if (typeof a === 'string' && typeof b === 'string') return compareCodePoints(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (a instanceof Uint8Array && b instanceof Uint8Array) return compareBytes(a, b);
  if (a instanceof CelTimestamp && b instanceof CelTimestamp) return a.ns < b.ns ? -1 : a.ns > b.ns ? 1 : 0;
  if (a instanceof CelDuration && b instanceof CelDuration) return a.ns < b.ns ? -1 : a.ns > b.ns ? 1 : 0;
  throw noSuchOverload();
}

/** Orders strings by code point (Go's byte order on UTF-8), not by UTF-16 unit. */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x !== y) {
      if (x >= 0xd800) x += x >= 0xe000 ? -0x800 : 0x2000;
      if (y >= 0xd800) y += y >= 0xe000 ? -0x800 : 0x2000;
      return x < y ? -1 : 1;
    }
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/**
 * cel-go types.Equal: null equals only null; numbers compare across
 * int/uint/double; lists and maps compare element-wise, where an element
 * comparison that errors does not make them unequal (cel-go checks only
 * `== False`); Quantity and Semver compare by value and throw for another
 * type on the right.
 */
export function celEquals(a: CelValue, b: CelValue): boolean {
  if (a === null || b === null) return a === b;
  switch (typeof a) {
    case 'bigint':
      if (typeof b === 'bigint') return a === b;
      if (typeof b === 'number') return !Number.isNaN(b) && cmpDoubleInt(b, a) === 0;
      if (b instanceof CelUint) return a >= 0n && a === b.v;
      return false;
    case 'number':
      if (Number.isNaN(a)) return false;
      if (typeof b === 'number') return a === b;
      if (typeof b === 'bigint') return cmpDoubleInt(a, b) === 0;
      if (b instanceof CelUint) return cmpDoubleUint(a, b.v) === 0;
      return false;
    case 'string':
    case 'boolean':
      return a === b;
  }
  if (a instanceof CelUint) {
    if (b instanceof CelUint) return a.v === b.v;
    if (typeof b === 'bigint') return b >= 0n && a.v === b;
    if (typeof b === 'number') return !Number.isNaN(b) && cmpDoubleUint(b, a.v) === 0;
    return false;
  }
  if (a instanceof Uint8Array) return b instanceof Uint8Array && compareBytes(a, b) === 0;
  if (Array.isArray(a)) {
    if (!Array.isArray(b)) return false;
    if (listSemantics(a) !== undefined) return typedListEquals(a, b, equalsIgnoringErrors);
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      if (!equalsIgnoringErrors(a[i]!, b[i]!)) return false;
    }
    return true;
  }
  if (a instanceof CelMap) {
    if (!(b instanceof CelMap) || a.size !== b.size) return false;
    for (const [k, v] of a.entries()) {
      if (!b.has(k)) return false;
      if (!equalsIgnoringErrors(v, b.find(k)!)) return false;
    }
    return true;
  }
  if (a instanceof Quantity) {
    // apiservercel.Quantity.Equal accepts a Quantity value, not the *Quantity that add/sub return.
    if (!(b instanceof Quantity) || b.isPointer) throw noSuchOverload();
    return a.equals(b);
  }
  if (a instanceof Semver) {
    if (!(b instanceof Semver)) throw noSuchOverload();
    return a.equals(b);
  }
  if (a instanceof CelOptional) {
    if (!(b instanceof CelOptional)) return false;
    if (!a.hasValue() || !b.hasValue()) return a.hasValue() === b.hasValue();
    return celEquals(a.value!, b.value!);
  }
  if (a instanceof CelTypeValue) return b instanceof CelTypeValue && a.typeName === b.typeName;
  if (a instanceof CelTimestamp) return b instanceof CelTimestamp && a.ns === b.ns;
  if (a instanceof CelDuration) return b instanceof CelDuration && a.ns === b.ns;
  if (a instanceof CelIP) {
    if (!(b instanceof CelIP)) throw noSuchOverload();
    return a.equals(b);
  }
  if (a instanceof CelCIDR) {
    if (!(b instanceof CelCIDR)) throw noSuchOverload();
    return a.equals(b);
  }
  if (a instanceof CelURL) {
    if (!(b instanceof CelURL)) throw noSuchOverload();
    return a.toString() === b.toString();
  }
  if (a instanceof CelFormat) {
    if (!(b instanceof CelFormat)) throw noSuchOverload();
    return a.name === b.name;
  }
  return false;
}

function equalsIgnoringErrors(a: CelValue, b: CelValue): boolean {
  try {
    return celEquals(a, b);
  } catch {
    return true;
  }
}

/** Number of code points of a string (CEL `size`). */
export function codePointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}
