/**
 * The fast path of the Struct decoder (./reader.ts decodeStruct): one pass
 * over a `google.protobuf.Struct`'s bytes building its plain JSON objects
 * directly, with no `Struct`/`Value` message objects and no frame per
 * Value, and with short strings (keys, and values such as `True` or
 * `gpu.nvidia.com`) interned: the same bytes give the same string
 * instance, made once, so an object costs its properties and not a new
 * string per key, and a fleet of similar objects shares its strings.
 *
 * A container's entries are read onto a stack and the container is made
 * when it ends: a list by one slice, an object of a key sequence seen
 * before by an object literal made for those keys (./shapes.ts), so it is
 * allocated once with its properties in place, and every object of one
 * shape shares V8's hidden class, which makes the cores' reads of them
 * faster too.
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
import { Interned } from './intern.js';
import { MAX_JSON_DEPTH } from './reader.js';
import { makeObject, markShapesStale, resetShapesIfNeeded, shapeAfter, shapeKeys } from './shapes.js';

export { shapesInUse } from './shapes.js';

type Json = Record<string, unknown>;

/** Keys and values have a table each, so the values that occur once (names, addresses) do not evict the keys. */
const keys = new Interned(2048, markShapesStale);
const values = new Interned(8192, () => {});

/** Starts the key ids afresh, as when they run out (for tests: it happens after 2^30 distinct keys, intern.ts MAX_ID). */
export function restartKeyIds(): void {
  keys.restartIds();
}

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
function value(buf: Buffer, view: DataView, pos: number, vEnd: number): unknown {
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
    if (t === 26) return values.get(buf, view, p, vEnd);
    content = p;
    return CONTAINER;
  }
  if (t === 17) return pos + 9 === vEnd ? view.getFloat64(pos + 1, true) : GIVE_UP;
  if (pos + 2 !== vEnd || buf[pos + 1]! >= 0x80) return GIVE_UP;
  if (t === 32) return buf[pos + 1] !== 0;
  if (t === 8) return null;
  return GIVE_UP;
}

// The open containers, one per JSON level: where each ends, whether it is a
// list, where its entries start on the stacks below, where it goes in its
// parent's entries, and (an object) the shape of the keys read so far.
const ends = new Int32Array(MAX_JSON_DEPTH + 1);
const lists = new Uint8Array(MAX_JSON_DEPTH + 1);
const bases = new Int32Array(MAX_JSON_DEPTH + 1);
const places = new Int32Array(MAX_JSON_DEPTH + 1);
const shapes = new Int32Array(MAX_JSON_DEPTH + 1);

/**
 * The entries of the open containers, innermost last: a container's
 * entries are kept here until it ends, then it is built in one go (an
 * object by its shape's factory, a list by one slice) and takes its place
 * among its parent's entries. An object's keys are its shape's; they are
 * written to `entryKeys` only for an object that has none (a key too long
 * to intern, the trie full).
 */
const entryValues: unknown[] = [];
const entryKeys: string[] = [];
/** How many entries are open; the most there were (so they can be released). */
let top = 0;
let high = 0;

/** Drops the references into the built tree (so it can be collected once the caller is done). */
function release(): void {
  entryValues.fill(undefined, 0, high);
  entryKeys.fill('', 0, high);
  high = 0;
}

/**
 * The Struct in buf[start, end) as a plain object, or undefined when the
 * object path must decode it (see the module doc). `view` is a DataView of
 * exactly `buf` (the caller's Reader has one). Never throws.
 */
export function buildStruct(buf: Buffer, view: DataView, start: number, end: number): Json | undefined {
  resetShapesIfNeeded();
  let d = 0;
  let pos = start;
  top = 0;
  ends[0] = end;
  lists[0] = 0;
  bases[0] = 0;
  shapes[0] = 0;
  try {
    for (;;) {
      const stop = ends[d]!;
      if (pos >= stop) {
        // the container at depth d ends: build it from its entries
        const base = bases[d]!;
        const c = lists[d] === 1 ? entryValues.slice(base, top) : makeObject(shapes[d]!, entryValues, entryKeys, base, top);
        if (top > high) high = top;
        top = base;
        if (d === 0) return c as Json;
        entryValues[places[d]!] = c;
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
        else v = value(buf, view, pos, mEnd);
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
        key = keys.get(buf, view, pos, keyEnd);
        pos = keyEnd + 2;
        let vlen = buf[keyEnd + 1]!;
        if (vlen >= 0x80) {
          vlen = varint(buf, keyEnd + 1, mEnd);
          pos = next;
          if (pos < 0) return undefined;
        }
        if (pos + vlen !== mEnd) return undefined;
        if (pos === mEnd) continue; // a Value with no kind: undefined, dropped from the object
        v = value(buf, view, pos, mEnd);
      }
      if (v === GIVE_UP) return undefined;
      if (lists[d] === 0) {
        const shape = shapes[d]!;
        const after = shapeAfter(shape, keys.id, key);
        if (after < 0) {
          // from here on the keys are kept with the entries (see entryKeys)
          if (shape >= 0) {
            const known = shapeKeys(shape);
            for (let i = 0; i < known.length; i++) entryKeys[bases[d]! + i] = known[i]!;
          }
          entryKeys[top] = key;
        }
        shapes[d] = after;
      }
      if (v === CONTAINER) {
        if (d + 1 >= MAX_JSON_DEPTH) return undefined;
        entryValues[top] = undefined; // its place, filled when it ends
        places[d + 1] = top++;
        d++;
        ends[d] = mEnd;
        lists[d] = buf[pos] === 50 ? 1 : 0;
        bases[d] = top;
        shapes[d] = 0;
        pos = content;
        continue;
      }
      entryValues[top++] = v;
      pos = mEnd;
    }
  } finally {
    if (top > high) high = top;
    release();
  }
}
