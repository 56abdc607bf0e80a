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
 * before by an object literal made for those keys (see "Object shapes"
 * below), so it is allocated once with its properties in place, and every
 * object of one shape shares V8's hidden class, which makes the cores'
 * reads of them faster too.
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

/** The largest key id before {@link Interned} starts its ids afresh. */
const MAX_ID = 0x3fffffff;

/**
 * An intern table: direct-mapped by a hash of the bytes, each slot the bytes
 * (up to {@link SLOT}) and their string. Keys and values have one each, so
 * the values that occur once (names, addresses) do not evict the keys.
 *
 * Each string a slot takes gets a new id ({@link Interned.id}): an id names
 * one string for as long as the ids last, so the object shapes below can
 * key their edges by it. When the ids run out (after {@link MAX_ID} strings)
 * every slot is emptied and `onIdsReset` is called.
 */
class Interned {
  private readonly bytes: Uint8Array;
  private readonly view: DataView;
  private readonly lengths: Int32Array;
  private readonly strings: string[];
  private readonly ids: Int32Array;
  private lastId = 0;
  /** The id of the string {@link get} returned last; -1 when it was too long to intern. */
  id = -1;
  constructor(
    private readonly slots: number,
    private readonly onIdsReset: () => void,
  ) {
    this.bytes = new Uint8Array(slots * SLOT);
    this.view = new DataView(this.bytes.buffer);
    this.lengths = new Int32Array(slots).fill(-1);
    this.strings = new Array<string>(slots).fill('');
    this.ids = new Int32Array(slots);
  }

  /**
   * The UTF-8 bytes buf[s, e) as a string (`view` is a DataView of `buf`),
   * interned when at most {@link SLOT} bytes long. Hashes and compares four
   * bytes at a time (FNV-1a over 4-byte words, then the tail bytes).
   */
  get(buf: Buffer, view: DataView, s: number, e: number): string {
    const n = e - s;
    if (n > SLOT) {
      this.id = -1;
      return slice(buf, s, e);
    }
    let h = 0x811c9dc5 ^ n;
    let i = s;
    for (; i + 4 <= e; i += 4) h = Math.imul(h ^ view.getInt32(i, true), 0x01000193);
    for (; i < e; i++) h = Math.imul(h ^ buf[i]!, 0x01000193);
    const slot = (h ^ (h >>> 15)) & (this.slots - 1);
    const at = slot * SLOT;
    if (this.lengths[slot] === n && this.holds(at, buf, view, s, n)) {
      this.id = this.ids[slot]!;
      return this.strings[slot]!;
    }
    const v = slice(buf, s, e);
    if (this.lastId === MAX_ID) this.restartIds();
    this.bytes.set(buf.subarray(s, e), at);
    this.lengths[slot] = n;
    this.strings[slot] = v;
    this.lastId++;
    this.ids[slot] = this.lastId;
    this.id = this.lastId;
    return v;
  }

  /** Empties every slot and starts the ids afresh (when they run out). */
  restartIds(): void {
    this.lastId = 0;
    this.lengths.fill(-1);
    this.onIdsReset();
  }

  /** Whether the slot at byte `at` holds the `n` bytes at buf[s]. */
  private holds(at: number, buf: Buffer, view: DataView, s: number, n: number): boolean {
    if (n < 4) {
      const bytes = this.bytes;
      for (let j = 0; j < n; j++) if (bytes[at + j] !== buf[s + j]) return false;
      return true;
    }
    // 4-byte words; the last one overlaps the one before when n is not a multiple of 4
    const table = this.view;
    const last = n - 4;
    if (table.getInt32(at + last, true) !== view.getInt32(s + last, true)) return false;
    for (let j = 0; j < last; j += 4) if (table.getInt32(at + j, true) !== view.getInt32(s + j, true)) return false;
    return true;
  }
}

const keys = new Interned(2048, () => {
  shapesStale = true;
});
const values = new Interned(8192, () => {});

/** How many shapes the trie holds now (for tests). */
export function shapesInUse(): number {
  return shapeLastKeys.length;
}

/** Starts the key ids afresh, as when they run out (for tests: it happens after {@link MAX_ID} distinct keys). */
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
 * Object shapes: a trie of key sequences (node 0 is the empty object), its
 * edges keyed by (node, key id) in a direct-mapped table. A shape seen
 * {@link HOT} times gets a factory, an object literal with its keys, so
 * the object is allocated once with every property in place instead of
 * growing key by key through a megamorphic store (about three times
 * faster). A key id names one interned string for good (Interned.get), so
 * an edge never leads to the wrong keys; when the trie is full it starts
 * afresh before the next Struct.
 */
type Factory = (values: unknown[], base: number) => Json;
const MAX_SHAPES = 4096;
const EDGES = 4096;
const HOT = 3;
/** Keys of more entries than this are built key by key. */
const MAX_FACTORY_KEYS = 64;
/** Edge h is (from, key id, to) at edges[3h..3h+2], side by side in memory. */
const edges = new Int32Array(3 * EDGES).fill(-1);
/** Each node's last edge followed, (key id, to) at [2n, 2n+1]: most shapes have one next key, so the table is rarely needed. */
const lastEdge = new Int32Array(2 * MAX_SHAPES).fill(-1);
/** Each node's parent and last key (node 0: none), its number of keys, and how often an object of it was made. */
const shapeParents = new Int32Array(MAX_SHAPES);
let shapeLastKeys: string[] = [''];
const shapeSizes = new Int32Array(MAX_SHAPES);
let shapeHits: number[] = [0];
/** A node's factory: undefined until hot, null when it never gets one (a `__proto__` key, too many keys). */
let shapeFactories: (Factory | null | undefined)[] = [undefined];

/** Set when the key ids start afresh: the edges may name old ids, so no shape is followed until {@link resetShapes}. */
let shapesStale = false;

function resetShapes(): void {
  shapesStale = false;
  edges.fill(-1);
  lastEdge.fill(-1);
  shapeLastKeys = [''];
  shapeHits = [0];
  shapeFactories = [undefined];
}

/**
 * The shape of `node`'s keys followed by `key` (its id `id`); -1 when it
 * has none: a key too long to intern, the trie full, or more keys than a
 * factory takes (so a wide object costs one node per key it tracks, and
 * nothing after {@link MAX_FACTORY_KEYS}).
 */
function shapeAfter(node: number, id: number, key: string): number {
  if (node < 0 || id < 0 || shapesStale || shapeSizes[node]! >= MAX_FACTORY_KEYS) return -1;
  const n = 2 * node;
  if (lastEdge[n] === id) return lastEdge[n + 1]!;
  const h = 3 * ((Math.imul(node, 0x9e3779b1) ^ Math.imul(id, 0x85ebca6b)) & (EDGES - 1));
  if (edges[h] === node && edges[h + 1] === id) {
    const to = edges[h + 2]!;
    lastEdge[n] = id;
    lastEdge[n + 1] = to;
    return to;
  }
  const child = shapeLastKeys.length;
  if (child >= MAX_SHAPES) return -1;
  lastEdge[n] = id;
  lastEdge[n + 1] = child;
  shapeParents[child] = node;
  shapeSizes[child] = shapeSizes[node]! + 1;
  shapeLastKeys.push(key);
  shapeHits.push(0);
  shapeFactories.push(undefined);
  edges[h] = node;
  edges[h + 1] = id;
  edges[h + 2] = child;
  return child;
}

/** The keys of `node`, in order (a walk up its parents). */
function shapeKeys(node: number): string[] {
  const keys = new Array<string>(shapeSizes[node]!);
  for (let n = node, i = keys.length - 1; i >= 0; n = shapeParents[n]!, i--) keys[i] = shapeLastKeys[n]!;
  return keys;
}

/**
 * An object literal of `keys` whose values are `values[base..]`, as a
 * function; null for keys it cannot make (more than
 * {@link MAX_FACTORY_KEYS}, a `__proto__` key, which a literal would take as
 * the prototype) or where code generation is refused
 * (`--disallow-code-generation-from-strings`). Each key is a JSON string
 * literal, so no key can be anything but a property name.
 */
function makeFactory(keys: readonly string[]): Factory | null {
  if (keys.length > MAX_FACTORY_KEYS || keys.includes('__proto__')) return null;
  const props = keys.map((k, i) => `${JSON.stringify(k)}: v[b + ${i}]`).join(', ');
  try {
    return new Function('v', 'b', `return { ${props} };`) as Factory;
  } catch {
    return null;
  }
}

/** The object of the entries [base, end) whose keys have shape `shape` (-1: none, the keys are in `entryKeys`). */
function makeObject(shape: number, base: number, end: number): Json {
  let keys = entryKeys;
  let at = base;
  if (shape >= 0) {
    let f = shapeFactories[shape];
    if (f === undefined && ++shapeHits[shape]! >= HOT) {
      f = makeFactory(shapeKeys(shape));
      shapeFactories[shape] = f;
    }
    if (f) return f(entryValues, base);
    keys = shapeKeys(shape);
    at = 0;
  }
  const o: Json = {};
  for (let i = base; i < end; i++) {
    const k = keys[at + i - base]!;
    setKey(o, k, entryValues[i]);
  }
  return o;
}

/**
 * The Struct in buf[start, end) as a plain object, or undefined when the
 * object path must decode it (see the module doc). `view` is a DataView of
 * exactly `buf` (the caller's Reader has one). Never throws.
 */
export function buildStruct(buf: Buffer, view: DataView, start: number, end: number): Json | undefined {
  if (shapeLastKeys.length >= MAX_SHAPES || shapesStale) resetShapes();
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
        const c = lists[d] === 1 ? entryValues.slice(base, top) : makeObject(shapes[d]!, base, top);
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
        const key = keys.get(buf, view, pos, keyEnd);
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
        if (v === GIVE_UP) return undefined;
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
      if (v === GIVE_UP) return undefined;
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
