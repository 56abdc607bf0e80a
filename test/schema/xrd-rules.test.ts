/**
 * Every x-kubernetes-validations rule in apis/ is one the API server accepts
 * when the XRD's CRD is written: it compiles and type-checks against its
 * schema, its estimated cost × cardinality is within 10,000,000 and the
 * schema's total within 100,000,000
 * (docs/composition.md#cel-cost-limits-of-validation-rules); and it has a static
 * message (no messageExpression), our house rule.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type JSONSchemaProps, lintRule, lintSchema, parseYamlDocs, type Xrd, xrdToCrdSchemas, yamlFiles } from '../../functions/lib/schema/index.js';
import { apisDir, repoRoot } from '../helpers/crd.js';

const xrds = yamlFiles(apisDir).flatMap((f) =>
  parseYamlDocs(readFileSync(f, 'utf8'))
    .filter((d) => (d as { kind?: unknown }).kind === 'CompositeResourceDefinition')
    .map((d) => [relative(repoRoot, f), d as Xrd] as const),
);

describe('CEL rules in apis/', () => {
  it('finds the XRDs', () => {
    expect(xrds.map(([f]) => f)).toContain('apis/inferenceclasses/definition.yaml');
  });

  it.each(xrds)('%s: the API server accepts every rule, each has a static message', (_, xrd) => {
    const problems = xrdToCrdSchemas(xrd).flatMap((k) => lintSchema(k.schema, `${k.apiVersion} `));
    expect(problems).toEqual([]);
  });
});

describe('lintRule', () => {
  const list: JSONSchemaProps = { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } };
  it('reports a dynamic message, a missing message, a misspelt field, and what exceeds the cost limit', () => {
    const s: JSONSchemaProps = { type: 'object', properties: { items: list } };
    // Kubernetes' estimate (the CRD oracle): 7,340,028 per evaluation, within the limit once per object.
    expect(lintRule({ rule: 'self.items.all(i, i.name.size() < 5)', messageExpression: '"x"' }, s, 'spec', 1n)).toEqual({
      problems: [
        'spec: rule "self.items.all(i, i.name.size() < 5)": uses messageExpression; use a static message',
        'spec: rule "self.items.all(i, i.name.size() < 5)": has no message',
      ],
      cost: 7340028n,
    });
    // Below an unbounded list the node may repeat 1,048,576 times: far over.
    expect(lintRule({ rule: 'self.items.all(i, i.name.size() < 5)', message: 'm' }, s, 'spec').problems).toEqual([
      'spec: rule "self.items.all(i, i.name.size() < 5)": estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)',
    ]);
    expect(lintRule({ rule: "self.nme == 'a'", message: 'm' }, s, 'spec').problems).toEqual([
      "spec: rule \"self.nme == 'a'\": compilation failed: ERROR: <input>:1:5: undefined field 'nme'\n | self.nme == 'a'\n | ....^",
    ]);
    const pairs = lintRule({ rule: 'self.items.all(i, self.items.exists(j, j.name == i.name))', message: 'm' }, s, 'spec', 1n);
    expect(pairs.problems).toEqual([
      'spec: rule "self.items.all(i, self.items.exists(j, j.name == i.name))": estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)',
    ]);
  });

  it('accepts bounded iteration and map keys, and reports the cost it adds', () => {
    const s: JSONSchemaProps = {
      type: 'object',
      maxProperties: 4,
      additionalProperties: { type: 'string', maxLength: 8 },
    };
    expect(lintRule({ rule: 'self.all(k, k.size() < 9 && self[k].matches("^a"))', message: 'm' }, s, 'x', 1n)).toEqual({ problems: [], cost: 54n });
  });

  it('reports a rule that does not compile', () => {
    expect(lintRule({ rule: 'self.a ==', message: 'm' }, { type: 'object' }, 'x').problems).toEqual([
      // Kubernetes lists ANTLR's expected tokens; the position is the same.
      "x: rule \"self.a ==\": compilation failed: ERROR: <input>:1:10: Syntax error: mismatched input '<EOF>' expecting an expression\n | self.a ==\n | .........^",
    ]);
  });
});
