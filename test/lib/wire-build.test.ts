/**
 * The fast path of the Struct decoder (functions/lib/wire/build.ts) beside
 * the object path (reader.ts decodeStruct): it builds the same objects on
 * what encoders write (so the codec's speed is real: it does not fall
 * back), and it gives up, rather than answer differently, on layouts only
 * the object path reads.
 */
import { describe, expect, it } from 'vitest';
import { cluster } from '../../bench/scheduler-fleet.js';
import { spawnSync } from 'node:child_process';
import { buildStruct, restartKeyIds, shapesInUse } from '../../functions/lib/wire/build.js';
import { decodeStruct, Reader } from '../../functions/lib/wire/reader.js';
import { Writer, writeStruct } from '../../functions/lib/wire/writer.js';

function bytesOf(obj: Record<string, unknown>): Buffer {
  const w = new Writer();
  writeStruct(w, obj);
  return Buffer.from(w.finish());
}

function viewOf(b: Buffer): DataView {
  return new DataView(b.buffer, b.byteOffset, b.byteLength);
}

function objectPath(b: Buffer): Record<string, unknown> {
  return decodeStruct(new Reader(b), b.length);
}

const samples: Record<string, unknown>[] = [
  cluster(7),
  { a: 'x', n: 1.5, neg: -0, big: 2 ** 53, t: true, f: false, z: null, e: {}, l: [] },
  { list: ['s', 2, true, null, { k: 'v' }, [[]]], long: 'y'.repeat(300), key: { ['k'.repeat(40)]: 'é'.repeat(20) } },
  { 'métadata': { 'ключ': '🚀', bom: '\ufeffbom', nul: '\u0000' }, 0: 'zero', 10: 'ten', 2: 'two' },
  { nan: Number.NaN, inf: Number.POSITIVE_INFINITY },
  { gone: undefined, kept: 1, inList: [undefined, 1] },
];

describe('buildStruct', () => {
  it('builds what the object path decodes, on what the encoder writes', () => {
    for (const obj of samples) {
      const b = bytesOf(obj);
      const built = buildStruct(b, viewOf(b), 0, b.length);
      expect(built, JSON.stringify(obj)).toBeDefined();
      expect(built).toStrictEqual(objectPath(b));
    }
  });

  it('keeps a __proto__ key as an own property', () => {
    const b = bytesOf(JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>);
    const built = buildStruct(b, viewOf(b), 0, b.length)!;
    expect(Object.keys(built)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('gives up on layouts only the object path reads', () => {
    const entry = (content: number[]) => Buffer.from([0x0a, content.length, ...content]);
    // a Value with two kinds (string then number), a field after the Value, an unknown field in the Struct,
    // an entry whose value comes before its key, a length past the end, a truncated varint
    const cases = [
      entry([0x0a, 1, 0x61, 0x12, 5, 0x1a, 1, 0x62, 0x20, 1]),
      entry([0x0a, 1, 0x61, 0x12, 2, 0x20, 1, 0x18, 1]),
      Buffer.from([0x10, 0x01]),
      entry([0x12, 2, 0x20, 1, 0x0a, 1, 0x61]),
      Buffer.from([0x0a, 0x7f, 0x0a]),
      Buffer.from([0x0a, 0x80]),
    ];
    for (const b of cases) expect(buildStruct(b, viewOf(b), 0, b.length), b.toString('hex')).toBeUndefined();
  });

  describe('objects of a shape seen before (made by a literal of their keys)', () => {
    /** JSON text and, at every level, the own keys and prototype: what must not differ from the object path. */
    const exactly = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(exactly)
        : v !== null && typeof v === 'object'
          ? { proto: Object.getPrototypeOf(v) === Object.prototype, entries: Object.keys(v).map((k) => [k, exactly((v as Record<string, unknown>)[k])]) }
          : v;
    const same = (b: Buffer) => {
      const built = buildStruct(b, viewOf(b), 0, b.length);
      expect(built).toBeDefined();
      expect(exactly(built)).toEqual(exactly(objectPath(b)));
      expect(built).toStrictEqual(objectPath(b));
      return built!;
    };

    it('keeps keys that need escaping and index-like keys, in the object path order', () => {
      const item = (i: number) => ({ 'a"b': i, 'back\\slash': 'x', 'line\nbreak': true, '\u2028': null, 'é': 'ü', ' ': 'space', 1: 'one', 0: 'zero', constructor: 'c', toString: 't' });
      const b = bytesOf({ items: Array.from({ length: 12 }, (_, i) => item(i)) });
      for (let i = 0; i < 3; i++) same(b);
    });

    it('keeps a __proto__ key of a repeated shape as an own property', () => {
      const obj = JSON.parse(`{"items": [${Array(6).fill('{"a": 1, "__proto__": {"polluted": true}}').join(',')}]}`) as Record<string, unknown>;
      const built = same(bytesOf(obj)) as { items: Record<string, unknown>[] };
      for (const it of built.items) {
        expect(Object.keys(it)).toEqual(['a', '__proto__']);
        expect(Object.getPrototypeOf(it)).toBe(Object.prototype);
      }
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    });

    it('keeps the last value of a repeated key, at its first place', () => {
      // Struct entries a='x', b=1, a='y': what ts-proto and the object path read as {a: 'y', b: 1}
      const varint = (n: number): number[] => (n < 0x80 ? [n] : [(n & 0x7f) | 0x80, ...varint(n >>> 7)]);
      const field = (tag: number, content: number[]) => [tag, ...varint(content.length), ...content];
      const str = (s: string) => field(0x1a, [...Buffer.from(s)]);
      const entry = (k: string, v: number[]) => field(0x0a, [...field(0x0a, [...Buffer.from(k)]), ...field(0x12, v)]);
      const inner = [...entry('a', str('x')), ...entry('b', [0x20, 1]), ...entry('a', str('y'))];
      const listValue = Array(5).fill(field(0x0a, field(0x2a, inner))).flat();
      const value = field(0x32, listValue);
      const b = Buffer.from(entry('items', value));
      const built = same(b) as { items: Record<string, unknown>[] };
      expect(built.items.map((o) => Object.entries(o))).toEqual(Array(5).fill([['a', 'y'], ['b', true]]));
    });

    it('builds keys too long to intern key by key', () => {
      const long = 'k'.repeat(40);
      same(bytesOf({ items: Array.from({ length: 6 }, (_, i) => ({ [long]: i, short: i })) }));
      // interned keys first: their names come from the shape read so far
      const built = same(bytesOf({ items: Array.from({ length: 6 }, (_, i) => ({ a: i, b: i, [long]: i, c: i })) })) as { items: object[] };
      expect(built.items.map((o) => Object.keys(o))).toEqual(Array(6).fill(['a', 'b', long, 'c']));
    });

    it('never follows a shape learnt before the key ids started afresh', () => {
      restartKeyIds();
      const first = bytesOf({ items: Array.from({ length: 6 }, () => ({ p: 1, q: 2 })) });
      same(first);
      restartKeyIds();
      // r and s now have the ids p and q had: the shape of p, q must not be taken for theirs
      const built = same(bytesOf({ items: Array.from({ length: 6 }, () => ({ r: 1, s: 2 })) })) as { items: object[] };
      expect(built.items.map((o) => Object.keys(o))).toEqual(Array(6).fill(['r', 's']));
      same(first);
    });
  });

  it('tracks at most as many keys of a wide object as a factory takes (its cost stays linear in its keys)', () => {
    restartKeyIds(); // the trie starts afresh on the next Struct
    const wide = bytesOf(Object.fromEntries(Array.from({ length: 4096 }, (_, i) => [`key${i}`, i])));
    const built = buildStruct(wide, viewOf(wide), 0, wide.length)!;
    expect(Object.keys(built)).toHaveLength(4096);
    expect(built).toStrictEqual(objectPath(wide));
    // the empty shape and one node per key up to the 64 a factory takes
    expect(shapesInUse()).toBe(65);
  });

  it('defines keys Object.prototype has as own properties, even when it is frozen, on every decode of a shape', () => {
    // In a process of its own: freezing Object.prototype here would reach the test runner.
    const script = `
      import { Writer, writeStruct } from ${JSON.stringify(new URL('../../functions/lib/wire/writer.ts', import.meta.url).pathname)};
      import { buildStruct } from ${JSON.stringify(new URL('../../functions/lib/wire/build.ts', import.meta.url).pathname)};
      import { decodeStruct, Reader } from ${JSON.stringify(new URL('../../functions/lib/wire/reader.ts', import.meta.url).pathname)};
      const w = new Writer();
      writeStruct(w, { items: [1, 2, 3, 4, 5].map((i) => ({ toString: i, constructor: 'c', valueOf: true, hasOwnProperty: null })) });
      const b = Buffer.from(w.finish());
      Object.freeze(Object.prototype);
      const out = [];
      for (let i = 0; i < 5; i++) {
        for (const decode of [() => buildStruct(b, new DataView(b.buffer, b.byteOffset, b.length), 0, b.length), () => decodeStruct(new Reader(b), b.length)]) {
          try {
            out.push(decode().items.map((o) => Object.getOwnPropertyNames(o).map((k) => k + '=' + JSON.stringify(o[k])).join(',')).join(' '));
          } catch (err) {
            out.push('threw ' + err.message);
          }
        }
      }
      console.log(JSON.stringify(out));
    `;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    const lines = JSON.parse(r.stdout) as string[];
    const item = (i: number) => `toString=${i},constructor="c",valueOf=true,hasOwnProperty=null`;
    expect(lines).toEqual(Array(10).fill([1, 2, 3, 4, 5].map(item).join(' ')));
  });
});
