/**
 * Protobuf wire writer and the one-pass `google.protobuf.Struct` encoder of
 * our RunFunction codec (./codec.ts).
 *
 * {@link Writer} writes back to front: a message's fields are written last
 * field first, and a length-delimited field's length is known the moment its
 * content is written, so it is prefixed without a sizing pass or a copy. The
 * bytes are exactly the SDK's (ts-proto + @bufbuild/protobuf BinaryWriter):
 * same field order, same map order (`Object.keys`), same defaults omitted.
 *
 * {@link writeStruct} encodes a plain JSON object as a `Struct` with an
 * explicit stack (no recursion), with the SDK's `Value.wrap` rules: `null` is
 * NULL_VALUE, numbers are doubles, arrays are ListValues, other objects are
 * Structs (by `Object.keys`), `undefined` is dropped from an object and an
 * empty Value in a list; a function, symbol or bigint is an error, as is
 * nesting beyond {@link MAX_JSON_DEPTH} (which also stops a cyclic object).
 */
import { MAX_JSON_DEPTH, WireDepthError, WireError } from './reader.js';

interface Utf8Write {
  utf8Write(s: string, offset: number, length: number): number;
}

/** A back-to-front buffer: the bytes written so far are `buf[pos..]`. */
export class Writer {
  buf: Buffer;
  pos: number;
  constructor(size = 8 * 1024) {
    this.buf = Buffer.allocUnsafe(size);
    this.pos = size;
  }

  /** The bytes written (a view of the writer's buffer). */
  finish(): Buffer {
    return this.buf.subarray(this.pos);
  }

  /** Makes room for `n` more bytes in front. */
  room(n: number): void {
    if (this.pos >= n) return;
    const used = this.buf.length - this.pos;
    let size = this.buf.length * 2;
    while (size - used < n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, size - used, this.pos);
    this.buf = next;
    this.pos = size - used;
  }

  /** An unsigned 32-bit varint. */
  uint32(v: number): void {
    if (v < 0x80) {
      if (this.pos < 1) this.room(1);
      this.buf[--this.pos] = v;
      return;
    }
    const n = v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;
    this.room(n);
    this.pos -= n;
    let p = this.pos;
    const buf = this.buf;
    while (v >= 0x80) {
      buf[p++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    buf[p] = v;
  }

  /** A signed 32-bit varint: negatives take 10 bytes (sign-extended to 64 bits), as protobuf requires. */
  int32(v: number): void {
    if (v >= 0) this.uint32(v);
    else this.int64(v);
  }

  /** A signed 64-bit varint of an integer number (exact within ±2^53). */
  int64(v: number): void {
    let lo: number;
    let hi: number;
    if (v >= 0) {
      lo = v >>> 0;
      hi = Math.floor(v / 4294967296) >>> 0;
    } else {
      const a = -v;
      lo = a >>> 0;
      hi = Math.floor(a / 4294967296) >>> 0;
      // two's complement of (hi, lo)
      hi = ~hi >>> 0;
      lo = ~lo >>> 0;
      lo = (lo + 1) >>> 0;
      if (lo === 0) hi = (hi + 1) >>> 0;
    }
    const bytes: number[] = [];
    while (hi !== 0 || lo >= 0x80) {
      bytes.push((lo & 0x7f) | 0x80);
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi >>>= 7;
    }
    bytes.push(lo);
    this.room(bytes.length);
    this.pos -= bytes.length;
    for (let i = 0; i < bytes.length; i++) this.buf[this.pos + i] = bytes[i]!;
  }

  double(v: number): void {
    this.room(8);
    this.pos -= 8;
    this.buf.writeDoubleLE(v, this.pos);
  }

  byte(v: number): void {
    if (this.pos < 1) this.room(1);
    this.buf[--this.pos] = v;
  }

  /** A string's UTF-8 bytes, prefixed by their length (lone surrogates become U+FFFD, as TextEncoder). */
  string(s: string): void {
    const n = s.length;
    if (n < 256) {
      this.room(n);
      const buf = this.buf;
      const start = this.pos - n;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buf[start + i] = c;
      }
      if (i === n) {
        this.pos = start;
        this.uint32(n);
        return;
      }
    }
    const len = Buffer.byteLength(s, 'utf8');
    this.room(len);
    this.pos -= len;
    (this.buf as unknown as Utf8Write).utf8Write(s, this.pos, len);
    this.uint32(len);
  }

  bytes(b: Uint8Array): void {
    this.room(b.length);
    this.pos -= b.length;
    this.buf.set(b, this.pos);
    this.uint32(b.length);
  }

  /** Prefixes the content written since `mark` ({@link Writer.mark}) with its length and a one-byte `tag`. */
  close(mark: number, tag: number): void {
    this.uint32(this.buf.length - this.pos - mark);
    this.byteTag(tag);
  }

  /** The distance of the write position from the end: a mark that survives reallocation. */
  mark(): number {
    return this.buf.length - this.pos;
  }

  /** A one-byte tag (field numbers 1..15). */
  byteTag(tag: number): void {
    if (this.pos < 1) this.room(1);
    this.buf[--this.pos] = tag;
  }
}

const OBJECT = 0;
const ARRAY = 1;

/** One container on the encode stack; reused (one per depth). */
class Frame {
  kind = OBJECT;
  obj: Record<string, unknown> | unknown[] = [];
  keys: string[] = [];
  /** The next index to write (counting down). */
  i = 0;
  /** Marks ({@link Writer.mark}) of the end of the entry and the Value in progress. */
  entryEnd = 0;
  valueEnd = 0;
}

const pool: Frame[] = [];

function frame(depth: number, obj: Record<string, unknown> | unknown[], isArray: boolean): Frame {
  if (depth >= MAX_JSON_DEPTH) throw new WireDepthError([]);
  let f = pool[depth];
  if (!f) {
    f = new Frame();
    pool[depth] = f;
  }
  f.kind = isArray ? ARRAY : OBJECT;
  f.obj = obj;
  if (isArray) f.i = (obj as unknown[]).length - 1;
  else {
    f.keys = Object.keys(obj);
    f.i = f.keys.length - 1;
  }
  return f;
}

/**
 * Writes `obj` as the content of a `Struct` (its entries; the caller adds
 * the length and tag with {@link Writer.close}).
 * @throws WireError for a value protobuf cannot carry; WireDepthError beyond {@link MAX_JSON_DEPTH}.
 */
export function writeStruct(w: Writer, obj: Record<string, unknown>): void {
  let depth = 0;
  let used = 1;
  let f = frame(depth++, obj, false);
  try {
    for (;;) {
      if (depth > used) used = depth;
      if (f.i < 0) {
        // f's content is complete: close it inside its parent's entry/value
        depth--;
        if (depth === 0) return;
        const kind = f.kind;
        f = pool[depth - 1]!;
        w.close(f.valueEnd, kind === ARRAY ? 50 : 42);
        finishValue(w, f);
        continue;
      }
      const i = f.i--;
      let v: unknown;
      if (f.kind === OBJECT) {
        const key = f.keys[i]!;
        v = (f.obj as Record<string, unknown>)[key];
        if (v === undefined) continue;
        f.entryEnd = w.mark();
      } else v = (f.obj as unknown[])[i];
      f.valueEnd = w.mark();
      switch (typeof v) {
        case 'string':
          w.string(v);
          w.byteTag(26);
          break;
        case 'number':
          w.double(v);
          w.byteTag(17);
          break;
        case 'boolean':
          w.byte(v ? 1 : 0);
          w.byteTag(32);
          break;
        case 'undefined':
          break;
        case 'object':
          if (v === null) {
            w.byte(0);
            w.byteTag(8);
            break;
          }
          f = frame(depth++, v as Record<string, unknown>, Array.isArray(v));
          continue;
        default:
          throw new WireError(`Unsupported any value type: ${typeof v}`);
      }
      finishValue(w, f);
    }
  } finally {
    for (let i = 0; i < used; i++) pool[i]!.obj = pool[i]!.keys = [];
  }
}

/** Closes the Value in progress in `f` (and, in an object, its key and entry). */
function finishValue(w: Writer, f: Frame): void {
  if (f.kind === OBJECT) {
    w.close(f.valueEnd, 18);
    const key = f.keys[f.i + 1]!;
    if (key !== '') {
      w.string(key);
      w.byteTag(10);
    }
    w.close(f.entryEnd, 10);
  } else {
    w.close(f.valueEnd, 10);
  }
}
