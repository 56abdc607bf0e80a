/**
 * YAML exactly as the Kubernetes YAML serializer writes it (sigs.k8s.io/yaml's
 * JSONToYAML, i.e. go-yaml v2's encoder and its libyaml emitter), for JSON
 * data: the format `crossplane render` prints.
 *
 * What that means, and what this reproduces (checked byte for byte against
 * the real CLI by test/conformance):
 * - map keys in go-yaml's order: runes compared one by one, digit runs by
 *   value, a non-letter before a letter;
 * - block style, two-space indent, sequences not indented under their key,
 *   `{}` and `[]` for empty collections;
 * - a string is plain unless it would read back as another type (bool and
 *   null in YAML 1.1 spelling, int, float, timestamp, base-60 float), in which
 *   case it is double-quoted; a string with a newline is a literal block
 *   (`|`, `|-`, `|+`); then libyaml's own rules: a plain scalar that would be
 *   misread (indicators, `: `, ` #`, leading/trailing space) becomes
 *   single-quoted, and double-quoted when single quotes cannot hold it
 *   (non-printable characters, a space next to a line break);
 * - long scalars are folded: at the first space after column 80 (libyaml's
 *   best width), continuing at the scalar's indent;
 * - numbers: integers as digits, other numbers in Go's `%g` shortest form
 *   (`1e+21`, `1.5e-07`), NaN/Infinity as `.nan`/`.inf`.
 */

const BEST_WIDTH = 80;
const INDENT = 2;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** One YAML document for a JSON-compatible value, ending with a newline (no `---`). */
export function goYaml(value: unknown): string {
  const e = new Emitter();
  e.node(normalize(value), -INDENT, false);
  return `${e.out.join('')}\n`;
}

/** JSON round-trip semantics: undefined dropped from maps, null in lists, toJSON honoured. */
function normalize(v: unknown): Json {
  if (v === null || v === undefined) return null;
  if (typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') {
    return normalize((v as { toJSON: () => unknown }).toJSON());
  }
  if (Array.isArray(v)) return v.map((x) => (x === undefined || typeof x === 'function' ? null : normalize(x)));
  if (typeof v === 'object') {
    const out: { [k: string]: Json } = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if (x === undefined || typeof x === 'function' || typeof x === 'symbol') continue;
      out[k] = normalize(x);
    }
    return out;
  }
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return v;
  return String(v);
}

// ---- key order (go-yaml v2 keyList.Less) ----

const isLetter = (c: string) => /\p{L}/u.test(c);
const isDigit = (c: string) => /\p{Nd}/u.test(c);

/** go-yaml v2's map key order for string keys. */
export function goKeyLess(a: string, b: string): boolean {
  const ar = Array.from(a);
  const br = Array.from(b);
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) continue;
    const al = isLetter(ar[i]!);
    const bl = isLetter(br[i]!);
    if (al && bl) return ar[i]!.codePointAt(0)! < br[i]!.codePointAt(0)!;
    if (al || bl) return bl;
    let an = 0n;
    let bn = 0n;
    if (ar[i] === '0' || br[i] === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]!); j--) {
        if (ar[j] !== '0') {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && isDigit(ar[ai]!); ai++) an = an * 10n + BigInt(ar[ai]!.codePointAt(0)! - 48);
    let bi = i;
    for (; bi < br.length && isDigit(br[bi]!); bi++) bn = bn * 10n + BigInt(br[bi]!.codePointAt(0)! - 48);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return ar[i]!.codePointAt(0)! < br[i]!.codePointAt(0)!;
  }
  return ar.length < br.length;
}

const sortKeys = (keys: string[]) => keys.sort((x, y) => (goKeyLess(x, y) ? -1 : goKeyLess(y, x) ? 1 : 0));

// ---- what a plain string would resolve to (go-yaml v2 resolve) ----

const YAML11_SPECIAL = new Set([
  'y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON',
  'n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF',
  '', '~', 'null', 'Null', 'NULL',
  '.nan', '.NaN', '.NAN', '.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF', '-.inf', '-.Inf', '-.INF',
]); // biome-ignore format: a table

const YAML_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;
const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

/** Go strconv.ParseInt/ParseUint(s, 0, 64) success (base prefixes, sign, range). */
function parsesAsGoInt(s: string): boolean {
  const m = /^([+-]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.exec(s);
  if (!m) return false;
  const digits = m[2]!;
  let n: bigint;
  if (/^0[oO]/.test(digits)) n = BigInt(`0o${digits.slice(2)}`);
  else if (/^0[0-7]+$/.test(digits)) n = BigInt(`0o${digits.slice(1)}`);
  else n = BigInt(digits);
  if (m[1] === '-') n = -n;
  return n >= INT64_MIN && n <= UINT64_MAX && !(m[1] === '-' && n < INT64_MIN);
}

/** Go time.Parse of one of go-yaml's timestamp layouts. */
function isGoTimestamp(s: string): boolean {
  if (!/^[0-9]{4}-/.test(s)) return false;
  const m = /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:([Tt ])([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?)?$/.exec(s);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12) return false;
  const days = [31, year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  if (day < 1 || day > days[month - 1]!) return false;
  if (m[4] === undefined) return true;
  if (Number(m[5]) > 23 || Number(m[6]) > 59 || Number(m[7]) > 59) return false;
  // "2006-1-2T15:4:5.999999999Z07:00" needs a zone; "2006-1-2 15:4:5.999999999" has none.
  if (m[4] === ' ') return m[9] === undefined;
  if (m[9] === undefined) return false;
  if (m[9] !== 'Z' && (Number(m[9].slice(1, 3)) > 23 || Number(m[9].slice(4)) > 59)) return false;
  return true;
}

/** True when go-yaml would write the string plain (it reads back as a string). */
function resolvesToString(s: string): boolean {
  if (YAML11_SPECIAL.has(s)) return false;
  const c = s[0] ?? '';
  if (/[0-9+-]/.test(c)) {
    if (isGoTimestamp(s)) return false;
    const plain = s.replaceAll('_', '');
    if (parsesAsGoInt(plain)) return false;
    if (YAML_FLOAT.test(plain) && Number.isFinite(Number(plain))) return false;
    if (/^-?0b[01]+$/.test(plain)) return false;
  } else if (c === '.') {
    if (goParseFloatOk(s)) return false;
  }
  return !BASE60_FLOAT.test(s);
}

/** Go strconv.ParseFloat success for a string starting with '.'. */
function goParseFloatOk(s: string): boolean {
  return /^\.[0-9](_?[0-9])*([eE][-+]?[0-9](_?[0-9])*)?$/.test(s);
}

// ---- libyaml scalar analysis ----

const isBreakChar = (c: string) => c === '\r' || c === '\n' || c === '\u0085' || c === '\u2028' || c === '\u2029';
const isBlankz = (c: string | undefined) => c === undefined || c === ' ' || c === '\t' || isBreakChar(c);

function isPrintable(c: string): boolean {
  const cp = c.codePointAt(0)!;
  return (
    cp === 0x0a ||
    (cp >= 0x20 && cp <= 0x7e) ||
    (cp >= 0xa0 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd && cp !== 0xfeff)
  );
}

interface Analysis {
  multiline: boolean;
  flowPlain: boolean;
  blockPlain: boolean;
  single: boolean;
  block: boolean;
}

function analyze(value: string): Analysis {
  if (value === '') return { multiline: false, flowPlain: false, blockPlain: true, single: true, block: false };
  const chars = Array.from(value);
  let blockIndicators = false;
  let flowIndicators = false;
  let lineBreaks = false;
  let specialCharacters = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let previousSpace = false;
  let previousBreak = false;
  if (value.startsWith('---') || value.startsWith('...')) {
    blockIndicators = true;
    flowIndicators = true;
  }
  let precededByWhitespace = true;
  let followedByWhitespace = isBlankz(chars[1]);
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(c)) {
        flowIndicators = true;
        blockIndicators = true;
      }
      if (c === '?' || c === ':') {
        flowIndicators = true;
        if (followedByWhitespace) blockIndicators = true;
      }
      if (c === '-' && followedByWhitespace) {
        flowIndicators = true;
        blockIndicators = true;
      }
    } else {
      if (',?[]{}'.includes(c)) flowIndicators = true;
      if (c === ':') {
        flowIndicators = true;
        if (followedByWhitespace) blockIndicators = true;
      }
      if (c === '#' && precededByWhitespace) {
        flowIndicators = true;
        blockIndicators = true;
      }
    }
    if (!isPrintable(c)) specialCharacters = true;
    if (isBreakChar(c)) lineBreaks = true;
    const last = i === chars.length - 1;
    if (c === ' ') {
      if (i === 0) leadingSpace = true;
      if (last) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreakChar(c)) {
      if (i === 0) leadingBreak = true;
      if (last) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousBreak = true;
      previousSpace = false;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = isBlankz(c);
    followedByWhitespace = isBlankz(chars[i + 2]);
  }
  const a: Analysis = { multiline: lineBreaks, flowPlain: true, blockPlain: true, single: true, block: true };
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) {
    a.flowPlain = false;
    a.blockPlain = false;
  }
  if (trailingSpace) a.block = false;
  if (breakSpace) {
    a.flowPlain = false;
    a.blockPlain = false;
    a.single = false;
  }
  if (spaceBreak || specialCharacters) {
    a.flowPlain = false;
    a.blockPlain = false;
    a.single = false;
    a.block = false;
  }
  if (lineBreaks) {
    a.flowPlain = false;
    a.blockPlain = false;
  }
  if (flowIndicators) a.flowPlain = false;
  if (blockIndicators) a.blockPlain = false;
  return a;
}

type Style = 'plain' | 'single' | 'double' | 'literal';

// ---- the emitter ----

class Emitter {
  readonly out: string[] = [];
  private column = 0;
  private indent = 0;
  private whitespace = true;
  private indention = true;
  private started = false;

  private put(s: string): void {
    this.out.push(s);
    this.column += Array.from(s).length;
  }

  private putBreak(): void {
    this.out.push('\n');
    this.column = 0;
  }

  private writeIndent(): void {
    if (!this.indention || this.column > this.indent || (this.column === this.indent && !this.whitespace)) this.putBreak();
    while (this.column < this.indent) this.put(' ');
    this.whitespace = true;
    this.indention = true;
  }

  private indicator(s: string, needWhitespace: boolean, isWhitespace: boolean, isIndention: boolean): void {
    if (needWhitespace && !this.whitespace) this.put(' ');
    this.put(s);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }

  /**
   * Emits a node whose block collections are indented to `parentIndent + 2`,
   * except a sequence that is a mapping value on the key's line, which is not
   * indented (libyaml's indentless sequence).
   */
  node(v: Json, parentIndent: number, mappingValue: boolean): void {
    if (Array.isArray(v)) {
      if (v.length === 0) {
        this.flowEmpty('[]');
        return;
      }
      const indent = mappingValue && !this.indention ? parentIndent : parentIndent + INDENT;
      for (const item of v) {
        this.indent = indent;
        this.writeIndent();
        this.indicator('-', true, false, true);
        this.node(item, indent, false);
      }
      return;
    }
    if (v !== null && typeof v === 'object') {
      const keys = sortKeys(Object.keys(v));
      if (keys.length === 0) {
        this.flowEmpty('{}');
        return;
      }
      const indent = parentIndent + INDENT;
      for (const k of keys) {
        this.indent = indent;
        this.writeIndent();
        // A multi-line key, or one over 128 bytes, is a complex key: `? key` then `: value`.
        if (/[\n\r\u0085\u2028\u2029]/.test(k) || Buffer.byteLength(k) > 128) {
          this.indicator('?', true, false, true);
          this.scalar(k, false, indent);
          this.indent = indent;
          this.writeIndent();
          this.indicator(':', true, false, true);
        } else {
          this.scalar(k, true, indent);
          this.indicator(':', false, false, false);
        }
        this.node(v[k]!, indent, true);
      }
      return;
    }
    this.scalarNode(v, parentIndent);
  }

  private flowEmpty(s: string): void {
    this.indicator(s, true, false, false);
  }

  private scalarNode(v: null | boolean | number | string, parentIndent: number): void {
    if (typeof v === 'string') {
      this.scalar(v, false, parentIndent);
      return;
    }
    const text = v === null ? 'null' : typeof v === 'boolean' ? String(v) : goNumber(v);
    this.writeScalar(text, 'plain', false, parentIndent + INDENT);
  }

  /** A string scalar: go-yaml's style request, then libyaml's style selection. */
  private scalar(s: string, simpleKey: boolean, parentIndent: number): void {
    let style: Style = s.includes('\n') ? 'literal' : resolvesToString(s) ? 'plain' : 'double';
    const a = analyze(s);
    if (simpleKey && a.multiline) style = 'double';
    if (style === 'plain') {
      if (!a.blockPlain) style = 'single';
      if (s.length === 0 && simpleKey) style = 'single';
    }
    if (style === 'single' && !a.single) style = 'double';
    if (style === 'literal' && (!a.block || simpleKey)) style = 'double';
    this.writeScalar(s, style, simpleKey, parentIndent + INDENT);
  }

  private writeScalar(s: string, style: Style, simpleKey: boolean, indent: number): void {
    const saved = this.indent;
    this.indent = this.started || indent > 0 ? indent : 0;
    this.started = true;
    const allowBreaks = !simpleKey;
    switch (style) {
      case 'plain':
        this.writePlain(s, allowBreaks);
        break;
      case 'single':
        this.writeSingle(s, allowBreaks);
        break;
      case 'double':
        this.writeDouble(s, allowBreaks);
        break;
      case 'literal':
        this.writeLiteral(s);
        break;
    }
    this.indent = saved;
  }

  private writePlain(s: string, allowBreaks: boolean): void {
    if (!this.whitespace) this.put(' ');
    const chars = Array.from(s);
    let spaces = false;
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i]!;
      if (c === ' ') {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && chars[i + 1] !== ' ') this.writeIndent();
        else this.put(c);
        spaces = true;
      } else {
        this.put(c);
        this.indention = false;
        spaces = false;
      }
    }
    this.whitespace = false;
    this.indention = false;
  }

  private writeSingle(s: string, allowBreaks: boolean): void {
    this.indicator("'", true, false, false);
    const chars = Array.from(s);
    let spaces = false;
    let breaks = false;
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i]!;
      if (c === ' ') {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < chars.length - 1 && chars[i + 1] !== ' ') {
          this.writeIndent();
        } else this.put(c);
        spaces = true;
      } else if (isBreakChar(c)) {
        if (!breaks && c === '\n') this.putBreak();
        this.putBreak();
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.put(c === "'" ? "''" : c);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    }
    this.indicator("'", false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private writeDouble(s: string, allowBreaks: boolean): void {
    this.indicator('"', true, false, false);
    const chars = Array.from(s);
    let spaces = false;
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i]!;
      if (!isPrintable(c) || c === '\ufeff' || isBreakChar(c) || c === '"' || c === '\\') {
        this.put(`\\${escapeChar(c)}`);
        spaces = false;
      } else if (c === ' ') {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < chars.length - 1) {
          this.writeIndent();
          if (chars[i + 1] === ' ') this.put('\\');
        } else this.put(c);
        spaces = true;
      } else {
        this.put(c);
        spaces = false;
      }
    }
    this.indicator('"', false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private writeLiteral(s: string): void {
    this.indicator('|', true, false, false);
    const chars = Array.from(s);
    if (chars[0] === ' ' || isBreakChar(chars[0] ?? '')) this.indicator(`${INDENT}`, false, false, false);
    const last = chars[chars.length - 1];
    if (last === undefined || !isBreakChar(last)) this.indicator('-', false, false, false);
    else if (chars.length === 1 || isBreakChar(chars[chars.length - 2]!)) this.indicator('+', false, false, false);
    this.putBreak();
    this.indention = true;
    this.whitespace = true;
    let breaks = true;
    for (const c of chars) {
      if (isBreakChar(c)) {
        this.putBreak();
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.put(c);
        this.indention = false;
        breaks = false;
      }
    }
  }
}

function escapeChar(c: string): string {
  const named: Record<string, string> = {
    '\0': '0', '\x07': 'a', '\b': 'b', '\t': 't', '\n': 'n', '\v': 'v', '\f': 'f', '\r': 'r', '\x1b': 'e',
    '"': '"', '\\': '\\', '\u0085': 'N', '\u00a0': '_', '\u2028': 'L', '\u2029': 'P',
  }; // biome-ignore format: a table
  const n = named[c];
  if (n !== undefined) return n;
  const cp = c.codePointAt(0)!;
  const hex = cp.toString(16).toUpperCase();
  if (cp <= 0xff) return `x${hex.padStart(2, '0')}`;
  if (cp <= 0xffff) return `u${hex.padStart(4, '0')}`;
  return `U${hex.padStart(8, '0')}`;
}

/**
 * A number as go-yaml writes what Go's JSON gave it: integers below 1e21
 * as digits, anything else with Go's `strconv.FormatFloat(f, 'g', -1, 64)`:
 * shortest digits, exponent form when the exponent is < -4 or >= 6.
 */
export function goNumber(n: number): string {
  if (Number.isNaN(n)) return '.nan';
  if (n === Number.POSITIVE_INFINITY) return '.inf';
  if (n === Number.NEGATIVE_INFINITY) return '-.inf';
  // Go's JSON writes integral doubles below 1e21 as shortest digits padded with zeros, as JS does.
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n === 0 ? 0 : n);
  const [mant, expPart] = n.toExponential().split('e') as [string, string];
  const exp = Number(expPart);
  const digits = mant.replace('-', '').replace('.', '');
  const sign = n < 0 ? '-' : '';
  if (exp < -4 || exp >= 6) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${Math.abs(exp).toString().padStart(2, '0')}`;
  }
  if (exp >= 0) {
    const frac = digits.slice(exp + 1);
    return `${sign}${digits.slice(0, exp + 1).padEnd(exp + 1, '0')}${frac ? `.${frac}` : ''}`;
  }
  return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
}
