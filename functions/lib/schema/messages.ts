/**
 * Error bodies in the words of the Kubernetes API server: `field.Error`
 * (k8s.io/apimachinery/pkg/util/validation/field/errors.go) as produced for
 * custom resources by apiextensions-apiserver from kube-openapi results.
 * Every format is a constant here so tests and callers can rely on it.
 */

/** Renders a bad value the way `field.Error.ErrorBody` does: strings quoted, numbers and bools bare. */
export function showValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (v === null || v === undefined) return 'null';
  return JSON.stringify(v);
}

/** The JSON type name kube-openapi reports for a value. */
export function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** Error bodies by kind; each returns the text after `<path>: `. */
export const msg = {
  required: () => 'Required value',
  unknownField: () => 'field not declared in schema',
  unsupported: (v: unknown, allowed: unknown[]) =>
    `Unsupported value: ${showValue(v)}: supported values: ${allowed.map((a) => (typeof a === 'string' ? JSON.stringify(a) : JSON.stringify(a))).join(', ')}`,
  invalidType: (path: string, want: string, v: unknown) =>
    `Invalid value: ${JSON.stringify(jsonType(v))}: ${path} in body must be of type ${want}: ${JSON.stringify(jsonType(v))}`,
  tooLong: (max: number) => `Too long: must have at most ${max} ${max === 1 ? 'byte' : 'bytes'}`,
  tooShort: (path: string, v: unknown, min: number) =>
    `Invalid value: ${showValue(v)}: ${path} in body should be at least ${min} chars long`,
  pattern: (path: string, v: unknown, pattern: string) =>
    `Invalid value: ${showValue(v)}: ${path} in body should match '${pattern}'`,
  minimum: (path: string, v: unknown, min: number, exclusive: boolean) =>
    `Invalid value: ${showValue(v)}: ${path} in body should be greater than ${exclusive ? '' : 'or equal to '}${min}`,
  maximum: (path: string, v: unknown, max: number, exclusive: boolean) =>
    `Invalid value: ${showValue(v)}: ${path} in body should be less than ${exclusive ? '' : 'or equal to '}${max}`,
  multipleOf: (path: string, v: unknown, m: number) =>
    `Invalid value: ${showValue(v)}: ${path} in body should be a multiple of ${m}`,
  tooFewItems: (path: string, n: number, min: number) =>
    `Invalid value: ${n}: ${path} in body should have at least ${min} items`,
  tooManyItems: (n: number, max: number) => `Too many: ${n}: must have at most ${max} items`,
  tooFewProperties: (path: string, n: number, min: number) =>
    `Invalid value: ${n}: ${path} in body should have at least ${min} properties`,
  duplicate: (v: unknown) => `Duplicate value: ${showValue(v)}`,
  oneOf: (path: string) => `Invalid value: "object": ${path} in body must validate one and only one schema (oneOf)`,
  anyOf: (path: string) => `Invalid value: "object": ${path} in body must validate at least one schema (anyOf)`,
  not: (path: string) => `Invalid value: "object": ${path} in body must not validate the schema (not)`,
  /** A failed CEL rule: `<reason>: "<schema type>": <message>` (FieldValueInvalid by default). */
  rule: (reason: string | undefined, type: string, message: string) => {
    switch (reason) {
      case 'FieldValueRequired':
        return `Required value: ${message}`;
      case 'FieldValueForbidden':
        return `Forbidden: ${message}`;
      case 'FieldValueDuplicate':
        // field.Duplicate(path, value): the schema type is the value, the message is not shown.
        return `Duplicate value: ${JSON.stringify(type)}`;
      default:
        return `Invalid value: ${JSON.stringify(type)}: ${message}`;
    }
  },
  /** A rule that could not be evaluated: Kubernetes' detail (`no such key: x evaluating rule: <rule>`, …). */
  ruleError: (type: string, detail: string) => `Invalid value: ${JSON.stringify(type)}: ${detail}`,
} as const;
