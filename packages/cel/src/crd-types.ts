/**
 * CEL types of a CRD schema, as the Kubernetes API server declares `self`
 * and `oldSelf` for `x-kubernetes-validations` rules
 * (k8s.io/apiserver/pkg/cel/common/schemas.go `SchemaDeclType`,
 * pkg/cel/types.go `DeclType`, `MaybeAssignTypeName`).
 *
 * Guarantees, as in Kubernetes 1.34:
 * - objects with properties (and embedded resources, which always expose
 *   `apiVersion`, `kind`, `metadata.name` and `metadata.generateName`) are
 *   object types with their escaped property names as fields; `additionalProperties`
 *   are `map(string, T)`; arrays with items `list(T)`; `x-kubernetes-int-or-string`
 *   is `dyn`; strings of format `byte`, `duration`, `date`, `date-time` are
 *   bytes, duration and timestamp; integer, number, boolean are int, double, bool;
 * - a node with no CEL type (an array without items, a map of such, a schema
 *   without a type) is left out, and so is a property CEL cannot name;
 * - size bounds (`maxElements`) follow the schema's maxLength (×4 for UTF-8
 *   bytes), maxItems, maxProperties, enum lengths, and otherwise the largest
 *   request the API server accepts (3 MiB) divided by the smallest serialized
 *   element; {@link crdSizeEstimator} reports them to the cost estimator.
 *
 * The schema is read through {@link CrdSchema}, the structural-schema subset
 * these rules need (functions/lib/schema's `JSONSchemaProps` satisfies it).
 */
import type { Range } from './cost-range.js';
import {
  BOOL,
  BYTES,
  type CelType,
  DOUBLE,
  DURATION,
  DYN,
  INT,
  listOf,
  mapOf,
  STRING,
  TIMESTAMP,
} from './types.js';
import { escapeCelName } from './crd-names.js';

/** The structural-schema keywords the CRD CEL environment reads. */
export interface CrdSchema {
  type?: string;
  format?: string;
  properties?: Record<string, CrdSchema>;
  required?: string[];
  additionalProperties?: CrdSchema | boolean;
  items?: CrdSchema;
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  maxLength?: number;
  maxItems?: number;
  maxProperties?: number;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
}

/** celconfig.MaxRequestSizeBytes: 3 MiB. */
export const MAX_REQUEST_SIZE_BYTES = 3n * 1024n * 1024n;
const MIN_STRING_SIZE = 2n;
const MIN_DURATION_SIZE_JSON = 3n;
const MAX_DURATION_SIZE_JSON = 32n;
const JSON_DATE_SIZE = 12n;
const MIN_DATETIME_SIZE_JSON = 21n;
const MAX_DATETIME_SIZE_JSON = 32n;

/** A CEL declaration of a schema node (apiservercel.DeclType). */
export interface DeclType {
  /** The CEL type; object types are structs named by {@link assignTypeNames}. */
  readonly celType: CelType;
  /** Object types: escaped field name → declaration. */
  readonly fields?: ReadonlyMap<string, DeclType>;
  readonly elem?: DeclType;
  readonly key?: DeclType;
  /** The size bound the cost estimator uses (0 when the node has none). */
  readonly maxElements: bigint;
  /** The smallest JSON serialization of a value of this type, in bytes. */
  readonly minSerializedSize: bigint;
}

const simple = (celType: CelType, minSerializedSize: bigint, maxElements = 0n): DeclType => ({ celType, maxElements, minSerializedSize });
const STRING_DECL = simple(STRING, MIN_STRING_SIZE);
const nonNegative = (n: number): bigint => (n < 0 ? 0n : BigInt(Math.trunc(n)));
const len = (s: string): bigint => BigInt(Buffer.byteLength(s, 'utf8'));

/** The object type name before {@link assignTypeNames} (Kubernetes' placeholder `object`). */
const UNNAMED = 'object';

/** SchemaDeclType: the declaration of a schema node, or undefined when CEL cannot see it. */
export function schemaDeclType(s: CrdSchema | undefined, isResourceRoot: boolean): DeclType | undefined {
  if (s === undefined) return undefined;
  if (s['x-kubernetes-int-or-string']) {
    const max = s.maxLength !== undefined ? nonNegative(s.maxLength) * 4n : MAX_REQUEST_SIZE_BYTES - 2n;
    return simple(DYN, 1n, max);
  }
  if (isResourceRoot) s = withTypeAndObjectMeta(s);
  switch (s.type) {
    case 'array': {
      if (s.items === undefined) return undefined;
      const elem = schemaDeclType(s.items, !!s.items['x-kubernetes-embedded-resource']);
      if (elem === undefined) return undefined;
      const max = s.maxItems !== undefined ? nonNegative(s.maxItems) : (MAX_REQUEST_SIZE_BYTES - 2n) / (elem.minSerializedSize + 1n);
      return { celType: listOf(elem.celType), elem, maxElements: max, minSerializedSize: 2n };
    }
    case 'object': {
      const ap = s.additionalProperties;
      if (ap !== undefined && typeof ap === 'object') {
        const elem = schemaDeclType(ap, !!ap['x-kubernetes-embedded-resource']);
        if (elem === undefined) return undefined;
        const max = s.maxProperties !== undefined ? nonNegative(s.maxProperties) : (MAX_REQUEST_SIZE_BYTES - 2n) / (elem.minSerializedSize + 6n);
        return { celType: mapOf(STRING, elem.celType), key: STRING_DECL, elem, maxElements: max, minSerializedSize: 2n };
      }
      const required = new Set(s.required ?? []);
      const fields = new Map<string, DeclType>();
      let minSize = 2n;
      for (const name of Object.keys(s.properties ?? {}).sort()) {
        const prop = s.properties![name]!;
        const t = schemaDeclType(prop, !!prop['x-kubernetes-embedded-resource']);
        if (t === undefined) continue;
        const celName = escapeCelName(name);
        if (celName !== undefined) fields.set(celName, t);
        if (required.has(name) && prop.default === undefined) minSize += len(name) + t.minSerializedSize + 4n;
      }
      return { celType: structType(UNNAMED), fields, maxElements: 0n, minSerializedSize: minSize };
    }
    case 'string':
      switch (s.format) {
        case 'byte':
          return simple(BYTES, MIN_STRING_SIZE, s.maxLength !== undefined ? nonNegative(s.maxLength) : MAX_REQUEST_SIZE_BYTES - 2n);
        case 'duration':
          return simple(DURATION, MIN_DURATION_SIZE_JSON, MAX_DURATION_SIZE_JSON);
        case 'date':
          return simple(TIMESTAMP, JSON_DATE_SIZE, JSON_DATE_SIZE);
        case 'date-time':
          return simple(TIMESTAMP, MIN_DATETIME_SIZE_JSON, MAX_DATETIME_SIZE_JSON);
      }
      if (s.maxLength !== undefined) return simple(STRING, MIN_STRING_SIZE, nonNegative(s.maxLength) * 4n);
      if (s.enum !== undefined && s.enum.length > 0) {
        let max = 0n;
        for (const e of s.enum) if (typeof e === 'string' && len(e) > max) max = len(e);
        return simple(STRING, MIN_STRING_SIZE, max);
      }
      return simple(STRING, MIN_STRING_SIZE, MAX_REQUEST_SIZE_BYTES - 2n);
    case 'boolean':
      return simple(BOOL, 4n);
    case 'number':
      return simple(DOUBLE, 1n);
    case 'integer':
      return simple(INT, 1n);
  }
  return undefined;
}

function structType(name: string): CelType {
  return { kind: 'struct', name, params: [] };
}

const isString = (s: CrdSchema | undefined) => s?.type === 'string';

/**
 * WithTypeAndObjectMeta: a resource root always exposes kind, apiVersion,
 * metadata.name and metadata.generateName; unless the schema already
 * declares all four as strings, they replace what it declares there.
 */
export function withTypeAndObjectMeta(s: CrdSchema): CrdSchema {
  const p = s.properties;
  const meta = p?.['metadata'];
  if (
    p !== undefined &&
    isString(p['kind']) &&
    isString(p['apiVersion']) &&
    meta?.type === 'object' &&
    meta.properties !== undefined &&
    isString(meta.properties['name']) &&
    isString(meta.properties['generateName'])
  ) {
    return s;
  }
  return {
    ...s,
    properties: {
      ...(p ?? {}),
      kind: { type: 'string' },
      apiVersion: { type: 'string' },
      metadata: { type: 'object', properties: { name: { type: 'string' }, generateName: { type: 'string' } } },
    },
  };
}

/**
 * MaybeAssignTypeName: names every object type by its place under `name`
 * (`selfType.spec`, `selfType.spec.items.@idx`, `….@elem`), so the checker can
 * tell them apart. Kubernetes uses `selfType<nanoseconds>` for the root; the
 * name appears only in error messages.
 */
export function assignTypeNames(t: DeclType, name: string): DeclType {
  if (t.fields !== undefined) {
    const fields = new Map<string, DeclType>();
    for (const [f, ft] of t.fields) fields.set(f, assignTypeNames(ft, `${name}.${f}`));
    return { ...t, celType: structType(name), fields };
  }
  if (t.celType.kind === 'map' && t.elem !== undefined) {
    const elem = assignTypeNames(t.elem, `${name}.@elem`);
    return { ...t, elem, celType: mapOf(STRING, elem.celType) };
  }
  if (t.celType.kind === 'list' && t.elem !== undefined) {
    const elem = assignTypeNames(t.elem, `${name}.@idx`);
    return { ...t, elem, celType: listOf(elem.celType) };
  }
  return t;
}

/** Every object type under `t`, by name → its fields' CEL types (the checker's struct table). */
export function structFields(t: DeclType, out = new Map<string, ReadonlyMap<string, CelType>>()): Map<string, ReadonlyMap<string, CelType>> {
  if (t.fields !== undefined) {
    out.set(t.celType.name, new Map([...t.fields].map(([f, ft]) => [f, ft.celType])));
    for (const ft of t.fields.values()) structFields(ft, out);
  }
  if (t.elem !== undefined) structFields(t.elem, out);
  return out;
}

/**
 * The Kubernetes CRD size estimator: the bound of the node a path reaches
 * from the rule's variable. As in Kubernetes, the variable itself (`self` or
 * `oldSelf`) is not looked at: every path starts at the schema root.
 */
export function crdSizeEstimator(root: DeclType): (path: readonly string[] | undefined) => Range | undefined {
  return (path) => {
    if (path === undefined || path.length === 0) return undefined;
    let cur: DeclType = root;
    for (const name of path.slice(1)) {
      if (name === '@items' || name === '@values') {
        if (cur.elem === undefined) return undefined;
        cur = cur.elem;
      } else if (name === '@keys') {
        if (cur.key === undefined) return undefined;
        cur = cur.key;
      } else {
        const f = cur.fields?.get(name);
        if (f === undefined) return undefined;
        cur = f;
      }
    }
    return { min: 0n, max: cur.maxElements };
  };
}

/**
 * maxCardinality: how many times data of this minimum size could repeat in
 * the largest request (the factor Kubernetes multiplies a rule's cost by when
 * it sits under unbounded lists or maps).
 */
export function maxCardinality(minSerializedSize: bigint): bigint {
  return MAX_REQUEST_SIZE_BYTES / (minSerializedSize + 1n);
}
