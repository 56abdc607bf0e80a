/**
 * CEL cost: the static worst-case estimate Kubernetes computes when it
 * validates a DRA selector, and the runtime cost it tracks while evaluating.
 *
 * The estimate is cel-go's `checker/cost.go` coster (paths, sizes, entry
 * sizes, comprehension ranges), with the Kubernetes library estimator
 * (`apiserver/pkg/cel/library/cost.go`, keyed by function name), the
 * ext.Sets overload estimators, and the DRA size estimator
 * (`dynamic-resource-allocation/cel/compile.go` sizeEstimator): at most 32
 * domains, 32 ids per domain, 64-character attribute values, 63-character
 * driver. Presence tests are free (PresenceTestHasCost(false)). Costs are
 * uint64 (bigint) and saturate at 2^64-1 like cel-go's.
 *
 * The runtime cost (interpreter/runtimecost.go + library CallCost) is the
 * per-call part of cel-go's tracker; identifiers, selections and literals are
 * counted by the interpreter.
 */
import { ACCUMULATOR, type CompExpr, type Expr } from './ast.js';
import type { CheckedAst } from './checker.js';
import { Quantity } from './quantity.js';
import { Semver } from './semver.js';
import { type CelType, ERROR } from './types.js';
import { CelCIDR, CelIP } from './ip.js';
import { CelURL } from './url.js';
import { CelFormat } from './format.js';
import { CelMap, CelOptional, type CelValue, codePointLength } from './values.js';

const MAX = (1n << 64n) - 1n;
const TWO64 = 2 ** 64;

/** A [min, max] range of sizes or costs. */
export interface Range {
  readonly min: bigint;
  readonly max: bigint;
}

const fixed = (n: bigint): Range => ({ min: n, max: n });
const UNKNOWN: Range = { min: 0n, max: MAX };
const sat = (x: bigint): bigint => (x > MAX ? MAX : x);
const add = (a: Range, b: Range): Range => ({ min: sat(a.min + b.min), max: sat(a.max + b.max) });
const mul = (a: Range, b: Range): Range => ({ min: sat(a.min * b.min), max: sat(a.max * b.max) });
const minB = (a: bigint, b: bigint): bigint => (b < a ? b : a);
const maxB = (a: bigint, b: bigint): bigint => (b > a ? b : a);
const union = (x: Range, y: Range): Range => ({ min: minB(x.min, y.min), max: maxB(x.max, y.max) });

/** cel-go multiplyByCostFactor: ceil(x × f) in float64, saturating. */
function factor1(x: bigint, f: number): bigint {
  const xf = Number(x);
  if (xf > 0 && f > 0 && xf > TWO64 / f) return MAX;
  const c = Math.ceil(xf * f);
  if (c >= TWO64) return MAX;
  return BigInt(c);
}
const factor = (r: Range, f: number): Range => ({ min: factor1(r.min, f), max: factor1(r.max, f) });

const STRING_TRAVERSAL = 0.1;
const REGEX_LENGTH = 0.25;

// ---- the DRA size estimator ----

interface Decl {
  readonly max: bigint;
  readonly elem?: Decl;
  readonly key?: Decl;
  readonly fields?: ReadonlyMap<string, Decl>;
}
const ATTRIBUTE: Decl = { max: 64n };
const ID: Decl = { max: 32n };
const DOMAIN: Decl = { max: 63n };
const QUANTITY_DECL: Decl = { max: 0n };
const INNER_ATTRIBUTES: Decl = { max: 32n, key: ID, elem: ATTRIBUTE };
const INNER_CAPACITY: Decl = { max: 32n, key: ID, elem: QUANTITY_DECL };
const DEVICE: Decl = {
  max: 0n,
  fields: new Map<string, Decl>([
    ['driver', { max: 63n }],
    ['allowMultipleAllocations', { max: 1n }],
    ['attributes', { max: 32n, key: DOMAIN, elem: INNER_ATTRIBUTES }],
    ['capacity', { max: 32n, key: DOMAIN, elem: INNER_CAPACITY }],
  ]),
};

/** dracel sizeEstimator.EstimateSize: the declared size bound of a path under `device`. */
export function draSize(path: readonly string[] | undefined): Range | undefined {
  if (!path || path.length === 0 || path[0] !== 'device') return undefined;
  let cur: Decl = DEVICE;
  for (const name of path.slice(1)) {
    if (name === '@items' || name === '@values') {
      if (!cur.elem) return undefined;
      cur = cur.elem;
    } else if (name === '@keys') {
      if (!cur.key) return undefined;
      cur = cur.key;
    } else {
      const f = cur.fields?.get(name);
      if (f) cur = f;
      else if (cur.elem === ATTRIBUTE) cur = ATTRIBUTE;
      else return undefined;
    }
  }
  return { min: 0n, max: cur.max };
}

// ---- the static estimator ----

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

/** An argument or receiver as the function estimators see it. */
interface AstNode {
  readonly path: readonly string[] | undefined;
  readonly type: CelType;
  readonly expr: Expr | undefined;
  readonly size: Range | undefined;
}

/** Estimates the worst-case cost of a checked selector, as Kubernetes does at validation. */
export function estimateCost(checked: CheckedAst): Range {
  return new Coster(checked).cost(checked.expr);
}

class Coster {
  private readonly paths = new Map<number, readonly string[]>();
  private readonly locals = new Map<string, LocalVar[]>();
  private readonly sizes = new Map<number, Range>();
  private readonly entries = new Map<number, EntrySize>();

  constructor(private readonly checked: CheckedAst) {}

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
    const est = draSize(this.path(e));
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
      const c = add(factor(mul(args[0]!.size ?? draSize(args[0]!.path) ?? UNKNOWN, args[1]!.size ?? draSize(args[1]!.path) ?? UNKNOWN), sets), fixed(1n));
      return { cost: add(c, argSum()) };
    }
    const k8s = k8sEstimate(fn, id, target, args);
    if (k8s) return { cost: add(k8s.cost, argSum()), size: k8s.size };
    const size = (n: AstNode) => n.size ?? UNKNOWN;
    switch (id) {
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

/** library.CostEstimator.EstimateCallCost (Kubernetes), by function name. */
function k8sEstimate(fn: string, id: string, target: AstNode | undefined, args: AstNode[]): { cost: Range; size?: Range } | undefined {
  const sizeOf = (n: AstNode): Range => n.size ?? draSize(n.path) ?? UNKNOWN;
  switch (fn) {
    case 'isSorted':
    case 'sum':
    case 'max':
    case 'min':
    case 'indexOf':
    case 'lastIndexOf': {
      if (!target) return undefined;
      const elType = target.type.params[0];
      if (elType) {
        let elCost = fixed(1n);
        if (elType.kind === 'string' || elType.kind === 'bytes') {
          const elPath = target.path ? [...target.path, '@items'] : undefined;
          elCost = add(elCost, factor(draSize(elPath) ?? UNKNOWN, STRING_TRAVERSAL));
        }
        return { cost: mul(sizeOf(target), elCost) };
      }
      return { cost: factor(sizeOf(target), STRING_TRAVERSAL) };
    }
    case 'lowerAscii':
    case 'upperAscii':
    case 'substring':
    case 'trim':
      if (!target) return undefined;
      return { cost: factor(sizeOf(target), STRING_TRAVERSAL), size: sizeOf(target) };
    case 'replace': {
      if (!target || args.length < 2) return undefined;
      const sz = sizeOf(target);
      const toReplace = sizeOf(args[0]!);
      const replaceWith = sizeOf(args[1]!);
      let countMax: bigint;
      let countMin: bigint;
      let retainedMax = 0n;
      let retainedMin = 0n;
      if (toReplace.min === 0n) {
        countMax = sz.max < MAX ? sz.max + 1n : sz.max;
        retainedMax = sz.max;
      } else if (replaceWith.max <= toReplace.min) {
        countMax = 0n;
        retainedMax = sz.max;
      } else {
        countMax = BigInt(Math.ceil(Number(sz.max) / Number(toReplace.min)));
      }
      if (toReplace.max === 0n) {
        countMin = sz.min < MAX ? sz.min + 1n : sz.min;
        retainedMin = sz.min;
      } else if (toReplace.max <= replaceWith.min) {
        countMin = 0n;
        retainedMin = sz.min;
      } else {
        countMin = BigInt(Math.ceil(Number(sz.min) / Number(toReplace.max)));
      }
      const size = add(mul({ min: countMin, max: sat(countMax) }, replaceWith), { min: retainedMin, max: retainedMax });
      return { cost: factor(sz, 2 * STRING_TRAVERSAL), size };
    }
    case 'split': {
      if (!target) return undefined;
      const sz = sizeOf(target);
      let max = sz.max;
      const lit = args[1]?.expr;
      if (lit?.kind === 'lit' && typeof lit.value === 'bigint') max = BigInt.asUintN(64, lit.value);
      return { cost: factor(sz, 2 * STRING_TRAVERSAL), size: { min: 0n, max } };
    }
    case 'join': {
      if (!target) return undefined;
      let sz: Range = fixed(0n);
      const listSize = sizeOf(target);
      if (target.type.params[0]) {
        const elPath = target.path ? [...target.path, '@items'] : undefined;
        sz = mul(listSize, draSize(elPath) ?? UNKNOWN);
      }
      if (args.length > 0) {
        const sep = sizeOf(args[0]!);
        const seps = { min: listSize.min > 0n ? listSize.min - 1n : 0n, max: listSize.max > 0n ? listSize.max - 1n : 0n };
        sz = add(sz, mul(sep, seps));
      }
      return { cost: factor(sz, STRING_TRAVERSAL), size: sz };
    }
    case 'find':
    case 'findAll': {
      if (!target || args.length < 1) return undefined;
      const sz = sizeOf(target);
      const str = factor(add(sz, fixed(1n)), STRING_TRAVERSAL);
      const re = factor(sizeOf(args[0]!), REGEX_LENGTH);
      return { cost: mul(str, re), size: { min: 0n, max: sz.max } };
    }
    case 'cidr':
    case 'isIP':
    case 'isCIDR':
    case 'quantity':
    case 'isQuantity':
    case 'semver':
    case 'isSemver':
      if (args.length < 1) return undefined;
      return { cost: factor(sizeOf(args[0]!), STRING_TRAVERSAL) };
    case 'url': {
      if (args.length !== 1) return undefined;
      const sz = sizeOf(args[0]!);
      return { cost: factor(sz, STRING_TRAVERSAL), size: sz };
    }
    case 'getScheme':
    case 'getHostname':
    case 'getHost':
    case 'getPort':
    case 'getEscapedPath':
    case 'getQuery':
    case 'format.named':
      return { cost: fixed(1n) };
    case 'validate':
      if (args.length < 1) return undefined;
      return { cost: factor(factor(sizeOf(args[0]!), STRING_TRAVERSAL), 128 * REGEX_LENGTH) };
    case 'ip':
      if (id === 'cidr_ip') return { cost: fixed(1n) };
      if (args.length < 1) return undefined;
      return { cost: factor(sizeOf(args[0]!), STRING_TRAVERSAL) };
    case 'ip.isCanonical':
      if (args.length < 1) return undefined;
      return { cost: factor(sizeOf(args[0]!), 2 * STRING_TRAVERSAL) };
    case 'masked':
    case 'prefixLength':
    case 'family':
    case 'isUnspecified':
    case 'isLoopback':
    case 'isLinkLocalMulticast':
    case 'isLinkLocalUnicast':
    case 'isGlobalUnicast':
      return { cost: fixed(1n) };
    case 'containsIP':
    case 'containsCIDR': {
      if (args.length < 1) return undefined;
      const ipSize: Range = { min: 4n, max: 16n };
      let cost = factor(add(ipSize, ipSize), STRING_TRAVERSAL);
      if (fn === 'containsCIDR') cost = add(add(cost, factor(ipSize, STRING_TRAVERSAL)), fixed(1n));
      if (id === 'cidr_contains_ip_string' || id === 'cidr_contains_cidr_string') cost = add(cost, factor(sizeOf(args[0]!), STRING_TRAVERSAL));
      return { cost };
    }
    case 'sign':
    case 'asInteger':
    case 'isInteger':
    case 'asApproximateFloat':
    case 'isGreaterThan':
    case 'isLessThan':
    case 'compareTo':
    case 'add':
    case 'sub':
    case 'major':
    case 'minor':
    case 'patch':
      return { cost: fixed(1n) };
    case '_==_': {
      if (args.length !== 2) return undefined;
      const [l, r] = [args[0]!.type, args[1]!.type];
      if (l.name === r.name && l.kind === 'struct' && (l.name === 'kubernetes.Quantity' || l.name === 'kubernetes.Semver')) return { cost: fixed(1n) };
      if (l.name === r.name && l.kind === 'opaque' && (l.name === 'net.IP' || l.name === 'net.CIDR')) return { cost: fixed(1n) };
      if (l.name === r.name && l.kind === 'struct' && l.name === 'kubernetes.NamedFormat') return { cost: factor({ min: 1n, max: 64n }, STRING_TRAVERSAL) };
      if (l.name === r.name && l.kind === 'struct' && l.name === 'kubernetes.URL') {
        // Kubernetes takes both sizes from the right-hand side.
        const rs = args[1]!.size;
        const max = rs ? rs.max : 1n;
        return { cost: factor({ min: 1n, max }, STRING_TRAVERSAL) };
      }
      return undefined;
    }
  }
  return undefined;
}

// ---- runtime cost ----

/** cel-go actualSize: Sizer size, an optional's inner size, else 1. */
function actualSize(v: CelValue): number {
  if (typeof v === 'string') return codePointLength(v);
  if (v instanceof Uint8Array || Array.isArray(v)) return v.length;
  if (v instanceof CelMap) return v.size;
  if (v instanceof CelOptional && v.hasValue()) return actualSize(v.value!);
  if (v instanceof CelIP) return v.bytes.length;
  if (v instanceof CelCIDR) return Math.ceil(v.bits / 8);
  return 1;
}

/** library traversalCost. */
function traversalCost(v: CelValue): number {
  if (typeof v === 'string') return Math.trunc(new TextEncoder().encode(v).length * STRING_TRAVERSAL);
  if (v instanceof Uint8Array) return Math.trunc(v.length * STRING_TRAVERSAL);
  if (Array.isArray(v)) return v.reduce((s: number, x: CelValue) => s + traversalCost(x), 0);
  if (v instanceof CelMap) {
    let c = 0;
    for (const [k, x] of v.entries()) c += traversalCost(k) + traversalCost(x);
    return c;
  }
  return 1;
}

const ceil = (x: number): number => Math.ceil(x);

const SIZE_COSTED_FUNCTIONS = new Set([
  'isSorted', 'sum', 'max', 'min', 'indexOf', 'lastIndexOf', 'lowerAscii', 'upperAscii', 'substring', 'trim', 'replace', 'split',
  'join', 'find', 'findAll', 'quantity', 'isQuantity', 'semver', 'isSemver', '_==_', '_!=_', 'cidr', 'isIP', 'isCIDR', 'ip',
  'ip.isCanonical', 'containsIP', 'containsCIDR', 'url', 'validate',
]);
const SIZE_COSTED_OVERLOADS = new Set([
  'list_sets_contains_list', 'list_sets_intersects_list', 'list_sets_equivalent_list', 'starts_with_string', 'ends_with_string',
  'string_to_bytes', 'bytes_to_string', 'strings_quote', 'in_list', 'less_string', 'greater_string', 'less_equals_string',
  'greater_equals_string', 'less_bytes', 'greater_bytes', 'less_equals_bytes', 'greater_equals_bytes', 'equals', 'not_equals',
  'add_string', 'add_bytes', 'matches_string', 'contains_string',
]);

/** True when every call of this function costs 1 at run time, whatever its arguments. */
export function hasUnitCallCost(fn: string, overloadIds: readonly string[]): boolean {
  return !SIZE_COSTED_FUNCTIONS.has(fn) && !overloadIds.some((id) => SIZE_COSTED_OVERLOADS.has(id));
}

/** Computes the runtime cost of one call from its arguments and result. */
export type CallCost = (args: readonly CelValue[], result: CelValue) => number;

const unit: CallCost = () => 1;
const stringTraversal0: CallCost = (a) => ceil(actualSize(a[0]!) * STRING_TRAVERSAL);
const regexCost: CallCost = (a) => ceil((1 + actualSize(a[0]!)) * STRING_TRAVERSAL) * ceil(actualSize(a[1]!) * REGEX_LENGTH);
const smallerSize: CallCost = (a) => ceil(Math.min(actualSize(a[0]!), actualSize(a[1]!)) * STRING_TRAVERSAL);

/**
 * The runtime cost function of a call site (CostTracker.costCall with the
 * Kubernetes estimator), chosen once by function name and overload id.
 */
export function callCost(fn: string, id: string): CallCost {
  const setsFactor = { list_sets_contains_list: 1, list_sets_intersects_list: 1, list_sets_equivalent_list: 2 }[id];
  if (setsFactor !== undefined) return (a) => 1 + Math.trunc(actualSize(a[0]!) * actualSize(a[1]!) * setsFactor);
  switch (fn) {
    case 'isSorted':
    case 'sum':
    case 'max':
    case 'min':
    case 'indexOf':
    case 'lastIndexOf':
      return (a) => (a.length > 0 ? traversalCost(a[0]!) : 0);
    case 'lowerAscii':
    case 'upperAscii':
    case 'substring':
    case 'trim':
    case 'quantity':
    case 'isQuantity':
    case 'semver':
    case 'isSemver':
    case 'cidr':
    case 'isIP':
    case 'isCIDR':
      return stringTraversal0;
    case 'ip':
      return id === 'cidr_ip' ? unit : stringTraversal0;
    case 'url':
      return stringTraversal0;
    case 'getScheme':
    case 'getHostname':
    case 'getHost':
    case 'getPort':
    case 'getEscapedPath':
    case 'getQuery':
    case 'format.named':
      return unit;
    case 'validate':
      return (a) => ceil((1 + actualSize(a[1]!)) * STRING_TRAVERSAL) * ceil(((a[0] as CelFormat).maxRegexSize ?? 0) * REGEX_LENGTH);
    case 'ip.isCanonical':
      return (a) => ceil(actualSize(a[0]!) * 2 * STRING_TRAVERSAL);
    case 'masked':
    case 'prefixLength':
    case 'family':
    case 'isUnspecified':
    case 'isLoopback':
    case 'isLinkLocalMulticast':
    case 'isLinkLocalUnicast':
    case 'isGlobalUnicast':
      return unit;
    case 'containsIP':
    case 'containsCIDR':
      return (a) => {
        const c = actualSize(a[0]!);
        let cost = ceil((c + c) * STRING_TRAVERSAL);
        if (fn === 'containsCIDR') cost += ceil(c * STRING_TRAVERSAL) + 1;
        if (id.endsWith('_string')) cost += ceil(actualSize(a[1]!) * STRING_TRAVERSAL);
        return cost;
      };
    case 'replace':
    case 'split':
      return (a) => ceil(actualSize(a[0]!) * 2 * STRING_TRAVERSAL);
    case 'join':
      return (_a, r) => ceil(actualSize(r) * 2 * STRING_TRAVERSAL);
    case 'find':
    case 'findAll':
      return regexCost;
    case 'sign':
    case 'asInteger':
    case 'isInteger':
    case 'asApproximateFloat':
    case 'isGreaterThan':
    case 'isLessThan':
    case 'compareTo':
    case 'add':
    case 'sub':
    case 'major':
    case 'minor':
    case 'patch':
      return unit;
    case '_==_':
      return (a) =>
        a[0] instanceof Quantity ||
        a[0] instanceof Semver ||
        a[0] instanceof CelIP ||
        a[0] instanceof CelCIDR ||
        a[0] instanceof CelURL ||
        a[0] instanceof CelFormat
          ? 1
          : smallerSize(a, null);
  }
  switch (id) {
    case 'starts_with_string':
    case 'ends_with_string':
    case 'string_to_bytes':
    case 'bytes_to_string':
    case 'strings_quote':
      return stringTraversal0;
    case 'in_list':
      return (a) => actualSize(a[1]!);
    case 'less_string':
    case 'greater_string':
    case 'less_equals_string':
    case 'greater_equals_string':
    case 'less_bytes':
    case 'greater_bytes':
    case 'less_equals_bytes':
    case 'greater_equals_bytes':
    case 'equals':
    case 'not_equals':
      return smallerSize;
    case 'add_string':
    case 'add_bytes':
      return (a) => ceil((actualSize(a[0]!) + actualSize(a[1]!)) * STRING_TRAVERSAL);
    case 'matches_string':
      return regexCost;
    case 'contains_string':
      return (a) => ceil(actualSize(a[0]!) * STRING_TRAVERSAL) * ceil(actualSize(a[1]!) * STRING_TRAVERSAL);
  }
  return unit;
}
