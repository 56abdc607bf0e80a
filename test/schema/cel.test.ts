import { describe, expect, it } from 'vitest';
import {
  checkRuleTyped,
  compileRule,
  formatFieldError,
  type JSONSchemaProps,
  lintRule,
  validateObject,
} from '../../functions/lib/schema/index.js';

const errs = (s: JSONSchemaProps, v: unknown) => validateObject(s, v).errors.map(formatFieldError);

describe('CEL rules', () => {
  it('binds integers as int and numbers as double, as Kubernetes does', () => {
    const s: JSONSchemaProps = {
      type: 'object',
      properties: { n: { type: 'integer' }, f: { type: 'number' } },
      'x-kubernetes-validations': [{ rule: 'self.n + 1 == 3 && self.f * 2.0 == 3.0', message: 'arith' }],
    };
    expect(errs(s, { n: 2, f: 1.5 })).toEqual([]);
    expect(errs(s, { n: 1, f: 1.5 })).toEqual(['<root>: Invalid value: "object": arith']);
  });

  it('reports at fieldPath with the rule reason, and the default message', () => {
    const s: JSONSchemaProps = {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'object', properties: { c: { type: 'string' } } } },
      'x-kubernetes-validations': [
        { rule: 'has(self.a)', message: 'a is required', reason: 'FieldValueRequired', fieldPath: '.a' },
        { rule: "!has(self.b) || self.b.c != 'x'", fieldPath: ".b['c']", reason: 'FieldValueForbidden' },
        { rule: 'self == oldSelf', message: 'immutable' },
      ],
    };
    expect(errs({ type: 'object', properties: { spec: s } }, { spec: { b: { c: 'x' } } })).toEqual([
      'spec.a: Required value: a is required',
      "spec.b[c]: Forbidden: failed rule: !has(self.b) || self.b.c != 'x'",
    ]);
  });

  it('reports evaluation errors in Kubernetes words and skips rules that do not compile', () => {
    const s: JSONSchemaProps = {
      type: 'object',
      properties: { a: { type: 'string' } },
      'x-kubernetes-validations': [
        { rule: "self.a == 'x'", message: 'a must be x' },
        { rule: 'isURI(self.a)', message: 'url' },
      ],
    };
    const r = validateObject(s, {});
    expect(r.errors.map(formatFieldError)).toEqual(['<root>: Invalid value: "object": no such key: a evaluating rule: a must be x']);
    expect(r.skippedRules).toEqual([
      "<root>: isURI(self.a): compilation failed: ERROR: <input>:1:6: undeclared reference to 'isURI' (in container '')\n | isURI(self.a)\n | .....^",
    ]);
  });

  it('accepts has() on any operand, as CEL does (Gateway API rules use has(self[0].matches))', () => {
    const list: JSONSchemaProps = { type: 'array', items: { type: 'object', properties: { matches: { type: 'array', items: { type: 'string' } } } } };
    expect(compileRule({ rule: 'has(self[0].matches)' }, list).kind).toBe('CompiledCrdRule');
    const s: JSONSchemaProps = {
      type: 'array',
      items: { type: 'object', properties: { matches: { type: 'array', items: { type: 'string' } } } },
      'x-kubernetes-validations': [{ rule: 'self.size() == 0 || has(self[0].matches)', message: 'first needs matches' }],
    };
    expect(errs(s, [{ matches: [] }])).toEqual([]);
    expect(errs(s, [{}])).toEqual(['<root>: Invalid value: "array": first needs matches']);
  });
});

describe('escaped property names (Kubernetes CRD validation rules, "Escaping")', () => {
  const props = (...names: string[]): JSONSchemaProps => ({
    type: 'object',
    properties: Object.fromEntries(names.map((n) => [n, { type: 'string' }])),
  });

  it.each([
    { name: 'namespace', escaped: '__namespace__', reason: 'a CEL reserved word is wrapped in __' },
    { name: 'in', escaped: '__in__', reason: 'every reserved word, not only namespace' },
    { name: 'x-y', escaped: 'x__dash__y', reason: '- is __dash__' },
    { name: 'a.b', escaped: 'a__dot__b', reason: '. is __dot__' },
    { name: 'a/b', escaped: 'a__slash__b', reason: '/ is __slash__' },
    { name: 'a__b', escaped: 'a__underscores__b', reason: '__ is __underscores__' },
    { name: 'sprint', escaped: 'sprint', reason: 'a keyword inside a name is not escaped' },
  ])('$name is self.$escaped: $reason', ({ name, escaped }) => {
    const s: JSONSchemaProps = { ...props(name), 'x-kubernetes-validations': [{ rule: `has(self.${escaped}) && self.${escaped} == 'v'`, message: 'm' }] };
    expect(errs(s, { [name]: 'v' })).toEqual([]);
    expect(errs(s, {})).toEqual(['<root>: Invalid value: "object": m']);
    expect(checkRuleTyped(`self.${escaped} == 'v'`, s)).toBeUndefined();
  });

  it('drops names CEL cannot reach (leading digit, other characters); map keys are never escaped', () => {
    const s = { ...props('1a', 'a b', 'ok'), 'x-kubernetes-validations': [{ rule: "self.ok == 'z'", message: 'ok' }] };
    expect(checkRuleTyped('self.ok == "z"', s)).toBeUndefined();
    expect(checkRuleTyped('has(self.a)', s)).toMatch(/undefined field 'a'/);
    expect(errs(s, { '1a': 'x', 'a b': 'y', ok: 'z' })).toEqual([]);
    const map: JSONSchemaProps = {
      type: 'object',
      properties: {
        m: {
          type: 'object',
          additionalProperties: { type: 'string' },
          'x-kubernetes-validations': [{ rule: "self['namespace'] == 'a' && self['x-y'] == 'b'", message: 'keys as they are' }],
        },
      },
    };
    expect(errs(map, { m: { namespace: 'a', 'x-y': 'b' } })).toEqual([]);
    expect(errs(map, { m: { namespace: 'a', 'x-y': 'c' } })).toEqual(['m: Invalid value: "object": keys as they are']);
  });

  it('lints escaped names against the declared property', () => {
    const s: JSONSchemaProps = {
      type: 'object',
      properties: { namespace: { type: 'string' }, items: { type: 'array', items: { type: 'string' } } },
    };
    expect(lintRule({ rule: 'has(self.__namespace__) && self.__namespace__.size() < 3', message: 'm' }, s, 'x').problems).toEqual([]);
    // Since Kubernetes 1.31 a reserved word also names its escaped field.
    expect(lintRule({ rule: 'has(self.namespace) && self.namespace == self.__namespace__', message: 'm' }, s, 'x', 1n).problems).toEqual([]);
    expect(lintRule({ rule: 'has(self.name)', message: 'm' }, s, 'x').problems).toEqual([
      'x: rule "has(self.name)": compilation failed: ERROR: <input>:1:4: undefined field \'name\'\n | has(self.name)\n | ...^',
    ]);
  });
});
