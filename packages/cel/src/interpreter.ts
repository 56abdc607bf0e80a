/**
 * Turns a checked CEL expression into a tree of closures and evaluates it,
 * with cel-go's evaluation semantics:
 *
 * - `&&`, `||` are commutative over errors (`error && false` is false),
 *   `@not_strictly_false` treats errors as true, `?:` evaluates one branch;
 * - comprehensions keep an error in the accumulator as a value, so
 *   `[0, 1].exists(x, 1/x > 0)` is true;
 * - calls dispatch on the overloads the checker matched, guarding argument
 *   types at run time when the static types were dynamic;
 * - a running cost is counted the way cel-go's cost tracker does (1 per
 *   identifier, selection and call, list/map creation, string-size-based
 *   costs for string functions) and evaluation stops with an error once it
 *   exceeds the limit.
 *
 * Variables live in numbered slots resolved at plan time: the environment's
 * variables first (`device`, or `self` and `oldSelf`), then comprehension
 * variables.
 */
import { ACCUMULATOR, type Expr } from './ast.js';
import type { CheckedAst } from './checker.js';
import { callCost, hasUnitCallCost } from './runtime-cost.js';
import { dispatch, type FunctionDecl, matchesRuntime, type Overload } from './library.js';
import { optIndex } from './operators.js';
import { TYPE_IDENTS } from './stdlib.js';
import type { CelType } from './types.js';
import { CelError, CelMap, CelOptional, CelTypeValue, CelUint, type CelValue, celEquals, noSuchOverload } from './values.js';

/** Evaluation state of one run. */
export interface EvalState {
  readonly vars: CelValue[];
  cost: number;
  readonly limit: number;
}

/** A planned node: evaluates to a value or throws a CelError. */
export type Node = (s: EvalState) => CelValue;

/** A planned program: the root node and the number of variable slots it needs. */
export interface Program {
  readonly root: Node;
  readonly slots: number;
}

/** The error cel-go raises when the runtime cost limit is exceeded. */
export const COST_LIMIT_MESSAGE = 'operation cancelled: actual cost limit exceeded';

function overLimit(s: EvalState): void {
  if (s.cost > s.limit) throw new CelError(COST_LIMIT_MESSAGE);
}

/**
 * A type conversion of a constant failed while planning; Kubernetes reports
 * this at compile time ("program instantiation failed").
 */
export class PlanError extends Error {
  constructor(
    message: string,
    readonly id: number,
  ) {
    super(message);
  }
}

/** The conversions cel-go folds when their argument is constant (overloads.IsTypeConversionFunction). */
const CONVERSIONS = new Set(['bool', 'bytes', 'double', 'duration', 'dyn', 'int', 'string', 'timestamp', 'type', 'uint']);

/**
 * Plans a checked expression for the given function declarations; the
 * variables take slots 0, 1, … in the order given (DRA: `device`; CRD
 * rules: `self`, `oldSelf`). Throws {@link PlanError}.
 */
export function plan(checked: CheckedAst, functions: ReadonlyMap<string, FunctionDecl>, variables: readonly string[] = ['device']): Program {
  const p = new Planner(checked, functions);
  p.maxSlots = Math.max(1, variables.length);
  const root = p.plan(checked.expr, new Map(variables.map((v, i) => [v, i])), variables.length);
  return { root, slots: p.maxSlots };
}

const isDynamic = (t: CelType | undefined): boolean => !t || t.kind === 'dyn' || t.kind === 'any' || t.kind === 'typeparam' || t.params.some(isDynamic);

class Planner {
  maxSlots = 1;
  /** Nodes that are constants (cel-go InterpretableConst), with their values. */
  private readonly consts = new Map<Node, CelValue>();

  private constant(v: CelValue): Node {
    const n: Node = () => v;
    this.consts.set(n, v);
    return n;
  }

  /** Evaluates a node made only of constants, as cel-go's optimizer does while planning. */
  private fold(n: Node): CelValue {
    return n({ vars: [], cost: 0, limit: Number.POSITIVE_INFINITY });
  }

  constructor(
    private readonly checked: CheckedAst,
    private readonly functions: ReadonlyMap<string, FunctionDecl>,
  ) {}

  plan(e: Expr, scope: ReadonlyMap<string, number>, depth: number): Node {
    switch (e.kind) {
      case 'lit':
        return this.constant(e.value);
      case 'ident': {
        const slot = scope.get(e.name);
        if (slot !== undefined) {
          return (s) => {
            s.cost++;
            const v = s.vars[slot]!;
            if (v instanceof CelError) throw v;
            return v;
          };
        }
        const t = TYPE_IDENTS.get(e.name);
        return this.constant(new CelTypeValue(t?.params[0]?.name ?? e.name));
      }
      case 'select': {
        const operand = this.plan(e.operand, scope, depth);
        const field = e.field;
        if (e.testOnly) {
          // cel-go charges the presence test's qualifier and takes one off (PresenceTestHasCost(false));
          // when the attribute fails before the test, only the taking off is left.
          return (s) => {
            let o: CelValue;
            try {
              o = operand(s);
            } catch (err) {
              s.cost--;
              throw err;
            }
            if (o instanceof CelMap) {
              const v = o.find(field);
              // A field holding a value that could not be converted fails the test too.
              if (v instanceof CelError) throw v;
              return v !== undefined;
            }
            throw noSuchOverload();
          };
        }
        const extra = this.relativeRootCost(e.operand);
        return (s) => {
          let o: CelValue;
          try {
            o = operand(s);
          } catch (err) {
            // A failed attribute applies no further qualifier; a relative one is still observed.
            s.cost += extra;
            throw err;
          }
          if (o instanceof CelOptional) return chargeIfPresent(s, extra, selectField(o, field));
          s.cost += 1 + extra;
          return selectField(o, field);
        };
      }
      case 'list': {
        const elems = e.elems.map((x) => this.plan(x, scope, depth));
        const opt = new Set(e.optIndices);
        const folded = elems.every((x) => this.consts.has(x));
        if (opt.size === 0) {
          // cel-go stops at the first failing element, and still charges the list.
          const list: Node = (s) => {
            try {
              return elems.map((x) => x(s));
            } finally {
              s.cost += 10;
            }
          };
          return folded ? this.foldOrThrowing(list) : list;
        }
        const list: Node = (s) => {
          s.cost += 10;
          const out: CelValue[] = [];
          elems.forEach((x, i) => {
            const v = x(s);
            if (!opt.has(i)) out.push(v);
            else if (!(v instanceof CelOptional)) throw noSuchOverload();
            else if (v.hasValue()) out.push(v.value!);
          });
          return out;
        };
        return folded ? this.foldOrThrowing(list) : list;
      }
      case 'map': {
        const entries = e.entries.map((en) => [this.plan(en.key, scope, depth), this.plan(en.value, scope, depth), en.optional] as const);
        const map: Node = (s) => {
          s.cost += 30;
          const m = new CelMap();
          for (const [k, v, optional] of entries) {
            const key = k(s);
            const val = v(s);
            if (!optional) m.set(key, val);
            else if (!(val instanceof CelOptional)) throw noSuchOverload();
            else if (val.hasValue()) m.set(key, val.value!);
          }
          return m;
        };
        return entries.every(([k, v]) => this.consts.has(k) && this.consts.has(v)) ? this.foldOrThrowing(map) : map;
      }
      case 'struct':
        return () => {
          throw new CelError(`unknown type ${e.typeName}`);
        };
      case 'comp':
        return this.planComprehension(e, scope, depth);
      case 'call':
        return this.planCall(e, scope, depth);
    }
  }

  /** The extra cost of qualifying a value that is not an attribute (cel-go's relative attribute). */
  private relativeRootCost(operand: Expr): number {
    return isAttribute(operand) ? 0 : 1;
  }

  /** A folded constant, or (when folding fails) a node that fails the same way at evaluation. */
  private foldOrThrowing(n: Node): Node {
    try {
      return this.constant(this.fold(n));
    } catch (err) {
      return () => {
        throw err;
      };
    }
  }

  private planComprehension(e: Expr & { kind: 'comp' }, scope: ReadonlyMap<string, number>, depth: number): Node {
    const iterRange = this.plan(e.iterRange, scope, depth);
    const accuInit = this.plan(e.accuInit, scope, depth);
    const accuSlot = depth;
    const slot1 = depth + 1;
    const slot2 = depth + 2;
    const two = e.iterVar2 !== undefined;
    const next = depth + (two ? 3 : 2);
    this.maxSlots = Math.max(this.maxSlots, next);
    const accuScope = new Map(scope).set(e.accuVar, accuSlot);
    const loopScope = new Map(accuScope).set(e.iterVar, slot1);
    if (two) loopScope.set(e.iterVar2!, slot2);
    const cond = this.plan(e.loopCond, loopScope, next);
    const step = this.plan(e.loopStep, loopScope, next);
    const result = this.plan(e.result, accuScope, next);
    const isBind = e.accuVar !== ACCUMULATOR && e.loopCond.kind === 'lit' && e.loopCond.value === false;
    if (isBind) {
      return (s) => {
        s.vars[accuSlot] = capture(accuInit, s);
        return result(s);
      };
    }
    return (s) => {
      const range = iterRange(s);
      s.vars[accuSlot] = accuInit(s);
      const body = (k: CelValue, v: CelValue): boolean => {
        s.vars[slot1] = two ? k : v;
        if (two) s.vars[slot2] = v;
        if (capture(cond, s) === false) return false;
        s.vars[accuSlot] = capture(step, s);
        overLimit(s);
        return true;
      };
      if (Array.isArray(range)) {
        for (let i = 0; i < range.length; i++) if (!body(BigInt(i), range[i]!)) break;
      } else if (range instanceof CelMap) {
        for (const [k, v] of range.entries()) if (!body(two ? k : k, two ? v : k)) break;
      } else {
        throw new CelError(`got '${typeof range}', expected iterable type`);
      }
      return result(s);
    };
  }

  private planCall(e: Expr & { kind: 'call' }, scope: ReadonlyMap<string, number>, depth: number): Node {
    const args = [...(e.target ? [e.target] : []), ...e.args].map((a) => this.plan(a, scope, depth));
    const [a0, a1, a2] = args;
    switch (e.fn) {
      case '_&&_':
        return logical(a0!, a1!, false);
      case '_||_':
        return logical(a0!, a1!, true);
      case '@in': {
        // cel-go's optimizer turns `x in <constant list of primitives>` into a set lookup,
        // which is not a call to the cost tracker: only `x` costs (an empty list: nothing).
        const list = a1 !== undefined && this.consts.has(a1) ? this.consts.get(a1) : undefined;
        if (Array.isArray(list) && list.every(isPrimitive)) {
          if (list.length === 0) return this.constant(false);
          return (s) => {
            const v = a0!(s);
            if (v instanceof CelError) throw v;
            return list.some((x) => sameKey(x, v));
          };
        }
        break;
      }
      case '_?_:_': {
        // cel-go plans a ternary as a conditional attribute: a branch that is an
        // attribute is resolved without observing its root (its qualifiers still cost).
        const [t, f] = [rootObservation(e.args[1]!), rootObservation(e.args[2]!)];
        return (s) => {
          const c = a0!(s);
          if (c === true) {
            try {
              return a1!(s);
            } finally {
              s.cost -= t;
            }
          }
          if (c === false) {
            try {
              return a2!(s);
            } finally {
              s.cost -= f;
            }
          }
          throw noSuchOverload();
        };
      }
      case '@not_strictly_false':
        return (s) => {
          s.cost++;
          const v = capture(a0!, s);
          return typeof v === 'boolean' ? v : true;
        };
      case 'or':
      case 'orValue': {
        // cel-go's evalOptionalOr/evalOptionalOrValue are not calls to the cost tracker: free.
        const orValue = e.fn === 'orValue';
        return (s) => {
          const l = a0!(s);
          if (!(l instanceof CelOptional)) throw noSuchOverload();
          if (l.hasValue()) return orValue ? l.value! : l;
          return a1!(s);
        };
      }
      case '_?._': {
        const field = e.args[1]?.kind === 'lit' ? String(e.args[1].value) : '';
        const extra = this.relativeRootCost(e.args[0]!);
        return (s) => chargeIfPresent(s, extra, optIndex(a0!(s), field));
      }
    }
    const decl = this.functions.get(e.fn);
    const overloads = this.checked.overloads.get(e.id) ?? [];
    const call = callImpl(decl, overloads, [...(e.target ? [e.target] : []), ...e.args].map((a) => this.checked.types.get(a.id)));
    const fnName = e.fn;
    const overloadId = overloads[0]?.id ?? '';
    if (!e.target && args.length === 1 && CONVERSIONS.has(fnName) && this.consts.has(a0!)) {
      try {
        return this.constant(call([this.consts.get(a0!)!]));
      } catch (err) {
        throw new PlanError(err instanceof Error ? err.message : String(err), e.id);
      }
    }
    // As cel-go, every argument is evaluated, and the call is charged, even when
    // an argument or the call itself fails; the first failing argument's error wins.
    if (hasUnitCallCost(fnName, overloads.map((o) => o.id))) {
      // An index is a qualifier of its operand's attribute: an operand that is not an
      // attribute costs one more (a relative attribute), a key that is one costs only itself.
      const isIndex = (fnName === '_[_]' || fnName === '_[?_]') && !e.target && e.args.length === 2;
      const qualCost = isIndex && isAttribute(e.args[1]!) ? 0 : 1;
      const relCost = isIndex ? this.relativeRootCost(e.args[0]!) : 0;
      const unitCost = qualCost + relCost;
      if (isIndex) {
        const optionalIndex = fnName === '_[?_]';
        return (s) => {
          const vals = evalArgs(args, s);
          if (vals[0] instanceof CelError) {
            // The attribute failed before this qualifier: only a relative root is observed.
            s.cost += relCost;
            throw vals[0];
          }
          if (vals[0] instanceof CelOptional || (optionalIndex && !(vals[0] instanceof CelError) && !(vals[1] instanceof CelError))) {
            for (const v of vals) if (v instanceof CelError) throw v;
            const r = call(vals);
            if (r instanceof CelOptional) return chargeIfPresent(s, relCost, r, qualCost);
            s.cost += unitCost;
            return r;
          }
          s.cost += unitCost;
          for (const v of vals) if (v instanceof CelError) throw v;
          return call(vals);
        };
      }
      return (s) => {
        const vals = evalArgs(args, s);
        s.cost += unitCost;
        for (const v of vals) if (v instanceof CelError) throw v;
        return call(vals);
      };
    }
    const cost = callCost(fnName, overloadId);
    // cel-go compiles a constant pattern of `matches`, `find` and `findAll` at program
    // creation (OptimizeRegex); the optimized call returns at a failing target before
    // it reaches the pattern, so the cost tracker never sees the call: not charged.
    const regexOptimized = REGEX_OPTIMIZED.has(fnName) && args.length === 2 && this.consts.has(args[1]!);
    return (s) => {
      const vals = evalArgs(args, s);
      if (regexOptimized && vals[0] instanceof CelError) throw vals[0];
      let r: CelValue;
      try {
        for (const v of vals) if (v instanceof CelError) throw v;
        r = call(vals);
      } catch (e) {
        s.cost += cost(vals, e instanceof CelError ? e : new CelError(String(e)));
        throw e;
      }
      s.cost += cost(vals, r);
      return r;
    };
  }
}

/** Functions whose constant pattern cel-go precompiles (MatchesRegexOptimization, Kubernetes' ExtensionLibRegexOptimizations). */
const REGEX_OPTIMIZED: ReadonlySet<string> = new Set(['matches', 'find', 'findAll']);

/**
 * An optional qualification (`x.?f`, `x[?k]`, or any qualifier after one) is
 * observed by cel-go only when it finds a value: 1 (plus `extra`) then, else 0.
 */
function chargeIfPresent(s: EvalState, extra: number, r: CelValue, qualifier = 1): CelValue {
  if (!(r instanceof CelOptional) || r.hasValue()) s.cost += qualifier + extra;
  else s.cost += extra;
  return r;
}

/** Evaluates every argument, errors kept as values (the cost limit still aborts). */
function evalArgs(args: readonly Node[], s: EvalState): CelValue[] {
  const vals = new Array<CelValue>(args.length);
  for (let i = 0; i < args.length; i++) vals[i] = capture(args[i]!, s);
  return vals;
}

/** types.IsPrimitiveType minus bytes (which cel-go cannot hash): bool, int, uint, double, string. */
function isPrimitive(v: CelValue): boolean {
  return typeof v === 'bigint' || typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean' || v instanceof CelUint;
}

/** Set-membership equality of cel-go's optimized `in`: equal values, numbers across int/uint/double when lossless. */
function sameKey(element: CelValue, v: CelValue): boolean {
  if (!isPrimitive(v)) return false;
  try {
    return celEquals(element, v);
  } catch {
    return false;
  }
}

/**
 * True for the expressions cel-go plans as attributes: variables, field
 * selections, indexes, optional selections and indexes, and ternaries.
 */
function isAttribute(e: Expr): boolean {
  switch (e.kind) {
    case 'ident':
      return !TYPE_IDENTS.has(e.name);
    case 'select':
      return !e.testOnly;
    case 'call':
      return !e.target && (e.fn === '_[_]' || e.fn === '_[?_]' || e.fn === '_?._' || e.fn === '_?_:_');
    default:
      return false;
  }
}

/** The cost of observing an attribute's root: 1 for a variable or a relative attribute, 0 for a ternary. */
function rootObservation(e: Expr): number {
  if (!isAttribute(e)) return 0;
  if (e.kind === 'ident') return 1;
  if (e.kind === 'call' && e.fn === '_?_:_') return 0;
  const operand = e.kind === 'select' ? e.operand : (e as Expr & { kind: 'call' }).args[0]!;
  return isAttribute(operand) ? rootObservation(operand) : 1;
}

/** How a call site invokes its function. */
function callImpl(
  decl: FunctionDecl | undefined,
  overloads: readonly Overload[],
  argTypes: readonly (CelType | undefined)[],
): (args: readonly CelValue[]) => CelValue {
  if (decl?.singleton) return decl.singleton;
  const only = overloads.length === 1 ? overloads[0] : undefined;
  if (only?.impl) {
    const impl = only.impl;
    if (!argTypes.some(isDynamic)) return impl;
    const types = only.args;
    return (args) => {
      for (let i = 0; i < types.length; i++) if (!matchesRuntime(types[i]!, args[i]!)) throw noSuchOverload();
      return impl(args);
    };
  }
  return (args) => dispatch(overloads, args);
}

/** Evaluates a node, returning an error as a value instead of throwing. */
function capture(n: Node, s: EvalState): CelValue {
  try {
    return n(s);
  } catch (e) {
    if (e instanceof CelError) {
      if (e.message === COST_LIMIT_MESSAGE) throw e;
      return e;
    }
    return new CelError(e instanceof Error ? e.message : String(e));
  }
}

/** cel-go evalAnd / evalOr: short-circuits on the deciding value, otherwise reports the first error. */
function logical(l: Node, r: Node, or: boolean): Node {
  const decide = or;
  return (s) => {
    const lv = capture(l, s);
    if (lv === decide) return decide;
    const rv = capture(r, s);
    if (rv === decide) return decide;
    if (lv instanceof CelError) throw lv;
    if (rv instanceof CelError) throw rv;
    if (typeof lv !== 'boolean' || typeof rv !== 'boolean') throw noSuchOverload();
    return !decide;
  };
}

/**
 * Field selection on a map value (the device and CRD objects are maps at run
 * time, as in Kubernetes). A field whose value could not be converted holds
 * the conversion error, raised when it is selected.
 */
function selectField(o: CelValue, field: string): CelValue {
  // An element that could not be converted (the index returned it as a value) is raised here.
  if (o instanceof CelError) throw o;
  if (o instanceof CelMap) {
    const v = o.find(field);
    if (v === undefined) throw new CelError(`no such key: ${field}`);
    if (v instanceof CelError) throw v;
    return v;
  }
  if (o instanceof CelOptional) {
    if (!o.hasValue()) return o;
    const inner = o.value!;
    if (inner instanceof CelMap) return optIndex(inner, field, true);
  }
  throw new CelError(`type '${typeof o}' does not support field selection`);
}
