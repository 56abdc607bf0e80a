/**
 * Protobuf wire reader and the one-pass `google.protobuf.Struct` decoder of
 * our RunFunction codec (./codec.ts).
 *
 * {@link Reader} reads the protobuf wire format (protobuf.dev/programming-guides/encoding):
 * varints, fixed64 doubles, length-delimited strings and bytes, and skips
 * unknown fields. It is stricter than the SDK's generated decoder where the
 * input is malformed (as Go's protobuf, Crossplane's side, is): a field that
 * runs past the end of its enclosing message, a zero tag or a stray end-group
 * tag is a {@link WireError}, never a silently shortened message.
 *
 * {@link decodeStruct} turns the bytes of a `Struct` straight into a plain
 * JSON object, with no intermediate `Struct`/`Value` message objects, and
 * with an explicit stack instead of recursion, so depth costs heap, not the JS
 * stack. Nesting beyond {@link MAX_JSON_DEPTH} objects/arrays is a
 * {@link WireDepthError} naming the limit and the path.
 *
 * Semantics follow the SDK's ts-proto code (`Struct.unwrap`/`Value.unwrap`):
 * a `Value` with no kind set is `undefined` (dropped from a Struct, kept as
 * `undefined` in a list); when several kinds are set, string wins over
 * number, bool, struct, list and null, in that order; a repeated key keeps the
 * last value. Every key becomes an own data property, as in an object
 * literal ({@link setKey}): a `__proto__` key too (the SDK would set the
 * object's prototype instead), and `toString` even where Object.prototype is
 * frozen (the SDK's assignment would throw).
 */

/** Nesting limit in JSON objects/arrays: Crossplane's protobuf recursion limit (10,000 messages) is always within it. */
export const MAX_JSON_DEPTH = 10_000;

/** Malformed protobuf input. */
export class WireError extends Error {
  override name = 'WireError';
}

/** A Struct nested deeper than {@link MAX_JSON_DEPTH}; `path` is filled in by the callers from the outside in. */
export class WireDepthError extends WireError {
  override name = 'WireDepthError';
  constructor(public readonly path: string[]) {
    super('');
    // the message is built when read: callers prefix `path` as the error travels out
    Object.defineProperty(this, 'message', { get: () => this.describe(), configurable: true, enumerable: false });
  }
  private describe(): string {
    const shown = this.path.slice(0, 11);
    let at = shown.map((p, i) => (i === 0 || p.startsWith('[') ? p : `.${p}`)).join('');
    if (this.path.length > shown.length) at += `... (${this.path.length - shown.length} more)`;
    return `JSON nested deeper than ${MAX_JSON_DEPTH} levels (the nesting limit)${at ? ` at ${at}` : ''}`;
  }
}

/**
 * Sets `obj[key]` (a plain object) as an own data property, as an object
 * literal defines its keys: a key Object.prototype has (`__proto__`,
 * `toString`, …) is defined, so no setter or read-only property of it (a
 * frozen one, say) is involved; any other is assigned, which makes the same
 * property faster (a key `obj` already has is its own writable data
 * property).
 */
export function setKey(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key in Object.prototype) Object.defineProperty(obj, key, { value, enumerable: true, configurable: true, writable: true });
  else obj[key] = value;
}

/** Node's Buffer has latin1Slice (the fast path of `toString('latin1')`); @types/node does not declare it. */
interface Latin1 {
  latin1Slice(start: number, end: number): string;
}

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** A cursor over one buffer. `pos` is the next byte to read. */
export class Reader {
  pos = 0;
  /** A DataView of {@link buf} (for fixed-width reads, and for ./build.ts). */
  readonly view: DataView;
  constructor(readonly buf: Buffer) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  /** An unsigned 32-bit varint (the low 32 bits of up to 10 bytes). */
  uint32(): number {
    const buf = this.buf;
    let b = buf[this.pos++]!;
    if (b < 0x80) return b;
    let v = b & 0x7f;
    b = buf[this.pos++]!;
    v |= (b & 0x7f) << 7;
    if (b < 0x80) return v;
    b = buf[this.pos++]!;
    v |= (b & 0x7f) << 14;
    if (b < 0x80) return v;
    b = buf[this.pos++]!;
    v |= (b & 0x7f) << 21;
    if (b < 0x80) return v;
    b = buf[this.pos++]!;
    v = (v | ((b & 0x0f) << 28)) >>> 0;
    for (let i = 5; b >= 0x80; i++) {
      if (i === 10) throw new WireError('varint longer than 10 bytes');
      b = buf[this.pos++]!;
    }
    if (this.pos > buf.length) throw new WireError('truncated varint');
    return v;
  }

  /** A signed 32-bit varint (enums, int32). */
  int32(): number {
    return this.uint32() | 0;
  }

  /** A varint as a bool: any bit set is true. */
  bool(): boolean {
    const buf = this.buf;
    let any = 0;
    let b: number;
    let i = 0;
    do {
      if (i++ === 10) throw new WireError('varint longer than 10 bytes');
      b = buf[this.pos++]!;
      any |= b & 0x7f;
    } while (b >= 0x80);
    if (this.pos > buf.length) throw new WireError('truncated varint');
    return any !== 0;
  }

  /** A signed 64-bit varint as a number (exact up to 2^53), as ts-proto's longToNumber. */
  int64(): number {
    const buf = this.buf;
    let lo = 0;
    let hi = 0;
    let shift = 0;
    let b: number;
    let i = 0;
    do {
      if (i === 10) throw new WireError('varint longer than 10 bytes');
      b = buf[this.pos++]!;
      if (i < 4) lo |= (b & 0x7f) << shift;
      else if (i === 4) {
        lo |= (b & 0x0f) << 28;
        hi |= (b & 0x7f) >> 4;
      } else hi |= (b & 0x7f) << (shift - 32);
      shift += 7;
      i++;
    } while (b >= 0x80);
    if (this.pos > buf.length) throw new WireError('truncated varint');
    return (hi | 0) * 4294967296 + (lo >>> 0);
  }

  double(end: number): number {
    if (this.pos + 8 > end) throw new WireError('truncated double');
    const v = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }

  /** The end of a length-delimited field starting here, checked against its container's `end`. */
  delimited(end: number): number {
    const len = this.uint32();
    const stop = this.pos + len;
    if (stop > end) throw new WireError('length-delimited field runs past the end of its message');
    return stop;
  }

  /** A length-delimited UTF-8 string (invalid bytes become U+FFFD; a BOM is kept, as the SDK's reader). */
  string(end: number): string {
    const stop = this.delimited(end);
    const buf = this.buf;
    const start = this.pos;
    this.pos = stop;
    for (let i = start; i < stop; i++) {
      if (buf[i]! >= 0x80) return decoder.decode(buf.subarray(start, stop));
    }
    return (buf as unknown as Latin1).latin1Slice(start, stop);
  }

  /** Length-delimited bytes, copied (as the SDK's `Buffer.from(reader.bytes())`). */
  bytes(end: number): Buffer {
    const stop = this.delimited(end);
    const out = Buffer.from(this.buf.subarray(this.pos, stop));
    this.pos = stop;
    return out;
  }

  /** Reads a tag; a zero field number or a stray end-group is malformed. */
  tag(): number {
    const t = this.uint32();
    if (t >>> 3 === 0 || (t & 7) === 4) throw new WireError(`invalid tag ${t}`);
    return t;
  }

  /** Skips the value of an unknown field with tag `t`. */
  skip(t: number, end: number): void {
    switch (t & 7) {
      case 0:
        this.bool();
        break;
      case 1:
        this.pos += 8;
        break;
      case 2:
        this.pos = this.delimited(end);
        break;
      case 5:
        this.pos += 4;
        break;
      case 3: {
        // a group: skip to its matching end-group, counting nested groups
        let depth = 1;
        while (depth > 0) {
          if (this.pos >= end) throw new WireError('unterminated group');
          const g = this.uint32();
          const wt = g & 7;
          if (wt === 3) depth++;
          else if (wt === 4) depth--;
          else this.skip(g, end);
        }
        break;
      }
      default:
        throw new WireError(`invalid wire type ${t & 7}`);
    }
    if (this.pos > end) throw new WireError('field runs past the end of its message');
  }
}

const STRUCT = 0;
const ENTRY = 1;
const VALUE = 2;
const LIST = 3;

/** One open message on the decode stack; reused across decodes (one per depth). */
class Frame {
  kind = STRUCT;
  end = 0;
  /** The Struct's object or the ListValue's array. */
  obj: Record<string, unknown> | unknown[] = {};
  /** Struct entry: key and value. */
  key = '';
  value: unknown = undefined;
  /** Value: one slot per kind (a Value may, malformed but legal, carry several). */
  str: string | undefined = undefined;
  num: number | undefined = undefined;
  bool: boolean | undefined = undefined;
  struct: Record<string, unknown> | undefined = undefined;
  list: unknown[] | undefined = undefined;
  isNull = false;
}

const pool: Frame[] = [];

function unwrapValue(f: Frame): unknown {
  if (f.str !== undefined) return f.str;
  if (f.num !== undefined) return f.num;
  if (f.bool !== undefined) return f.bool;
  if (f.struct !== undefined) return f.struct;
  if (f.list !== undefined) return f.list;
  if (f.isNull) return null;
  return undefined;
}

function open(depth: number, kind: number, end: number): Frame {
  let f = pool[depth];
  if (!f) {
    f = new Frame();
    pool[depth] = f;
  }
  f.kind = kind;
  f.end = end;
  if (kind === VALUE) {
    f.str = undefined;
    f.num = undefined;
    f.bool = undefined;
    f.struct = undefined;
    f.list = undefined;
    f.isNull = false;
  } else if (kind === ENTRY) {
    f.key = '';
    f.value = undefined;
  } else if (kind === STRUCT) f.obj = {};
  else f.obj = [];
  return f;
}

/** Drops the pooled frames' references into the decoded tree, so it can be collected once the caller is done. */
function release(upTo: number): void {
  for (let i = 0; i < upTo; i++) {
    const f = pool[i]!;
    f.obj = EMPTY;
    f.value = f.struct = f.list = undefined;
  }
}
const EMPTY: Record<string, unknown> = {};

function depthError(depth: number): WireDepthError {
  const path: string[] = [];
  for (let i = 0; i < depth; i++) {
    const f = pool[i]!;
    if (f.kind === ENTRY) path.push(f.key);
    else if (f.kind === LIST) path.push(`[${(f.obj as unknown[]).length}]`);
  }
  return new WireDepthError(path);
}

/**
 * Decodes the `Struct` occupying `r.pos` up to `end` into a plain object.
 * @throws WireError on malformed bytes; WireDepthError beyond {@link MAX_JSON_DEPTH} levels.
 */
export function decodeStruct(r: Reader, end: number): Record<string, unknown> {
  used = 0;
  try {
    return decodeLoop(r, end);
  } finally {
    release(used);
  }
}

/** The deepest pool index touched by the current decode, plus one. */
let used = 0;

function decodeLoop(r: Reader, end: number): Record<string, unknown> {
  let depth = 0;
  let json = 1;
  let f = open(depth++, STRUCT, end);
  for (;;) {
    if (depth > used) used = depth;
    if (r.pos >= f.end) {
      if (r.pos > f.end) throw new WireError('field runs past the end of its message');
      // f is complete: hand its result to its parent
      const done = f;
      depth--;
      if (depth === 0) return done.obj as Record<string, unknown>;
      f = pool[depth - 1]!;
      switch (done.kind) {
        case STRUCT:
          json--;
          f.struct = done.obj as Record<string, unknown>;
          break;
        case LIST:
          json--;
          f.list = done.obj as unknown[];
          break;
        case ENTRY:
          if (done.value !== undefined) setKey(f.obj as Record<string, unknown>, done.key, done.value);
          break;
        default: {
          const v = unwrapValue(done);
          if (f.kind === ENTRY) f.value = v;
          else (f.obj as unknown[]).push(v);
        }
      }
      continue;
    }
    const t = r.tag();
    switch (f.kind) {
      case STRUCT:
        if (t === 10) f = open(depth++, ENTRY, r.delimited(f.end));
        else r.skip(t, f.end);
        break;
      case ENTRY:
        if (t === 10) f.key = r.string(f.end);
        else if (t === 18) f = open(depth++, VALUE, r.delimited(f.end));
        else r.skip(t, f.end);
        break;
      case LIST:
        if (t === 10) f = open(depth++, VALUE, r.delimited(f.end));
        else r.skip(t, f.end);
        break;
      default:
        switch (t) {
          case 8:
            r.int32();
            f.isNull = true;
            break;
          case 17:
            f.num = r.double(f.end);
            break;
          case 26:
            f.str = r.string(f.end);
            break;
          case 32:
            f.bool = r.bool();
            break;
          case 42:
          case 50:
            if (json >= MAX_JSON_DEPTH) throw depthError(depth);
            json++;
            f = open(depth++, t === 42 ? STRUCT : LIST, r.delimited(f.end));
            break;
          default:
            r.skip(t, f.end);
        }
    }
  }
}
