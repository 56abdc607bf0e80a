/**
 * `string.format(list)` of cel-go ext.Strings version 2 (ext/formatting.go,
 * the pre-v4 formatter Kubernetes 1.34 uses), output for output:
 *
 * - clauses `%s %d %f %e %b %x %X %o` with an optional `.precision`, `%%`;
 * - `%f` and `%e` print through golang.org/x/text with the en_US locale:
 *   `%f` groups the integer part with commas and prints ∞ for infinities;
 *   `%e` is built as `%<precision>e`, so the precision is a width and the
 *   mantissa always has six decimals, with the exponent as `×10` and
 *   superscript digits (1234.5 → `1.234500×10⁰³`);
 * - lists and maps in `%s` print as CEL literals (doubles with six
 *   decimals, strings quoted as Go's %q, map entries sorted);
 * - the compile-time check of a literal format string with a literal list
 *   of arguments (argument types, count), see {@link checkFormatCall}.
 *
 * Numbers are rounded exactly (half to even on the binary value), as Go does.
 */
import { CelError } from './errors.js';
import { formatDouble } from './operators.js';
import { CelDuration, CelTimestamp, durationToString, timestampToString } from './time.js';
import type { CelType } from './types.js';
import { CelMap, CelTypeValue, CelUint, type CelValue, typeName } from './values.js';

const err = (m: string): never => {
  throw new CelError(m);
};

// ---- exact decimal rendering of float64 ----

/** The exact decimal digits of |x| (x finite): value = 0.digits × 10^point. */
function exactDigits(x: number): { digits: string; point: number } {
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, Math.abs(x));
  const bits = buf.getBigUint64(0);
  const exp = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & ((1n << 52n) - 1n);
  let e2: number;
  if (exp === 0) e2 = -1074;
  else {
    mant |= 1n << 52n;
    e2 = exp - 1075;
  }
  if (mant === 0n) return { digits: '', point: 0 };
  let intDigits: string;
  let point: number;
  if (e2 >= 0) {
    intDigits = (mant << BigInt(e2)).toString();
    point = intDigits.length;
  } else {
    intDigits = (mant * 5n ** BigInt(-e2)).toString();
    point = intDigits.length + e2;
  }
  return { digits: intDigits.replace(/0+$/, ''), point };
}

/** Rounds a digit string to `keep` digits, half to even; on a carry the result has keep + 1 digits. */
function roundDigits(digits: string, keep: number): { digits: string; carry: boolean } {
  if (keep < 0) return { digits: '', carry: false };
  if (digits.length <= keep) return { digits: digits.padEnd(keep, '0'), carry: false };
  const head = digits.slice(0, keep);
  const next = digits[keep]!;
  const rest = digits.slice(keep + 1);
  const last = keep > 0 ? Number(head[keep - 1]) : 0;
  const up = next > '5' || (next === '5' && (/[1-9]/.test(rest) || last % 2 === 1));
  if (!up) return { digits: head, carry: false };
  const n = (BigInt(head || '0') + 1n).toString().padStart(keep, '0');
  // A carry gives keep + 1 digits ("999" → "1000").
  return { digits: n, carry: n.length > keep };
}

/** Go fmt %.<p>f for a finite double, without grouping. */
export function fixed(x: number, p: number): string {
  const sign = x < 0 || Object.is(x, -0) ? '-' : '';
  const { digits, point } = exactDigits(x);
  // N = round(|x| × 10^p), half to even; |x| × 10^p = 0.digits × 10^k.
  const k = point + p;
  let n: string;
  if (digits === '' || k < 0) n = '0';
  else if (k === 0) n = digits > '5' ? '1' : '0';
  else if (k >= digits.length) n = digits + '0'.repeat(k - digits.length);
  else {
    n = roundDigits(digits, k).digits;
  }
  n = n.padStart(p + 1, '0');
  const ip = n.slice(0, n.length - p);
  return p > 0 ? `${sign}${ip}.${n.slice(n.length - p)}` : `${sign}${ip}`;
}

/** Go %.6e parts of a finite double: mantissa digits (7) and decimal exponent. */
function scientific(x: number): { sign: string; mantissa: string; exp: number } {
  const sign = x < 0 || Object.is(x, -0) ? '-' : '';
  const { digits, point } = exactDigits(x);
  if (digits === '') return { sign, mantissa: '0000000', exp: 0 };
  const r = roundDigits(digits, 7);
  return r.carry ? { sign, mantissa: r.digits.slice(0, 7), exp: point } : { sign, mantissa: r.digits, exp: point - 1 };
}

const SUPERSCRIPT = '⁰¹²³⁴⁵⁶⁷⁸⁹';
const group = (intPart: string): string => intPart.replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** x/text en_US %.<p>f. */
function localeFixed(x: number, p: number): string {
  if (x === 0) x = 0; // x/text prints negative zero without its sign
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '∞' : '-∞';
  const s = fixed(x, p);
  const neg = s.startsWith('-');
  const [ip = '', fp] = (neg ? s.slice(1) : s).split('.');
  return `${neg ? '-' : ''}${group(ip)}${fp === undefined ? '' : `.${fp}`}`;
}

/** x/text en_US %<width>e. */
function localeScientific(x: number, width: number): string {
  if (x === 0) x = 0; // x/text prints negative zero without its sign
  let out: string;
  if (Number.isNaN(x)) out = 'NaN';
  else if (!Number.isFinite(x)) out = x > 0 ? '∞' : '-∞';
  else {
    const { sign, mantissa, exp } = scientific(x);
    const e = String(Math.abs(exp)).padStart(2, '0');
    out = `${sign}${mantissa[0]}.${mantissa.slice(1)}×10${exp < 0 ? '⁻' : ''}${[...e].map((d) => SUPERSCRIPT[Number(d)]).join('')}`;
  }
  const len = [...out].length;
  return len < width ? ' '.repeat(width - len) + out : out;
}

// ---- values as text ----

/** Go strconv.Quote. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    const simple: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v' };
    if (simple[ch] !== undefined) out += simple[ch];
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (ch === ' ' || /[\p{L}\p{M}\p{N}\p{P}\p{S}]/u.test(ch)) out += ch;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return `${out}"`;
}

function bytesToString(b: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(b);
  } catch {
    return err('could not convert argument "invalid UTF-8 in bytes, cannot convert to string" to string');
  }
}

/** ext FormatString: the %s text of a value. */
function formatString(v: CelValue): string {
  if (Array.isArray(v)) return formatList(v);
  if (v instanceof CelMap) return formatMap(v);
  if (v === null) return 'null';
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (v instanceof CelUint) return v.v.toString();
  if (typeof v === 'number') return formatDouble(v);
  if (v instanceof Uint8Array) return bytesToString(v);
  if (v instanceof CelTimestamp) return timestampToString(v);
  if (v instanceof CelDuration) return durationToString(v);
  if (v instanceof CelTypeValue) return v.typeName;
  return err(`string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given ${typeName(v)}`);
}

/** ext clauseForType + quoteForCEL: how a list element or map value prints. */
function element(v: CelValue): string {
  if (typeof v === 'bigint' || v instanceof CelUint) return typeof v === 'bigint' ? v.toString() : v.v.toString();
  if (typeof v === 'string') return goQuote(v);
  if (v instanceof Uint8Array) return `b${goQuote(bytesToString(v))}`;
  if (typeof v === 'boolean' || v === null || v instanceof CelTypeValue) return formatString(v);
  if (v instanceof CelTimestamp) return `timestamp(${goQuote(timestampToString(v))})`;
  if (v instanceof CelDuration) return `duration(${goQuote(durationToString(v))})`;
  if (Array.isArray(v)) return formatList(v);
  if (v instanceof CelMap) return formatMap(v);
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return '"NaN"';
    if (!Number.isFinite(v)) return v > 0 ? '"+Inf"' : '"-Inf"';
    return fixed(v, 6);
  }
  return err(`no formatting function for ${typeName(v)}`);
}

function formatList(l: readonly CelValue[]): string {
  return `[${l.map(element).join(', ')}]`;
}

function formatMap(m: CelMap): string {
  const pairs: [string, string][] = [];
  for (const [k, v] of m.entries()) {
    let key: string;
    if (typeof k === 'string') key = goQuote(k);
    else if (typeof k === 'boolean' || typeof k === 'bigint') key = String(k);
    else if (k instanceof CelUint) key = k.v.toString();
    else return err(`no formatting function for map key of type ${typeName(k)}`);
    pairs.push([key, element(v)]);
  }
  const bytes = (s: string) => Buffer.from(s, 'utf8');
  pairs.sort((a, b) => Buffer.compare(bytes(a[0]), bytes(b[0])));
  return `{${pairs.map(([k, v]) => `${k}:${v}`).join(', ')}}`;
}

const intText = (v: CelValue, radix: number, upper = false): string | undefined => {
  const n = typeof v === 'bigint' ? v : v instanceof CelUint ? v.v : undefined;
  if (n === undefined) return undefined;
  const s = n.toString(radix);
  return upper ? s.toUpperCase() : s;
};

const hexBytes = (b: Uint8Array, upper: boolean): string => {
  const s = Buffer.from(b).toString('hex');
  return upper ? s.toUpperCase() : s;
};

type Verb = 's' | 'd' | 'f' | 'e' | 'b' | 'x' | 'X' | 'o';

function formatClause(verb: Verb, precision: number | undefined, v: CelValue): string {
  switch (verb) {
    case 's':
      return formatString(v);
    case 'd':
      return intText(v, 10) ?? err(`decimal clause can only be used on integers, was given ${typeName(v)}`);
    case 'f':
    case 'e': {
      let x: number;
      if (typeof v === 'number') x = v;
      else if (v === 'NaN' || v === 'Infinity' || v === '-Infinity') x = v === 'NaN' ? Number.NaN : v === 'Infinity' ? Infinity : -Infinity;
      else return err(`${verb === 'f' ? 'fixed-point' : 'scientific'} clause can only be used on doubles, was given ${typeName(v)}`);
      return verb === 'f' ? localeFixed(x, precision ?? 6) : localeScientific(x, precision ?? 6);
    }
    case 'b':
      if (typeof v === 'boolean') return v ? '1' : '0';
      return intText(v, 2) ?? err(`only integers and bools can be formatted as binary, was given ${typeName(v)}`);
    case 'x':
    case 'X': {
      const upper = verb === 'X';
      if (typeof v === 'string') return hexBytes(Buffer.from(v, 'utf8'), upper);
      if (v instanceof Uint8Array) return hexBytes(v, upper);
      return intText(v, 16, upper) ?? err(`only integers, byte buffers, and strings can be formatted as hex, was given ${typeName(v)}`);
    }
    case 'o':
      return intText(v, 8) ?? err(`octal clause can only be used on integers, was given ${typeName(v)}`);
  }
}

/** One parsed clause, or the error cel-go reports for the format string. */
interface Clause {
  readonly verb: Verb;
  readonly precision: number | undefined;
}

/**
 * ext parseFormatString: walks the format string, calling `onClause` for
 * each clause with its argument index. Throws CelError with cel-go's text.
 */
function walkFormat(fmt: string, size: number, onClause: (c: Clause, index: number) => string): string {
  const b = Buffer.from(fmt, 'utf8');
  let out = '';
  let i = 0;
  let argIndex = 0;
  let literal: number[] = [];
  const flush = () => {
    out += Buffer.from(literal).toString('utf8');
    literal = [];
  };
  while (i < b.length) {
    if (b[i] !== 0x25) {
      literal.push(b[i]!);
      i++;
      continue;
    }
    if (b[i + 1] === 0x25) {
      literal.push(0x25);
      i += 2;
      continue;
    }
    if (i + 1 >= b.length) err('unexpected end of string');
    if (argIndex >= size) err(`index ${argIndex} out of range`);
    let j = i + 1;
    let precision: number | undefined;
    if (b[j] === 0x2e) {
      j++;
      let digits = '';
      while (true) {
        if (j >= b.length) err('could not parse formatting clause: error while parsing precision: could not find end of precision specifier');
        if (b[j]! < 0x30 || b[j]! > 0x39) break;
        digits += String.fromCharCode(b[j]!);
        j++;
      }
      if (digits === '') err('could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing "": invalid syntax');
      precision = Number(digits);
    }
    const verb = String.fromCharCode(b[j]!);
    if (!'sdfebxXo'.includes(verb)) err(`could not parse formatting clause: unrecognized formatting clause "${verb}"`);
    flush();
    try {
      out += onClause({ verb: verb as Verb, precision }, argIndex);
    } catch (e) {
      if (e instanceof CelError) err(`error during formatting: ${e.message}`);
      throw e;
    }
    i = j + 1;
    argIndex++;
  }
  flush();
  return out;
}

/** `fmt.format(args)` at run time. */
export function stringFormat(fmt: string, args: readonly CelValue[]): string {
  return walkFormat(fmt, args.length, (c, i) => formatClause(c.verb, c.precision, args[i]!));
}

const VERB_KINDS: Record<Verb, readonly string[]> = {
  s: ['list', 'map', 'int', 'uint', 'double', 'bool', 'string', 'timestamp', 'bytes', 'duration', 'type', 'null'],
  d: ['int', 'uint'],
  f: ['double', 'string'],
  e: ['double', 'string'],
  b: ['int', 'uint', 'bool'],
  x: ['int', 'uint', 'string', 'bytes'],
  X: ['int', 'uint', 'string', 'bytes'],
  o: ['int', 'uint'],
};

/** The argument expressions of a literal list, for the compile-time check. */
export interface FormatArg {
  readonly id: number;
  readonly type: CelType;
  /** Sub-expressions of a literal list or map argument (keys and values), checked for %s. */
  readonly children: readonly FormatArg[];
}

/**
 * The compile-time check cel-go runs on `"literal".format([literal list])`
 * (stringFormatValidator): each clause's argument must have a type the
 * clause accepts (dyn always passes), and no argument may be left unused.
 * Returns the offending node id and message, or undefined.
 */
export function checkFormatCall(fmt: string, args: readonly FormatArg[], callId: number): { id: number; message: string } | undefined {
  let requested = 0;
  const typeOk = (t: CelType, kinds: readonly string[]) => t.kind === 'dyn' || kinds.includes(t.kind);
  const verifyString = (a: FormatArg): number | undefined => {
    if (!typeOk(a.type, VERB_KINDS.s)) return a.id;
    for (const c of a.children) {
      const bad = verifyString(c);
      if (bad !== undefined) return bad;
    }
    return undefined;
  };
  const messages: Record<Verb, string> = {
    s: 'string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps',
    d: 'decimal clause can only be used on integers',
    f: 'fixed-point clause can only be used on doubles',
    e: 'scientific clause can only be used on doubles',
    b: 'only integers and bools can be formatted as binary',
    x: 'only integers, byte buffers, and strings can be formatted as hex',
    X: 'only integers, byte buffers, and strings can be formatted as hex',
    o: 'octal clause can only be used on integers',
  };
  let badId = callId;
  try {
    walkFormat(fmt, args.length, (c, i) => {
      requested++;
      const a = args[i]!;
      const bad = c.verb === 's' ? verifyString(a) : typeOk(a.type, VERB_KINDS[c.verb]) ? undefined : a.id;
      if (bad !== undefined) {
        badId = bad;
        const t = c.verb === 's' ? findType(a, bad) : a.type;
        err(`${messages[c.verb]}, was given ${t?.name ?? 'unknown'}`);
      }
      return '';
    });
  } catch (e) {
    if (e instanceof CelError) return { id: badId, message: e.message };
    throw e;
  }
  if (args.length > requested) return { id: callId, message: `too many arguments supplied to string.format (expected ${requested}, got ${args.length})` };
  return undefined;
}

function findType(a: FormatArg, id: number): CelType | undefined {
  if (a.id === id) return a.type;
  for (const c of a.children) {
    const t = findType(c, id);
    if (t) return t;
  }
  return undefined;
}
