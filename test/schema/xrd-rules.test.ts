/**
 * Every x-kubernetes-validations rule in apis/ is one the API server accepts
 * and can cost-estimate: it compiles and type-checks against its schema, has a
 * static message (no messageExpression), and everything it iterates or calls
 * size()/matches() on is bounded (crossplane.md §3.1).
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type JSONSchemaProps, lintRule, parseYamlDocs, type Xrd, yamlFiles } from '../../functions/lib/schema/index.js';
import { apisDir, repoRoot } from '../helpers/crd.js';

interface Found {
  at: string;
  schema: JSONSchemaProps;
}

/** Every schema node carrying rules, with its path (`spec.devices[*]`). */
function nodesWithRules(s: JSONSchemaProps, at: string, out: Found[] = []): Found[] {
  if ((s['x-kubernetes-validations'] ?? []).length > 0) out.push({ at: at || '<root>', schema: s });
  for (const [k, v] of Object.entries(s.properties ?? {})) nodesWithRules(v, at ? `${at}.${k}` : k, out);
  if (s.items !== undefined) nodesWithRules(s.items, `${at}[*]`, out);
  if (typeof s.additionalProperties === 'object') nodesWithRules(s.additionalProperties, `${at}[*]`, out);
  for (const b of [...(s.oneOf ?? []), ...(s.anyOf ?? []), ...(s.allOf ?? [])]) nodesWithRules(b, at, out);
  return out;
}

const xrds = yamlFiles(apisDir).flatMap((f) =>
  parseYamlDocs(readFileSync(f, 'utf8'))
    .filter((d) => (d as { kind?: unknown }).kind === 'CompositeResourceDefinition')
    .map((d) => [relative(repoRoot, f), d as Xrd] as const),
);

describe('CEL rules in apis/', () => {
  it('finds the XRDs', () => {
    expect(xrds.map(([f]) => f)).toContain('apis/inferenceclasses/definition.yaml');
  });

  it.each(xrds)('%s: every rule compiles, has a static message and is bounded', (_, xrd) => {
    const problems: string[] = [];
    for (const v of xrd.spec.versions) {
      const root = v.schema?.openAPIV3Schema;
      if (root === undefined) continue;
      for (const { at, schema } of nodesWithRules(root, '')) {
        for (const rule of schema['x-kubernetes-validations'] ?? []) problems.push(...lintRule(rule, schema, `${v.name} ${at}`));
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('lintRule', () => {
  const list: JSONSchemaProps = { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } };
  it('reports an unbounded list, an unbounded string, a dynamic message and a misspelt field', () => {
    const s: JSONSchemaProps = { type: 'object', properties: { items: list } };
    expect(lintRule({ rule: 'self.items.all(i, i.name.size() < 5)', messageExpression: '"x"' }, s, 'spec')).toEqual([
      'spec: rule "self.items.all(i, i.name.size() < 5)": uses messageExpression; use a static message',
      'spec: rule "self.items.all(i, i.name.size() < 5)": has no message',
      'spec: rule "self.items.all(i, i.name.size() < 5)": all() on self.items, a list without maxItems',
      'spec: rule "self.items.all(i, i.name.size() < 5)": size() on self.items[*].name, a string without maxLength',
    ]);
    expect(lintRule({ rule: "self.nme == 'a'", message: 'm' }, s, 'spec')).toEqual([
      'spec: rule "self.nme == \'a\'": does not type-check against the schema: No such key: nme',
    ]);
    expect(lintRule({ rule: 'has(self.nme)', message: 'm' }, s, 'spec')).toEqual([
      'spec: rule "has(self.nme)": has() on undeclared field self.nme',
    ]);
  });

  it('accepts bounded iteration and map keys', () => {
    const s: JSONSchemaProps = {
      type: 'object',
      maxProperties: 4,
      additionalProperties: { type: 'string', maxLength: 8 },
    };
    expect(lintRule({ rule: 'self.all(k, k.size() < 9 && self[k].matches("^a"))', message: 'm' }, s, 'x')).toEqual([]);
  });

  it('reports a rule that does not compile', () => {
    expect(lintRule({ rule: 'self.a ==', message: 'm' }, { type: 'object' }, 'x')).toEqual([
      'x: rule "self.a ==": does not compile: Unexpected token: EOF',
    ]);
  });
});
