/**
 * cloneJson (functions/lib/json.ts): the same copy structuredClone makes of
 * plain JSON data (key order and undefined fields kept), sharing nothing with
 * its input, at any depth.
 */
import { describe, expect, it } from 'vitest';
import { cloneJson, copyJson, withoutNulls } from '../../functions/lib/json.js';

describe('cloneJson', () => {
  const value = { b: 1, a: [1, 'x', null, { c: true, d: undefined }], e: { f: { g: -0 } }, when: new Date(0) };

  it('copies what structuredClone copies, in the same key order', () => {
    const copy = cloneJson(value);
    expect(copy).toStrictEqual(structuredClone(value));
    expect(Object.keys(copy)).toEqual(['b', 'a', 'e', 'when']);
    expect(Object.keys(copy.a[3] as object)).toEqual(['c', 'd']);
  });

  it('shares no object or array with its input', () => {
    const copy = cloneJson(value);
    expect(copy.a).not.toBe(value.a);
    expect(copy.a[3]).not.toBe(value.a[3]);
    expect(copy.e.f).not.toBe(value.e.f);
    expect(copy.when).not.toBe(value.when);
    (copy.e.f as { g: number }).g = 5;
    expect(value.e.f.g).toBe(-0);
  });

  it('copies a frozen object into an unfrozen one', () => {
    const frozen = Object.freeze({ a: Object.freeze([1]) });
    const copy = cloneJson(frozen);
    expect(Object.isFrozen(copy)).toBe(false);
    expect(Object.isFrozen(copy.a)).toBe(false);
  });

  it('copies 20,000 levels of nesting (no recursion)', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 20_000; i++) deep = { n: deep };
    let copy = cloneJson(deep) as { n: unknown } | string;
    let depth = 0;
    while (typeof copy === 'object') {
      copy = copy.n as { n: unknown } | string;
      depth++;
    }
    expect([depth, copy]).toEqual([20_000, 'leaf']);
  });

  it('keeps a "__proto__" key as an own key (cloneJson, copyJson, withoutNulls), never as the prototype', () => {
    const input = JSON.parse('{"a":1,"__proto__":{"polluted":true},"b":null}') as Record<string, unknown>;
    for (const copy of [cloneJson(input), copyJson(input), withoutNulls(input)]) {
      expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
      expect((copy as { polluted?: unknown }).polluted).toBeUndefined();
      expect(Object.getOwnPropertyDescriptor(copy, '__proto__')).toEqual({ value: { polluted: true }, writable: true, enumerable: true, configurable: true });
    }
    expect(Object.keys(cloneJson(input))).toEqual(['a', '__proto__', 'b']);
    expect(Object.keys(withoutNulls(input))).toEqual(['a', '__proto__']);
  });
});
