/**
 * The CEL abstract syntax tree, shaped like cel-go's `common/ast`: every node
 * has a numeric id; macros are already expanded into comprehensions. Source
 * offsets (UTF-16 code units into the expression) are kept beside the tree,
 * keyed by node id, for error positions.
 */
import type { CelValue } from './values.js';

/** The name of the accumulator variable of macro comprehensions (cel-go parser.AccumulatorName). */
export const ACCUMULATOR = '__result__';
/** The iteration variable name `cel.bind` and `optMap` use (ext.unusedIterVar). */
export const UNUSED_ITER_VAR = '#unused';

/** A CEL expression node. */
export type Expr = LitExpr | IdentExpr | SelectExpr | CallExpr | ListExpr | MapExpr | StructExpr | CompExpr;

/** A literal: int (bigint), uint, double (number), string, bytes, bool or null. */
export interface LitExpr {
  readonly kind: 'lit';
  readonly id: number;
  readonly value: CelValue;
}

/** A name: a variable, a comprehension variable or a type name. */
export interface IdentExpr {
  readonly kind: 'ident';
  readonly id: number;
  name: string;
}

/** `operand.field`, or `has(operand.field)` when testOnly. */
export interface SelectExpr {
  readonly kind: 'select';
  readonly id: number;
  readonly operand: Expr;
  readonly field: string;
  readonly testOnly: boolean;
}

/** A function call; `target` is set for receiver-style calls (`x.f(y)`). */
export interface CallExpr {
  readonly kind: 'call';
  readonly id: number;
  fn: string;
  target: Expr | undefined;
  readonly args: Expr[];
}

/** A list literal; `optIndices` are the `[?x]` positions. */
export interface ListExpr {
  readonly kind: 'list';
  readonly id: number;
  readonly elems: Expr[];
  readonly optIndices: readonly number[];
}

/** One `key: value` entry of a map literal; `optional` for `?key: value`. */
export interface MapEntry {
  readonly id: number;
  readonly key: Expr;
  readonly value: Expr;
  readonly optional: boolean;
}

/** A map literal. */
export interface MapExpr {
  readonly kind: 'map';
  readonly id: number;
  readonly entries: MapEntry[];
}

/** A message literal `T{f: v}`; parsed for fidelity, always rejected by the checker here. */
export interface StructExpr {
  readonly kind: 'struct';
  readonly id: number;
  readonly typeName: string;
  readonly fields: { readonly id: number; readonly name: string; readonly value: Expr; readonly optional: boolean }[];
}

/** A comprehension (the expansion of all/exists/map/filter/cel.bind/…). */
export interface CompExpr {
  readonly kind: 'comp';
  readonly id: number;
  readonly iterVar: string;
  readonly iterVar2: string | undefined;
  readonly iterRange: Expr;
  readonly accuVar: string;
  readonly accuInit: Expr;
  readonly loopCond: Expr;
  readonly loopStep: Expr;
  readonly result: Expr;
}

/** A parsed expression: the tree and each node's source offset. */
export interface ParsedAst {
  readonly expr: Expr;
  /** Node id → offset into the source. */
  readonly offsets: ReadonlyMap<number, number>;
  readonly source: string;
}

/** Line (1-based) and column (1-based, in code points) of an offset, as cel-go reports them. */
export function lineColumn(source: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < source.length; i++) {
    if (source[i] === '\n') {
      line++;
      lineStart = i + 1;
    }
  }
  const column = [...source.slice(lineStart, offset)].length + 1;
  return { line, column };
}

/** The source line holding `line` and a caret line under `column`, cel-go style (` | …` / ` | ..^`). */
export function caretSnippet(source: string, line: number, column: number): { sourceLine: string; caretLine: string } {
  const text = source.split('\n')[line - 1] ?? '';
  const prefix = [...text].slice(0, column - 1);
  const dots = prefix.map((ch) => (ch === '\t' ? '\t' : '.')).join('');
  return { sourceLine: ` | ${text}`, caretLine: ` | ${dots}^` };
}

/** Calls `visit` on each direct child of `e`, in source order. */
export function forEachChild(e: Expr, visit: (e: Expr) => void): void {
  switch (e.kind) {
    case 'select':
      visit(e.operand);
      return;
    case 'call':
      if (e.target) visit(e.target);
      for (const a of e.args) visit(a);
      return;
    case 'list':
      for (const a of e.elems) visit(a);
      return;
    case 'map':
      for (const en of e.entries) {
        visit(en.key);
        visit(en.value);
      }
      return;
    case 'struct':
      for (const f of e.fields) visit(f.value);
      return;
    case 'comp':
      for (const x of [e.iterRange, e.accuInit, e.loopCond, e.loopStep, e.result]) visit(x);
  }
}

/** Visits every node, parents first. */
export function walk(e: Expr, visit: (e: Expr) => void): void {
  visit(e);
  forEachChild(e, (c) => walk(c, visit));
}
