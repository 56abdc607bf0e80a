/**
 * The CEL environment of CRD validation rules (`x-kubernetes-validations`),
 * as the Kubernetes 1.34 API server compiles and evaluates them
 * (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel compilation.go,
 * validation.go), on our engine. Agreement with the real code is checked by
 * the CRD oracle of the repository this package is developed in
 * (test/schema/crd-oracle.test.ts there).
 *
 * Guarantees:
 * - `self` (and `oldSelf`, optional when the rule says `optionalOldSelf`) is
 *   typed from the schema node the rule sits on (crd-types.ts); a rule must
 *   type-check and evaluate to `bool` exactly (dyn is refused, as Kubernetes
 *   does); `messageExpression` must evaluate to `string`;
 * - the estimated cost uses the schema's size bounds, and {@link maxCardinality}
 *   how often the node can repeat in the largest request; the API server
 *   refuses a rule whose cost × cardinality exceeds
 *   {@link STATIC_ESTIMATED_COST_LIMIT} and a CRD whose rules together exceed
 *   {@link STATIC_ESTIMATED_CRD_COST_LIMIT} (checked by the schema lint);
 * - evaluation stops at {@link PER_CALL_LIMIT} per rule and an object's rules
 *   share {@link RUNTIME_CEL_COST_BUDGET};
 * - nothing here throws for user input: compile returns a result or a
 *   Kubernetes-worded error, evaluation an outcome.
 *
 * Deliberate divergences (none changes the verdict on a rule both accept):
 * - the environment is the one Kubernetes 1.34 validates new expressions
 *   with (compatibility version 1.33) for both writing and evaluating rules;
 *   stored rules may also use 1.34's ext.Lists v3, which does not compile here;
 * - the root type is named `selfType` (Kubernetes: `selfType<nanoseconds>`),
 *   which shows only in type-error messages.
 */
import type { Expr } from './ast.js';
import { check, type CheckerEnv } from './checker.js';
import { estimateCost } from './cost.js';
import {
  assignTypeNames,
  type CrdSchema,
  crdSizeEstimator,
  type DeclType,
  maxCardinality,
  schemaDeclType,
  structFields,
  withTypeAndObjectMeta,
} from './crd-types.js';
import { toCrdValue } from './crd-values.js';
import { BASE_FUNCTIONS, CelCompileError, errorAt, typeName } from './environment.js';
import { COST_LIMIT_MESSAGE, type EvalState, PlanError, type Program, plan } from './interpreter.js';
import { CelSyntaxError, parse } from './parser.js';
import { TYPE_IDENTS } from './stdlib.js';
import { type CelType, optionalOf } from './types.js';
import { CelError, CelOptional, type CelValue } from './values.js';

export type { CrdSchema, DeclType } from './crd-types.js';
export { schemaDeclType } from './crd-types.js';
export { toCrdValue } from './crd-values.js';

/** celconfig.PerCallLimit: the runtime cost limit of one rule evaluation. */
export const PER_CALL_LIMIT = 1_000_000;
/** celconfig.RuntimeCELCostBudget: the runtime cost all rules of one object share. */
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;
/** StaticEstimatedCostLimit: the largest estimated cost × cardinality of one rule. */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000n;
/** StaticEstimatedCRDCostLimit: the largest total of a CRD's rules. */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000n;

/** One `x-kubernetes-validations` entry, as far as compiling it is concerned. */
export interface CrdRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/** A compiled expression of a rule. */
export interface CompiledExpression {
  readonly program: Program;
  /** The worst-case cost Kubernetes estimates for one evaluation. */
  readonly estimatedCost: bigint;
}

/** A rule ready to evaluate. */
export interface CompiledCrdRule extends CompiledExpression {
  readonly kind: 'CompiledCrdRule';
  readonly rule: CrdRule;
  readonly usesOldSelf: boolean;
  /** How often data of this node can repeat in one request (the factor of the static limit). */
  readonly maxCardinality: bigint;
  /** The compiled messageExpression, or why it does not compile. */
  readonly message?: CompiledExpression | { readonly error: string };
}

/** A rule Kubernetes would refuse: `detail` in its words (`compilation failed: ERROR: <input>:1:6: …`). */
export interface CrdRuleError {
  readonly kind: 'CrdRuleError';
  readonly rule: CrdRule;
  readonly detail: string;
}

/** The compilation of one rule; an empty (blank) rule is skipped, as Kubernetes does. */
export type CrdRuleCompilation = CompiledCrdRule | CrdRuleError | { readonly kind: 'EmptyRule'; readonly rule: CrdRule };

/** The declarations rules on one schema node are checked against. */
interface NodeEnv {
  readonly decl: DeclType;
  readonly env: CheckerEnv;
  readonly optionalEnv: CheckerEnv;
  readonly cardinality: bigint;
}

const ROOT_TYPE_NAME = 'selfType';
const envCache = new WeakMap<CrdSchema, Map<boolean, NodeEnv | string>>();

function nodeEnv(schema: CrdSchema, isResourceRoot: boolean): NodeEnv | string {
  let byRoot = envCache.get(schema);
  if (byRoot === undefined) {
    byRoot = new Map();
    envCache.set(schema, byRoot);
  }
  let e = byRoot.get(isResourceRoot);
  if (e === undefined) {
    const raw = schemaDeclType(schema, isResourceRoot);
    if (raw === undefined) {
      e = 'failed to convert to declType for CEL validation rules';
    } else {
      const decl = assignTypeNames(raw, ROOT_TYPE_NAME);
      const structs = structFields(decl);
      const make = (oldSelf: CelType): CheckerEnv => ({
        idents: new Map<string, CelType>([['self', decl.celType], ['oldSelf', oldSelf], ...TYPE_IDENTS]),
        functions: BASE_FUNCTIONS,
        structs,
      });
      e = { decl, env: make(decl.celType), optionalEnv: make(optionalOf(decl.celType)), cardinality: maxCardinality(raw.minSerializedSize) };
    }
    byRoot.set(isResourceRoot, e);
  }
  return e;
}

type Compiled = { ok: true; value: CompiledExpression; usesOldSelf: boolean } | { ok: false; error: CelCompileError | string };

function compileExpression(source: string, node: NodeEnv, env: CheckerEnv, want: 'bool' | 'string'): Compiled {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(source, { bind: false });
  } catch (e) {
    if (e instanceof CelSyntaxError) return { ok: false, error: errorAt(source, e.offset, e.message) };
    throw e;
  }
  const checked = check(parsed, env);
  if (Array.isArray(checked)) {
    const first = checked[0]!;
    return { ok: false, error: errorAt(source, parsed.offsets.get(first.id) ?? 0, first.message) };
  }
  const out = checked.outputType;
  if (out.kind !== want) return { ok: false, error: want === 'bool' ? 'cel expression must evaluate to a bool' : 'messageExpression must evaluate to a string' };
  let program: Program;
  try {
    program = plan(checked, BASE_FUNCTIONS, ['self', 'oldSelf']);
  } catch (e) {
    if (e instanceof PlanError) return { ok: false, error: `program instantiation failed: ${e.message}` };
    throw e;
  }
  const estimatedCost = estimateCost(checked, crdSizeEstimator(node.decl)).max;
  return { ok: true, value: { program, estimatedCost }, usesOldSelf: references(checked.expr, 'oldSelf') };
}

/** True when `name` is used as a free variable (not shadowed by a comprehension variable). */
function references(e: Expr, name: string, bound: ReadonlySet<string> = new Set()): boolean {
  switch (e.kind) {
    case 'lit':
      return false;
    case 'ident':
      return e.name === name && !bound.has(name);
    case 'select':
      return references(e.operand, name, bound);
    case 'call':
      return (e.target !== undefined && references(e.target, name, bound)) || e.args.some((a) => references(a, name, bound));
    case 'list':
      return e.elems.some((x) => references(x, name, bound));
    case 'map':
      return e.entries.some((en) => references(en.key, name, bound) || references(en.value, name, bound));
    case 'struct':
      return e.fields.some((f) => references(f.value, name, bound));
    case 'comp': {
      if (references(e.iterRange, name, bound) || references(e.accuInit, name, bound)) return true;
      const inner = new Set(bound).add(e.accuVar);
      if (references(e.result, name, inner)) return true;
      const loop = new Set(inner).add(e.iterVar);
      if (e.iterVar2 !== undefined) loop.add(e.iterVar2);
      return references(e.loopCond, name, loop) || references(e.loopStep, name, loop);
    }
  }
}

const ruleCache = new WeakMap<CrdSchema, Map<string, CrdRuleCompilation>>();

/**
 * Compiles one rule on the schema node it sits on (`isResourceRoot` for the
 * root of a resource or an embedded resource), cached per node and rule.
 */
export function compileCrdRule(rule: CrdRule, schema: CrdSchema, isResourceRoot: boolean): CrdRuleCompilation {
  let bySchema = ruleCache.get(schema);
  if (bySchema === undefined) {
    bySchema = new Map();
    ruleCache.set(schema, bySchema);
  }
  const key = JSON.stringify([rule.rule, rule.messageExpression ?? null, !!rule.optionalOldSelf, isResourceRoot]);
  let c = bySchema.get(key);
  if (c === undefined) {
    try {
      c = compileUncached(rule, schema, isResourceRoot);
    } catch (e) {
      c = { kind: 'CrdRuleError', rule, detail: `unexpected compilation error: ${e instanceof Error ? e.message : String(e)}` };
    }
    bySchema.set(key, c);
  }
  return c;
}

function compileUncached(rule: CrdRule, schema: CrdSchema, isResourceRoot: boolean): CrdRuleCompilation {
  if (rule.rule.trim() === '') return { kind: 'EmptyRule', rule };
  const node = nodeEnv(schema, isResourceRoot);
  if (typeof node === 'string') return { kind: 'CrdRuleError', rule, detail: node };
  const env = rule.optionalOldSelf ? node.optionalEnv : node.env;
  const r = compileExpression(rule.rule, node, env, 'bool');
  if (!r.ok) {
    const detail = typeof r.error === 'string' ? r.error : `compilation failed: ${r.error.toString()}`;
    return { kind: 'CrdRuleError', rule, detail };
  }
  let message: CompiledCrdRule['message'];
  if (rule.messageExpression !== undefined && rule.messageExpression !== '') {
    const m = compileExpression(rule.messageExpression, node, env, 'string');
    message = m.ok
      ? m.value
      : { error: typeof m.error === 'string' ? m.error : `messageExpression compilation failed: ${m.error.toString()}` };
  }
  return {
    kind: 'CompiledCrdRule',
    rule,
    program: r.value.program,
    estimatedCost: r.value.estimatedCost,
    usesOldSelf: r.usesOldSelf,
    maxCardinality: node.cardinality,
    ...(message !== undefined ? { message } : {}),
  };
}

/** The outcome of one rule on one value. */
export type CrdRuleOutcome =
  | { readonly result: 'pass' | 'skip'; readonly cost: number }
  | { readonly result: 'fail'; readonly cost: number; readonly message?: string }
  | { readonly result: 'error'; readonly cost: number; readonly error: string; readonly stop: boolean };

/** Values bound to a node's rules: `self` and, for updates, `oldSelf`. */
export interface CrdActivation {
  readonly self: CelValue;
  readonly oldSelf?: CelValue;
}

/** Binds a JSON value (and an old one) to the variables of a schema node's rules. */
export function crdActivation(schema: CrdSchema, isResourceRoot: boolean, value: unknown, oldValue?: unknown): CrdActivation {
  const s = isResourceRoot ? withTypeAndObjectMeta(schema) : schema;
  const self = toCrdValue(value, s);
  return oldValue === undefined ? { self } : { self, oldSelf: toCrdValue(oldValue, s) };
}

/**
 * Evaluates a compiled rule with the per-call limit and the object's
 * `remaining` budget: `pass`; `skip` for a transition rule without an old
 * value; `fail` with the evaluated messageExpression (when it has one and
 * it evaluates); `error` with Kubernetes' wording and whether no further
 * rule may run (the cost limit or budget ran out).
 */
export function evaluateCrdRule(c: CompiledCrdRule, a: CrdActivation, remaining: number): CrdRuleOutcome {
  const optional = !!c.rule.optionalOldSelf;
  if (c.usesOldSelf && a.oldSelf === undefined && !optional) return { result: 'skip', cost: 0 };
  const oldSelf = optional ? (a.oldSelf === undefined ? CelOptional.NONE : CelOptional.of(a.oldSelf)) : (a.oldSelf ?? null);
  const run = runProgram(c, a.self, oldSelf);
  const label = ruleErrorString(c.rule);
  if (run.cost > remaining) {
    return { result: 'error', cost: run.cost, error: 'validation failed due to running out of cost budget, no further validation rules will be run', stop: true };
  }
  if ('error' in run) {
    if (run.error.startsWith('no such overload')) {
      return { result: 'error', cost: run.cost, stop: false, error: `'${run.error}': call arguments did not match a supported operator, function or macro signature for rule: ${label}` };
    }
    if (run.error.startsWith(COST_LIMIT_MESSAGE)) {
      return { result: 'error', cost: run.cost, stop: true, error: `'${run.error}': no further validation rules will be run due to call cost exceeds limit for rule: ${label}` };
    }
    return { result: 'error', cost: run.cost, stop: false, error: `${run.error} evaluating rule: ${label}` };
  }
  if (run.value === true) return { result: 'pass', cost: run.cost };
  const m = c.message;
  if (m !== undefined && 'program' in m) {
    const mr = runProgram(m, a.self, oldSelf);
    if (!('error' in mr) && typeof mr.value === 'string' && mr.cost <= remaining - run.cost) {
      const text = mr.value.trim();
      if (text !== '' && !text.includes('\n') && text.length <= 5000) return { result: 'fail', cost: run.cost + mr.cost, message: text };
    }
    return { result: 'fail', cost: run.cost + mr.cost };
  }
  return { result: 'fail', cost: run.cost };
}

function runProgram(c: CompiledExpression, self: CelValue, oldSelf: CelValue): { value: CelValue; cost: number } | { error: string; cost: number } {
  const { root, slots } = c.program;
  const vars: CelValue[] = new Array(slots);
  vars[0] = self;
  vars[1] = oldSelf;
  const state: EvalState = { vars, cost: 0, limit: PER_CALL_LIMIT };
  try {
    const value = root(state);
    if (state.cost > PER_CALL_LIMIT) return { error: COST_LIMIT_MESSAGE, cost: state.cost };
    if (value instanceof CelError) return { error: value.message, cost: state.cost };
    return { value, cost: state.cost };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e), cost: state.cost };
  }
}

/** ruleErrorString: the rule's message when it has one, else its source (trimmed). */
export function ruleErrorString(rule: CrdRule): string {
  return rule.message !== undefined && rule.message.length > 0 ? rule.message.trim() : rule.rule.trim();
}

/** ruleMessageOrDefault: the message of a failed rule. */
export function ruleMessageOrDefault(rule: CrdRule): string {
  return rule.message === undefined || rule.message.length === 0 ? `failed rule: ${ruleErrorString(rule)}` : rule.message.trim();
}

export { escapeCelName } from './crd-names.js';
export { CelCompileError, typeName };
