/**
 * Kubernetes' escaping of property names in CRD validation rules
 * (k8s.io/apiserver `pkg/cel/escaping.go`; Kubernetes docs, "Validation rules"
 * → "Escaping"): a property is reachable from CEL only under its escaped name.
 *
 * Guarantees, as in Kubernetes:
 * - Only names of the form `[a-zA-Z_.-/][a-zA-Z0-9_.-/]*` are reachable; others
 *   have no CEL name ({@link escapeCelName} returns undefined).
 * - A name that is exactly a CEL reserved word becomes `__{word}__`
 *   (`namespace` → `__namespace__`); a word inside a name is left alone.
 * - Otherwise, left to right: `__` → `__underscores__`, `.` → `__dot__`,
 *   `-` → `__dash__`, `/` → `__slash__`.
 * - Escaping applies to the properties of objects only; map keys
 *   (`additionalProperties`) are bound as they are.
 */
import { KEYWORDS, RESERVED } from '../cel/parser.js';
import type { JSONSchemaProps } from './types.js';

/** CEL's reserved words as Kubernetes lists them (`celReservedSymbols`): the grammar's literals and operators plus its reserved words. */
const CEL_RESERVED = new Set([...KEYWORDS, ...RESERVED]);

const ESCAPES: Record<string, string> = { __: '__underscores__', '.': '__dot__', '-': '__dash__', '/': '__slash__' };

/**
 * The CEL name of an object property (`namespace` → `__namespace__`,
 * `x-y` → `x__dash__y`).
 * @returns undefined when Kubernetes makes the property unreachable from CEL
 *   (empty, leading digit, or a character outside `[a-zA-Z0-9_.-/]`)
 */
export function escapeCelName(name: string): string | undefined {
  if (name === '' || /^[0-9]/.test(name)) return undefined;
  if (CEL_RESERVED.has(name)) return `__${name}__`;
  if (!/^[a-zA-Z0-9_./-]+$/.test(name)) return undefined;
  return name.replace(/__|[./-]/g, (s) => ESCAPES[s]!);
}

/** True when values of `schema` are objects whose property names CEL sees escaped (it declares properties). */
export function hasEscapedNames(schema: JSONSchemaProps | undefined): boolean {
  return schema?.properties !== undefined && Object.keys(schema.properties).length > 0;
}

/**
 * The declared property a CEL field selection names (`__namespace__` →
 * the schema of `namespace`), or undefined when none escapes to it.
 */
export function propertyByCelName(schema: JSONSchemaProps | undefined, celName: string): JSONSchemaProps | undefined {
  for (const [k, v] of Object.entries(schema?.properties ?? {})) if (escapeCelName(k) === celName) return v;
  return undefined;
}
