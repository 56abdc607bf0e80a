/**
 * The CEL lexer (cel-go `parser/gen/CEL.g4` lexer rules): operators,
 * identifiers, keywords, int/uint/double literals, all string and bytes forms
 * (quoted, triple-quoted, raw) with escapes decoded as cel-go's
 * `parser/unescape.go` does, `//` comments and whitespace.
 */
import { CelUint } from './values.js';

/** A lexical token; `start`/`end` are offsets into the source. */
export interface Token {
  readonly kind: 'op' | 'ident' | 'int' | 'uint' | 'double' | 'string' | 'bytes' | 'eof';
  readonly text: string;
  readonly start: number;
  readonly end: number;
  /** Decoded literal value (string, Uint8Array); numbers are decoded by the parser. */
  readonly value?: string | Uint8Array;
}

/** A lexical or syntax error at an offset. */
export class CelSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

const OPERATORS_2 = new Set(['==', '!=', '<=', '>=', '&&', '||']);
const OPERATORS_1 = new Set(['<', '>', '[', ']', '{', '}', '(', ')', '.', ',', '-', '!', '?', ':', '+', '*', '/', '%']);

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const isHex = (c: string | undefined): boolean => c !== undefined && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'));
const isIdentStart = (c: string | undefined): boolean => c !== undefined && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_');
const isIdentPart = (c: string | undefined): boolean => isIdentStart(c) || isDigit(c);
const STRING_STARTS = new Set(['"', "'", 'b', 'B', 'r', 'R']);

/** Splits an expression into tokens; throws {@link CelSyntaxError}. */
export function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n' || c === '\f') {
      i++;
      continue;
    }
    if (c === '/' && src[i + 1] === '/') {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    const start = i;
    // Strings and bytes, with optional r/R and b/B prefixes in either order.
    const prefix = STRING_STARTS.has(c) ? /^[bB]?[rR]?(?="|')/.exec(src.slice(i, i + 3)) : null;
    if (prefix && (prefix[0].length > 0 || c === '"' || c === "'")) {
      const p = prefix[0].toLowerCase();
      i += p.length;
      const raw = p.includes('r');
      const bytes = p.includes('b');
      const [body, next] = readQuoted(src, i, raw);
      i = next;
      const text = src.slice(start, i);
      const value = bytes ? decodeBytes(body, raw, start) : decodeString(body, raw, start);
      out.push({ kind: bytes ? 'bytes' : 'string', text, start, end: i, value });
      continue;
    }
    if (isDigit(c) || (c === '.' && isDigit(src[i + 1]))) {
      const tok = readNumber(src, i);
      out.push(tok);
      i = tok.end;
      continue;
    }
    if (isIdentStart(c)) {
      while (isIdentPart(src[i])) i++;
      out.push({ kind: 'ident', text: src.slice(start, i), start, end: i });
      continue;
    }
    if (c === '`') {
      let j = i + 1;
      while (j < src.length && /^[A-Za-z0-9_.\-/ ]$/.test(src[j]!)) j++;
      if (src[j] !== '`' || j === i + 1) throw new CelSyntaxError(`Syntax error: token recognition error at: '${src.slice(i, j + 1)}'`, i);
      out.push({ kind: 'ident', text: src.slice(i, j + 1), start, end: j + 1, value: src.slice(i + 1, j) });
      i = j + 1;
      continue;
    }
    const two = src.slice(i, i + 2);
    const op = OPERATORS_2.has(two) ? two : OPERATORS_1.has(c) ? c : undefined;
    if (op) {
      out.push({ kind: 'op', text: op, start, end: i + op.length });
      i += op.length;
      continue;
    }
    throw new CelSyntaxError(`Syntax error: token recognition error at: '${c}'`, i);
  }
  out.push({ kind: 'eof', text: '<EOF>', start: src.length, end: src.length });
  return out;
}

function readNumber(src: string, start: number): Token {
  let i = start;
  if (src[i] === '0' && src[i + 1] === 'x' && isHex(src[i + 2])) {
    i += 2;
    while (isHex(src[i])) i++;
    if (src[i] === 'u' || src[i] === 'U') return { kind: 'uint', text: src.slice(start, i + 1), start, end: i + 1 };
    return { kind: 'int', text: src.slice(start, i), start, end: i };
  }
  while (isDigit(src[i])) i++;
  let isFloat = false;
  if (src[i] === '.' && isDigit(src[i + 1])) {
    isFloat = true;
    i++;
    while (isDigit(src[i])) i++;
  }
  if ((src[i] === 'e' || src[i] === 'E') && (isDigit(src[i + 1]) || ((src[i + 1] === '+' || src[i + 1] === '-') && isDigit(src[i + 2])))) {
    isFloat = true;
    i += 2;
    while (isDigit(src[i])) i++;
  }
  if (isFloat) return { kind: 'double', text: src.slice(start, i), start, end: i };
  if (src[i] === 'u' || src[i] === 'U') return { kind: 'uint', text: src.slice(start, i + 1), start, end: i + 1 };
  return { kind: 'int', text: src.slice(start, i), start, end: i };
}

/** Reads a quoted body starting at the opening quote; returns [body, index after the closing quote]. */
function readQuoted(src: string, i: number, raw: boolean): [string, number] {
  const q = src[i]!;
  const triple = src.startsWith(q.repeat(3), i);
  const open = triple ? 3 : 1;
  let j = i + open;
  while (j < src.length) {
    if (triple ? src.startsWith(q.repeat(3), j) : src[j] === q) return [src.slice(i + open, j), j + open];
    if (!triple && (src[j] === '\n' || src[j] === '\r')) break;
    if (src[j] === '\\' && !raw) j++;
    j++;
  }
  throw new CelSyntaxError(`Syntax error: token recognition error at: '${src.slice(i, Math.min(j + 1, src.length))}'`, i);
}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '`': '`',
  '?': '?',
};

/** Decodes escapes into code points (strings) or bytes; returns code points as numbers, bytes flagged. */
function unescapeBody(body: string, isBytes: boolean, offset: number): { cps: number[]; byteFlags: boolean[] } {
  const cps: number[] = [];
  const byteFlags: boolean[] = [];
  for (let i = 0; i < body.length; ) {
    const c = body.codePointAt(i)!;
    if (c !== 0x5c) {
      cps.push(c);
      byteFlags.push(false);
      i += c > 0xffff ? 2 : 1;
      continue;
    }
    const e = body[i + 1];
    if (e === undefined) throw new CelSyntaxError('Syntax error: found \\ at end of input', offset);
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) {
      cps.push(simple.charCodeAt(0));
      byteFlags.push(false);
      i += 2;
      continue;
    }
    if (e === 'x' || e === 'X' || e === 'u' || e === 'U') {
      const n = e === 'x' || e === 'X' ? 2 : e === 'u' ? 4 : 8;
      const hex = body.slice(i + 2, i + 2 + n);
      if (hex.length !== n || !/^[0-9a-fA-F]+$/.test(hex)) throw new CelSyntaxError('Syntax error: invalid escape sequence', offset);
      const v = Number.parseInt(hex, 16);
      if (n > 2) {
        if (isBytes) throw new CelSyntaxError('Syntax error: unicode escape in bytes literal', offset);
        if ((v >= 0xd800 && v < 0xe000) || v > 0x10ffff) throw new CelSyntaxError('Syntax error: invalid unicode code point', offset);
      }
      cps.push(v);
      byteFlags.push(n === 2);
      i += 2 + n;
      continue;
    }
    if (e >= '0' && e <= '3') {
      const oct = body.slice(i + 1, i + 4);
      if (!/^[0-3][0-7][0-7]$/.test(oct)) throw new CelSyntaxError('Syntax error: invalid octal escape', offset);
      cps.push(Number.parseInt(oct, 8));
      byteFlags.push(true);
      i += 4;
      continue;
    }
    throw new CelSyntaxError(`Syntax error: invalid escape sequence '\\${e}'`, offset);
  }
  return { cps, byteFlags };
}

function decodeString(body: string, raw: boolean, offset: number): string {
  if (raw) return body;
  const { cps } = unescapeBody(body, false, offset);
  return String.fromCodePoint(...cps);
}

function decodeBytes(body: string, raw: boolean, offset: number): Uint8Array {
  const enc = new TextEncoder();
  if (raw) return enc.encode(body);
  const { cps, byteFlags } = unescapeBody(body, true, offset);
  const out: number[] = [];
  cps.forEach((cp, k) => {
    if (byteFlags[k]) out.push(cp & 0xff);
    else out.push(...enc.encode(String.fromCodePoint(cp)));
  });
  return Uint8Array.from(out);
}

/** strconv.ParseUint for a uint literal token (`12u`, `0x1fu`); undefined when out of range. */
export function parseUintLiteral(text: string): CelUint | undefined {
  const body = text.slice(0, -1);
  const v = BigInt(body);
  return v <= (1n << 64n) - 1n ? new CelUint(v) : undefined;
}
