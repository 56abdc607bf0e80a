/**
 * The CEL type checker, ported from cel-go `checker/checker.go` for the DRA
 * environment: identifier and function resolution (including namespaced
 * functions such as `sets.contains`), overload resolution with type-parameter
 * unification, field selection on `kubernetes.DRADevice`, comprehensions,
 * optional field selection, and the AST validators Kubernetes enables
 * (homogeneous aggregate literals, regex literals of `matches`, and the
 * regex-literal compilation that `find`/`findAll` do at program creation).
 *
 * The result records each node's type and, for calls, the overloads that
 * matched: the interpreter dispatches and the cost estimator prices with them.
 */
import type { CompExpr, Expr, ParsedAst } from './ast.js';
import { CEL_RESERVED_SYMBOLS } from './crd-names.js';
import { type FunctionDecl, type Overload, typeParamsOf } from './library.js';
import { validate } from './validators.js';
import {
  ANY,
  BOOL,
  type CelType,
  DYN,
  ERROR,
  formatType,
  functionType,
  INT,
  internalIsAssignable,
  isDyn,
  isDynOrError,
  isExactType,
  isOptional,
  listOf,
  Mapping,
  mapOf,
  mostGeneral,
  optionalOf,
  QUANTITY,
  STRING,
  substitute,
  typeParam,
} from './types.js';

/** A checker error at a node. */
export interface CheckIssue {
  readonly message: string;
  readonly id: number;
}

/** The checked expression. */
export interface CheckedAst {
  readonly expr: Expr;
  /** Node id → final type (type parameters replaced by dyn). */
  readonly types: ReadonlyMap<number, CelType>;
  /** Call node id → ids of the overloads that matched. */
  readonly overloads: ReadonlyMap<number, readonly Overload[]>;
  readonly outputType: CelType;
}

/** The declarations a checker resolves against. */
export interface CheckerEnv {
  readonly idents: ReadonlyMap<string, CelType>;
  readonly functions: ReadonlyMap<string, FunctionDecl>;
  /** Struct type name → field name → type. */
  readonly structs: ReadonlyMap<string, ReadonlyMap<string, CelType>>;
}

/** The fields of `kubernetes.DRADevice` (without the consumable-capacity gate, as 1.34 defaults). */
export const DRA_DEVICE_FIELDS: ReadonlyMap<string, CelType> = new Map([
  ['driver', STRING],
  ['attributes', mapOf(STRING, mapOf(STRING, ANY))],
  ['capacity', mapOf(STRING, mapOf(STRING, QUANTITY))],
]);

/** Type-checks a parsed expression; returns the checked AST or the issues found. */
export function check(parsed: ParsedAst, env: CheckerEnv): CheckedAst | CheckIssue[] {
  const c = new Checker(env);
  c.check(parsed.expr);
  if (c.issues.length === 0) {
    validate(parsed.expr, (e) => substitute(c.mappings, c.types.get(e.id) ?? ERROR, true), (id, message) => c.issues.push({ id, message }));
  }
  if (c.issues.length > 0) {
    const off = (i: CheckIssue) => parsed.offsets.get(i.id) ?? 0;
    return [...c.issues].sort((a, b) => off(a) - off(b));
  }
  const types = new Map<number, CelType>();
  for (const [id, t] of c.types) types.set(id, substitute(c.mappings, t, true));
  return { expr: parsed.expr, types, overloads: c.refs, outputType: types.get(parsed.expr.id) ?? DYN };
}

class Checker {
  readonly issues: CheckIssue[] = [];
  readonly types = new Map<number, CelType>();
  readonly refs = new Map<number, Overload[]>();
  readonly mappings = new Mapping();
  private scopes: Map<string, CelType>[] = [];
  private freeVars = 0;

  constructor(private readonly env: CheckerEnv) {}

  private error(id: number, message: string): void {
    this.issues.push({ id, message });
  }

  private setType(e: Expr, t: CelType): void {
    this.types.set(e.id, t);
  }

  private getType(e: Expr): CelType {
    return this.types.get(e.id) ?? ERROR;
  }

  private lookupIdent(name: string): CelType | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const t = this.scopes[i]!.get(name);
      if (t) return t;
    }
    return this.env.idents.get(name);
  }

  private newTypeVar(): CelType {
    return typeParam(`_var${this.freeVars++}`);
  }

  private isAssignable(t1: CelType, t2: CelType): boolean {
    const cp = this.mappings.checkpoint();
    if (internalIsAssignable(this.mappings, t1, t2)) return true;
    this.mappings.rollback(cp);
    return false;
  }

  check(e: Expr): void {
    switch (e.kind) {
      case 'lit':
        this.setType(e, literalType(e.value));
        return;
      case 'ident': {
        // A leading dot names the root scope: `.device` is `device`.
        if (e.name.startsWith('.') && this.env.idents.has(e.name.slice(1))) e.name = e.name.slice(1);
        const t = this.lookupIdent(e.name);
        if (t) {
          this.setType(e, t);
          return;
        }
        this.setType(e, ERROR);
        this.error(e.id, `undeclared reference to '${e.name}' (in container '')`);
        return;
      }
      case 'select': {
        let t = this.selectField(e, e.operand, e.field, false);
        if (e.testOnly) t = BOOL;
        this.setType(e, substitute(this.mappings, t, false));
        return;
      }
      case 'call':
        this.checkCall(e);
        return;
      case 'list':
        this.checkList(e);
        return;
      case 'map':
        this.checkMap(e);
        return;
      case 'struct':
        this.setType(e, ERROR);
        this.error(e.id, `undeclared reference to '${e.typeName}' (in container '')`);
        return;
      case 'comp':
        this.checkComprehension(e);
        return;
    }
  }

  private selectField(e: Expr, operand: Expr, field: string, optional: boolean): CelType {
    this.check(operand);
    const operandType = substitute(this.mappings, this.getType(operand), false);
    const opt = isOptional(operandType);
    const target = opt ? operandType.params[0]! : operandType;
    let result: CelType = ERROR;
    switch (target.kind) {
      case 'map':
        result = target.params[1]!;
        break;
      case 'struct': {
        const fields = this.env.structs.get(target.name);
        // Since 1.31 a reserved word names its escaped field (`self.namespace` is `self.__namespace__`).
        const ft = fields?.get(field) ?? (CEL_RESERVED_SYMBOLS.has(field) ? fields?.get(`__${field}__`) : undefined);
        if (ft) result = ft;
        else this.error(e.id, `undefined field '${field}'`);
        break;
      }
      case 'typeparam':
        this.isAssignable(DYN, target);
        result = DYN;
        break;
      default:
        if (!isDynOrError(target)) this.error(e.id, `type '${formatType(target)}' does not support field selection`);
        result = DYN;
    }
    return opt || optional ? optionalOf(result) : result;
  }

  private checkCall(e: Expr & { kind: 'call' }): void {
    if (e.fn === '_?._') {
      const [operand, field] = e.args;
      if (e.target || e.args.length !== 2 || field?.kind !== 'lit' || typeof field.value !== 'string') {
        this.setType(e, ERROR);
        this.error(e.id, 'unsupported optional field selection');
        return;
      }
      const t = this.selectField(e, operand!, field.value, true);
      this.setType(e, substitute(this.mappings, t, false));
      const decl = this.env.functions.get('_?._');
      if (decl) this.refs.set(e.id, [...decl.overloads]);
      return;
    }
    for (const a of e.args) this.check(a);
    if (!e.target) {
      const fn = this.env.functions.get(e.fn);
      if (!fn) {
        this.setType(e, ERROR);
        this.error(e.id, `undeclared reference to '${e.fn}' (in container '')`);
        return;
      }
      this.resolve(e, fn, undefined);
      return;
    }
    const qualified = qualifiedName(e.target);
    if (qualified !== undefined) {
      const fn = this.env.functions.get(`${qualified}.${e.fn}`);
      if (fn) {
        e.fn = fn.name;
        e.target = undefined;
        this.resolve(e, fn, undefined);
        return;
      }
    }
    this.check(e.target);
    const fn = this.env.functions.get(e.fn);
    if (fn) {
      this.resolve(e, fn, e.target);
      return;
    }
    this.setType(e, ERROR);
    this.error(e.id, `undeclared reference to '${e.fn}' (in container '')`);
  }

  private resolve(e: Expr & { kind: 'call' }, fn: FunctionDecl, target: Expr | undefined): void {
    const argTypes = [...(target ? [this.getType(target)] : []), ...e.args.map((a) => this.getType(a))];
    let result: CelType | undefined;
    const matched: Overload[] = [];
    for (const o of fn.overloads) {
      if (o.member !== (target !== undefined)) continue;
      if (fn.name === '_&&_' || fn.name === '_||_') {
        let ok = true;
        argTypes.forEach((t, i) => {
          if (!this.isAssignable(t, BOOL)) {
            this.error(e.args[i]!.id, `expected type 'bool' but found '${formatType(t)}'`);
            ok = false;
          }
        });
        this.refs.set(e.id, [o]);
        this.setType(e, ok ? BOOL : ERROR);
        return;
      }
      if (o.args.length !== argTypes.length) continue;
      let ft = functionType(o.result, o.args);
      const params = typeParamsOf(o);
      if (params.length > 0) {
        const subs = new Mapping();
        for (const p of params) subs.add(typeParam(p), this.newTypeVar());
        ft = substitute(subs, ft, false);
      }
      const cand = ft.params.slice(1);
      const cp = this.mappings.checkpoint();
      if (!argTypes.every((t, i) => internalIsAssignable(this.mappings, t, cand[i]!))) {
        this.mappings.rollback(cp);
        continue;
      }
      matched.push(o);
      const rt = substitute(this.mappings, ft.params[0]!, false);
      if (!result) result = rt;
      else if (!isDyn(result) && !isExactType(rt, result)) result = DYN;
    }
    if (!result) {
      const shown = argTypes.map((t) => formatType(substitute(this.mappings, t, true)));
      const sig = target ? `${shown[0]}.(${shown.slice(1).join(', ')})` : `(${shown.join(', ')})`;
      this.setType(e, ERROR);
      this.error(e.id, `found no matching overload for '${fn.name}' applied to '${sig}'`);
      return;
    }
    this.refs.set(e.id, matched);
    this.setType(e, result);
  }

  private joinTypes(previous: CelType | undefined, current: CelType): CelType {
    if (!previous) return current;
    if (this.isAssignable(previous, current)) return mostGeneral(previous, current);
    // cel-go's default dynElementType: mixed literals become dyn; the
    // homogeneous-literal validator reports them (except inside `format`).
    return DYN;
  }

  private checkList(e: Expr & { kind: 'list' }): void {
    let elem: CelType | undefined;
    e.elems.forEach((el, i) => {
      this.check(el);
      let t = this.getType(el);
      if (e.optIndices.includes(i)) {
        if (isOptional(t)) t = t.params[0]!;
        else if (!isDyn(t)) this.error(el.id, `expected type '${formatType(optionalOf(t))}' but found '${formatType(t)}'`);
      }
      elem = this.joinTypes(elem, t);
    });
    this.setType(e, listOf(elem ?? this.newTypeVar()));
  }

  private checkMap(e: Expr & { kind: 'map' }): void {
    let k: CelType | undefined;
    let v: CelType | undefined;
    for (const en of e.entries) {
      this.check(en.key);
      k = this.joinTypes(k, this.getType(en.key));
      this.check(en.value);
      let vt = this.getType(en.value);
      if (en.optional) {
        if (isOptional(vt)) vt = vt.params[0]!;
        else if (!isDyn(vt)) this.error(en.value.id, `expected type '${formatType(optionalOf(vt))}' but found '${formatType(vt)}'`);
      }
      v = this.joinTypes(v, vt);
    }
    this.setType(e, k && v ? mapOf(k, v) : mapOf(this.newTypeVar(), this.newTypeVar()));
  }

  private checkComprehension(e: CompExpr): void {
    this.check(e.iterRange);
    this.check(e.accuInit);
    const rangeType = substitute(this.mappings, this.getType(e.iterRange), false);
    const accuType = this.getType(e.accuInit);
    this.scopes.push(new Map([[e.accuVar, accuType]]));
    let v1: CelType;
    let v2: CelType | undefined;
    switch (rangeType.kind) {
      case 'list':
        v1 = rangeType.params[0]!;
        if (e.iterVar2 !== undefined) {
          v2 = v1;
          v1 = INT;
        }
        break;
      case 'map':
        v1 = rangeType.params[0]!;
        if (e.iterVar2 !== undefined) v2 = rangeType.params[1]!;
        break;
      case 'dyn':
      case 'error':
      case 'typeparam':
        this.isAssignable(DYN, rangeType);
        v1 = DYN;
        if (e.iterVar2 !== undefined) v2 = DYN;
        break;
      default:
        this.error(
          e.iterRange.id,
          `expression of type '${formatType(rangeType)}' cannot be range of a comprehension (must be list, map, or dynamic)`,
        );
        v1 = ERROR;
        if (e.iterVar2 !== undefined) v2 = ERROR;
    }
    const scope = new Map([[e.iterVar, v1]]);
    if (e.iterVar2 !== undefined && v2) scope.set(e.iterVar2, v2);
    this.scopes.push(scope);
    this.check(e.loopCond);
    this.assertType(e.loopCond, BOOL);
    this.check(e.loopStep);
    this.assertType(e.loopStep, accuType);
    this.scopes.pop();
    this.check(e.result);
    this.scopes.pop();
    this.setType(e, substitute(this.mappings, this.getType(e.result), false));
  }

  private assertType(e: Expr, t: CelType): void {
    const actual = this.getType(e);
    if (!this.isAssignable(t, actual)) this.error(e.id, `expected type '${formatType(t)}' but found '${formatType(actual)}'`);
  }
}

function literalType(v: unknown): CelType {
  switch (typeof v) {
    case 'bigint':
      return INT;
    case 'number':
      return { kind: 'double', name: 'double', params: [] };
    case 'string':
      return STRING;
    case 'boolean':
      return BOOL;
  }
  if (v === null) return { kind: 'null', name: 'null_type', params: [] };
  if (v instanceof Uint8Array) return { kind: 'bytes', name: 'bytes', params: [] };
  return { kind: 'uint', name: 'uint', params: [] };
}

/** containers.ToQualifiedName: `a.b.c` when the expression is a chain of plain selects on an identifier. */
function qualifiedName(e: Expr): string | undefined {
  if (e.kind === 'ident') return e.name;
  if (e.kind === 'select' && !e.testOnly) {
    const prefix = qualifiedName(e.operand);
    return prefix === undefined ? undefined : `${prefix}.${e.field}`;
  }
  return undefined;
}
