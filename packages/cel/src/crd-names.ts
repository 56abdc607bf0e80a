/**
 * Kubernetes' escaping of property names in CRD validation rules
 * (k8s.io/apiserver `pkg/cel/escaping.go`; Kubernetes docs, "Validation rules"
 * → "Escaping"): a property is reachable from CEL only under its escaped name.
 *
 * Guarantees, as in Kubernetes:
 * - Only names of the form `[a-zA-Z_.-/][a-zA-Z0-9_.-/]*` are reachable; others
 *   have no CEL name ({@link escapeCelName} returns undefined).
 * - A name that is exactly one of Kubernetes' reserved symbols becomes
 *   `__{word}__` (`namespace` → `__namespace__`); a word inside a name is left alone.
 * - Otherwise, left to right: `__` → `__underscores__`, `.` → `__dot__`,
 *   `-` → `__dash__`, `/` → `__slash__`.
 * - Escaping applies to the properties of objects only; map keys
 *   (`additionalProperties`) are bound as they are.
 */
import { KEYWORDS, RESERVED } from './parser.js';

/**
 * celReservedSymbols of escaping.go: the grammar's literals and operators
 * (true, false, null, in) and its reserved words, the same sets the parser uses.
 */
export const CEL_RESERVED_SYMBOLS: ReadonlySet<string> = new Set([...KEYWORDS, ...RESERVED]);

const ESCAPES: Record<string, string> = { __: '__underscores__', '.': '__dot__', '-': '__dash__', '/': '__slash__' };

/**
 * The CEL name of an object property (`namespace` → `__namespace__`,
 * `x-y` → `x__dash__y`).
 * @returns undefined when Kubernetes makes the property unreachable from CEL
 *   (empty, leading digit, or a character outside `[a-zA-Z0-9_.-/]`)
 */
export function escapeCelName(name: string): string | undefined {
  if (name === '' || /^[0-9]/.test(name)) return undefined;
  if (CEL_RESERVED_SYMBOLS.has(name)) return `__${name}__`;
  if (!/^[a-zA-Z0-9_./-]+$/.test(name)) return undefined;
  return name.replace(/__|[./-]/g, (s) => ESCAPES[s]!);
}
