/**
 * ext.Strings `format` (cel-go Strings v2 formatter): rounding carries,
 * negative zero, locale output of %f/%e, and the compile-time check of
 * literal calls. Expected strings were printed by cel-go v0.26.0 (the oracle
 * suite re-checks the full set against Kubernetes).
 */
import { describe, expect, it } from 'vitest';
import { type CelCompileError, compileSelector, isCompileError, matchDevice } from '../src/index.js';
import { stringFormat } from '../src/strformat.js';
import { CelUint } from '../src/values.js';

describe('stringFormat', () => {
  it.each([
    ['%.1f', 9.99, '10.0'],
    ['%.0f', 9.5, '10'],
    ['%.0f', 2.5, '2'],
    ['%.0f', -0.4, '-0'],
    ['%.2f', 0.005, '0.01'],
    ['%.2f', 0.015, '0.01'],
    ['%f', -0, '0.000000'],
    ['%.2f', 1234.5, '1,234.50'],
    ['%e', 9.9999996, '1.000000×10⁰¹'],
    ['%e', 1.0e-5, '1.000000×10⁻⁰⁵'],
    ['%e', -0, '0.000000×10⁰⁰'],
    ['%.12e', Number.NaN, '         NaN'],
    ['%f', Number.NEGATIVE_INFINITY, '-∞'],
    ['%s', 1e21, '1e+21'],
    ['%s', 1e-7, '1e-07'],
  ])('%s of %s is %s', (fmt, x, want) => {
    expect(stringFormat(fmt, [x])).toBe(want);
  });

  it('prints integers, bytes and strings in every base, and lists and maps as literals', () => {
    expect(stringFormat('%d %b %o %x %X', [-42n, 5n, new CelUint(8n), 'hé', new Uint8Array([255, 0])])).toBe('-42 101 10 68c3a9 FF00');
    expect(stringFormat('%s', [[1n, 'a', 2, null, true, [-0]]])).toBe('[1, "a", 2.000000, null, true, [-0.000000]]');
    expect(stringFormat('100%% %s', [[Number.POSITIVE_INFINITY, '\u0001']])).toBe('100% ["+Inf", "\\x01"]');
  });
});

describe('format in selectors', () => {
  const dev = { name: 'gpu', driver: 'gpu.nvidia.com', attributes: { model: { string: 'L4' } } };
  const error = (s: string) => compileSelector(s) as CelCompileError;

  it('evaluates on a device', () => {
    const c = compileSelector('"%s/%s".format([device.driver, "x"]) == "gpu.nvidia.com/x"');
    expect(isCompileError(c)).toBe(false);
    if (!isCompileError(c)) expect(matchDevice(c, dev)).toEqual({ matched: true });
  });

  it('lets mixed literals through only inside format', () => {
    expect(isCompileError(compileSelector('"%s".format([[1, "a"]]) == "[1, \\"a\\"]"'))).toBe(false);
    expect(error('[1, "a"].size() == 2').message).toContain("expected type 'int' but found 'string'");
  });

  it('checks a literal call at compile time, at the offending argument', () => {
    const e = error('"%d".format(["a"]) == ""');
    expect(e.message).toContain('decimal clause can only be used on integers, was given string');
    expect([e.line, e.column]).toEqual([1, 14]);
    expect(error('"%s".format(["a", "b"]) == ""').message).toContain('too many arguments supplied to string.format (expected 1, got 2)');
    expect(error('"%s %s".format(["a"]) == ""').message).toContain('index 1 out of range');
    expect(error('"%5d".format([1]) == ""').message).toContain('unrecognized formatting clause "5"');
  });

  it('reports a bad argument that is only known at run time as an evaluation error', () => {
    const c = compileSelector('("%" + "d").format(["a"]) == ""');
    expect(isCompileError(c)).toBe(false);
    if (!isCompileError(c)) expect(matchDevice(c, dev).error).toContain('decimal clause can only be used on integers, was given string');
  });
});
