/**
 * A recursive-descent CEL parser equivalent to cel-go's ANTLR grammar
 * (`parser/gen/CEL.g4`) and visitor (`parser/parser.go`) with the macros
 * the Kubernetes DRA environment enables: has, all, exists, exists_one, map,
 * filter (standard), the two-variable all/exists/existsOne/exists_one and
 * transformList/transformMap/transformMapEntry (ext.TwoVarComprehensions),
 * cel.bind (ext.Bindings), optMap/optFlatMap (optional types).
 *
 * Faithful details: `&&`/`||` chains become balanced trees; an even number of
 * `!` or `-` cancels out; `-` directly before a number is a signed literal;
 * reserved words are rejected; the parser recursion depth is counted the way
 * cel-go counts it (selects, calls, indexes, binary operators and ternaries),
 * with its default limit of 250.
 *
 * Divergence: syntax error messages are in ANTLR's style but not always
 * word for word; the position is the offending token.
 */
import { ACCUMULATOR, type CallExpr, type Expr, type MapEntry, type ParsedAst, UNUSED_ITER_VAR } from './ast.js';
import { parseUintLiteral, CelSyntaxError, type Token, tokenize } from './lexer.js';
import type { CelValue } from './values.js';

export { CelSyntaxError } from './lexer.js';

const RESERVED = new Set([
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);
const KEYWORDS = new Set(['true', 'false', 'null', 'in']);
const RELATIONS = new Map([
  ['<', '_<_'],
  ['<=', '_<=_'],
  ['>=', '_>=_'],
  ['>', '_>_'],
  ['==', '_==_'],
  ['!=', '_!=_'],
  ['in', '@in'],
]);
const MAX_RECURSION_DEPTH = 250;

/** A parse result node with cel-go's visitor recursion depth. */
interface P {
  e: Expr;
  d: number;
}

/** Parses CEL source into an AST with macros expanded; throws {@link CelSyntaxError}. */
export function parse(source: string): ParsedAst {
  const parser = new Parser(source);
  try {
    return parser.run();
  } catch (e) {
    if (e instanceof RangeError) throw new CelSyntaxError('expression nesting too deep', 0);
    throw e;
  }
}

class Parser {
  private readonly toks: Token[];
  private pos = 0;
  private nextId = 1;
  private readonly offsets = new Map<number, number>();

  constructor(private readonly src: string) {
    this.toks = tokenize(src);
  }

  run(): ParsedAst {
    const r = this.expr();
    const t = this.peek();
    if (t.kind !== 'eof') this.fail(`Syntax error: extraneous input '${t.text}' expecting <EOF>`, t);
    if (r.d > MAX_RECURSION_DEPTH) throw new CelSyntaxError('max recursion depth exceeded', 0);
    return { expr: r.e, offsets: this.offsets, source: this.src };
  }

  // ---- token helpers ----
  private peek(k = 0): Token {
    return this.toks[Math.min(this.pos + k, this.toks.length - 1)]!;
  }
  private isOp(text: string, k = 0): boolean {
    const t = this.peek(k);
    return t.kind === 'op' && t.text === text;
  }
  private next(): Token {
    const t = this.peek();
    if (this.pos < this.toks.length - 1) this.pos++;
    return t;
  }
  private expect(text: string): Token {
    const t = this.peek();
    if (t.kind === 'op' && t.text === text) return this.next();
    if (t.kind === 'eof') this.fail(`Syntax error: missing '${text}' at '<EOF>'`, t);
    return this.fail(`Syntax error: mismatched input '${t.text}' expecting '${text}'`, t);
  }
  /** Consumes a `?` optional marker if present. */
  private optMarker(): boolean {
    if (!this.isOp('?')) return false;
    this.next();
    return true;
  }
  private fail(message: string, t: Token): never {
    throw new CelSyntaxError(message, t.start);
  }
  private id(offset: number): number {
    const id = this.nextId++;
    this.offsets.set(id, offset);
    return id;
  }

  // ---- node builders ----
  private call(offset: number, fn: string, args: Expr[], target?: Expr): CallExpr {
    return { kind: 'call', id: this.id(offset), fn, target, args };
  }
  private lit(offset: number, value: CelValue): Expr {
    return { kind: 'lit', id: this.id(offset), value };
  }
  private ident(offset: number, name: string): Expr {
    return { kind: 'ident', id: this.id(offset), name };
  }

  // ---- grammar ----
  private expr(): P {
    const cond = this.or();
    if (!this.isOp('?')) return cond;
    const q = this.next();
    const t = this.or();
    this.expect(':');
    const f = this.expr();
    const e = this.callOrMacro(q.start, '_?_:_', [cond.e, t.e, f.e]);
    return { e, d: Math.max(cond.d, t.d, f.d) + 1 };
  }

  private or(): P {
    return this.logic('||', '_||_', () => this.and());
  }

  private and(): P {
    return this.logic('&&', '_&&_', () => this.relation());
  }

  private logic(op: string, fn: string, sub: () => P): P {
    const first = sub();
    const terms = [first.e];
    const ops: number[] = [];
    let d = first.d;
    while (this.isOp(op)) {
      ops.push(this.next().start);
      const t = sub();
      terms.push(t.e);
      d = Math.max(d, t.d);
    }
    if (terms.length === 1) return first;
    const balanced = (lo: number, hi: number): Expr => {
      const mid = Math.floor((lo + hi + 1) / 2);
      const left = mid === lo ? terms[mid]! : balanced(lo, mid - 1);
      const right = mid === hi ? terms[mid + 1]! : balanced(mid + 1, hi);
      return this.call(ops[mid]!, fn, [left, right]);
    };
    return { e: balanced(0, ops.length - 1), d };
  }

  private relation(): P {
    let lhs = this.calc(0);
    while (true) {
      const t = this.peek();
      const fn = (t.kind === 'op' || (t.kind === 'ident' && t.text === 'in')) && RELATIONS.get(t.text);
      if (!fn) return lhs;
      this.next();
      const rhs = this.calc(0);
      lhs = { e: this.callOrMacro(t.start, fn, [lhs.e, rhs.e]), d: Math.max(lhs.d, rhs.d) + 1 };
    }
  }

  /** level 0: + -, level 1: * / %. */
  private calc(level: 0 | 1): P {
    const ops = level === 0 ? ['+', '-'] : ['*', '/', '%'];
    let lhs = level === 0 ? this.calc(1) : this.unary();
    while (this.peek().kind === 'op' && ops.includes(this.peek().text)) {
      const t = this.next();
      const rhs = level === 0 ? this.calc(1) : this.unary();
      const fn = { '+': '_+_', '-': '_-_', '*': '_*_', '/': '_/_', '%': '_%_' }[t.text]!;
      lhs = { e: this.callOrMacro(t.start, fn, [lhs.e, rhs.e]), d: Math.max(lhs.d, rhs.d) + 1 };
    }
    return lhs;
  }

  private unary(): P {
    const t = this.peek();
    if (this.isOp('!')) {
      let n = 0;
      while (this.isOp('!')) {
        this.next();
        n++;
      }
      const m = this.member();
      if (n % 2 === 0) return m;
      return { e: this.callOrMacro(t.start, '!_', [m.e]), d: m.d };
    }
    if (this.isOp('-')) {
      const next = this.peek(1);
      if ((next.kind === 'int' || next.kind === 'double') && !this.isOp('-', 1)) {
        // A single '-' before a number is part of the literal (grammar: literal sign=MINUS?).
        return this.member();
      }
      let n = 0;
      while (this.isOp('-')) {
        this.next();
        n++;
      }
      const m = this.member();
      if (n % 2 === 0) return m;
      return { e: this.callOrMacro(t.start, '-_', [m.e]), d: m.d };
    }
    return this.member();
  }

  private member(): P {
    let cur = this.primary();
    while (true) {
      if (this.isOp('.')) {
        const dot = this.next();
        const opt = this.isOp('?') ? this.next() : undefined;
        const idTok = this.peek();
        if (idTok.kind !== 'ident' || KEYWORDS.has(idTok.text)) {
          this.fail(`Syntax error: no viable alternative at input '.${idTok.text}'`, idTok);
        }
        this.next();
        const escaped = idTok.value !== undefined;
        // The Kubernetes environment does not enable cel-go's escaped field names.
        if (escaped) this.fail("unsupported syntax: '`'", idTok);
        const name = escaped ? String(idTok.value) : idTok.text;
        if (!opt && !escaped && this.isOp('(')) {
          const open = this.next();
          const args = this.exprList(')');
          const e = this.callOrMacro(open.start, name, args.es, cur.e);
          cur = { e, d: Math.max(cur.d, args.d) + 1 };
          continue;
        }
        if (opt) {
          const e = this.call(dot.start, '_?._', [cur.e, this.lit(idTok.start, name)]);
          cur = { e, d: cur.d + 1 };
          continue;
        }
        cur = { e: { kind: 'select', id: this.id(dot.start), operand: cur.e, field: name, testOnly: false }, d: cur.d + 1 };
        continue;
      }
      if (this.isOp('[')) {
        const open = this.next();
        const opt = this.isOp('?') ? this.next() : undefined;
        const index = this.expr();
        this.expect(']');
        const e = this.callOrMacro(open.start, opt ? '_[?_]' : '_[_]', [cur.e, index.e]);
        cur = { e, d: Math.max(cur.d, index.d) + 1 };
        continue;
      }
      return cur;
    }
  }

  private exprList(close: string): { es: Expr[]; d: number } {
    const es: Expr[] = [];
    let d = 0;
    if (this.isOp(close)) {
      this.next();
      return { es, d };
    }
    while (true) {
      const e = this.expr();
      es.push(e.e);
      d = Math.max(d, e.d);
      if (this.isOp(',')) {
        this.next();
        continue;
      }
      this.expect(close);
      return { es, d };
    }
  }

  private primary(): P {
    const t = this.peek();
    if (t.kind === 'int' || t.kind === 'double' || (t.kind === 'op' && t.text === '-')) return { e: this.number(), d: 0 };
    if (t.kind === 'uint') {
      this.next();
      const v = parseUintLiteral(t.text);
      if (!v) this.fail('invalid uint literal', t);
      return { e: this.lit(t.start, v), d: 0 };
    }
    if (t.kind === 'string' || t.kind === 'bytes') {
      this.next();
      return { e: this.lit(t.start, t.value as CelValue), d: 0 };
    }
    if (t.kind === 'ident' && t.value === undefined) {
      if (t.text === 'true' || t.text === 'false') {
        this.next();
        return { e: this.lit(t.start, t.text === 'true'), d: 0 };
      }
      if (t.text === 'null') {
        this.next();
        return { e: this.lit(t.start, null), d: 0 };
      }
    }
    if (this.isOp('(')) {
      this.next();
      const e = this.expr();
      this.expect(')');
      return e;
    }
    if (this.isOp('[')) {
      const open = this.next();
      const elems: Expr[] = [];
      const optIndices: number[] = [];
      let d = 0;
      while (!this.isOp(']')) {
        if (this.isOp('?')) {
          this.next();
          optIndices.push(elems.length);
        }
        const e = this.expr();
        elems.push(e.e);
        d = Math.max(d, e.d);
        if (!this.isOp(',')) break;
        this.next();
      }
      this.expect(']');
      return { e: { kind: 'list', id: this.id(open.start), elems, optIndices }, d };
    }
    if (this.isOp('{')) {
      const open = this.next();
      const id = this.id(open.start);
      const entries: MapEntry[] = [];
      let d = 0;
      while (!this.isOp('}')) {
        const optional = this.optMarker();
        const key = this.expr();
        const col = this.expect(':');
        const value = this.expr();
        entries.push({ id: this.id(col.start), key: key.e, value: value.e, optional });
        d = Math.max(d, key.d, value.d);
        if (!this.isOp(',')) break;
        this.next();
      }
      this.expect('}');
      return { e: { kind: 'map', id, entries }, d };
    }
    const leadingDot = this.isOp('.') ? this.next() : undefined;
    const idTok = this.peek();
    if (idTok.kind === 'ident' && idTok.value === undefined && !KEYWORDS.has(idTok.text)) {
      this.next();
      if (RESERVED.has(idTok.text)) this.fail(`reserved identifier: ${idTok.text}`, idTok);
      const name = (leadingDot ? '.' : '') + idTok.text;
      if (this.isOp('(')) {
        const open = this.next();
        const args = this.exprList(')');
        return { e: this.callOrMacro(open.start, name, args.es), d: args.d };
      }
      const message = this.messageName(name);
      if (message) return message;
      return { e: this.ident(idTok.start, name), d: 0 };
    }
    if (idTok.kind === 'eof') return this.fail(`Syntax error: mismatched input '<EOF>' expecting an expression`, idTok);
    return this.fail(`Syntax error: mismatched input '${idTok.text}' expecting an expression`, idTok);
  }

  /** `a.b.C{...}`: a message literal when a dotted name is followed by '{'. */
  private messageName(first: string): P | undefined {
    let k = 0;
    const parts = [first];
    while (this.isOp('.', k) && this.peek(k + 1).kind === 'ident' && this.peek(k + 1).value === undefined) {
      parts.push(this.peek(k + 1).text);
      k += 2;
    }
    if (!this.isOp('{', k)) return undefined;
    for (let j = 0; j < k; j++) this.next();
    const open = this.next();
    const id = this.id(open.start);
    const fields: { id: number; name: string; value: Expr; optional: boolean }[] = [];
    let d = 0;
    while (!this.isOp('}')) {
      const optional = this.optMarker();
      const f = this.next();
      if (f.kind !== 'ident') this.fail(`Syntax error: mismatched input '${f.text}' expecting IDENTIFIER`, f);
      const col = this.expect(':');
      const value = this.expr();
      fields.push({ id: this.id(col.start), name: f.value !== undefined ? String(f.value) : f.text, value: value.e, optional });
      d = Math.max(d, value.d);
      if (!this.isOp(',')) break;
      this.next();
    }
    this.expect('}');
    return { e: { kind: 'struct', id, typeName: parts.join('.'), fields }, d };
  }

  private number(): Expr {
    const first = this.next();
    const negative = first.kind === 'op';
    const t = negative ? this.next() : first;
    if (t.kind === 'int') {
      const v = t.text.startsWith('0x') ? BigInt(t.text) : BigInt(t.text);
      const signed = negative ? -v : v;
      if (signed < -(1n << 63n) || signed > (1n << 63n) - 1n) this.fail('invalid int literal', first);
      return this.lit(first.start, signed);
    }
    if (t.kind === 'double') {
      const v = Number(t.text);
      if (!Number.isFinite(v)) this.fail('invalid double literal', first);
      return this.lit(first.start, negative ? -v : v);
    }
    return this.fail(`Syntax error: mismatched input '${t.text}' expecting a number`, t);
  }

  // ---- macros ----
  private callOrMacro(offset: number, fn: string, args: Expr[], target?: Expr): Expr {
    const m = this.expandMacro(offset, fn, args, target);
    return m ?? this.call(offset, fn, args, target);
  }

  private expandMacro(offset: number, fn: string, args: Expr[], target?: Expr): Expr | undefined {
    const n = args.length;
    if (!target) {
      if (fn === 'has' && n === 1) {
        const a = args[0]!;
        if (a.kind !== 'select') this.failAt('invalid argument to has() macro', a);
        return { kind: 'select', id: this.id(offset), operand: a.operand, field: a.field, testOnly: true };
      }
      return undefined;
    }
    const accu = () => this.ident(offset, ACCUMULATOR);
    const bool = (b: boolean) => this.lit(offset, b);
    const c = (f: string, ...a: Expr[]) => this.call(offset, f, a);
    const comp = (iterVar: string, iterVar2: string | undefined, iterRange: Expr, accuVar: string, accuInit: Expr, loopCond: Expr, loopStep: Expr, result: Expr): Expr => ({
      kind: 'comp',
      id: this.id(offset),
      iterVar,
      iterVar2,
      iterRange,
      accuVar,
      accuInit,
      loopCond,
      loopStep,
      result,
    });
    const list = (...elems: Expr[]): Expr => ({ kind: 'list', id: this.id(offset), elems, optIndices: [] });
    const map = (): Expr => ({ kind: 'map', id: this.id(offset), entries: [] });

    if ((fn === 'all' || fn === 'exists' || fn === 'exists_one') && n === 2) {
      const v = this.iterVar(args[0]!, 'argument must be a simple name');
      return this.quantifier(offset, fn, v, undefined, target, args[1]!);
    }
    if ((fn === 'all' || fn === 'exists' || fn === 'existsOne' || fn === 'exists_one') && n === 3) {
      const [v1, v2] = this.iterVars(args[0]!, args[1]!);
      return this.quantifier(offset, fn, v1, v2, target, args[2]!);
    }
    if ((fn === 'map' && (n === 2 || n === 3)) || (fn === 'filter' && n === 2)) {
      const v = this.iterVar(args[0]!, 'argument is not an identifier');
      let step: Expr;
      if (fn === 'filter') step = c('_?_:_', args[1]!, c('_+_', accu(), list(args[0]!)), accu());
      else if (n === 3) step = c('_?_:_', args[1]!, c('_+_', accu(), list(args[2]!)), accu());
      else step = c('_+_', accu(), list(args[1]!));
      return comp(v, undefined, target, ACCUMULATOR, list(), bool(true), step, accu());
    }
    if ((fn === 'transformList' || fn === 'transformMap' || fn === 'transformMapEntry') && (n === 3 || n === 4)) {
      const [v1, v2] = this.iterVars(args[0]!, args[1]!);
      const filter = n === 4 ? args[2] : undefined;
      const transform = n === 4 ? args[3]! : args[2]!;
      let step: Expr;
      if (fn === 'transformList') step = c('_+_', accu(), list(transform));
      else if (fn === 'transformMap') step = c('cel.@mapInsert', accu(), this.ident(offset, v1), transform);
      else step = c('cel.@mapInsert', accu(), transform);
      if (filter) step = c('_?_:_', filter, step, accu());
      return comp(v1, v2, target, ACCUMULATOR, fn === 'transformList' ? list() : map(), bool(true), step, accu());
    }
    if (fn === 'bind' && n === 3) {
      if (target.kind !== 'ident' || target.name !== 'cel') return undefined;
      const v = args[0]!;
      if (v.kind !== 'ident') this.failAt('cel.bind() variable names must be simple identifiers', v);
      return comp(UNUSED_ITER_VAR, undefined, list(), v.name, args[1]!, bool(false), this.ident(offset, v.name), args[2]!);
    }
    if ((fn === 'optMap' || fn === 'optFlatMap') && n === 2) {
      const v = args[0]!;
      if (v.kind !== 'ident') this.failAt(`${fn}() variable name must be a simple identifier`, v);
      const copy = cloneExpr(target, (o) => this.id(o), this.offsets);
      const bound = comp(UNUSED_ITER_VAR, undefined, list(), v.name, this.call(offset, 'value', [], copy), bool(false), this.ident(offset, v.name), args[1]!);
      const hasValue = this.call(offset, 'hasValue', [], target);
      const some = fn === 'optMap' ? c('optional.of', bound) : bound;
      return c('_?_:_', hasValue, some, c('optional.none'));
    }
    return undefined;
  }

  private quantifier(
    offset: number,
    fn: string,
    v1: string,
    v2: string | undefined,
    target: Expr,
    pred: Expr,
  ): Expr {
    const accu = () => this.ident(offset, ACCUMULATOR);
    const c = (f: string, ...a: Expr[]) => this.call(offset, f, a);
    const comp = (accuInit: Expr, loopCond: Expr, loopStep: Expr, result: Expr): Expr => ({
      kind: 'comp',
      id: this.id(offset),
      iterVar: v1,
      iterVar2: v2,
      iterRange: target,
      accuVar: ACCUMULATOR,
      accuInit,
      loopCond,
      loopStep,
      result,
    });
    if (fn === 'all') return comp(this.lit(offset, true), c('@not_strictly_false', accu()), c('_&&_', accu(), pred), accu());
    if (fn === 'exists') {
      return comp(this.lit(offset, false), c('@not_strictly_false', c('!_', accu())), c('_||_', accu(), pred), accu());
    }
    return comp(
      this.lit(offset, 0n),
      this.lit(offset, true),
      c('_?_:_', pred, c('_+_', accu(), this.lit(offset, 1n)), accu()),
      c('_==_', accu(), this.lit(offset, 1n)),
    );
  }

  private iterVar(e: Expr, message: string): string {
    if (e.kind !== 'ident') this.failAt(message, e);
    if (e.name === ACCUMULATOR) this.failAt('iteration variable overwrites accumulator variable', e);
    return e.name;
  }

  private iterVars(a: Expr, b: Expr): [string, string] {
    const v1 = this.iterVar(a, 'argument must be a simple name');
    const v2 = this.iterVar(b, 'argument must be a simple name');
    if (v1 === v2) this.failAt(`duplicate variable name: ${v1}`, b);
    return [v1, v2];
  }

  private failAt(message: string, e: Expr): never {
    throw new CelSyntaxError(message, this.offsets.get(e.id) ?? 0);
  }
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
