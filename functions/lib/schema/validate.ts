/**
 * Validates a Kubernetes object against a structural schema the way
 * `crossplane resource validate` does (docs/composition.md#validation): structural
 * defaults first, then OpenAPI validation as the API server runs it for custom
 * resources (types, required, enum, bounds, pattern, list-type uniqueness),
 * unknown fields reported as errors (the API server would prune them), and the
 * `x-kubernetes-validations` CEL rules, create-style (no `oldSelf`).
 *
 * Error paths are Kubernetes field paths (`spec.devices[0].claim`, map keys as
 * `attributes[arch]`) and error bodies are the API server's (see messages.ts).
 *
 * Divergences (deliberate):
 * - `metadata` is checked only for the name length the schema declares;
 *   the API server's ObjectMeta validation is out of scope. A cluster-scoped
 *   kind given `metadata.namespace` is accepted and the namespace dropped from
 *   the returned value, as the API server does
 *   (docs/design.md#cluster-scoped-kinds-ignore-a-namespace).
 * - `format` is not enforced (the API server checks a few, e.g. int32 ranges).
 * - CEL: see cel.ts. A rule that does not compile in our environment is not an
 *   error of the object (the API server accepted it when the CRD was written);
 *   it is returned in `skippedRules`.
 */
import { applyDefaults } from './defaults.js';
import { compileRule, crdActivation, type CrdRuleOutcome, evaluateCrdRule, RUNTIME_CEL_COST_BUDGET, ruleMessageOrDefault } from './cel.js';
import { msg } from './messages.js';
import type { FieldError, JSONSchemaProps } from './types.js';

/** Options of {@link validateObject}. */
export interface ValidateOptions {
  /** Report fields the schema does not declare (as `crossplane resource validate` does). @default true */
  rejectUnknownFields?: boolean;
  /** Evaluate `x-kubernetes-validations` rules. @default true */
  cel?: boolean;
  /** Apply structural defaults before validating. @default true */
  defaults?: boolean;
  /** Scope of the kind; `Cluster` drops a given `metadata.namespace` from the value. @default 'Namespaced' */
  scope?: 'Namespaced' | 'Cluster';
  /**
   * The object before an update: transition rules (`oldSelf`) run where the
   * old value correlates (same property, same map key, same map-list keys),
   * as the API server does. Omitted: create-style validation.
   */
  oldValue?: unknown;
}

/** The outcome of {@link validateObject}. */
export interface ValidationResult {
  /** The object with structural defaults applied (a copy; the input is not mutated). */
  value: unknown;
  /** Problems, in schema walk order; empty when valid. */
  errors: FieldError[];
  /** Rules not evaluated because they do not compile here: `<path>: <rule>: <why>`. */
  skippedRules: string[];
  /** The runtime cost the CEL rules used (of RuntimeCELCostBudget, 10,000,000). */
  celCost: number;
}

interface Ctx {
  errors: FieldError[];
  skipped: string[];
  unknown: boolean;
  cel: boolean;
  /** The runtime cost left for the object's rules (RuntimeCELCostBudget); below 0 no rule runs. */
  budget: { left: number };
}

/**
 * Validates `obj` (a whole object, or any node when `schema` is a sub-schema)
 * against `schema`.
 * @returns the defaulted value, the errors and the skipped rules; never throws
 */
export function validateObject(schema: JSONSchemaProps, obj: unknown, opts: ValidateOptions = {}): ValidationResult {
  let value = opts.defaults === false ? structuredClone(obj) : applyDefaults(schema, obj);
  if (opts.scope === 'Cluster' && isObject(value) && isObject(value['metadata']) && 'namespace' in value['metadata']) {
    const { namespace: _ignored, ...meta } = value['metadata'];
    value = { ...value, metadata: meta };
  }
  const ctx: Ctx = {
    errors: [],
    skipped: [],
    unknown: opts.rejectUnknownFields !== false,
    cel: opts.cel !== false,
    budget: { left: RUNTIME_CEL_COST_BUDGET },
  };
  validateNode(schema, value, '', ctx, true, opts.oldValue);
  const celCost = RUNTIME_CEL_COST_BUDGET - Math.max(ctx.budget.left, 0);
  return { value, errors: ctx.errors, skippedRules: ctx.skipped, celCost: ctx.budget.left < 0 ? RUNTIME_CEL_COST_BUDGET : celCost };
}

function validateNode(s: JSONSchemaProps, v: unknown, path: string, ctx: Ctx, isResource: boolean, old?: unknown): void {
  const err = (message: string, at = path) => ctx.errors.push({ path: at || '<root>', message });
  const name = path || '<root>';
  if (v === null) {
    if (!s.nullable && (s.type !== undefined || s['x-kubernetes-int-or-string'])) err(msg.invalidType(name, s.type ?? 'integer,string', v));
    return;
  }
  if (s['x-kubernetes-int-or-string']) {
    if (!(typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v)))) {
      err(msg.invalidType(name, 'integer,string', v));
      // The API server still evaluates the node's rules, on the value it cannot convert.
      if (ctx.cel) runRules(s, v, path, ctx, isResource, old);
      return;
    }
  } else if (s.type !== undefined && !hasType(s.type, v)) {
    err(msg.invalidType(name, s.type, v));
    if (ctx.cel) runRules(s, v, path, ctx, isResource, old);
    return;
  }
  if (s.enum !== undefined && !s.enum.some((e) => sameJson(e, v))) err(msg.unsupported(v, s.enum));

  if (typeof v === 'string') validateString(s, v, name, err);
  else if (typeof v === 'number') validateNumber(s, v, name, err);
  else if (Array.isArray(v)) validateArray(s, v, path, ctx, err, old);
  else if (isObject(v)) validateObjectNode(s, v, path, ctx, err, isResource || !!s['x-kubernetes-embedded-resource'], old);

  for (const [kw, check] of [
    ['oneOf', (n: number) => n === 1],
    ['anyOf', (n: number) => n >= 1],
  ] as const) {
    const branches = s[kw];
    if (branches === undefined) continue;
    const passing = branches.filter((b) => branchValid(b, v)).length;
    if (!check(passing)) err(kw === 'oneOf' ? msg.oneOf(name) : msg.anyOf(name));
  }
  for (const b of s.allOf ?? []) validateNode(b, v, path, { ...ctx, unknown: false }, false);
  if (s.not !== undefined && branchValid(s.not, v)) err(msg.not(name));

  if (ctx.cel) runRules(s, v, path, ctx, isResource || !!s['x-kubernetes-embedded-resource'], old);
}

function validateString(s: JSONSchemaProps, v: string, name: string, err: (m: string) => void): void {
  const len = [...v].length;
  if (s.maxLength !== undefined && len > s.maxLength) err(msg.tooLong(s.maxLength));
  if (s.minLength !== undefined && len < s.minLength) err(msg.tooShort(name, v, s.minLength));
  if (s.pattern !== undefined) {
    const re = regex(s.pattern);
    if (re !== undefined && !re.test(v)) err(msg.pattern(name, v, s.pattern));
  }
}

const regexCache = new Map<string, RegExp | undefined>();

/** A pattern as a JS RegExp (ECMA-262 and RE2 agree on what CRD patterns use); undefined when JS cannot compile it. */
function regex(pattern: string): RegExp | undefined {
  if (!regexCache.has(pattern)) {
    let re: RegExp | undefined;
    try {
      re = new RegExp(pattern, 'u');
    } catch {
      re = undefined;
    }
    regexCache.set(pattern, re);
  }
  return regexCache.get(pattern);
}

function validateNumber(s: JSONSchemaProps, v: number, name: string, err: (m: string) => void): void {
  if (s.minimum !== undefined && (s.exclusiveMinimum ? v <= s.minimum : v < s.minimum))
    err(msg.minimum(name, v, s.minimum, !!s.exclusiveMinimum));
  if (s.maximum !== undefined && (s.exclusiveMaximum ? v >= s.maximum : v > s.maximum))
    err(msg.maximum(name, v, s.maximum, !!s.exclusiveMaximum));
  if (s.multipleOf !== undefined && !Number.isInteger(v / s.multipleOf)) err(msg.multipleOf(name, v, s.multipleOf));
}

function validateArray(s: JSONSchemaProps, v: unknown[], path: string, ctx: Ctx, err: (m: string, at?: string) => void, old?: unknown): void {
  const name = path || '<root>';
  if (s.maxItems !== undefined && v.length > s.maxItems) err(msg.tooManyItems(v.length, s.maxItems));
  if (s.minItems !== undefined && v.length < s.minItems) err(msg.tooFewItems(name, v.length, s.minItems));
  v.forEach((item, i) => {
    if (s.items !== undefined) validateNode(s.items, item, `${path}[${i}]`, ctx, !!s.items['x-kubernetes-embedded-resource'], correlated(s, item, old));
  });
  const listType = s['x-kubernetes-list-type'];
  if (listType === 'set' || s.uniqueItems) {
    const seen = new Set<string>();
    v.forEach((item, i) => {
      const k = JSON.stringify(item);
      if (seen.has(k)) err(msg.duplicate(item), `${path}[${i}]`);
      seen.add(k);
    });
  } else if (listType === 'map') {
    const keys = s['x-kubernetes-list-map-keys'] ?? [];
    const seen = new Set<string>();
    v.forEach((item, i) => {
      if (!isObject(item)) return;
      const key: Record<string, unknown> = {};
      for (const k of keys) if (item[k] !== undefined) key[k] = item[k];
      const id = JSON.stringify(key);
      if (seen.has(id)) err(msg.duplicate(key), `${path}[${i}]`);
      seen.add(id);
    });
  }
}

function validateObjectNode(
  s: JSONSchemaProps,
  v: Record<string, unknown>,
  path: string,
  ctx: Ctx,
  err: (m: string, at?: string) => void,
  isResource: boolean,
  old?: unknown,
): void {
  const name = path || '<root>';
  const at = (k: string) => (path ? `${path}.${k}` : k);
  for (const r of s.required ?? []) if (v[r] === undefined || (v[r] === null && !s.properties?.[r]?.nullable)) err(msg.required(), at(r));
  const n = Object.keys(v).length;
  if (s.maxProperties !== undefined && n > s.maxProperties) err(msg.tooManyItems(n, s.maxProperties));
  if (s.minProperties !== undefined && n < s.minProperties) err(msg.tooFewProperties(name, n, s.minProperties));
  const mapSchema = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
  const preserve = !!s['x-kubernetes-preserve-unknown-fields'] || s.additionalProperties === true;
  for (const [k, child] of Object.entries(v)) {
    if (child === undefined) continue;
    if (isResource && k === 'metadata') {
      validateMetadata(s.properties?.['metadata'], child, at(k), ctx);
      continue;
    }
    const ps = s.properties?.[k];
    const oldChild = isObject(old) ? old[k] : undefined;
    if (ps !== undefined) validateNode(ps, child, at(k), ctx, !!ps['x-kubernetes-embedded-resource'], oldChild);
    else if (mapSchema !== undefined) validateNode(mapSchema, child, `${path}[${k}]`, ctx, !!mapSchema['x-kubernetes-embedded-resource'], oldChild);
    else if (isResource && (k === 'apiVersion' || k === 'kind')) {
      if (typeof child !== 'string') err(msg.invalidType(at(k), 'string', child), at(k));
    } else if (ctx.unknown && !preserve && s.properties !== undefined) err(msg.unknownField(), at(k));
    else if (ctx.unknown && !preserve && s.type === 'object' && s.additionalProperties === undefined) err(msg.unknownField(), at(k));
  }
}

/** Only the name length is ours to check; the API server validates the rest of ObjectMeta. */
function validateMetadata(s: JSONSchemaProps | undefined, v: unknown, path: string, ctx: Ctx): void {
  if (!isObject(v)) {
    ctx.errors.push({ path, message: msg.invalidType(path, 'object', v) });
    return;
  }
  const nameSchema = s?.properties?.['name'];
  if (nameSchema !== undefined && v['name'] !== undefined) validateNode(nameSchema, v['name'], `${path}.name`, ctx, false);
}

/** The old item a new item of a map list correlates with (same key fields); other lists do not correlate. */
function correlated(s: JSONSchemaProps, item: unknown, old: unknown): unknown {
  if (s['x-kubernetes-list-type'] !== 'map' || !Array.isArray(old) || !isObject(item)) return undefined;
  const keys = s['x-kubernetes-list-map-keys'] ?? [];
  return old.find((o) => isObject(o) && keys.every((k) => sameJson(o[k], item[k])));
}

function runRules(s: JSONSchemaProps, v: unknown, path: string, ctx: Ctx, isResourceRoot: boolean, old?: unknown): void {
  const rules = s['x-kubernetes-validations'];
  if (rules === undefined || rules.length === 0 || v === null || v === undefined) return;
  const type = s.type ?? 'object';
  const here = path || '<root>';
  if (ctx.budget.left <= 0) {
    if (ctx.budget.left === 0) ctx.errors.push({ path: here, message: msg.ruleError(type, BUDGET_EXHAUSTED) });
    ctx.budget.left = -1;
    return;
  }
  let activation: ReturnType<typeof crdActivation> | undefined;
  for (const rule of rules) {
    const c = compileRule(rule, s, isResourceRoot);
    if (c.kind === 'EmptyRule') continue;
    if (c.kind === 'CrdRuleError') {
      ctx.skipped.push(`${here}: ${rule.rule}: ${c.detail}`);
      continue;
    }
    activation ??= crdActivation(s, isResourceRoot, v, old === null ? undefined : old);
    const out: CrdRuleOutcome = evaluateCrdRule(c, activation, ctx.budget.left);
    ctx.budget.left -= out.cost;
    const at = rule.fieldPath !== undefined ? joinFieldPath(path, rule.fieldPath) : here;
    if (out.result === 'fail') ctx.errors.push({ path: at, message: msg.rule(rule.reason, type, out.message ?? ruleMessageOrDefault(rule)) });
    else if (out.result === 'error') {
      ctx.errors.push({ path: here, message: msg.ruleError(type, out.error) });
      if (out.stop) {
        ctx.budget.left = -1;
        return;
      }
    }
  }
}

const BUDGET_EXHAUSTED = 'validation failed due to running out of cost budget, no further validation rules will be run';

/** Appends a rule's relative `fieldPath` (`.a.b`, `.a['k']`, `.list[0]`) to a field path. */
function joinFieldPath(path: string, fieldPath: string): string {
  const rel = fieldPath.replace(/\['([^']*)'\]/g, '[$1]').replace(/^\./, '');
  if (!path) return rel;
  return rel.startsWith('[') ? `${path}${rel}` : `${path}.${rel}`;
}

function branchValid(s: JSONSchemaProps, v: unknown): boolean {
  const ctx: Ctx = { errors: [], skipped: [], unknown: false, cel: false, budget: { left: 0 } };
  validateNode(s, v, '', ctx, false);
  return ctx.errors.length === 0;
}

function hasType(t: string, v: unknown): boolean {
  switch (t) {
    case 'object':
      return isObject(v);
    case 'array':
      return Array.isArray(v);
    case 'string':
      return typeof v === 'string';
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number';
    case 'boolean':
      return typeof v === 'boolean';
    default:
      return true;
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

