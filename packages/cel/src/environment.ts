/**
 * What every CEL environment of ours shares: the function declarations of
 * the Kubernetes base environment (standard library, the cel-go extensions
 * and the Kubernetes libraries Kubernetes enables for new expressions at the
 * 1.33 compatibility version), and compile errors with cel-go's position
 * format. The DRA selector environment (index.ts) and the CRD validation
 * environment (crd.ts) are built on it.
 */
import { caretSnippet, lineColumn } from './ast.js';
import { EXTENSIONS } from './extlib.js';
import { KUBERNETES_LIBRARIES } from './k8slib.js';
import type { FunctionDecl } from './library.js';
import { STANDARD } from './stdlib.js';
import { type CelType, formatType } from './types.js';

/** Every function of the base environment, overloads of one name merged. */
export const BASE_FUNCTIONS: ReadonlyMap<string, FunctionDecl> = (() => {
  const m = new Map<string, FunctionDecl>();
  for (const f of [...STANDARD, ...EXTENSIONS, ...KUBERNETES_LIBRARIES]) {
    const prev = m.get(f.name);
    m.set(f.name, prev ? { ...prev, overloads: [...prev.overloads, ...f.overloads] } : f);
  }
  return m;
})();

/** Why an expression does not compile, with its position (1-based line and column, in code points). */
export class CelCompileError {
  readonly kind = 'CelCompileError';
  constructor(
    /** What is wrong, e.g. "undeclared reference to 'devic' (did you mean 'device'?)". */
    readonly message: string,
    readonly line: number,
    readonly column: number,
    /** The offending source line, prefixed ` | `. */
    readonly sourceLine: string,
    /** A caret under the column, prefixed ` | `. */
    readonly caretLine: string,
    /** The estimated cost when the selector was rejected as too expensive. */
    readonly cost?: bigint,
  ) {}

  /** cel-go style: `ERROR: <input>:L:C: message` then the source and caret lines. */
  toString(): string {
    return `ERROR: <input>:${this.line}:${this.column}: ${this.message}\n${this.sourceLine}\n${this.caretLine}`;
  }
}

/** A compile error at a source offset. */
export function errorAt(source: string, offset: number, message: string, cost?: bigint): CelCompileError {
  const { line, column } = lineColumn(source, offset);
  const { sourceLine, caretLine } = caretSnippet(source, line, column);
  return new CelCompileError(message, line, column, sourceLine, caretLine, cost);
}

/** cel-go Type.String for the output-type message. */
export function typeName(t: CelType): string {
  return t.params.length === 0 ? formatType(t) : `${t.name}(${t.params.map(typeName).join(', ')})`;
}

