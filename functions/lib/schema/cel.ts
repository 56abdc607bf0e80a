/**
 * `x-kubernetes-validations` rules for the validator and the XRD lint, on
 * our Kubernetes CEL engine's CRD environment (`@modelplane/cel/crd`, packages/cel/src/crd.ts):
 * the same compile, type, cost and evaluation rules as the API server
 * (k8s.io/apiextensions-apiserver `pkg/apiserver/schema/cel`), checked
 * against it by the CRD oracle cases (test/schema/crd-oracle.test.ts).
 *
 * Guarantees:
 * - `self` is the node the rule sits on, typed and converted from its schema
 *   (`integer` → int, `number` → double, objects with properties → objects
 *   with their escaped field names, `additionalProperties` → maps, lists, and
 *   the string formats); `oldSelf` only in updates, so transition rules are
 *   skipped in create-style validation, as `crossplane resource validate` does;
 * - {@link lintSchema} reports what the API server would refuse when the
 *   CRD is written (a rule that does not compile, a rule whose estimated cost
 *   × cardinality exceeds 10,000,000, a schema whose rules together exceed
 *   100,000,000) plus our house rules (a static `message`, no
 *   `messageExpression`), each naming the rule's schema path.
 *
 * Divergences from Kubernetes: the ones of packages/cel/src/crd.ts.
 */
import {
  compileCrdRule,
  type CrdRuleCompilation,
  STATIC_ESTIMATED_COST_LIMIT,
  STATIC_ESTIMATED_CRD_COST_LIMIT,
} from '@modelplane/cel/crd';
import type { JSONSchemaProps, ValidationRule } from './types.js';

export { crdActivation, evaluateCrdRule, ruleMessageOrDefault, RUNTIME_CEL_COST_BUDGET } from '@modelplane/cel/crd';
export type { CompiledCrdRule, CrdRuleCompilation, CrdRuleOutcome } from '@modelplane/cel/crd';

/** Compiles a rule on the schema node it sits on (cached). `isResourceRoot`: the node is a resource's root or an embedded resource. */
export function compileRule(rule: ValidationRule, schema: JSONSchemaProps, isResourceRoot = false): CrdRuleCompilation {
  return compileCrdRule(rule, schema, isResourceRoot);
}

/**
 * Type-checks a rule with `self` typed from `schema`.
 * @returns undefined when the rule compiles, else Kubernetes' reason
 */
export function checkRuleTyped(rule: string, schema: JSONSchemaProps, isResourceRoot = false): string | undefined {
  const c = compileCrdRule({ rule }, schema, isResourceRoot);
  return c.kind === 'CrdRuleError' ? c.detail : undefined;
}

/** getCostErrorMessage: `<what> exceeds budget by factor of <f> (try simplifying …)`. */
export function costErrorMessage(what: string, cost: bigint, limit: bigint): string {
  const f = Number(cost) / Number(limit);
  const factor = f > 100 ? 'more than 100x' : f < 1.5 ? `${f.toFixed(6)}x` : `${f.toFixed(1)}x`;
  return `${what} exceeds budget by factor of ${factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

/** multiplyWithOverflowGuard at uint64. */
function times(cost: bigint, cardinality: bigint): bigint {
  const max = (1n << 64n) - 1n;
  if (cost === 0n) return 0n;
  return cost * cardinality > max ? max : cost * cardinality;
}

/**
 * Lints one rule on `schema` at `at` (a schema path such as
 * `spec.devices[*]`). `cardinality` is how often the node can occur (the
 * product of the maxItems/maxProperties above it; undefined when some list or
 * map above it is unbounded, and the rule's own estimate is used).
 * @returns problems (`<at>: rule "<rule>": <problem>`) and the cost it adds to the CRD's total
 */
export function lintRule(rule: ValidationRule, schema: JSONSchemaProps, at: string, cardinality?: bigint, isResourceRoot = false): { problems: string[]; cost: bigint } {
  const problems: string[] = [];
  const say = (m: string) => problems.push(`${at}: rule ${JSON.stringify(rule.rule)}: ${m}`);
  if (rule.messageExpression !== undefined) say('uses messageExpression; use a static message');
  if (rule.message === undefined || rule.message.trim() === '') say('has no message');
  const c = compileCrdRule(rule, schema, isResourceRoot);
  if (c.kind === 'CrdRuleError') {
    say(c.detail);
    return { problems, cost: 0n };
  }
  if (c.kind === 'EmptyRule') return { problems, cost: 0n };
  const cost = times(c.estimatedCost, cardinality ?? c.maxCardinality);
  if (cost > STATIC_ESTIMATED_COST_LIMIT) say(costErrorMessage('estimated rule cost', cost, STATIC_ESTIMATED_COST_LIMIT));
  return { problems, cost };
}

/** One problem the API server (or our house rules) has with a rule of a schema. */
export interface RuleProblem {
  /**
   * `schema`: the rule entry itself is invalid (a blank rule); `compile`,
   * `cost`: the API server refuses the rule; `total`: the schema's total;
   * `house`: our rules (a static message).
   */
  kind: 'schema' | 'compile' | 'cost' | 'total' | 'house';
  /** Schema path as our messages write it: `spec.devices[*]`, `<root>`. */
  at: string;
  /** The API server's field path of the rule: `spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule`. */
  field: string;
  rule?: string;
  message: string;
}

/**
 * Every problem of the rules of a CRD's (or XRD's) root schema, walking
 * properties, items and additionalProperties with the API server's
 * cardinalities, and the CRD-wide cost total, in walk order.
 */
export function ruleProblems(root: JSONSchemaProps): RuleProblem[] {
  const out: RuleProblem[] = [];
  let total = 0n;
  const base = 'spec.validation.openAPIV3Schema';
  // As the API server: children first; a schema error at a node or below it skips the node's CEL checks.
  const walk = (s: JSONSchemaProps, at: string, field: string, cardinality: bigint | undefined, isResourceRoot: boolean): boolean => {
    const f = s.type === 'array' ? s.maxItems : s.type === 'object' && s.additionalProperties !== undefined ? s.maxProperties : 1;
    const child = cardinality === undefined || f === undefined ? undefined : cardinality * BigInt(Math.max(0, f));
    let schemaError = false;
    for (const [k, v] of Object.entries(s.properties ?? {})) {
      schemaError = walk(v, at ? `${at}.${k}` : k, `${field}.properties[${k}]`, child, !!v['x-kubernetes-embedded-resource']) || schemaError;
    }
    if (s.items !== undefined) schemaError = walk(s.items, `${at}[*]`, `${field}.items`, child, !!s.items['x-kubernetes-embedded-resource']) || schemaError;
    const ap = s.additionalProperties;
    if (typeof ap === 'object') schemaError = walk(ap, `${at}[*]`, `${field}.additionalProperties`, child, !!ap['x-kubernetes-embedded-resource']) || schemaError;
    const rules = s['x-kubernetes-validations'] ?? [];
    const where = (i: number) => ({ at: at || '<root>', field: `${field}.x-kubernetes-validations[${i}].rule`, rule: rules[i]!.rule });
    rules.forEach((rule, i) => {
      if (rule.rule.trim() === '') {
        out.push({ ...where(i), kind: 'schema', message: 'rule is not specified' });
        schemaError = true;
      }
    });
    rules.forEach((rule, i) => {
      if (rule.messageExpression !== undefined) out.push({ ...where(i), kind: 'house', message: 'uses messageExpression; use a static message' });
      if (rule.message === undefined || rule.message.trim() === '') out.push({ ...where(i), kind: 'house', message: 'has no message' });
      if (schemaError) return;
      const c = compileCrdRule(rule, s, isResourceRoot);
      if (c.kind === 'CrdRuleError') out.push({ ...where(i), kind: 'compile', message: c.detail });
      if (c.kind !== 'CompiledCrdRule') return;
      const cost = times(c.estimatedCost, cardinality ?? c.maxCardinality);
      total = total + cost > (1n << 64n) - 1n ? (1n << 64n) - 1n : total + cost;
      if (cost > STATIC_ESTIMATED_COST_LIMIT) out.push({ ...where(i), kind: 'cost', message: costErrorMessage('estimated rule cost', cost, STATIC_ESTIMATED_COST_LIMIT) });
    });
    return schemaError;
  };
  walk(root, '', base, 1n, true);
  if (total > STATIC_ESTIMATED_CRD_COST_LIMIT) {
    out.push({
      kind: 'total',
      at: '<root>',
      field: base,
      message: costErrorMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', total, STATIC_ESTIMATED_CRD_COST_LIMIT),
    });
  }
  return out;
}

/**
 * Lints every rule of a CRD's (or XRD's) root schema: what the API server
 * would refuse when the CRD is written, and our house rules.
 * @returns `<prefix><schema path>: rule "<rule>": <problem>` lines, empty when all is well
 */
export function lintSchema(root: JSONSchemaProps, prefix = ''): string[] {
  return ruleProblems(root).map((p) =>
    p.rule === undefined ? `${prefix}${p.at}: ${p.message}` : `${prefix}${p.at}: rule ${JSON.stringify(p.rule)}: ${p.message}`,
  );
}
