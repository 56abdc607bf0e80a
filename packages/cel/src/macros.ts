/**
 * The macros of the Kubernetes CEL environment, expanded at parse time into
 * comprehensions exactly as cel-go builds them (parser/macro.go,
 * ext/comprehensions.go, ext/bindings.go, the optional library): has, all,
 * exists, exists_one, map, filter; the two-variable all/exists/existsOne/
 * exists_one and transformList/transformMap/transformMapEntry; cel.bind;
 * optMap/optFlatMap. The accumulator is cel-go's `__result__`.
 */
import { ACCUMULATOR, type CallExpr, type Expr, UNUSED_ITER_VAR } from './ast.js';
import type { CelValue } from './values.js';

/** What the macros need from the parser: node builders and error reporting. */
export interface MacroParser {
  readonly offsets: Map<number, number>;
  /** Whether `cel.bind` is a macro (ext.Bindings is in the environment). */
  readonly bind: boolean;
  id(offset: number): number;
  call(offset: number, fn: string, args: Expr[], target?: Expr): CallExpr;
  lit(offset: number, value: CelValue): Expr;
  ident(offset: number, name: string): Expr;
  failAt(message: string, e: Expr): never;
}

/** Expands a macro call, or returns undefined when the call is not a macro. */
export function expandMacro(p: MacroParser, offset: number, fn: string, args: Expr[], target?: Expr): Expr | undefined {
  const n = args.length;
  if (!target) {
    if (fn === 'has' && n === 1) {
      const a = args[0]!;
      if (a.kind !== 'select') p.failAt('invalid argument to has() macro', a);
      return { kind: 'select', id: p.id(offset), operand: a.operand, field: a.field, testOnly: true };
    }
    return undefined;
  }
  const accu = () => p.ident(offset, ACCUMULATOR);
  const bool = (b: boolean) => p.lit(offset, b);
  const c = (f: string, ...a: Expr[]) => p.call(offset, f, a);
  const comp = (iterVar: string, iterVar2: string | undefined, iterRange: Expr, accuVar: string, accuInit: Expr, loopCond: Expr, loopStep: Expr, result: Expr): Expr => ({
    kind: 'comp',
    id: p.id(offset),
    iterVar,
    iterVar2,
    iterRange,
    accuVar,
    accuInit,
    loopCond,
    loopStep,
    result,
  });
  const list = (...elems: Expr[]): Expr => ({ kind: 'list', id: p.id(offset), elems, optIndices: [] });
  const map = (): Expr => ({ kind: 'map', id: p.id(offset), entries: [] });

  if ((fn === 'all' || fn === 'exists' || fn === 'exists_one') && n === 2) {
    const v = iterVar(p, args[0]!, 'argument must be a simple name');
    return quantifier(p, offset, fn, v, undefined, target, args[1]!);
  }
  if ((fn === 'all' || fn === 'exists' || fn === 'existsOne' || fn === 'exists_one') && n === 3) {
    const [v1, v2] = iterVars(p, args[0]!, args[1]!);
    return quantifier(p, offset, fn, v1, v2, target, args[2]!);
  }
  if ((fn === 'map' && (n === 2 || n === 3)) || (fn === 'filter' && n === 2)) {
    const v = iterVar(p, args[0]!, 'argument is not an identifier');
    let step: Expr;
    if (fn === 'filter') step = c('_?_:_', args[1]!, c('_+_', accu(), list(args[0]!)), accu());
    else if (n === 3) step = c('_?_:_', args[1]!, c('_+_', accu(), list(args[2]!)), accu());
    else step = c('_+_', accu(), list(args[1]!));
    return comp(v, undefined, target, ACCUMULATOR, list(), bool(true), step, accu());
  }
  if ((fn === 'transformList' || fn === 'transformMap' || fn === 'transformMapEntry') && (n === 3 || n === 4)) {
    const [v1, v2] = iterVars(p, args[0]!, args[1]!);
    const filter = n === 4 ? args[2] : undefined;
    const transform = n === 4 ? args[3]! : args[2]!;
    let step: Expr;
    if (fn === 'transformList') step = c('_+_', accu(), list(transform));
    else if (fn === 'transformMap') step = c('cel.@mapInsert', accu(), p.ident(offset, v1), transform);
    else step = c('cel.@mapInsert', accu(), transform);
    if (filter) step = c('_?_:_', filter, step, accu());
    return comp(v1, v2, target, ACCUMULATOR, fn === 'transformList' ? list() : map(), bool(true), step, accu());
  }
  if (fn === 'bind' && n === 3 && p.bind) {
    if (target.kind !== 'ident' || target.name !== 'cel') return undefined;
    const v = args[0]!;
    if (v.kind !== 'ident') p.failAt('cel.bind() variable names must be simple identifiers', v);
    return comp(UNUSED_ITER_VAR, undefined, list(), v.name, args[1]!, bool(false), p.ident(offset, v.name), args[2]!);
  }
  if ((fn === 'optMap' || fn === 'optFlatMap') && n === 2) {
    const v = args[0]!;
    if (v.kind !== 'ident') p.failAt(`${fn}() variable name must be a simple identifier`, v);
    const copy = cloneExpr(target, (o) => p.id(o), p.offsets);
    const bound = comp(UNUSED_ITER_VAR, undefined, list(), v.name, p.call(offset, 'value', [], copy), bool(false), p.ident(offset, v.name), args[1]!);
    const hasValue = p.call(offset, 'hasValue', [], target);
    const some = fn === 'optMap' ? c('optional.of', bound) : bound;
    return c('_?_:_', hasValue, some, c('optional.none'));
  }
  return undefined;
}

function quantifier(
  p: MacroParser,
  offset: number,
  fn: string,
  v1: string,
  v2: string | undefined,
  target: Expr,
  pred: Expr,
): Expr {
  const accu = () => p.ident(offset, ACCUMULATOR);
  const c = (f: string, ...a: Expr[]) => p.call(offset, f, a);
  const comp = (accuInit: Expr, loopCond: Expr, loopStep: Expr, result: Expr): Expr => ({
    kind: 'comp',
    id: p.id(offset),
    iterVar: v1,
    iterVar2: v2,
    iterRange: target,
    accuVar: ACCUMULATOR,
    accuInit,
    loopCond,
    loopStep,
    result,
  });
  if (fn === 'all') return comp(p.lit(offset, true), c('@not_strictly_false', accu()), c('_&&_', accu(), pred), accu());
  if (fn === 'exists') {
    return comp(p.lit(offset, false), c('@not_strictly_false', c('!_', accu())), c('_||_', accu(), pred), accu());
  }
  return comp(
    p.lit(offset, 0n),
    p.lit(offset, true),
    c('_?_:_', pred, c('_+_', accu(), p.lit(offset, 1n)), accu()),
    c('_==_', accu(), p.lit(offset, 1n)),
  );
}

function iterVar(p: MacroParser, e: Expr, message: string): string {
  if (e.kind !== 'ident') p.failAt(message, e);
  if (e.name === ACCUMULATOR) p.failAt('iteration variable overwrites accumulator variable', e);
  return e.name;
}

function iterVars(p: MacroParser, a: Expr, b: Expr): [string, string] {
  const v1 = iterVar(p, a, 'argument must be a simple name');
  const v2 = iterVar(p, b, 'argument must be a simple name');
  if (v1 === v2) p.failAt(`duplicate variable name: ${v1}`, b);
  return [v1, v2];
}

/** A deep copy with fresh ids (cel-go MacroExprFactory.Copy). */
function cloneExpr(e: Expr, newId: (offset: number) => number, offsets: Map<number, number>): Expr {
  const id = () => newId(offsets.get(e.id) ?? 0);
  const r = (x: Expr) => cloneExpr(x, newId, offsets);
  switch (e.kind) {
    case 'lit':
      return { kind: 'lit', id: id(), value: e.value };
    case 'ident':
      return { kind: 'ident', id: id(), name: e.name };
    case 'select':
      return { kind: 'select', id: id(), operand: r(e.operand), field: e.field, testOnly: e.testOnly };
    case 'call':
      return { kind: 'call', id: id(), fn: e.fn, target: e.target && r(e.target), args: e.args.map(r) };
    case 'list':
      return { kind: 'list', id: id(), elems: e.elems.map(r), optIndices: e.optIndices };
    case 'map':
      return { kind: 'map', id: id(), entries: e.entries.map((en) => ({ id: newId(offsets.get(en.id) ?? 0), key: r(en.key), value: r(en.value), optional: en.optional })) };
    case 'struct':
      return { kind: 'struct', id: id(), typeName: e.typeName, fields: e.fields.map((f) => ({ ...f, id: newId(offsets.get(f.id) ?? 0), value: r(f.value) })) };
    case 'comp':
      return { ...e, id: id(), iterRange: r(e.iterRange), accuInit: r(e.accuInit), loopCond: r(e.loopCond), loopStep: r(e.loopStep), result: r(e.result) };
  }
}
