/**
 * The fast path of the Struct decoder (./reader.ts decodeStruct): one pass
 * over a `google.protobuf.Struct`'s bytes writing its JSON text, then
 * `JSON.parse` (V8's native, iterative parser) builds the objects. No JS
 * string is made per key or value, and no `Struct`/`Value` message object at
 * all; this is what makes the codec several times the SDK's speed.
 *
 * The text path gives exactly what the object path (decodeLoop) gives, and
 * it gives up (returns undefined, and the caller decodes the same bytes with
 * the object path) wherever JSON text cannot say it or the bytes are
 * unusual: a number that is NaN or infinite, a Value with no kind in a list
 * or with more than one kind, an entry whose key is missing or not first, or
 * nesting beyond the limit (so the object path names the path). Strings are
 * copied byte for byte with JSON escapes; invalid UTF-8 becomes U+FFFD when
 * the text is read, as the SDK's TextDecoder does.
 */
import { MAX_JSON_DEPTH, type Reader, WireError } from './reader.js';

/** Node's Buffer slicers (the fast paths of toString); @types/node does not declare them. */
interface Slices {
  utf8Slice(start: number, end: number): string;
  latin1Slice(start: number, end: number): string;
}

const STRUCT = 0;
const ENTRY = 1;
const VALUE = 2;
const LIST = 3;

let out = Buffer.allocUnsafe(1 << 20);
let o = 0;
let wide = false;

/**
 * Makes `out` hold the text of `bytes` protobuf bytes, once per Struct, so
 * the writers need no checks: each input byte becomes at most 6 output bytes
 * (a control character's \\u00XX; a double's 9 bytes at most 25 characters,
 * a NullValue's 2 bytes "null", an entry's 4 bytes of framing `,"":`).
 */
function room(bytes: number): void {
  const need = bytes * 6 + 32;
  if (need <= out.length) return;
  let size = out.length * 2;
  while (size < need) size *= 2;
  out = Buffer.allocUnsafe(size);
}

const HEX = '0123456789abcdef';

/** Per input byte: 0 copied as is, 1 copied (not ASCII: the text is UTF-8), 2 escaped with a backslash, 3 a control character (\\u00XX). */
const CLASS = new Uint8Array(256);
for (let b = 0; b < 0x20; b++) CLASS[b] = 3;
CLASS[0x22] = 2;
CLASS[0x5c] = 2;
for (let b = 0x80; b < 0x100; b++) CLASS[b] = 1;

/** Copies the UTF-8 bytes buf[start, stop) as a JSON string (quoted, escaped). */
function putString(buf: Buffer, start: number, stop: number): void {
  const dst = out;
  let p = o;
  dst[p++] = 0x22;
  for (let i = start; i < stop; i++) {
    const b = buf[i]!;
    const c = CLASS[b]!;
    if (c === 0) dst[p++] = b;
    else if (c === 1) {
      wide = true;
      dst[p++] = b;
    } else if (c === 2) {
      dst[p++] = 0x5c;
      dst[p++] = b;
    } else {
      dst[p++] = 0x5c;
      dst[p++] = 0x75; // \u00XX
      dst[p++] = 0x30;
      dst[p++] = 0x30;
      dst[p++] = HEX.charCodeAt(b >> 4);
      dst[p++] = HEX.charCodeAt(b & 15);
    }
  }
  dst[p++] = 0x22;
  o = p;
}

function putAscii(s: string): void {
  for (let i = 0; i < s.length; i++) out[o++] = s.charCodeAt(i);
}

function putByte(b: number): void {
  out[o++] = b;
}

/** A finite double as JSON: integers digit by digit, -0 as "-0" (JSON.parse keeps the sign), others as JS prints them. */
function putNumber(v: number): void {
  if (Number.isInteger(v) && v >= 0 && v < 1e15) {
    if (v === 0) {
      putByte(Object.is(v, -0) ? 0x2d : 0x30);
      if (Object.is(v, -0)) putByte(0x30);
      return;
    }
    let n = v;
    let digits = 0;
    for (let t = n; t >= 1; t = Math.floor(t / 10)) digits++;
    let p = o + digits;
    o = p;
    while (n >= 1) {
      const q = Math.floor(n / 10);
      out[--p] = 0x30 + (n - q * 10);
      n = q;
    }
    return;
  }
  putAscii(String(v));
}

// per-depth frame state, in parallel arrays (no objects per frame); at most 3 frames (entry, value, struct) per JSON level
const FRAMES = 3 * MAX_JSON_DEPTH + 8;
const kind = new Int32Array(FRAMES);
const ends = new Int32Array(FRAMES);
/** Struct/list: no member written yet. Entry: the output position to rewind to if its value is empty. Value: kinds seen. */
const state = new Int32Array(FRAMES);

/** The position after the last {@link varint}. */
let next = 0;

/** A multi-byte varint at `pos` (the first byte is >= 0x80): its low 32 bits; sets {@link next}. */
function varint(buf: Buffer, pos: number): number {
  let v = 0;
  let shift = 0;
  let b: number;
  let i = 0;
  do {
    if (i++ === 10) throw new WireError('varint longer than 10 bytes');
    b = buf[pos++]!;
    if (shift < 32) v |= (b & 0x7f) << shift;
    shift += 7;
  } while (b >= 0x80);
  if (pos > buf.length) throw new WireError('truncated varint');
  next = pos;
  return v >>> 0;
}

/**
 * Writes the Value whose bytes are buf[pos, vEnd) when they are exactly one
 * scalar field (a string, a finite double, or a bool or NullValue of one
 * byte), the common case, and returns true; otherwise writes nothing and
 * returns false, and the caller reads the Value field by field (the general
 * path, which gives the same text and the same errors).
 */
function scalar(buf: Buffer, pos: number, vEnd: number): boolean {
  const t = buf[pos];
  if (t === 26) {
    let p = pos + 2;
    if (p > vEnd) return false;
    let len = buf[pos + 1]!;
    if (len >= 0x80) {
      len = varint(buf, pos + 1);
      p = next;
    }
    if (p + len !== vEnd) return false;
    putString(buf, p, vEnd);
    return true;
  }
  if (t === 17) {
    if (pos + 9 !== vEnd) return false;
    const v = buf.readDoubleLE(pos + 1);
    if (!Number.isFinite(v)) return false;
    putNumber(v);
    return true;
  }
  if ((t === 32 || t === 8) && pos + 2 === vEnd && buf[pos + 1]! < 0x80) {
    putAscii(t === 8 ? 'null' : buf[pos + 1] !== 0 ? 'true' : 'false');
    return true;
  }
  return false;
}

/** The end of the Struct or ListValue (tag 42 or 50) that is exactly the Value buf[pos, vEnd), or -1. */
function container(buf: Buffer, pos: number, vEnd: number): number {
  const t = buf[pos];
  if (t !== 42 && t !== 50) return -1;
  let p = pos + 2;
  if (p > vEnd) return -1;
  let len = buf[pos + 1]!;
  if (len >= 0x80) {
    len = varint(buf, pos + 1);
    p = next;
  }
  return p + len === vEnd ? p : -1;
}

/**
 * The Struct at `r.pos`..`end` as objects via its JSON text, or undefined to
 * fall back to the object path (r.pos is then unspecified; the caller resets it).
 * @throws WireError on malformed bytes.
 */
export function transcodeStruct(r: Reader, end: number): Record<string, unknown> | undefined {
  o = 0;
  wide = false;
  const buf = r.buf;
  let pos = r.pos;
  room(end - pos);
  let d = 0;
  let json = 1;
  kind[0] = STRUCT;
  ends[0] = end;
  state[0] = 1;
  putByte(0x7b);
  for (;;) {
    const k = kind[d]!;
    const stop = ends[d]!;
    if (pos >= stop) {
      if (pos > stop) throw new WireError('field runs past the end of its message');
      // close frame d
      if (k === STRUCT) {
        putByte(0x7d);
        json--;
      } else if (k === LIST) {
        putByte(0x5d);
        json--;
      } else if (k === VALUE) {
        if (state[d] === 0) {
          // a Value with no kind: undefined, dropped from an object; a list cannot say it
          if (kind[d - 1] !== ENTRY) return undefined;
          o = state[d - 1]!;
          state[d - 1] = -1;
        }
      } else if (state[d] !== -1) state[d - 1] = 0; // the entry was written
      if (d === 0) break;
      d--;
      continue;
    }
    let t = buf[pos++]!;
    if (t >= 0x80) {
      t = varint(buf, pos - 1);
      pos = next;
    }
    if (t >>> 3 === 0 || (t & 7) === 4) throw new WireError(`invalid tag ${t}`);
    if (k === VALUE) {
      if (t === 8 || t === 17 || t === 26 || t === 32 || t === 42 || t === 50) {
        if (state[d] !== 0) return undefined;
        state[d] = 1;
      }
      switch (t) {
        case 8:
          r.pos = pos;
          r.int32();
          pos = r.pos;
          putAscii('null');
          break;
        case 17: {
          if (pos + 8 > stop) throw new WireError('truncated double');
          const v = buf.readDoubleLE(pos);
          pos += 8;
          if (!Number.isFinite(v)) return undefined;
          putNumber(v);
          break;
        }
        case 26: {
          let len = buf[pos++]!;
          if (len >= 0x80) {
            len = varint(buf, pos - 1);
            pos = next;
          }
          const sEnd = pos + len;
          if (sEnd > stop) throw new WireError('length-delimited field runs past the end of its message');
          putString(buf, pos, sEnd);
          pos = sEnd;
          break;
        }
        case 32:
          r.pos = pos;
          putAscii(r.bool() ? 'true' : 'false');
          pos = r.pos;
          break;
        case 42:
        case 50: {
          if (json >= MAX_JSON_DEPTH) return undefined;
          json++;
          let len = buf[pos++]!;
          if (len >= 0x80) {
            len = varint(buf, pos - 1);
            pos = next;
          }
          const cEnd = pos + len;
          if (cEnd > stop) throw new WireError('length-delimited field runs past the end of its message');
          putByte(t === 42 ? 0x7b : 0x5b);
          d++;
          kind[d] = t === 42 ? STRUCT : LIST;
          ends[d] = cEnd;
          state[d] = 1;
          break;
        }
        default:
          r.pos = pos;
          r.skip(t, stop);
          pos = r.pos;
      }
      continue;
    }
    if (k === ENTRY || t !== 10) {
      // ENTRY: more fields after the value (a repeated key or value, or unknown): the object path decides
      if (k === ENTRY) return undefined;
      r.pos = pos;
      r.skip(t, stop);
      pos = r.pos;
      continue;
    }
    let len = buf[pos++]!;
    if (len >= 0x80) {
      len = varint(buf, pos - 1);
      pos = next;
    }
    const mEnd = pos + len;
    if (mEnd > stop) throw new WireError('length-delimited field runs past the end of its message');
    if (k === LIST) {
      if (pos === mEnd) return undefined; // a Value with no kind: a list cannot say it
      if (state[d] === 0) putByte(0x2c);
      state[d] = 0;
      if (scalar(buf, pos, mEnd)) {
        pos = mEnd;
        continue;
      }
      const inner = container(buf, pos, mEnd);
      if (inner >= 0) {
        if (json >= MAX_JSON_DEPTH) return undefined;
        json++;
        const list = buf[pos] === 50;
        putByte(list ? 0x5b : 0x7b);
        pos = inner;
        d++;
        kind[d] = list ? LIST : STRUCT;
        ends[d] = mEnd;
        state[d] = 1;
        continue;
      }
      d++;
      kind[d] = VALUE;
      ends[d] = mEnd;
      state[d] = 0;
      continue;
    }
    // STRUCT entry: the key must come first, then the value, once
    if (pos >= mEnd || buf[pos] !== 10) return undefined;
    pos++;
    let klen = buf[pos++]!;
    if (klen >= 0x80) {
      klen = varint(buf, pos - 1);
      pos = next;
    }
    const keyEnd = pos + klen;
    if (keyEnd > mEnd) throw new WireError('length-delimited field runs past the end of its message');
    const rewind = o;
    if (state[d] === 0) putByte(0x2c);
    putString(buf, pos, keyEnd);
    putByte(0x3a);
    pos = keyEnd;
    if (pos >= mEnd || buf[pos] !== 18) return undefined;
    pos++;
    let vlen = buf[pos++]!;
    if (vlen >= 0x80) {
      vlen = varint(buf, pos - 1);
      pos = next;
    }
    if (pos + vlen !== mEnd) return undefined;
    if (pos === mEnd) {
      o = rewind; // a Value with no kind: undefined, dropped from the object
      continue;
    }
    if (scalar(buf, pos, mEnd)) {
      state[d] = 0;
      pos = mEnd;
      continue;
    }
    const inner = container(buf, pos, mEnd);
    if (inner >= 0) {
      if (json >= MAX_JSON_DEPTH) return undefined;
      json++;
      const list = buf[pos] === 50;
      putByte(list ? 0x5b : 0x7b);
      pos = inner;
      d++;
      kind[d] = ENTRY;
      ends[d] = mEnd;
      state[d] = rewind;
      d++;
      kind[d] = list ? LIST : STRUCT;
      ends[d] = mEnd;
      state[d] = 1;
      continue;
    }
    d++;
    kind[d] = ENTRY;
    ends[d] = mEnd;
    state[d] = rewind;
    d++;
    kind[d] = VALUE;
    ends[d] = mEnd;
    state[d] = 0;
  }
  r.pos = pos;
  const slices = out as unknown as Slices;
  const text = wide ? slices.utf8Slice(0, o) : slices.latin1Slice(0, o);
  if (out.length > 1 << 24) out = Buffer.allocUnsafe(1 << 20); // do not keep a huge buffer
  return JSON.parse(text) as Record<string, unknown>;
}
