/**
 * `x-kubernetes-validations` rules, compiled and evaluated the way the
 * Kubernetes API server does for CRDs (k8s.io/apiextensions-apiserver
 * `pkg/apiserver/schema/cel`), on top of `@marcbachmann/cel-js`.
 *
 * Guarantees:
 * - `self` is the node the rule sits on, converted by its schema: `integer`
 *   values are CEL `int` (BigInt), `number` values `double`, objects maps,
 *   arrays lists; absent fields are absent, so `has(self.x)` is false and
 *   `self.x` is a "no such key" error, as in Kubernetes.
 * - A rule that compiles is checked against a type built from its schema, so a
 *   misspelt field is a compile error as it is when the API server accepts a CRD.
 * - Object properties are seen under Kubernetes' escaped names (cel-names.ts):
 *   the field `namespace` is `self.__namespace__`, `x-y` is `self.x__dash__y`,
 *   in the bound value, the typed check and the lint alike.
 *
 * Divergences from Kubernetes (deliberate, listed here):
 * - No cost estimation or runtime cost limit (cel-js tracks none); the lint in
 *   {@link lintRule} checks instead that everything a rule iterates or sizes is
 *   bounded, which is what keeps the API server's estimate finite.
 * - Transition rules (`oldSelf`) are never evaluated: validation is create-style,
 *   as `crossplane resource validate` does it.
 * - `messageExpression` is not evaluated; the static `message` (or
 *   `failed rule: <rule>`) is reported.
 * - `date-time`/`duration` formatted strings stay strings; regexes are JS, not RE2.
 * - Of the Kubernetes CEL libraries only `isIP` is added to cel-js' standard
 *   set; rules using anything else fail to compile and are reported as skipped.
 * - Properties CEL cannot name (leading digit, other characters) are left out
 *   of the bound object, so `size(self)` does not count them (Kubernetes does).
 */
import { Environment } from '@marcbachmann/cel-js';
import { escapeCelName, hasEscapedNames, propertyByCelName } from './cel-names.js';
import type { JSONSchemaProps, ValidationRule } from './types.js';

type Program = ReturnType<Environment['parse']>;

/** The shared evaluation environment: `self` is dynamic, values are converted by {@link toCelValue}. */
const evalEnv = addKubernetesLibraries(new Environment({ enableOptionalTypes: true })).registerVariable('self', 'dyn');

function addKubernetesLibraries(env: Environment): Environment {
  return env.registerFunction('isIP(string): bool', (s: string) => isIP(s));
}

function isIP(s: string): boolean {
  const v4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
  if (v4.test(s)) return true;
  return s.includes(':') && /^[0-9a-fA-F:.]+$/.test(s) && (s.match(/::/g)?.length ?? 0) <= 1;
}

/** A compiled rule, or why it does not compile. */
export type CompiledRule = { ok: true; program: Program } | { ok: false; error: string };

const cache = new Map<string, CompiledRule>();

/**
 * Parses and type-checks a rule with `self` dynamic (cached by source).
 * Use {@link checkRuleTyped} to also check field names against the schema.
 */
export function compileRule(rule: string): CompiledRule {
  let c = cache.get(rule);
  if (c === undefined) {
    try {
      const program = evalEnv.parse(rewriteHas(rule));
      const checked = program.check();
      c = checked.valid ? { ok: true, program } : { ok: false, error: firstLine(checked.error?.message) };
      if (c.ok && checked.type !== 'bool' && checked.type !== 'dyn') {
        c = { ok: false, error: `rule must evaluate to bool, not ${checked.type}` };
      }
    } catch (e) {
      c = { ok: false, error: firstLine((e as Error).message) };
    }
    cache.set(rule, c);
  }
  return c;
}

/**
 * Type-checks a rule with `self` typed from `schema` (objects with properties
 * become named types, maps `map<string, T>`, lists `list<T>`; preserved or
 * int-or-string nodes are `dyn`).
 * @returns undefined when the rule is well-typed, else the checker's message
 */
export function checkRuleTyped(rule: string, schema: JSONSchemaProps): string | undefined {
  const env = addKubernetesLibraries(new Environment({ enableOptionalTypes: true }));
  let n = 0;
  const typeOf = (s: JSONSchemaProps): string => {
    if (s['x-kubernetes-int-or-string']) return 'dyn';
    switch (s.type) {
      case 'string':
        return 'string';
      case 'integer':
        return 'int';
      case 'number':
        return 'double';
      case 'boolean':
        return 'bool';
      case 'array':
        return `list<${s.items ? typeOf(s.items) : 'dyn'}>`;
      case 'object': {
        if (s.properties !== undefined && Object.keys(s.properties).length > 0) {
          const name = `Node${n++}`;
          const fields: Record<string, string> = {};
          if (s['x-kubernetes-embedded-resource']) Object.assign(fields, { apiVersion: 'string', kind: 'string', metadata: 'dyn' });
          for (const [k, v] of Object.entries(s.properties)) {
            const name = escapeCelName(k);
            if (name !== undefined) fields[name] = typeOf(v);
          }
          env.registerType(name, { fields });
          return name;
        }
        if (typeof s.additionalProperties === 'object') return `map<string, ${typeOf(s.additionalProperties)}>`;
        return s['x-kubernetes-preserve-unknown-fields'] ? 'dyn' : 'map<string, dyn>';
      }
      default:
        return 'dyn';
    }
  };
  try {
    env.registerVariable('self', typeOf(schema));
    const r = env.check(rewriteHas(rule));
    return r.valid ? undefined : firstLine(r.error?.message);
  } catch (e) {
    return firstLine((e as Error).message);
  }
}

/** True for transition rules, which need `oldSelf` and are skipped in create-style validation. */
export function isTransitionRule(rule: ValidationRule): boolean {
  return /\boldSelf\b/.test(rule.rule);
}

/**
 * Converts a JSON value into the CEL value Kubernetes binds for a node of
 * `schema`: `integer` → BigInt, `number` → double, recursively; unknown
 * (preserved) integers → BigInt; the keys of an object whose schema declares
 * properties → their escaped CEL names (`namespace` → `__namespace__`), keys
 * CEL cannot name left out; map keys as they are.
 */
export function toCelValue(schema: JSONSchemaProps | undefined, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  if (typeof value === 'number') {
    if (schema?.type === 'number') return value;
    return Number.isInteger(value) ? BigInt(value) : value;
  }
  if (Array.isArray(value)) return value.map((v) => toCelValue(schema?.items, v));
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    const escaped = hasEscapedNames(schema);
    for (const [k, v] of Object.entries(value)) {
      const name = escaped ? escapeCelName(k) : k;
      if (name === undefined) continue;
      const child =
        schema?.properties?.[k] ?? (typeof schema?.additionalProperties === 'object' ? schema.additionalProperties : undefined);
      out[name] = toCelValue(child, v);
    }
    return out;
  }
  return value;
}

/** The outcome of one rule on one node: passed, failed, or could not be evaluated. */
export type RuleOutcome = { result: 'pass' } | { result: 'fail' } | { result: 'error'; error: string };

/** Evaluates a compiled rule with `self` bound to `celSelf` (already converted by {@link toCelValue}). */
export function evaluateRule(program: Program, celSelf: unknown): RuleOutcome {
  try {
    const r = program({ self: celSelf });
    if (r === true) return { result: 'pass' };
    if (r === false) return { result: 'fail' };
    return { result: 'error', error: `rule returned ${typeof r}, not bool` };
  } catch (e) {
    return { result: 'error', error: firstLine((e as Error).message) };
  }
}

/** The message Kubernetes reports for a failed rule: its `message`, else `failed rule: <rule>`. */
export function ruleMessage(rule: ValidationRule): string {
  return rule.message !== undefined && rule.message.trim() !== '' ? rule.message : `failed rule: ${rule.rule}`;
}

/**
 * cel-js accepts `has(x.f)` only when `x` is a chain of field selections from
 * an identifier; CEL (and Kubernetes) accept any operand, e.g.
 * `has(self[0].matches)` in Gateway API rules. Such calls are rewritten to the
 * equivalent optional-field test `(x).?f.hasValue()`.
 */
export function rewriteHas(rule: string): string {
  let ast: Ast;
  try {
    ast = evalEnv.parse(rule).ast as Ast;
  } catch {
    return rule;
  }
  const edits: Array<{ start: number; end: number; text: string }> = [];
  const visit = (n: unknown): void => {
    if (Array.isArray(n)) {
      for (const x of n) visit(x);
      return;
    }
    if (!isAst(n)) return;
    const node = n as Ast & { start: number; end: number };
    if (node.op === 'call' && Array.isArray(node.args) && node.args[0] === 'has') {
      const sel = (node.args[1] as unknown[])[0] as (Ast & { start: number; end: number }) | undefined;
      if (sel?.op === '.') {
        let base = (sel.args as [Ast, string])[0];
        while (base.op === '.') base = (base.args as [Ast, string])[0];
        if (base.op !== 'id') {
          const [recv, field] = sel.args as [Ast & { start: number; end: number }, string];
          edits.push({ start: node.start, end: node.end, text: `(${rule.slice(recv.start, recv.end)}).?${field}.hasValue()` });
          return;
        }
      }
    }
    visit(node.args);
  };
  visit(ast);
  let out = rule;
  for (const e of edits.sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}

function firstLine(s: string | undefined): string {
  return (s ?? 'unknown error').split('\n')[0]!.trim();
}

// ---------------------------------------------------------------------------
// Lint: what the API server needs to accept a rule, plus our house rules.

type Ast = { op: string; args: unknown };
const KEY: JSONSchemaProps = { type: 'string', maxLength: 1 << 30 };
const ITERATING_MACROS = new Set(['all', 'exists', 'exists_one', 'filter', 'map']);

/**
 * Lints one rule sitting on `schema` at `at` (a schema path such as
 * `spec.devices[*]`): it must compile and type-check against the schema, carry
 * a static `message` and no `messageExpression`, and every list, map or string
 * it iterates or calls `size()`/`matches()` on must be bounded by
 * `maxItems`/`maxProperties`/`maxLength` (or an enum), so the API server's cost
 * estimate stays finite (crossplane.md §3.1, Kubernetes CEL cost limits).
 * @returns problems, empty when the rule is fine; each starts with `<at>: rule "<rule>": `
 */
export function lintRule(rule: ValidationRule, schema: JSONSchemaProps, at: string): string[] {
  const out: string[] = [];
  const say = (m: string) => out.push(`${at}: rule ${JSON.stringify(rule.rule)}: ${m}`);
  if (rule.messageExpression !== undefined) say('uses messageExpression; use a static message');
  if (rule.message === undefined || rule.message.trim() === '') say('has no message');
  const c = compileRule(rule.rule);
  if (!c.ok) {
    say(`does not compile: ${c.error}`);
    return out;
  }
  const typed = checkRuleTyped(rule.rule, schema);
  if (typed !== undefined) say(`does not type-check against the schema: ${typed}`);
  walk(c.program.ast as Ast, new Map([['self', { schema, path: 'self' }]]), (m) => say(m));
  return out;
}

type Bound = { schema: JSONSchemaProps; path: string };

function walk(node: Ast, scope: Map<string, Bound>, say: (m: string) => void): Bound | undefined {
  const args = node.args;
  const sub = (n: unknown, s = scope) => (isAst(n) ? walk(n, s, say) : undefined);
  switch (node.op) {
    case 'id':
      return scope.get(String(args));
    case '.':
    case '.?': {
      const [obj, field] = args as [Ast, string];
      const b = sub(obj);
      const s = propertyByCelName(b?.schema, field) ?? mapValue(b?.schema);
      return b && s ? { schema: s, path: `${b.path}.${field}` } : undefined;
    }
    case '[]':
    case '[?]': {
      const [obj, idx] = args as [Ast, Ast];
      const b = sub(obj);
      sub(idx);
      if (b === undefined) return undefined;
      const s = b.schema.type === 'array' ? b.schema.items : mapValue(b.schema);
      return s ? { schema: s, path: `${b.path}[*]` } : undefined;
    }
    case 'rcall': {
      const [name, recv, fnArgs] = args as [string, Ast, unknown[]];
      const b = sub(recv);
      if (ITERATING_MACROS.has(name) && isAst(fnArgs[0]) && fnArgs[0].op === 'id') {
        if (b) requireBound(b, `${name}()`, say);
        const elem: Bound | undefined = b
          ? b.schema.type === 'array' && b.schema.items
            ? { schema: b.schema.items, path: `${b.path}[*]` }
            : { schema: KEY, path: `${b.path} key` }
          : undefined;
        const inner = new Map(scope);
        if (elem) inner.set(String(fnArgs[0].args), elem);
        else inner.delete(String(fnArgs[0].args));
        for (const a of fnArgs.slice(1)) sub(a, inner);
        return undefined;
      }
      if ((name === 'size' || name === 'matches') && b) requireBound(b, `${name}()`, say);
      for (const a of fnArgs) sub(a);
      return undefined;
    }
    case 'call': {
      const [name, fnArgs] = args as [string, unknown[]];
      const sel = fnArgs[0];
      if (name === 'has' && isAst(sel) && sel.op === '.') {
        // cel-js does not type-check has(); Kubernetes rejects undeclared fields there too.
        const [obj, field] = sel.args as [Ast, string];
        const b = sub(obj);
        const s = b?.schema;
        if (
          s?.properties !== undefined &&
          s.additionalProperties === undefined &&
          !s['x-kubernetes-preserve-unknown-fields'] &&
          propertyByCelName(s, field) === undefined
        ) {
          say(`has() on undeclared field ${b!.path}.${field}`);
        }
        return undefined;
      }
      const bs = fnArgs.map((a) => sub(a));
      if ((name === 'size' || name === 'matches') && bs[0]) requireBound(bs[0], `${name}()`, say);
      return undefined;
    }
    default:
      if (Array.isArray(args)) {
        for (const a of args) {
          if (Array.isArray(a)) for (const x of a) sub(x);
          else sub(a);
        }
      }
      return undefined;
  }
}

function mapValue(s: JSONSchemaProps | undefined): JSONSchemaProps | undefined {
  return s !== undefined && typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
}

function requireBound(b: Bound, use: string, say: (m: string) => void): void {
  const s = b.schema;
  if (s === KEY) return;
  if (s.type === 'array' && s.maxItems === undefined) say(`${use} on ${b.path}, a list without maxItems`);
  if (s.type === 'object' && s.properties === undefined && s.maxProperties === undefined)
    say(`${use} on ${b.path}, a map without maxProperties`);
  if (s.type === 'string' && s.maxLength === undefined && s.enum === undefined)
    say(`${use} on ${b.path}, a string without maxLength`);
}

function isAst(n: unknown): n is Ast {
  return typeof n === 'object' && n !== null && 'op' in n;
}
