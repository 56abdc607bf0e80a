/**
 * The extension libraries of the Kubernetes CEL base environment that a DRA
 * selector can use (k8s.io/apiserver/pkg/cel/environment/base.go, for the
 * 1.33 compatibility version that the 1.34 API server validates new
 * selectors with):
 *
 * - cel-go ext.Strings v2: charAt, indexOf, lastIndexOf, lowerAscii,
 *   upperAscii, replace, split, substring, trim, join, strings.quote,
 *   format (strformat.ts);
 * - cel-go ext.Sets: sets.contains, sets.equivalent, sets.intersects;
 * - Kubernetes lists: isSorted, sum, min, max, indexOf, lastIndexOf;
 * - Kubernetes regex: find, findAll.
 *
 * The other Kubernetes libraries (quantity, semver, IP, CIDR, URL, Format)
 * are in k8slib.ts.
 *
 * All string positions count code points, as Go's `[]rune` does.
 *
 * Not declared: the Kubernetes Authz library (it needs an `authorizer`
 * variable DRA does not declare, so no selector can reach it).
 */
import { type FunctionDecl, global, member, type Overload } from './library.js';
import { regexFind, regexFindAll } from './regex.js';
import { stringFormat } from './strformat.js';
import { addDurations, CelDuration } from './time.js';
import { BOOL, BYTES, type CelType, DOUBLE, DURATION, DYN, INT, listOf, STRING, TIMESTAMP, typeParam, UINT } from './types.js';
import { CelError, CelUint, type CelValue, celCompare, celEquals, noSuchOverload } from './values.js';

const A = typeParam('A');
const err = (m: string): never => {
  throw new CelError(m);
};
const s = (v: CelValue | undefined): string => (typeof v === 'string' ? v : err('no such overload'));
const n = (v: CelValue | undefined): bigint => (typeof v === 'bigint' ? v : err('no such overload'));
const fn = (name: string, overloads: Overload[]): FunctionDecl => ({ name, overloads });

const runes = (x: string): string[] => Array.from(x);

function charAt(str: string, i: bigint): string {
  const r = runes(str);
  if (i < 0n || i > BigInt(r.length)) return err(`index out of range: ${i}`);
  return i === BigInt(r.length) ? '' : r[Number(i)]!;
}

function indexOfOffset(str: string, sub: string, offset: bigint): bigint {
  if (sub === '') return offset;
  const r = runes(str);
  const sr = runes(sub);
  if (offset < 0n) return err(`index out of range: ${offset}`);
  if (offset >= BigInt(r.length)) return -1n;
  for (let i = Number(offset); i < r.length - (sr.length - 1); i++) {
    if (sr.every((c, j) => r[i + j] === c)) return BigInt(i);
  }
  return -1n;
}

function lastIndexOfOffset(str: string, sub: string, offset: bigint): bigint {
  if (sub === '') return offset;
  const r = runes(str);
  const sr = runes(sub);
  if (offset < 0n) return err(`index out of range: ${offset}`);
  if (offset >= BigInt(r.length)) return -1n;
  let off = Number(offset);
  if (off > r.length - sr.length) off = r.length - sr.length;
  for (let i = off; i >= 0; i--) {
    if (sr.every((c, j) => r[i + j] === c)) return BigInt(i);
  }
  return -1n;
}

function lastIndexOf(str: string, sub: string): bigint {
  const r = runes(str);
  if (sub === '') return BigInt(r.length);
  if (utf8Length(str) < utf8Length(sub)) return -1n;
  return lastIndexOfOffset(str, sub, BigInt(r.length - 1));
}

const utf8Length = (x: string): number => new TextEncoder().encode(x).length;

/** Go strings.Replace(s, old, new, n): n < 0 replaces all; an empty old inserts around every code point. */
function replace(str: string, old: string, rep: string, count: bigint): string {
  if (count === 0n || old === rep) return str;
  let limit = count < 0n ? Number.POSITIVE_INFINITY : Number(count);
  if (old === '') {
    const r = runes(str);
    let out = '';
    for (let i = 0; i <= r.length; i++) {
      if (limit > 0) {
        out += rep;
        limit--;
      }
      if (i < r.length) out += r[i];
    }
    return out;
  }
  let out = '';
  let pos = 0;
  while (limit > 0) {
    const i = str.indexOf(old, pos);
    if (i === -1) break;
    out += str.slice(pos, i) + rep;
    pos = i + old.length;
    limit--;
  }
  return out + str.slice(pos);
}

/** Go strings.SplitN: n == 0 gives no parts, n < 0 all parts; an empty separator splits code points. */
function splitN(str: string, sep: string, count: bigint): string[] {
  if (count === 0n) return [];
  const limit = count < 0n ? Number.POSITIVE_INFINITY : Number(count);
  if (sep === '') {
    const r = runes(str);
    if (r.length <= limit) return r;
    return [...r.slice(0, limit - 1), r.slice(limit - 1).join('')];
  }
  const out: string[] = [];
  let rest = str;
  while (out.length < limit - 1) {
    const i = rest.indexOf(sep);
    if (i === -1) break;
    out.push(rest.slice(0, i));
    rest = rest.slice(i + sep.length);
  }
  out.push(rest);
  return out;
}

function substring(str: string, start: bigint, end?: bigint): string {
  const r = runes(str);
  const l = BigInt(r.length);
  if (end === undefined) {
    if (start < 0n || start > l) return err(`index out of range: ${start}`);
    return r.slice(Number(start)).join('');
  }
  if (start > end) return err(`invalid substring range. start: ${start}, end: ${end}`);
  if (start < 0n || start > l) return err(`index out of range: ${start}`);
  if (end < 0n || end > l) return err(`index out of range: ${end}`);
  return r.slice(Number(start), Number(end)).join('');
}

/** Go unicode.IsSpace. */
const GO_SPACE = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;

const asciiCase = (str: string, upper: boolean): string =>
  str.replace(upper ? /[a-z]+/g : /[A-Z]+/g, (m) => (upper ? m.toUpperCase() : m.toLowerCase()));

function quote(str: string): string {
  const map: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '\\': '\\\\', '"': '\\"' };
  let out = '';
  for (const ch of str) {
    const cp = ch.codePointAt(0)!;
    out += cp >= 0xd800 && cp <= 0xdfff ? '\ufffd' : (map[ch] ?? ch);
  }
  return `"${out}"`;
}

function join(list: CelValue | undefined, sep: string): string {
  if (!Array.isArray(list)) throw noSuchOverload();
  return list.map((e) => (typeof e === 'string' ? e : err(`join: invalid input: ${String(e)}`))).join(sep);
}

const list = (v: CelValue | undefined): readonly CelValue[] => (Array.isArray(v) ? v : err('no such overload'));

/** cel-go Lister.Contains: element comparisons that error count as no match. */
function contains(l: readonly CelValue[], v: CelValue): boolean {
  for (const e of l) {
    try {
      if (celEquals(v, e)) return true;
    } catch {
      // ignored, as in cel-go
    }
  }
  return false;
}

function isSorted(l: readonly CelValue[]): boolean {
  for (let i = 1; i < l.length; i++) if (celCompare(l[i - 1]!, l[i]!) === 1) return false;
  return true;
}

function sumOf(l: readonly CelValue[], zero: CelValue): CelValue {
  let acc = zero;
  for (const e of l) {
    if (typeof acc === 'bigint' && typeof e === 'bigint') {
      acc = acc + e;
      if (acc > 9223372036854775807n || acc < -9223372036854775808n) return err('integer overflow');
    } else if (typeof acc === 'number' && typeof e === 'number') acc = acc + e;
    else if (acc instanceof CelDuration && e instanceof CelDuration) acc = addDurations(acc, e);
    else if (acc instanceof CelUint && e instanceof CelUint) {
      if (acc.v + e.v > 18446744073709551615n) return err('unsigned integer overflow');
      acc = new CelUint(acc.v + e.v);
    } else throw noSuchOverload();
  }
  return acc;
}

function extreme(l: readonly CelValue[], name: string, prefer: number): CelValue {
  if (l.length === 0) return err(`${name} called on empty list`);
  let result = l[0]!;
  for (let i = 1; i < l.length; i++) if (celCompare(result, l[i]!) === prefer) result = l[i]!;
  return result;
}

function indexOfList(l: readonly CelValue[], v: CelValue, last: boolean): bigint {
  const idx = last ? [...l.keys()].reverse() : [...l.keys()];
  for (const i of idx) {
    try {
      if (celEquals(l[i]!, v)) return BigInt(i);
    } catch {
      // cel-go compares with `== types.True`
    }
  }
  return -1n;
}

const comparable: [string, CelType][] = [
  ['int', INT],
  ['uint', UINT],
  ['double', DOUBLE],
  ['bool', BOOL],
  ['duration', DURATION],
  ['timestamp', TIMESTAMP],
  ['string', STRING],
  ['bytes', BYTES],
];
const summable: [string, CelType, CelValue][] = [
  ['int', INT, 0n],
  ['uint', UINT, new CelUint(0n)],
  ['double', DOUBLE, 0],
  ['duration', DURATION, new CelDuration(0n)],
];

/** The extension declarations. */
export const EXTENSIONS: readonly FunctionDecl[] = [
  fn('charAt', [member('string_char_at_int', [STRING, INT], STRING, (a) => charAt(s(a[0]), n(a[1])))]),
  fn('indexOf', [
    member('string_index_of_string', [STRING, STRING], INT, (a) => indexOfOffset(s(a[0]), s(a[1]), 0n)),
    member('string_index_of_string_int', [STRING, STRING, INT], INT, (a) => indexOfOffset(s(a[0]), s(a[1]), n(a[2]))),
    member('list_a_index_of_int', [listOf(A), A], INT, (a) => indexOfList(list(a[0]), a[1]!, false)),
  ]),
  fn('lastIndexOf', [
    member('string_last_index_of_string', [STRING, STRING], INT, (a) => lastIndexOf(s(a[0]), s(a[1]))),
    member('string_last_index_of_string_int', [STRING, STRING, INT], INT, (a) => lastIndexOfOffset(s(a[0]), s(a[1]), n(a[2]))),
    member('list_a_last_index_of_int', [listOf(A), A], INT, (a) => indexOfList(list(a[0]), a[1]!, true)),
  ]),
  fn('format', [member('string_format', [STRING, listOf(DYN)], STRING, (a) => stringFormat(s(a[0]), list(a[1])))]),
  fn('lowerAscii', [member('string_lower_ascii', [STRING], STRING, (a) => asciiCase(s(a[0]), false))]),
  fn('upperAscii', [member('string_upper_ascii', [STRING], STRING, (a) => asciiCase(s(a[0]), true))]),
  fn('replace', [
    member('string_replace_string_string', [STRING, STRING, STRING], STRING, (a) => replace(s(a[0]), s(a[1]), s(a[2]), -1n)),
    member('string_replace_string_string_int', [STRING, STRING, STRING, INT], STRING, (a) => replace(s(a[0]), s(a[1]), s(a[2]), n(a[3]))),
  ]),
  fn('split', [
    member('string_split_string', [STRING, STRING], listOf(STRING), (a) => splitN(s(a[0]), s(a[1]), -1n)),
    member('string_split_string_int', [STRING, STRING, INT], listOf(STRING), (a) => splitN(s(a[0]), s(a[1]), n(a[2]))),
  ]),
  fn('substring', [
    member('string_substring_int', [STRING, INT], STRING, (a) => substring(s(a[0]), n(a[1]))),
    member('string_substring_int_int', [STRING, INT, INT], STRING, (a) => substring(s(a[0]), n(a[1]), n(a[2]))),
  ]),
  fn('trim', [member('string_trim', [STRING], STRING, (a) => s(a[0]).replace(GO_SPACE, ''))]),
  fn('strings.quote', [global('strings_quote', [STRING], STRING, (a) => quote(s(a[0])))]),
  fn('join', [
    member('list_join', [listOf(STRING)], STRING, (a) => join(a[0], '')),
    member('list_join_string', [listOf(STRING), STRING], STRING, (a) => join(a[0], s(a[1]))),
  ]),
  fn('sets.contains', [global('list_sets_contains_list', [listOf(A), listOf(A)], BOOL, (a) => list(a[1]).every((e) => contains(list(a[0]), e)))]),
  fn('sets.equivalent', [
    global('list_sets_equivalent_list', [listOf(A), listOf(A)], BOOL, (a) => {
      const [x, y] = [list(a[0]), list(a[1])];
      return y.every((e) => contains(x, e)) && x.every((e) => contains(y, e));
    }),
  ]),
  fn('sets.intersects', [global('list_sets_intersects_list', [listOf(A), listOf(A)], BOOL, (a) => list(a[0]).some((e) => contains(list(a[1]), e)))]),
  fn(
    'isSorted',
    comparable.map(([name, t]) => member(`list_${name}_is_sorted_bool`, [listOf(t)], BOOL, (a) => isSorted(list(a[0])))),
  ),
  fn(
    'sum',
    summable.map(([name, t, zero]) => member(`list_${name}_sum_${name}`, [listOf(t)], t, (a) => sumOf(list(a[0]), zero))),
  ),
  fn('max', comparable.map(([name, t]) => member(`list_${name}_max_${name}`, [listOf(t)], t, (a) => extreme(list(a[0]), 'max', -1)))),
  fn('min', comparable.map(([name, t]) => member(`list_${name}_min_${name}`, [listOf(t)], t, (a) => extreme(list(a[0]), 'min', 1)))),
  fn('find', [member('string_find_string', [STRING, STRING], STRING, (a) => regexFind(s(a[0]), s(a[1])))]),
  fn('findAll', [
    member('string_find_all_string', [STRING, STRING], listOf(STRING), (a) => regexFindAll(s(a[0]), s(a[1]), -1)),
    member('string_find_all_string_int', [STRING, STRING, INT], listOf(STRING), (a) => regexFindAll(s(a[0]), s(a[1]), clampInt(n(a[2])))),
  ]),
];

/** Go int(n) for a slice length argument. */
function clampInt(v: bigint): number {
  return v > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : v < -1n ? -1 : Number(v);
}

