/**
 * The fast path of the Struct decoder (./reader.ts decodeStruct): one pass
 * over a `google.protobuf.Struct`'s bytes building its plain JSON objects
 * directly, with no `Struct`/`Value` message objects and no frame per
 * Value, and with short strings (keys, and values such as `True` or
 * `gpu.nvidia.com`) interned: the same bytes give the same string
 * instance, made once, so an object costs its properties and not a new
 * string per key, and a fleet of similar objects shares its strings.
 *
 * It handles the layout every protobuf encoder writes (Go's, the SDK's):
 * an entry is its key then its Value, a Value is exactly one field, and it
 * gives exactly what the object path (decodeLoop) gives. Anywhere else it
 * gives up (returns undefined; the caller decodes the same bytes with the
 * object path, which also reports malformed bytes and nesting beyond the
 * limit): an unknown field, a Value with several fields or a field after
 * the Value, a varint or length that is malformed or runs past its
 * message, nesting beyond {@link MAX_JSON_DEPTH}. Non-ASCII strings are
 * decoded as the object path does (TextDecoder: invalid bytes become
 * U+FFFD, a BOM is kept).
 */
import { MAX_JSON_DEPTH, setKey } from './reader.js';

type Json = Record<string, unknown>;

/** Node's Buffer slicer (the fast path of toString('latin1')); @types/node does not declare it. */
interface Latin1 {
  latin1Slice(start: number, end: number): string;
}

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** buf[s, e) as a string: ASCII by latin1Slice, else the object path's TextDecoder. */
function slice(buf: Buffer, s: number, e: number): string {
  for (let i = s; i < e; i++) {
    if (buf[i]! >= 0x80) return decoder.decode(buf.subarray(s, e));
  }
  return (buf as unknown as Latin1).latin1Slice(s, e);
}

/** The longest string interned, in bytes. */
const SLOT = 32;

/**
 * An intern table: direct-mapped by a hash of the bytes, each slot the bytes
 * (up to {@link SLOT}) and their string. Keys and values have one each, so
 * the values that occur once (names, addresses) do not evict the keys.
 */
class Interned {
  private readonly bytes: Uint8Array;
  private readonly lengths: Int32Array;
  private readonly strings: string[];
  constructor(private readonly slots: number) {
    this.bytes = new Uint8Array(slots * SLOT);
    this.lengths = new Int32Array(slots).fill(-1);
    this.strings = new Array<string>(slots).fill('');
  }

  /** The UTF-8 bytes buf[s, e) as a string, interned when at most {@link SLOT} bytes long. */
  get(buf: Buffer, s: number, e: number): string {
    const n = e - s;
    if (n > SLOT) return slice(buf, s, e);
    let h = 0x811c9dc5 ^ n;
    for (let i = s; i < e; i++) h = Math.imul(h ^ buf[i]!, 0x01000193);
    const slot = (h ^ (h >>> 15)) & (this.slots - 1);
    const at = slot * SLOT;
    const bytes = this.bytes;
    if (this.lengths[slot] === n) {
      let i = 0;
      while (i < n && bytes[at + i] === buf[s + i]) i++;
      if (i === n) return this.strings[slot]!;
    }
    const v = slice(buf, s, e);
    for (let i = 0; i < n; i++) bytes[at + i] = buf[s + i]!;
    this.lengths[slot] = n;
    this.strings[slot] = v;
    return v;
  }
}

const keys = new Interned(2048);
const values = new Interned(8192);

/** The position after the last {@link varint}, or -1 when it was malformed. */
let next = 0;

/** The varint at `pos` (first byte >= 0x80) below `stop`: its low 32 bits, unsigned; sets {@link next} (-1: give up). */
function varint(buf: Buffer, pos: number, stop: number): number {
  let v = 0;
  let shift = 0;
  let b: number;
  let i = 0;
  do {
    if (i++ === 10 || pos >= stop) {
      next = -1;
      return 0;
    }
    b = buf[pos++]!;
    if (shift < 32) v |= (b & 0x7f) << shift;
    shift += 7;
  } while (b >= 0x80);
  next = pos;
  return v >>> 0;
}

/** A scalar Value, or one of these: */
const GIVE_UP = Symbol('give up');
const CONTAINER = Symbol('container');
/** Set by {@link value} when it returns {@link CONTAINER}: where the Struct/ListValue's content starts. */
let content = 0;

/**
 * The Value that is exactly buf[pos, vEnd) (not empty): a string, number,
 * bool or null; CONTAINER for a Struct or ListValue (its content at
 * {@link content}, ending at vEnd); GIVE_UP for anything else.
 */
function value(buf: Buffer, pos: number, vEnd: number): unknown {
  const t = buf[pos];
  if (t === 26 || t === 42 || t === 50) {
    let p = pos + 2;
    if (p > vEnd) return GIVE_UP;
    let len = buf[pos + 1]!;
    if (len >= 0x80) {
      len = varint(buf, pos + 1, vEnd);
      p = next;
      if (p < 0) return GIVE_UP;
    }
    if (p + len !== vEnd) return GIVE_UP;
    if (t === 26) return values.get(buf, p, vEnd);
    content = p;
    return CONTAINER;
  }
  if (t === 17) return pos + 9 === vEnd ? buf.readDoubleLE(pos + 1) : GIVE_UP;
  if (pos + 2 !== vEnd || buf[pos + 1]! >= 0x80) return GIVE_UP;
  if (t === 32) return buf[pos + 1] !== 0;
  if (t === 8) return null;
  return GIVE_UP;
}

// the open containers, one per JSON level
const open: (Json | unknown[])[] = [];
const ends = new Int32Array(MAX_JSON_DEPTH + 1);
const lists = new Uint8Array(MAX_JSON_DEPTH + 1);

/** Drops the references into the built tree (so it can be collected once the caller is done). */
function release(depth: number): void {
  for (let i = 0; i <= depth; i++) open[i] = EMPTY;
}
const EMPTY: Json = {};

/**
 * The Struct in buf[start, end) as a plain object, or undefined when the
 * object path must decode it (see the module doc). Never throws.
 */
export function buildStruct(buf: Buffer, start: number, end: number): Json | undefined {
  let d = 0;
  let deepest = 0;
  let pos = start;
  const root: Json = {};
  open[0] = root;
  ends[0] = end;
  lists[0] = 0;
  try {
    for (;;) {
      const stop = ends[d]!;
      if (pos >= stop) {
        if (d === 0) return root;
        d--;
        continue;
      }
      // a Struct entry or a list item: field 1, length-delimited
      if (buf[pos] !== 10 || pos + 2 > stop) return undefined;
      let len = buf[pos + 1]!;
      pos += 2;
      if (len >= 0x80) {
        len = varint(buf, pos - 1, stop);
        pos = next;
        if (pos < 0) return undefined;
      }
      const mEnd = pos + len;
      if (mEnd > stop) return undefined;
      let v: unknown;
      let key = '';
      if (lists[d] === 1) {
        if (pos === mEnd) v = undefined; // a Value with no kind: undefined in a list
        else v = value(buf, pos, mEnd);
      } else {
        // the key first, then the Value, ending the entry
        if (pos + 2 > mEnd || buf[pos] !== 10) return undefined;
        let klen = buf[pos + 1]!;
        pos += 2;
        if (klen >= 0x80) {
          klen = varint(buf, pos - 1, mEnd);
          pos = next;
          if (pos < 0) return undefined;
        }
        const keyEnd = pos + klen;
        if (keyEnd + 2 > mEnd || buf[keyEnd] !== 18) return undefined;
        key = keys.get(buf, pos, keyEnd);
        pos = keyEnd + 2;
        let vlen = buf[keyEnd + 1]!;
        if (vlen >= 0x80) {
          vlen = varint(buf, keyEnd + 1, mEnd);
          pos = next;
          if (pos < 0) return undefined;
        }
        if (pos + vlen !== mEnd) return undefined;
        if (pos === mEnd) continue; // a Value with no kind: undefined, dropped from the object
        v = value(buf, pos, mEnd);
      }
      if (v === GIVE_UP) return undefined;
      if (v === CONTAINER) {
        if (d + 1 >= MAX_JSON_DEPTH) return undefined;
        const list = buf[pos] === 50;
        const c: Json | unknown[] = list ? [] : {};
        pos = content;
        put(d, key, c);
        d++;
        if (d > deepest) deepest = d;
        open[d] = c;
        ends[d] = mEnd;
        lists[d] = list ? 1 : 0;
        continue;
      }
      put(d, key, v);
      pos = mEnd;
    }
  } finally {
    release(deepest);
  }
}

/** Adds `v` to the open container at depth `d`: pushed to a list, set as `key` of an object. */
function put(d: number, key: string, v: unknown): void {
  const c = open[d]!;
  if (lists[d] === 1) (c as unknown[]).push(v);
  else if (key === '__proto__') setKey(c as Json, key, v);
  else (c as Json)[key] = v;
}
