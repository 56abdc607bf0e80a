/**
 * A recursive-descent CEL parser equivalent to cel-go's ANTLR grammar
 * (`parser/gen/CEL.g4`) and visitor (`parser/parser.go`), expanding the
 * macros of the Kubernetes DRA environment as it goes (macros.ts).
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
import type { CallExpr, Expr, MapEntry, ParsedAst } from './ast.js';
import { expandMacro } from './macros.js';
import { parseUintLiteral, CelSyntaxError, type Token, tokenize } from './lexer.js';
import type { CelValue } from './values.js';

export { CelSyntaxError } from './lexer.js';

/** Words the CEL grammar reserves for future use: never identifiers (cel-spec "Syntax"). */
export const RESERVED = new Set([
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
/** Words that are literals or operators of the grammar. */
export const KEYWORDS = new Set(['true', 'false', 'null', 'in']);
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

/** Options of {@link parse}. */
export interface ParseOptions {
  /**
   * Expand `cel.bind(v, init, expr)` (ext.Bindings). DRA's environment adds
   * it; the CRD validation environment does not, so there `cel.bind` is a
   * call of an undeclared function.
   * @default true
   */
  readonly bind?: boolean;
}

/** Parses CEL source into an AST with macros expanded; throws {@link CelSyntaxError}. */
export function parse(source: string, options: ParseOptions = {}): ParsedAst {
  const parser = new Parser(source, options.bind !== false);
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
  readonly offsets = new Map<number, number>();

  constructor(
    private readonly src: string,
    /** Whether `cel.bind` is a macro here. */
    readonly bind: boolean,
  ) {
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
  /** A new node id at a source offset. */
  id(offset: number): number {
    const id = this.nextId++;
    this.offsets.set(id, offset);
    return id;
  }

  // ---- node builders ----
  call(offset: number, fn: string, args: Expr[], target?: Expr): CallExpr {
    return { kind: 'call', id: this.id(offset), fn, target, args };
  }
  lit(offset: number, value: CelValue): Expr {
    return { kind: 'lit', id: this.id(offset), value };
  }
  ident(offset: number, name: string): Expr {
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
    const m = expandMacro(this, offset, fn, args, target);
    return m ?? this.call(offset, fn, args, target);
  }

  /** Throws a syntax error at an expression's position (used by the macros). */
  failAt(message: string, e: Expr): never {
    throw new CelSyntaxError(message, this.offsets.get(e.id) ?? 0);
  }
}
