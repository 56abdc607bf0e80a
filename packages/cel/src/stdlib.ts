/**
 * The CEL standard library as cel-go declares it (`common/stdlib`) with the
 * Kubernetes options: cross-type numeric comparisons and optional types
 * (`cel.OptionalTypes()`, latest version). Arithmetic is checked for int64 /
 * uint64 overflow exactly as cel-go's overflow.go does.
 * The implementations are in operators.ts; timestamps and durations in time.ts.
 */
import { type FunctionDecl, global, member } from './library.js';
import {
  add,
  cmp,
  divide,
  inAggregate,
  index,
  isZeroValue,
  mapInsert,
  modulo,
  multiply,
  negate,
  optIndex,
  optValue,
  size,
  subtract,
  toBool,
  toBytes,
  toCelString,
  toDouble,
  toDuration,
  toInt,
  toTimestamp,
  toUint,
  unwrapOpts,
} from './operators.js';
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
  CelOptional,
  CelTypeValue,
  type CelValue,
  celEquals,
  noSuchOverload,
  typeName,
} from './values.js';
import { regexMatches } from './regex.js';
import {
  type CelDuration,
  type CelTimestamp,
  durationGet,
  timestampGet,
} from './time.js';

const A = typeParam('A');
const B = typeParam('B');
const K = typeParam('K');
const V = typeParam('V');
const listA = listOf(A);
const mapAB = mapOf(A, B);

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

