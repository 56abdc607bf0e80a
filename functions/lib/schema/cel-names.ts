/**
 * Property names as CRD validation rules see them: Kubernetes' escaping
 * (packages/cel/src/crd-names.ts), plus the schema lookups the lint needs.
 */
import { escapeCelName } from '@modelplane/cel/crd';
import type { JSONSchemaProps } from './types.js';

export { escapeCelName } from '@modelplane/cel/crd';

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
