/**
 * Compares our CRD validation-rule answers with Kubernetes' for one oracle
 * case of kind `crd` (scripts/oracle/cases-crd.ts, test/oracle/crd.go).
 *
 * They agree when:
 * - every rule compiles on both sides or on neither; a compile error has the
 *   same first line, except syntax errors, whose wording differs (ours is
 *   not ANTLR's) and which must only be at the same position; a compiled
 *   rule has the same estimated cost and cardinality;
 * - the API server's verdict on writing the CRD names the same rules for the
 *   same reasons (compile, cost, the schema's total);
 * - validating the object gives the same errors (order aside: Go visits
 *   object fields in random order), our skipped rules standing for the
 *   "rule compile error" entries Kubernetes reports instead;
 * - the runtime cost is the same, when Kubernetes' is stable across runs.
 */
import { compileCrdRule } from '@modelplane/cel/crd';
import { formatFieldError, type JSONSchemaProps, validateObject } from '../../functions/lib/schema/index.js';
import { ruleProblems } from '../../functions/lib/schema/cel.js';
import { questionSchema } from '../../scripts/oracle/cases-crd.js';
import type { CrdAnswer, CrdCase as CrdQuestion, CrdRuleAnswer, OracleAnswer } from '../../scripts/oracle/fixture.js';

type CrdCase = CrdQuestion & { readonly expect: OracleAnswer };

/** Our rule answers, in the oracle's walk order (properties sorted, then items, then additionalProperties). */
export function ourRules(root: JSONSchemaProps): CrdRuleAnswer[] {
  const out: CrdRuleAnswer[] = [];
  const walk = (s: JSONSchemaProps, path: string, isResourceRoot: boolean) => {
    for (const r of s['x-kubernetes-validations'] ?? []) {
      const c = compileCrdRule(r, s, isResourceRoot);
      const base = { path: path || '<root>', rule: r.rule };
      if (c.kind === 'CrdRuleError') out.push({ ...base, error: c.detail });
      else if (c.kind === 'CompiledCrdRule') out.push({ ...base, cost: Number(c.estimatedCost), cardinality: Number(c.maxCardinality) });
      else out.push(base);
    }
    for (const k of Object.keys(s.properties ?? {}).sort()) {
      const v = s.properties![k]!;
      walk(v, path ? `${path}.${k}` : k, !!v['x-kubernetes-embedded-resource']);
    }
    if (s.items !== undefined) walk(s.items, `${path}[*]`, !!s.items['x-kubernetes-embedded-resource']);
    if (typeof s.additionalProperties === 'object') walk(s.additionalProperties, `${path}[*]`, !!s.additionalProperties['x-kubernetes-embedded-resource']);
  };
  walk(root, '', true);
  return out;
}

const firstLine = (s: string) => s.split('\n')[0]!;
const isSyntax = (s: string) => /Syntax error|mismatched input|extraneous input|token recognition/.test(s);
const position = (s: string) => /<input>:(\d+:\d+)/.exec(s)?.[1];

function sameRule(a: CrdRuleAnswer, b: CrdRuleAnswer): boolean {
  if (a.path !== b.path || a.rule !== b.rule) return false;
  if ((a.error === undefined) !== (b.error === undefined)) return false;
  if (a.error !== undefined && b.error !== undefined) {
    if (isSyntax(a.error) || isSyntax(b.error)) return isSyntax(a.error) && isSyntax(b.error) && position(a.error) === position(b.error);
    return firstLine(a.error) === firstLine(b.error);
  }
  return a.cost === b.cost && a.cardinality === b.cardinality;
}

/** The API server's CRD errors as `<field> <kind>` (kind: compile, cost, contributed, total, other). */
function k8sVerdict(crd: readonly string[]): string[] {
  return crd
    .map((e) => {
      const m = /^(\S+): (.*)$/s.exec(e);
      const [field, body] = m ? [m[1]!, m[2]!] : ['?', e];
      if (body.startsWith('Forbidden: estimated rule cost exceeds')) return `${field} cost`;
      if (body.startsWith('Forbidden: contributed to estimated rule cost total')) return undefined;
      if (body.startsWith('Forbidden: x-kubernetes-validations estimated rule cost total')) return `${field} total`;
      if (field.endsWith('.rule') && body.startsWith('Invalid value:')) return `${field} compile`;
      if (field.endsWith('.rule') && body === 'Required value: rule is not specified') return `${field} schema`;
      return `${field} other: ${firstLine(body)}`;
    })
    .filter((x): x is string => x !== undefined)
    .sort();
}

function ourVerdict(schema: JSONSchemaProps): string[] {
  return ruleProblems(schema)
    .filter((p) => p.kind !== 'house')
    .map((p) => `${p.field} ${p.kind}`)
    .sort();
}

/** Our answer to the validation part: CEL errors only (OpenAPI errors taken out), skipped rules, cost. */
export function ourValidation(schema: JSONSchemaProps, c: CrdCase): { errors: string[]; skipped: number; cost: number } {
  const opts = { defaults: false, ...(c.oldObject !== undefined ? { oldValue: c.oldObject } : {}) };
  const full = validateObject(schema, c.object, opts);
  const openapi = validateObject(schema, c.object, { ...opts, cel: false }).errors.map(formatFieldError);
  const errors = full.errors.map(formatFieldError);
  for (const e of openapi) {
    const i = errors.indexOf(e);
    if (i >= 0) errors.splice(i, 1);
  }
  return { errors: errors.map((e) => e.replace(/^<root>: /, ': ')).sort(), skipped: full.skippedRules.length, cost: full.celCost };
}

/** The disagreement on a crd case, or undefined when we agree with Kubernetes. */
export function crdDisagreement(c: CrdCase): string | undefined {
  const want: CrdAnswer | undefined = c.expect.crd;
  const name = `${c.id}${c.schemaRef ? ` ${c.schemaRef.apiVersion} ${c.schemaRef.kind}` : ''}`;
  if (want === undefined) return `${name}: the oracle gave no crd answer`;
  if (want.failure !== undefined) return `${name}: the oracle could not run the case: ${want.failure}`;
  const schema = questionSchema(c);
  const rules = ourRules(schema);
  if (rules.length !== want.rules.length) return `${name}: ${rules.length} rules here, ${want.rules.length} in Kubernetes`;
  for (let i = 0; i < rules.length; i++) {
    if (!sameRule(rules[i]!, want.rules[i]!)) return `${name}: rule ${JSON.stringify(want.rules[i])} but ours ${JSON.stringify(rules[i])}`;
  }
  const [kv, ov] = [k8sVerdict(want.crd), ourVerdict(schema)];
  if (JSON.stringify(kv) !== JSON.stringify(ov)) return `${name}: CRD verdict ${JSON.stringify(kv)} but ours ${JSON.stringify(ov)}`;
  if (want.validation === undefined) return undefined;
  const ours = ourValidation(schema, c);
  const compileErrors = want.validation.filter((e) => / Invalid value: "[a-z]+": rule compile error: /.test(e)).length;
  const theirs = want.validation.filter((e) => !/ Invalid value: "[a-z]+": rule compile error: /.test(e)).map((e) => firstLineOfError(e)).sort();
  const mine = ours.errors.map(firstLineOfError).sort();
  if (JSON.stringify(theirs) !== JSON.stringify(mine)) return `${name}: validation ${JSON.stringify(theirs)} but ours ${JSON.stringify(mine)}`;
  if (compileErrors !== ours.skipped) return `${name}: ${compileErrors} rule compile errors in Kubernetes, ${ours.skipped} skipped rules here`;
  if (want.runtimeCost !== undefined && want.runtimeCost !== ours.cost) return `${name}: runtime cost ${want.runtimeCost} but ours ${ours.cost}`;
  return undefined;
}

/**
 * An error's first line (rule sources in messages may span lines), with the
 * detail of Go's time.Parse errors cut after the layout: our conversion
 * names the layout but not Go's element-by-element reason.
 */
function firstLineOfError(e: string): string {
  return firstLine(e).replace(/(formatted string .*?: parsing time ".*?" as ".*?")(?:: .*?)? evaluating rule:/, '$1 evaluating rule:');
}
