/**
 * The CEL standard library as cel-go declares it (`common/stdlib`) with the
 * Kubernetes options: cross-type numeric comparisons and optional types
 * (`cel.OptionalTypes()`, latest version). Arithmetic is checked for int64 /
 * uint64 overflow exactly as cel-go's overflow.go does.
 * Timestamps and durations are in time.ts.
 */
import { type FunctionDecl, global, member } from './library.js';
import { INT64_MAX, INT64_MIN, UINT64_MAX } from './int64.js';
import {
  BOOL,
  BYTES,
  type CelType,
  DOUBLE,
  DURATION,
  DYN,
  INT,
  listOf,
  mapOf,
  NULL,
  optionalOf,
  STRING,
  TIMESTAMP,
  typeOf,
  typeParam,
  UINT,
} from './types.js';
import {
  CelError,
  CelMap,
  CelOptional,
  CelTypeValue,
  CelUint,
  type CelValue,
  celCompare,
  celEquals,
  codePointLength,
  noSuchOverload,
  typeName,
} from './values.js';
import { CelCIDR, CelIP } from './ip.js';
import { regexMatches } from './regex.js';
import {
  addDurations,
  addTimestamp,
  CelDuration,
  CelTimestamp,
  durationGet,
  durationToString,
  negateDuration,
  parseDuration,
  parseTimestamp,
  subtractDuration,
  subtractDurations,
  subtractTimestamps,
  timestampFromUnix,
  timestampGet,
  timestampToString,
} from './time.js';

const A = typeParam('A');
const B = typeParam('B');
const K = typeParam('K');
const V = typeParam('V');
const listA = listOf(A);
const mapAB = mapOf(A, B);

const err = (m: string): never => {
  throw new CelError(m);
};
const overflow = (): never => err('integer overflow');
const uoverflow = (): never => err('unsigned integer overflow');

function checkInt(v: bigint): bigint {
  return v < INT64_MIN || v > INT64_MAX ? overflow() : v;
}

function add(a: CelValue, b: CelValue): CelValue {
  if (typeof a === 'bigint' && typeof b === 'bigint') return checkInt(a + b);
  if (typeof a === 'number' && typeof b === 'number') return a + b;
  if (typeof a === 'string' && typeof b === 'string') return a + b;
  if (a instanceof CelUint && b instanceof CelUint) return a.v + b.v > UINT64_MAX ? uoverflow() : new CelUint(a.v + b.v);
  if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
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

function subtract(a: CelValue, b: CelValue): CelValue {
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

function multiply(a: CelValue, b: CelValue): CelValue {
  if (typeof a === 'bigint' && typeof b === 'bigint') return checkInt(a * b);
  if (typeof a === 'number' && typeof b === 'number') return a * b;
  if (a instanceof CelUint && b instanceof CelUint) return a.v * b.v > UINT64_MAX ? uoverflow() : new CelUint(a.v * b.v);
  throw noSuchOverload();
}

function divide(a: CelValue, b: CelValue): CelValue {
  if (typeof a === 'bigint' && typeof b === 'bigint') {
    if (b === 0n) return err('division by zero');
    if (a === INT64_MIN && b === -1n) return overflow();
    return a / b;
  }
  if (typeof a === 'number' && typeof b === 'number') return a / b;
  if (a instanceof CelUint && b instanceof CelUint) return b.v === 0n ? err('division by zero') : new CelUint(a.v / b.v);
  throw noSuchOverload();
}

function modulo(a: CelValue, b: CelValue): CelValue {
  if (typeof a === 'bigint' && typeof b === 'bigint') {
    if (b === 0n) return err('modulus by zero');
    if (a === INT64_MIN && b === -1n) return overflow();
    return a % b;
  }
  if (a instanceof CelUint && b instanceof CelUint) return b.v === 0n ? err('modulus by zero') : new CelUint(a.v % b.v);
  throw noSuchOverload();
}

function negate(a: CelValue): CelValue {
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
function inAggregate(v: CelValue, c: CelValue): CelValue {
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

function size(v: CelValue): CelValue {
  if (typeof v === 'string') return BigInt(codePointLength(v));
  if (v instanceof Uint8Array || Array.isArray(v)) return BigInt(v.length);
  if (v instanceof CelMap) return BigInt(v.size);
  throw noSuchOverload();
}

const cmp = (pred: (c: number) => boolean) => (args: readonly CelValue[]) => pred(celCompare(args[0]!, args[1]!));

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

function toInt(v: CelValue): CelValue {
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

function toUint(v: CelValue): CelValue {
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

function toDouble(v: CelValue): CelValue {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof CelUint) return Number(v.v);
  if (typeof v === 'string') return parseGoFloat(v) ?? conversionError(v, 'double');
  throw noSuchOverload();
}

function toCelString(v: CelValue): CelValue {
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

function toBool(v: CelValue): CelValue {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') return PARSE_BOOL[v] ?? conversionError(v, 'bool');
  throw noSuchOverload();
}

function toBytes(v: CelValue): CelValue {
  if (v instanceof Uint8Array) return v;
  if (typeof v === 'string') return new TextEncoder().encode(v);
  throw noSuchOverload();
}

/** cel-go Zeroer: the zero value of its type. */
function isZeroValue(v: CelValue): boolean {
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

function toTimestamp(v: CelValue): CelValue {
  if (v instanceof CelTimestamp) return v;
  if (typeof v === 'bigint') return timestampFromUnix(v);
  if (typeof v === 'string') return parseTimestamp(v);
  throw noSuchOverload();
}

function toDuration(v: CelValue): CelValue {
  if (v instanceof CelDuration) return v;
  if (typeof v === 'string') return parseDuration(v);
  if (typeof v === 'bigint') return conversionError(v, 'google.protobuf.Duration');
  throw noSuchOverload();
}

const TIME_GETTERS = ['getFullYear', 'getMonth', 'getDayOfYear', 'getDayOfMonth', 'getDate', 'getDayOfWeek', 'getHours', 'getMinutes', 'getSeconds', 'getMilliseconds'];
const DURATION_GETTERS = new Set(['getHours', 'getMinutes', 'getSeconds', 'getMilliseconds']);

function timeGetters(): FunctionDecl[] {
  return TIME_GETTERS.map((name) => {
    const id = name.replace(/^get/, '').toLowerCase();
    const overloads = [
      member(`timestamp_to_${id}`, [TIMESTAMP], INT, (a) => timestampGet(name, a[0] as CelTimestamp)),
      member(`timestamp_to_${id}_with_tz`, [TIMESTAMP, STRING], INT, (a) => timestampGet(name, a[0] as CelTimestamp, str(a[1]!))),
    ];
    if (DURATION_GETTERS.has(name)) overloads.push(member(`duration_to_${id}`, [DURATION], INT, (a) => durationGet(name, a[0] as CelDuration)));
    return fn(name, overloads);
  });
}

const str = (v: CelValue): string => (typeof v === 'string' ? v : (() => { throw noSuchOverload(); })());

const o = (...os: ReturnType<typeof global>[]) => os;
const fn = (name: string, overloads: ReturnType<typeof global>[], singleton?: FunctionDecl['singleton']): FunctionDecl =>
  singleton ? { name, overloads, singleton } : { name, overloads };

const numericPairs: [string, CelType, CelType][] = [
  ['bool', BOOL, BOOL],
  ['int64', INT, INT],
  ['int64_double', INT, DOUBLE],
  ['int64_uint64', INT, UINT],
  ['uint64', UINT, UINT],
  ['uint64_double', UINT, DOUBLE],
  ['uint64_int64', UINT, INT],
  ['double', DOUBLE, DOUBLE],
  ['double_int64', DOUBLE, INT],
  ['double_uint64', DOUBLE, UINT],
  ['string', STRING, STRING],
  ['bytes', BYTES, BYTES],
  ['timestamp', TIMESTAMP, TIMESTAMP],
  ['duration', DURATION, DURATION],
];

const relation = (name: string, prefix: string, pred: (c: number) => boolean): FunctionDecl =>
  fn(
    name,
    numericPairs.map(([suffix, a, b]) => global(`${prefix}_${suffix}`, [a, b], BOOL)),
    cmp(pred),
  );

/** The standard declarations (operators, conversions, string functions, optionals). */
export const STANDARD: readonly FunctionDecl[] = [
  fn('_?_:_', o(global('conditional', [BOOL, A, A], A))),
  fn('_&&_', o(global('logical_and', [BOOL, BOOL], BOOL))),
  fn('_||_', o(global('logical_or', [BOOL, BOOL], BOOL))),
  fn('!_', o(global('logical_not', [BOOL], BOOL)), (a) => (typeof a[0] === 'boolean' ? !a[0] : (() => { throw noSuchOverload(); })())),
  fn('@not_strictly_false', o(global('not_strictly_false', [BOOL], BOOL))),
  fn('_==_', o(global('equals', [A, A], BOOL)), (a) => celEquals(a[0]!, a[1]!)),
  fn('_!=_', o(global('not_equals', [A, A], BOOL)), (a) => !celEquals(a[0]!, a[1]!)),
  fn(
    '_+_',
    o(
      global('add_bytes', [BYTES, BYTES], BYTES),
      global('add_double', [DOUBLE, DOUBLE], DOUBLE),
      global('add_int64', [INT, INT], INT),
      global('add_list', [listA, listA], listA),
      global('add_string', [STRING, STRING], STRING),
      global('add_uint64', [UINT, UINT], UINT),
      global('add_duration_duration', [DURATION, DURATION], DURATION),
      global('add_duration_timestamp', [DURATION, TIMESTAMP], TIMESTAMP),
      global('add_timestamp_duration', [TIMESTAMP, DURATION], TIMESTAMP),
    ),
    (a) => add(a[0]!, a[1]!),
  ),
  fn(
    '_/_',
    o(global('divide_double', [DOUBLE, DOUBLE], DOUBLE), global('divide_int64', [INT, INT], INT), global('divide_uint64', [UINT, UINT], UINT)),
    (a) => divide(a[0]!, a[1]!),
  ),
  fn('_%_', o(global('modulo_int64', [INT, INT], INT), global('modulo_uint64', [UINT, UINT], UINT)), (a) => modulo(a[0]!, a[1]!)),
  fn(
    '_*_',
    o(global('multiply_double', [DOUBLE, DOUBLE], DOUBLE), global('multiply_int64', [INT, INT], INT), global('multiply_uint64', [UINT, UINT], UINT)),
    (a) => multiply(a[0]!, a[1]!),
  ),
  fn('-_', o(global('negate_double', [DOUBLE], DOUBLE), global('negate_int64', [INT], INT)), (a) => negate(a[0]!)),
  fn(
    '_-_',
    o(
      global('subtract_double', [DOUBLE, DOUBLE], DOUBLE),
      global('subtract_int64', [INT, INT], INT),
      global('subtract_uint64', [UINT, UINT], UINT),
      global('subtract_duration_duration', [DURATION, DURATION], DURATION),
      global('subtract_timestamp_duration', [TIMESTAMP, DURATION], TIMESTAMP),
      global('subtract_timestamp_timestamp', [TIMESTAMP, TIMESTAMP], DURATION),
    ),
    (a) => subtract(a[0]!, a[1]!),
  ),
  relation('_<_', 'less', (c) => c < 0),
  relation('_<=_', 'less_equals', (c) => c <= 0),
  relation('_>_', 'greater', (c) => c > 0),
  relation('_>=_', 'greater_equals', (c) => c >= 0),
  fn(
    '_[_]',
    o(
      global('index_list', [listA, INT], A),
      global('index_map', [mapAB, A], B),
      global('optional_list_index_int', [optionalOf(listOf(V)), INT], optionalOf(V)),
      global('optional_map_index_value', [optionalOf(mapOf(K, V)), K], optionalOf(V)),
    ),
    (a) => index(a[0]!, a[1]!),
  ),
  fn(
    '_[?_]',
    o(
      global('list_optindex_optional_int', [listOf(V), INT], optionalOf(V)),
      global('optional_list_optindex_optional_int', [optionalOf(listOf(V)), INT], optionalOf(V)),
      global('map_optindex_optional_value', [mapOf(K, V), K], optionalOf(V)),
      global('optional_map_optindex_optional_value', [optionalOf(mapOf(K, V)), K], optionalOf(V)),
    ),
    (a) => optIndex(a[0]!, a[1]!),
  ),
  fn('@in', o(global('in_list', [A, listA], BOOL), global('in_map', [A, mapAB], BOOL)), (a) => inAggregate(a[0]!, a[1]!)),
  fn(
    'size',
    o(
      global('size_bytes', [BYTES], INT),
      member('bytes_size', [BYTES], INT),
      global('size_list', [listA], INT),
      member('list_size', [listA], INT),
      global('size_map', [mapAB], INT),
      member('map_size', [mapAB], INT),
      global('size_string', [STRING], INT),
      member('string_size', [STRING], INT),
    ),
    (a) => size(a[0]!),
  ),
  fn('type', o(global('type', [A], typeOf(A))), (a) => new CelTypeValue(typeName(a[0]!))),
  fn('bool', o(global('bool_to_bool', [BOOL], BOOL), global('string_to_bool', [STRING], BOOL)), (a) => toBool(a[0]!)),
  fn('bytes', o(global('bytes_to_bytes', [BYTES], BYTES), global('string_to_bytes', [STRING], BYTES)), (a) => toBytes(a[0]!)),
  fn(
    'double',
    o(
      global('double_to_double', [DOUBLE], DOUBLE),
      global('int64_to_double', [INT], DOUBLE),
      global('string_to_double', [STRING], DOUBLE),
      global('uint64_to_double', [UINT], DOUBLE),
    ),
    (a) => toDouble(a[0]!),
  ),
  fn('dyn', o(global('to_dyn', [A], DYN)), (a) => a[0]!),
  fn(
    'int',
    o(
      global('int64_to_int64', [INT], INT),
      global('double_to_int64', [DOUBLE], INT),
      global('duration_to_int64', [DURATION], INT),
      global('timestamp_to_int64', [TIMESTAMP], INT),
      global('string_to_int64', [STRING], INT),
      global('uint64_to_int64', [UINT], INT),
    ),
    (a) => toInt(a[0]!),
  ),
  fn(
    'string',
    o(
      global('string_to_string', [STRING], STRING),
      global('bool_to_string', [BOOL], STRING),
      global('duration_to_string', [DURATION], STRING),
      global('timestamp_to_string', [TIMESTAMP], STRING),
      global('bytes_to_string', [BYTES], STRING),
      global('double_to_string', [DOUBLE], STRING),
      global('int64_to_string', [INT], STRING),
      global('uint64_to_string', [UINT], STRING),
    ),
    (a) => toCelString(a[0]!),
  ),
  fn(
    'uint',
    o(
      global('uint64_to_uint64', [UINT], UINT),
      global('double_to_uint64', [DOUBLE], UINT),
      global('int64_to_uint64', [INT], UINT),
      global('string_to_uint64', [STRING], UINT),
    ),
    (a) => toUint(a[0]!),
  ),
  fn(
    'duration',
    o(global('duration_to_duration', [DURATION], DURATION), global('int64_to_duration', [INT], DURATION), global('string_to_duration', [STRING], DURATION)),
    (a) => toDuration(a[0]!),
  ),
  fn(
    'timestamp',
    o(
      global('timestamp_to_timestamp', [TIMESTAMP], TIMESTAMP),
      global('int64_to_timestamp', [INT], TIMESTAMP),
      global('string_to_timestamp', [STRING], TIMESTAMP),
    ),
    (a) => toTimestamp(a[0]!),
  ),
  ...timeGetters(),
  fn('contains', o(member('contains_string', [STRING, STRING], BOOL, (a) => str(a[0]!).includes(str(a[1]!))))),
  fn('endsWith', o(member('ends_with_string', [STRING, STRING], BOOL, (a) => str(a[0]!).endsWith(str(a[1]!))))),
  fn('startsWith', o(member('starts_with_string', [STRING, STRING], BOOL, (a) => str(a[0]!).startsWith(str(a[1]!))))),
  fn(
    'matches',
    o(
      global('matches', [STRING, STRING], BOOL, (a) => regexMatches(str(a[0]!), str(a[1]!))),
      member('matches_string', [STRING, STRING], BOOL, (a) => regexMatches(str(a[0]!), str(a[1]!))),
    ),
  ),
  // Optional types (cel.OptionalTypes, latest version).
  fn('optional.of', o(global('optional_of', [V], optionalOf(V), (a) => CelOptional.of(a[0]!)))),
  fn(
    'optional.ofNonZeroValue',
    o(global('optional_ofNonZeroValue', [V], optionalOf(V), (a) => (isZeroValue(a[0]!) ? CelOptional.NONE : CelOptional.of(a[0]!)))),
  ),
  fn('optional.none', o(global('optional_none', [], optionalOf(V), () => CelOptional.NONE))),
  fn('value', o(member('optional_value', [optionalOf(V)], V, (a) => optValue(a[0]!)))),
  fn('hasValue', o(member('optional_hasValue', [optionalOf(V)], BOOL, (a) => (a[0] as CelOptional).hasValue()))),
  fn('or', o(member('optional_or_optional', [optionalOf(V), optionalOf(V)], optionalOf(V)))),
  fn('orValue', o(member('optional_orValue_value', [optionalOf(V), V], V))),
  fn('_?._', o(global('select_optional_field', [DYN, STRING], optionalOf(V)))),
  fn(
    'last',
    o(member('list_last', [listOf(V)], optionalOf(V), (a) => {
      const l = a[0] as readonly CelValue[];
      return l.length === 0 ? CelOptional.NONE : CelOptional.of(l[l.length - 1]!);
    })),
  ),
  fn(
    'first',
    o(member('list_first', [listOf(V)], optionalOf(V), (a) => {
      const l = a[0] as readonly CelValue[];
      return l.length === 0 ? CelOptional.NONE : CelOptional.of(l[0]!);
    })),
  ),
  fn('optional.unwrap', o(global('optional_unwrap', [listOf(optionalOf(V))], listOf(V), (a) => unwrapOpts(a[0]!)))),
  fn('unwrapOpt', o(member('optional_unwrapOpt', [listOf(optionalOf(V))], listOf(V), (a) => unwrapOpts(a[0]!)))),
  fn(
    'cel.@mapInsert',
    o(global('cel_@mapInsert_map_key_value', [mapOf(K, V), K, V], mapOf(K, V)), global('cel_@mapInsert_map_map', [mapOf(K, V), mapOf(K, V)], mapOf(K, V))),
    (a) => mapInsert(a),
  ),
];

function optValue(v: CelValue): CelValue {
  if (!(v instanceof CelOptional)) throw noSuchOverload();
  if (!v.hasValue()) return err('optional.none() dereference');
  return v.value!;
}

function unwrapOpts(v: CelValue): CelValue {
  if (!Array.isArray(v)) throw noSuchOverload();
  const out: CelValue[] = [];
  for (const e of v) {
    if (!(e instanceof CelOptional)) return err(`value ${typeName(e)} is not optional`);
    if (e.hasValue()) out.push(e.value!);
  }
  return out;
}

function mapInsert(a: readonly CelValue[]): CelValue {
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

/** Identifiers for type names (`int`, `list`, …), as cel-go's standard type variables. */
export const TYPE_IDENTS: ReadonlyMap<string, CelType> = new Map(
  (
    [
      ['bool', BOOL],
      ['bytes', BYTES],
      ['double', DOUBLE],
      ['int', INT],
      ['list', listOf(typeParam('A'))],
      ['map', mapOf(typeParam('A'), typeParam('B'))],
      ['null_type', NULL],
      ['string', STRING],
      ['type', typeOf()],
      ['uint', UINT],
    ] as [string, CelType][]
  ).map(([n, t]) => [n, typeOf(t)]),
);

