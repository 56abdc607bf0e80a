/**
 * The OpenAPI v3 subset that Kubernetes structural schemas (CRDs, and the
 * XRDs Crossplane turns into CRDs) are written in, as plain JSON.
 *
 * Source: k8s.io/apiextensions-apiserver `JSONSchemaProps`
 * (apis/apiextensions/v1/types_jsonschema.go). Only the keywords a structural
 * schema may carry are listed; anything else is kept in the index signature
 * and ignored by the validator.
 */

/** One CEL validation rule (`x-kubernetes-validations[]`). */
export interface ValidationRule {
  /** CEL expression; `self` is the node the rule sits on. */
  rule: string;
  /** Static message reported when the rule is false. */
  message?: string;
  /** Dynamic message; we report `message` (or the default) instead. */
  messageExpression?: string;
  /** Error type: FieldValueInvalid (default), FieldValueForbidden, FieldValueRequired, FieldValueDuplicate. */
  reason?: string;
  /** Relative JSON path (e.g. `.gke`) the error is reported at, below the rule's node. */
  fieldPath?: string;
  /** Transition rules only (`oldSelf`); never evaluated here (create-style validation). */
  optionalOldSelf?: boolean;
}

/** A structural schema node. */
export interface JSONSchemaProps {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  properties?: Record<string, JSONSchemaProps>;
  required?: string[];
  /** A schema for map values, or `true`/`false`. */
  additionalProperties?: JSONSchemaProps | boolean;
  items?: JSONSchemaProps;
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  uniqueItems?: boolean;
  oneOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  allOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-validations'?: ValidationRule[];
  [key: string]: unknown;
}

/** The schema of one served version of a kind, with what validation needs to know about the kind. */
export interface KindSchema {
  /** `group/version`, e.g. `modelplane.ai/v1alpha1` (`v1` for the core group). */
  apiVersion: string;
  kind: string;
  /** Plural resource name, e.g. `inferenceclasses`. */
  plural: string;
  /** CRD scope; `Cluster` kinds accept and ignore `metadata.namespace` (docs/design.md#cluster-scoped-kinds-ignore-a-namespace). */
  scope: 'Namespaced' | 'Cluster';
  /** The version's `openAPIV3Schema`. */
  schema: JSONSchemaProps;
  /** Where the schema came from (a file path), for messages. */
  source?: string;
}

/** One validation problem, shaped like a Kubernetes `field.Error`. */
export interface FieldError {
  /** Field path, e.g. `spec.devices[0].deviceClassName`; `<root>` for the object itself. */
  path: string;
  /** The error body, e.g. `Required value` or `Unsupported value: "Foo": supported values: "DRA", "Synthetic"`. */
  message: string;
}

/** Formats an error as the API server prints it: `<path>: <message>`. */
export function formatFieldError(e: FieldError): string {
  return `${e.path}: ${e.message}`;
}
