/**
 * The AST validators of the Kubernetes CEL environment (cel-go
 * cel/validator.go), run after type checking: homogeneous aggregate literals
 * (every element, key and value of a literal list or map has the same type),
 * regex literals of `matches` (ValidateRegexLiterals checks its first
 * argument), the literal format strings of `string.format`, and the literal patterns that `matches`/`find`/`findAll`
 * compile when the program is created (a pattern RE2 rejects fails there).
 */
import { type Expr, forEachChild, walk } from './ast.js';
import { compileRegex } from './regex.js';
import { checkFormatCall, type FormatArg } from './strformat.js';
import { type CelType, formatType, isEquivalentType } from './types.js';

/** Runs the validators; `finalType` gives a node's checked type, `report` records an issue. */
export function validate(root: Expr, finalType: (e: Expr) => CelType, report: (id: number, message: string) => void): void {
  const final = finalType;
  homogeneous(root, false, final, report);
  walk(root, (e) => {
    if (e.kind !== 'call') return;
    if (e.fn === 'format') {
      checkFormatLiteral(e, final, report);
      return;
    }
    if (e.fn !== 'matches' && e.fn !== 'find' && e.fn !== 'findAll') return;
    const bad = (x: Expr | undefined): string | undefined =>
      x?.kind === 'lit' && typeof x.value === 'string' && typeof compileRegex(x.value) === 'string' ? (compileRegex(x.value) as string) : undefined;
    // ValidateRegexLiterals checks the first argument of `matches`.
    if (e.fn === 'matches' && bad(e.args[0]) !== undefined) {
      report(e.args[0]!.id, 'invalid matches argument');
      return;
    }
    // Program creation compiles a literal pattern (the second argument counting the receiver).
    const pattern = e.target ? e.args[0] : e.args[1];
    const why = bad(pattern);
    if (why !== undefined) report(e.id, `program instantiation failed: ${why}`);
  });
}

/**
 * Homogeneous aggregate literals (cel-go homogeneousAggregateLiteralValidator):
 * literals at any depth inside a call named `format` are exempt.
 */
function homogeneous(e: Expr, exempt: boolean, final: (e: Expr) => CelType, report: (id: number, message: string) => void): void {
  if (!exempt && e.kind === 'list') {
    let first: CelType | undefined;
    for (const [i, el] of e.elems.entries()) {
      let t = final(el);
      if (e.optIndices.includes(i)) t = t.params[0] ?? t;
      if (!first) first = t;
      else if (!isEquivalentType(first, t)) {
        report(el.id, `expected type '${formatType(first)}' but found '${formatType(t)}'`);
        break;
      }
    }
  } else if (!exempt && e.kind === 'map') {
    let kt: CelType | undefined;
    let vt: CelType | undefined;
    for (const en of e.entries) {
      const k = final(en.key);
      let v = final(en.value);
      if (en.optional) v = v.params[0] ?? v;
      if (!kt || !vt) {
        kt = k;
        vt = v;
        continue;
      }
      if (!isEquivalentType(kt, k)) report(en.key.id, `expected type '${formatType(kt)}' but found '${formatType(k)}'`);
      if (!isEquivalentType(vt, v)) report(en.value.id, `expected type '${formatType(vt)}' but found '${formatType(v)}'`);
    }
  }
  const inner = exempt || (e.kind === 'call' && e.fn === 'format');
  forEachChild(e, (c) => homogeneous(c, inner, final, report));
}

/** `"literal".format([literal list])`: argument types and count (ext stringFormatValidator). */
function checkFormatLiteral(e: Expr & { kind: 'call' }, final: (e: Expr) => CelType, report: (id: number, message: string) => void): void {
  const target = e.target;
  const list = e.args[0];
  if (target?.kind !== 'lit' || typeof target.value !== 'string' || e.args.length !== 1 || list?.kind !== 'list') return;
  const toArg = (x: Expr): FormatArg => ({
    id: x.id,
    type: final(x),
    children: x.kind === 'list' ? x.elems.map(toArg) : x.kind === 'map' ? x.entries.flatMap((en) => [toArg(en.key), toArg(en.value)]) : [],
  });
  const issue = checkFormatCall(target.value, list.elems.map(toArg), e.id);
  if (issue) report(issue.id, issue.message);
}
