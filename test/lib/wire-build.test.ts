/**
 * The fast path of the Struct decoder (functions/lib/wire/build.ts) beside
 * the object path (reader.ts decodeStruct): it builds the same objects on
 * what encoders write (so the codec's speed is real: it does not fall
 * back), and it gives up, rather than answer differently, on layouts only
 * the object path reads.
 */
import { describe, expect, it } from 'vitest';
import { cluster } from '../../bench/scheduler-fleet.js';
import { buildStruct } from '../../functions/lib/wire/build.js';
import { decodeStruct, Reader } from '../../functions/lib/wire/reader.js';
import { Writer, writeStruct } from '../../functions/lib/wire/writer.js';

function bytesOf(obj: Record<string, unknown>): Buffer {
  const w = new Writer();
  writeStruct(w, obj);
  return Buffer.from(w.finish());
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
      const built = buildStruct(b, 0, b.length);
      expect(built, JSON.stringify(obj)).toBeDefined();
      expect(built).toStrictEqual(objectPath(b));
    }
  });

  it('keeps a __proto__ key as an own property', () => {
    const b = bytesOf(JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>);
    const built = buildStruct(b, 0, b.length)!;
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
    for (const b of cases) expect(buildStruct(b, 0, b.length), b.toString('hex')).toBeUndefined();
  });
});
