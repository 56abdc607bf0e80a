/**
 * jsonEqual (cli/plan/json-equal.ts) answers exactly what comparing the two
 * values' JSON.stringify texts answers, on the cases where the rules bite.
 */
import { describe, expect, it } from 'vitest';
import { jsonEqual } from '../../cli/plan/json-equal.js';

const CASES: [string, unknown, unknown][] = [
  ['same object', { a: 1, b: [1, 2, { c: 'x' }] }, { a: 1, b: [1, 2, { c: 'x' }] }],
  ['key order differs', { a: 1, b: 2 }, { b: 2, a: 1 }],
  ['nested value differs', { a: { b: [1, 2, 3] } }, { a: { b: [1, 2, 4] } }],
  ['undefined property is absent', { a: 1, b: undefined }, { a: 1 }],
  ['undefined property before another', { x: undefined, a: 1 }, { a: 1 }],
  ['function property is absent', { a: 1, f: () => 1 }, { a: 1 }],
  ['undefined in an array is null', [1, undefined], [1, null]],
  ['NaN is null', { a: Number.NaN }, { a: null }],
  ['Infinity is null', [Number.POSITIVE_INFINITY], [null]],
  ['-0 is 0', { a: -0 }, { a: 0 }],
  ['string "1" is not 1', { a: '1' }, { a: 1 }],
  ['array is not object', { a: [] }, { a: {} }],
  ['null is not absent', { a: null }, {}],
  ['longer array', [1, 2], [1, 2, 3]],
  ['empty key sets', {}, { a: undefined }],
  ['as many keys, different absent ones', { x: undefined, a: 1 }, { y: undefined, a: 1 }],
  ['as many keys, one absent one present', { a: 1, b: undefined }, { a: 1, c: 2 }],
  ['as many keys, absent in one, equal elsewhere', { a: 1, b: undefined }, { a: 1, b: null }],
  ['as many keys, absent in both in two ways', { a: 1, b: undefined }, { a: 1, b: () => 1 }],
  ['Date through toJSON', { t: new Date(0) }, { t: '1970-01-01T00:00:00.000Z' }],
  ['top-level undefined vs null', undefined, null],
  ['boolean vs string', true, 'true'],
];

describe('jsonEqual', () => {
  for (const [name, a, b] of CASES) {
    const expected = JSON.stringify(a) === JSON.stringify(b);
    it(`${name}: ${expected}`, () => {
      expect(jsonEqual(a, b)).toBe(expected);
      expect(jsonEqual(b, a)).toBe(expected);
    });
  }
});

describe('jsonEqual at depth', () => {
  const nest = (n: number, leaf: unknown): unknown => {
    let o: unknown = leaf;
    for (let i = 0; i < n; i++) o = { a: o, b: [i] };
    return o;
  };
  it('compares objects nested 20,000 levels (no recursion)', () => {
    expect(jsonEqual(nest(20_000, 1), nest(20_000, 1))).toBe(true);
    expect(jsonEqual(nest(20_000, 1), nest(20_000, 2))).toBe(false);
  });
});
