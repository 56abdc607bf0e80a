/**
 * CEL cost: the static worst-case estimate Kubernetes computes when it
 * validates a DRA selector, and the runtime cost it tracks while evaluating.
 *
 * The estimate is cel-go's `checker/cost.go` coster (paths, sizes, entry
 * sizes, comprehension ranges), with the ext.Sets overload estimators, the
 * Kubernetes library estimator and the DRA size estimator (cost-k8s.ts).
 * Presence tests are free (PresenceTestHasCost(false)). Costs are uint64
 * (bigint) and saturate at 2^64-1 like cel-go's (cost-range.ts).
 *
 * The runtime cost is in runtime-cost.ts.
 */
import { ACCUMULATOR, type CompExpr, type Expr } from './ast.js';
import type { CheckedAst } from './checker.js';
import { type CelType, ERROR } from './types.js';
import { codePointLength } from './values.js';
import { type AstNode, draSize, k8sEstimate } from './cost-k8s.js';
import { add, factor, fixed, MAX, mul, type Range, REGEX_LENGTH, sat, STRING_TRAVERSAL, UNKNOWN, union, minB } from './cost-range.js';

export type { Range } from './cost-range.js';

interface EntrySize {
  readonly container: string;
  readonly key: Range;
  readonly val: Range;
}

interface LocalVar {
  readonly path: readonly string[] | undefined;
  readonly size: Range | undefined;
  readonly entry: EntrySize | undefined;
}


/**
 * The declared size bound of a value reached by a path of field names and
 * `@items`/`@values`/`@keys` from a variable (cel-go checker.SizeEstimator).
 */
export type SizeEstimator = (path: readonly string[] | undefined) => Range | undefined;

/**
 * Estimates the worst-case cost of a checked expression, as Kubernetes does at
 * validation; `sizes` bounds the environment's variables (DRA's device by
 * default, a CRD schema for validation rules).
 */
export function estimateCost(checked: CheckedAst, sizes: SizeEstimator = draSize): Range {
  return new Coster(checked, sizes).cost(checked.expr);
}

class Coster {
  private readonly paths = new Map<number, readonly string[]>();
  private readonly locals = new Map<string, LocalVar[]>();
  private readonly sizes = new Map<number, Range>();
  private readonly entries = new Map<number, EntrySize>();

  constructor(
    private readonly checked: CheckedAst,
    private readonly sizeOf: SizeEstimator,
  ) {}

  private type(e: Expr): CelType {
    return this.checked.types.get(e.id) ?? ERROR;
  }

  private peek(name: string): LocalVar | undefined {
    const s = this.locals.get(name);
    return s?.[s.length - 1];
  }

  private push(name: string, v: LocalVar): void {
    const s = this.locals.get(name) ?? [];
    s.push(v);
    this.locals.set(name, s);
  }

  private pop(name: string): void {
    this.locals.get(name)?.pop();
  }

  private path(e: Expr): readonly string[] | undefined {
    if (e.kind === 'ident') {
      const v = this.peek(e.name);
      if (v) return v.path;
    }
    return this.paths.get(e.id);
  }

  cost(e: Expr): Range {
    switch (e.kind) {
      case 'lit':
        return fixed(0n);
      case 'ident': {
        const v = this.peek(e.name);
        this.paths.set(e.id, v ? (v.path ?? []) : [e.name]);
        return fixed(1n);
      }
      case 'select': {
        if (e.testOnly) return this.cost(e.operand);
        let sum = this.cost(e.operand);
        const k = this.type(e.operand).kind;
        if (k === 'map' || k === 'struct' || k === 'typeparam') sum = add(sum, fixed(1n));
        this.paths.set(e.id, [...(this.path(e.operand) ?? []), e.field]);
        return sum;
      }
      case 'call':
        return this.costCall(e);
      case 'list': {
        let sum = fixed(0n);
        let item: Range = { min: e.elems.length === 0 ? 0n : MAX, max: 0n };
        for (const el of e.elems) {
          sum = add(sum, this.cost(el));
          item = union(item, this.sizeOrUnknown(el));
        }
        this.entries.set(e.id, { container: 'list', key: fixed(1n), val: item });
        return add(sum, fixed(10n));
      }
      case 'map': {
        let sum = fixed(0n);
        let key: Range = { min: e.entries.length === 0 ? 0n : MAX, max: 0n };
        let val: Range = { min: e.entries.length === 0 ? 0n : MAX, max: 0n };
        for (const en of e.entries) {
          sum = add(add(sum, this.cost(en.key)), this.cost(en.value));
          key = union(key, this.sizeOrUnknown(en.key));
          val = union(val, this.sizeOrUnknown(en.value));
        }
        this.entries.set(e.id, { container: 'map', key, val });
        return add(sum, fixed(30n));
      }
      case 'struct':
        return add(
          e.fields.reduce((s, f) => add(s, this.cost(f.value)), fixed(0n)),
          fixed(40n),
        );
      case 'comp':
        return this.isBind(e) ? this.costBind(e) : this.costComprehension(e);
    }
  }

  private isBind(e: CompExpr): boolean {
    return (
      e.iterRange.kind === 'list' &&
      e.iterRange.elems.length === 0 &&
      e.loopCond.kind === 'lit' &&
      e.loopCond.value === false &&
      e.accuVar !== ACCUMULATOR
    );
  }

  private costBind(e: CompExpr): Range {
    let sum = add(this.cost(e.iterRange), this.cost(e.accuInit));
    this.pushLocal(e.accuVar, e.accuInit);
    sum = add(sum, this.cost(e.result));
    this.pop(e.accuVar);
    this.copySizes(e, e.result);
    return sum;
  }

  private pushLocal(name: string, e: Expr): void {
    this.push(name, { path: this.path(e), size: this.computeSize(e), entry: this.entries.get(e.id) ?? this.localEntry(e) });
  }

  private localEntry(e: Expr): EntrySize | undefined {
    return e.kind === 'ident' ? this.peek(e.name)?.entry : undefined;
  }

  private entrySize(e: Expr): EntrySize | undefined {
    return this.entries.get(e.id) ?? this.localEntry(e);
  }

  private costComprehension(e: CompExpr): Range {
    let sum = add(this.cost(e.iterRange), this.cost(e.accuInit));
    this.pushLocal(e.accuVar, e.accuInit);
    const entry = this.entrySize(e.iterRange);
    const container = entry?.container ?? this.type(e.iterRange).kind;
    const rangePath = this.path(e.iterRange) ?? [];
    if (e.iterVar2 !== undefined) {
      this.push(e.iterVar, { path: [...rangePath, container === 'list' ? '@indices' : '@keys'], size: entry?.key, entry: undefined });
      this.push(e.iterVar2, { path: [...rangePath, container === 'list' ? '@items' : '@values'], size: entry?.val, entry: undefined });
    } else {
      const isList = container === 'list';
      this.push(e.iterVar, { path: [...rangePath, isList ? '@items' : '@keys'], size: isList ? entry?.val : entry?.key, entry: undefined });
    }
    const loop = this.cost(e.loopCond);
    const step = this.cost(e.loopStep);
    this.pop(e.iterVar);
    if (e.iterVar2 !== undefined) this.pop(e.iterVar2);
    sum = add(sum, this.cost(e.result));
    this.pop(e.accuVar);
    const rangeCnt = this.sizeOrUnknown(e.iterRange);
    sum = add(sum, mul(rangeCnt, add(step, loop)));
    if (e.accuInit.kind === 'lit') {
      const s = this.computeSize(e.accuInit);
      if (s) this.sizes.set(e.id, s);
    } else if (e.accuInit.kind === 'list' || e.accuInit.kind === 'map') {
      this.sizes.set(e.id, rangeCnt);
      const stepEntry = this.entrySize(e.loopStep);
      if (stepEntry) this.entries.set(e.id, stepEntry);
    }
    return sum;
  }

  private copySizes(dst: Expr, src: Expr): void {
    const s = this.computeSize(src);
    if (s) this.sizes.set(dst.id, s);
    const en = this.entrySize(src);
    if (en) this.entries.set(dst.id, en);
  }

  private node(e: Expr): AstNode {
    let p = this.path(e);
    if (p && p.length > 0 && (p[0] === ACCUMULATOR || p[0] === '@result')) p = undefined;
    return { path: p, type: this.type(e), expr: e, size: this.computeSize(e) };
  }

  private computeSize(e: Expr): Range | undefined {
    const known = this.sizes.get(e.id);
    if (known) return known;
    const lit = exprSize(e);
    if (lit) return lit;
    const est = this.sizeOf(this.path(e));
    if (est) {
      this.sizes.set(e.id, est);
      return est;
    }
    const k = this.type(e);
    if (isScalar(k)) return fixed(1n);
    if (e.kind === 'ident') return this.peek(e.name)?.size;
    return undefined;
  }

  private sizeOrUnknown(e: Expr | AstNode): Range {
    if ('kind' in e) return this.computeSize(e) ?? UNKNOWN;
    return e.size ?? UNKNOWN;
  }

  private costCall(e: Expr & { kind: 'call' }): Range {
    if (e.fn === 'dyn' && !e.target && e.args.length === 1) {
      const argCost = this.cost(e.args[0]!);
      this.copySizes(e, e.args[0]!);
      return add(fixed(1n), argCost);
    }
    const argCosts: Range[] = [];
    const argNodes: AstNode[] = [];
    for (const a of e.args) {
      argCosts.push(this.cost(a));
      argNodes.push(this.node(a));
    }
    const overloads = this.checked.overloads.get(e.id) ?? [];
    if (overloads.length === 0) return fixed(0n);
    let sum = fixed(0n);
    let target: AstNode | undefined;
    if (e.target) {
      sum = add(sum, this.cost(e.target));
      target = this.node(e.target);
    }
    let fnCost: Range = { min: MAX, max: 0n };
    let resultSize: Range | undefined;
    for (const o of overloads) {
      const oc = this.functionCost(e, e.fn, o.id, target, argNodes, argCosts);
      fnCost = union(fnCost, oc.cost);
      if (oc.size) resultSize = resultSize ? union(resultSize, oc.size) : oc.size;
      if ((o.id === 'index_list' || o.id === 'index_map') && e.args.length > 0) {
        resultSize = this.entrySize(e.args[0]!)?.val;
        this.paths.set(e.id, [...(this.path(e.args[0]!) ?? []), o.id === 'index_list' ? '@items' : '@values']);
      }
      if (!resultSize) resultSize = this.computeSize(e);
    }
    if (resultSize) this.sizes.set(e.id, resultSize);
    return add(sum, fnCost);
  }

  private functionCost(
    e: Expr,
    fn: string,
    id: string,
    target: AstNode | undefined,
    args: AstNode[],
    argCosts: Range[],
  ): { cost: Range; size?: Range | undefined } {
    const argSum = () => argCosts.reduce(add, fixed(0n));
    const sets = { list_sets_contains_list: 1, list_sets_intersects_list: 1, list_sets_equivalent_list: 2 }[id];
    if (sets !== undefined && args.length === 2) {
      const c = add(factor(mul(args[0]!.size ?? this.sizeOf(args[0]!.path) ?? UNKNOWN, args[1]!.size ?? this.sizeOf(args[1]!.path) ?? UNKNOWN), sets), fixed(1n));
      return { cost: add(c, argSum()) };
    }
    const k8s = k8sEstimate(fn, id, target, args, this.sizeOf);
    if (k8s) return { cost: add(k8s.cost, argSum()), size: k8s.size };
    const size = (n: AstNode) => n.size ?? UNKNOWN;
    switch (id) {
      case 'string_format':
        // The result size is unbounded, so none is given.
        if (target) return { cost: add(factor(size(target), STRING_TRAVERSAL), argSum()) };
        break;
      case 'string_to_bytes':
      case 'bytes_to_string':
      case 'strings_quote':
        if (args.length === 1) {
          const sz = size(args[0]!);
          const rs =
            id === 'string_to_bytes'
              ? { min: sz.min, max: sat(sz.max * 4n) }
              : id === 'bytes_to_string'
                ? { min: sz.min / 4n, max: sz.max }
                : { min: sat(sz.min + 2n), max: sat(sz.max * 2n + 2n) };
          return { cost: add(factor(sz, STRING_TRAVERSAL), argSum()), size: rs };
        }
        break;
      case 'starts_with_string':
      case 'ends_with_string':
        if (args.length === 1) return { cost: add(factor(size(args[0]!), STRING_TRAVERSAL), argSum()) };
        break;
      case 'in_list':
        if (args.length === 2) return { cost: add(factor(size(args[1]!), 1), argSum()) };
        break;
      case 'matches_string':
        if (target && args.length === 1) {
          const str = factor(add(size(target), fixed(1n)), STRING_TRAVERSAL);
          const re = factor(size(args[0]!), REGEX_LENGTH);
          return { cost: add(mul(str, re), argSum()) };
        }
        break;
      case 'contains_string':
        if (target && args.length === 1) {
          return { cost: add(mul(factor(size(target), STRING_TRAVERSAL), factor(size(args[0]!), STRING_TRAVERSAL)), argSum()) };
        }
        break;
      case 'logical_or':
      case 'logical_and': {
        const [l, r] = [argCosts[0]!, argCosts[1]!];
        return { cost: { min: l.min, max: add(l, r).max } };
      }
      case 'conditional': {
        const s = union(size(args[1]!), size(args[2]!));
        const a = args[1]!.expr ? this.entrySize(args[1]!.expr) : undefined;
        const b = args[2]!.expr ? this.entrySize(args[2]!.expr) : undefined;
        if (a && b) this.entries.set(e.id, { container: a.container, key: union(a.key, b.key), val: union(a.val, b.val) });
        return { cost: add(argCosts[0]!, union(argCosts[1]!, argCosts[2]!)), size: s };
      }
      case 'add_string':
      case 'add_bytes':
      case 'add_list':
        if (args.length === 2) {
          const rs = add(size(args[0]!), size(args[1]!));
          const a = args[0]!.expr ? this.entrySize(args[0]!.expr) : undefined;
          const b = args[1]!.expr ? this.entrySize(args[1]!.expr) : undefined;
          if (a && b) this.entries.set(e.id, { container: a.container, key: union(a.key, b.key), val: union(a.val, b.val) });
          if (id === 'add_list') return { cost: add(fixed(1n), argSum()), size: rs };
          return { cost: add(factor(rs, STRING_TRAVERSAL), argSum()), size: rs };
        }
        break;
      case 'less_string':
      case 'greater_string':
      case 'less_equals_string':
      case 'greater_equals_string':
      case 'less_bytes':
      case 'greater_bytes':
      case 'less_equals_bytes':
      case 'greater_equals_bytes':
      case 'equals':
      case 'not_equals': {
        const l = size(args[0]!);
        const r = size(args[1]!);
        const smallest = minB(r.max, l.max);
        return { cost: add(factor({ min: smallest > 0n ? 1n : 0n, max: smallest }, STRING_TRAVERSAL), argSum()) };
      }
    }
    return { cost: add(fixed(1n), argSum()) };
  }
}

const isScalar = (t: CelType): boolean => {
  switch (t.kind) {
    case 'bool':
    case 'double':
    case 'duration':
    case 'int':
    case 'timestamp':
    case 'uint':
      return true;
    case 'opaque':
      return t.name === 'optional_type' && isScalar(t.params[0]!);
    default:
      return false;
  }
};

/** computeExprSize: literal strings (code points), bytes, scalars; list/map literal lengths. */
function exprSize(e: Expr): Range | undefined {
  if (e.kind === 'lit') {
    const v = e.value;
    if (typeof v === 'string') return fixed(BigInt(codePointLength(v)));
    if (v instanceof Uint8Array) return fixed(BigInt(v.length));
    return fixed(1n);
  }
  if (e.kind === 'list') return fixed(BigInt(e.elems.length));
  if (e.kind === 'map') return fixed(BigInt(e.entries.length));
  return undefined;
}
