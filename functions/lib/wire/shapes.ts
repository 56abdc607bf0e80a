/**
 * Object shapes of the Struct decoder's fast path (./build.ts): which key
 * sequences it has seen, and for the frequent ones a factory that makes
 * the object in one allocation.
 */
import { setKey } from './reader.js';

type Json = Record<string, unknown>;

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
type Factory = (values: readonly unknown[], base: number) => Json;
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

/** Stops following shapes until the next {@link resetShapesIfNeeded} (the key ids started afresh). */
export function markShapesStale(): void {
  shapesStale = true;
}

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
export function shapeAfter(node: number, id: number, key: string): number {
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
export function shapeKeys(node: number): string[] {
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

/**
 * The object of the entries [base, end) of `values` whose keys have shape
 * `shape`; -1: no shape, the keys are `entryKeys` [base, end).
 */
export function makeObject(shape: number, entryValues: readonly unknown[], entryKeys: readonly string[], base: number, end: number): Json {
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

/** Empties the trie when it is full or its key ids are stale; called before each Struct. */
export function resetShapesIfNeeded(): void {
  if (shapeLastKeys.length >= MAX_SHAPES || shapesStale) resetShapes();
}

/** How many shapes the trie holds now (for tests). */
export function shapesInUse(): number {
  return shapeLastKeys.length;
}
