/**
 * Hostile JSON values and the path helpers the mutators use.
 *
 * Guarantees:
 * - Every value is representable in a protobuf Struct (no NaN, no
 *   Infinity, no undefined, no functions), so the same case runs in-process
 *   and over gRPC.
 * - Paths are lists of object keys and array indices; {@link pathsOf}
 *   lists them in document order, so a seeded choice among them is
 *   reproducible.
 */
import type { Rng } from './random.js';

/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** A path into a JSON value. */
export type Path = (string | number)[];

/** Strings that break naive code: unicode of every kind, control characters, lookalikes, empties. */
export const NASTY_STRINGS: readonly string[] = [
  '',
  ' ',
  '\t\n',
  'ü',
  '名前',
  '😀',
  'e\u0301',
  '\u202eevil',
  '\u0000',
  '\ufeffbom',
  'İı',
  'ǅ',
  '\u200d',
  `${'a'.repeat(63)}😀`,
  '-leading-dash',
  'UPPER',
  'a.b/c:d',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template placeholder is exactly the hostile text wanted
  '${x}',
  "'; drop",
  '../../etc',
  '0',
  'true',
  'null',
  '1e3',
  '-1',
  'http://',
  '::1',
  '999.1.1.1',
  '1:2:3:4:5:6:7:8:9',
  'Ready',
  'True',
];

/** Numbers at the edges: sign, zero, fractions, the int53 boundary, overflow of int32/int64, extremes of double. */
export const NASTY_NUMBERS: readonly number[] = [
  0,
  -0,
  -1,
  0.5,
  1.5,
  2 ** 31,
  2 ** 53 + 2,
  -(2 ** 53) - 2,
  2 ** 63,
  1e21,
  1e308,
  -1e308,
  5e-324,
  65536,
  100000,
];

/** A random scalar of any type. */
export function scalar(rng: Rng): Json {
  switch (rng.int(5)) {
    case 0:
      return null;
    case 1:
      return rng.chance(0.5);
    case 2:
      return rng.pick(NASTY_NUMBERS);
    default:
      return rng.pick(NASTY_STRINGS);
  }
}

/** A random value, nested at most `depth` levels. */
export function garbage(rng: Rng, depth = 3): Json {
  if (depth <= 0 || rng.chance(0.5)) return scalar(rng);
  if (rng.chance(0.5)) return Array.from({ length: rng.int(4) }, () => garbage(rng, depth - 1));
  const out: Record<string, Json> = {};
  const keys = ['type', 'status', 'name', 'conditions', 'reason', 'message', 'x', rng.pick(NASTY_STRINGS)];
  for (let i = rng.int(4); i > 0; i--) out[rng.pick(keys)] = garbage(rng, depth - 1);
  return out;
}

/** A value of a JSON type other than that of `v` (string ↔ number ↔ bool ↔ null ↔ list ↔ object). */
export function wrongType(rng: Rng, v: unknown): Json {
  const kinds = ['null', 'bool', 'number', 'string', 'array', 'object'].filter((k) => k !== typeName(v));
  switch (rng.pick(kinds)) {
    case 'null':
      return null;
    case 'bool':
      return rng.chance(0.5);
    case 'number':
      return rng.pick(NASTY_NUMBERS);
    case 'string':
      return typeof v === 'number' || typeof v === 'boolean' ? String(v) : rng.pick(NASTY_STRINGS);
    case 'array':
      return v === null || v === undefined ? [] : [v as Json];
    default:
      return rng.chance(0.5) ? {} : { value: (v ?? null) as Json };
  }
}

function typeName(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

/** `depth` levels of lists or objects around `leaf`. */
export function nested(rng: Rng, depth: number, leaf: Json): Json {
  let v = leaf;
  const asList = rng.chance(0.5);
  for (let i = 0; i < depth; i++) v = asList ? [v] : { a: v };
  return v;
}

/** The nesting depth of a value (a scalar is 0). */
export function depthOf(v: unknown): number {
  if (v === null || typeof v !== 'object') return 0;
  let max = 0;
  for (const x of Object.values(v as object)) max = Math.max(max, depthOf(x));
  return max + 1;
}

/** Every path below `root` (not `root` itself), in document order, at most `limit` of them. */
export function pathsOf(root: unknown, limit = 5000): Path[] {
  const out: Path[] = [];
  const walk = (v: unknown, at: Path) => {
    if (out.length >= limit || v === null || typeof v !== 'object') return;
    const entries: [string | number, unknown][] = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v as object);
    for (const [k, x] of entries) {
      const p = [...at, k];
      out.push(p);
      walk(x, p);
    }
  };
  walk(root, []);
  return out;
}

/** The value at a path, or undefined. */
export function getAt(root: unknown, path: Path): unknown {
  let v = root;
  for (const p of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[p];
  }
  return v;
}

/** Sets the value at a path (the parent must exist). */
export function setAt(root: unknown, path: Path, value: unknown): void {
  const parent = getAt(root, path.slice(0, -1)) as Record<string | number, unknown>;
  parent[path[path.length - 1]!] = value;
}

/** Deletes the value at a path: an object key goes, an array element is spliced out. */
export function deleteAt(root: unknown, path: Path): void {
  const parent = getAt(root, path.slice(0, -1));
  const last = path[path.length - 1]!;
  if (Array.isArray(parent)) parent.splice(Number(last), 1);
  else if (parent !== null && typeof parent === 'object') delete (parent as Record<string, unknown>)[String(last)];
}

/** `spec.engines[0].name` for `['spec', 'engines', 0, 'name']`. */
export function formatPath(path: Path): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out === '' ? p : `.${p}`;
  return out || '<root>';
}

/** A deep copy of `v` with every object's keys in a random order (arrays keep theirs). */
export function shuffleKeys<T>(rng: Rng, v: T): T {
  if (v === null || typeof v !== 'object') return v;
  if (ArrayBuffer.isView(v)) return v;
  if (Array.isArray(v)) return v.map((x) => shuffleKeys(rng, x)) as T;
  const out: Record<string, unknown> = {};
  for (const k of rng.shuffle(Object.keys(v as object))) out[k] = shuffleKeys(rng, (v as Record<string, unknown>)[k]);
  return out as T;
}
