/**
 * XRD → CRD schema conversion, as Crossplane does it when it establishes an
 * XRD and as `crossplane resource validate` does before validating an XR.
 *
 * Source: crossplane/crossplane `internal/xcrd` (`ForCompositeResource`,
 * `genCrdVersion`, `CompositeResourceSpecProps`, `CompositeResourceStatusProps`),
 * summarised in docs/composition.md#from-xrd-to-crd. What we copy:
 * - the base schema `{apiVersion, kind, metadata, spec, status}`, `spec` required;
 * - `metadata` reduced to `name` (string, maxLength 63, or the XRD's smaller value);
 * - the XRD's `spec` and `status` properties merged in, with their `required`,
 *   `x-kubernetes-validations`, `oneOf`, description and (spec only)
 *   `x-kubernetes-preserve-unknown-fields`; the root-level validations kept;
 * - machinery fields: under `spec.crossplane` for modern (`Namespaced`,
 *   `Cluster`) XRs, directly under `spec` (plus claimRef and
 *   writeConnectionSecretToRef) for `LegacyCluster`; namespaced XRs' resourceRefs
 *   have no namespace; compositionUpdatePolicy defaults to the XRD's
 *   `defaultCompositionUpdatePolicy` when it declares one;
 * - `status.conditions` (list-map keyed by type), and `status.crossplane` (modern)
 *   or `status.connectionDetails` + `claimConditionTypes` (legacy).
 * Printer columns, categories and subresources do not affect validation and are
 * not produced.
 */
import type { JSONSchemaProps, KindSchema } from './types.js';

/** The fields of an `apiextensions.crossplane.io` CompositeResourceDefinition we read. */
export interface Xrd {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string };
  spec: {
    group: string;
    scope?: 'Namespaced' | 'Cluster' | 'LegacyCluster';
    names: { kind: string; plural: string };
    defaultCompositionUpdatePolicy?: 'Automatic' | 'Manual';
    versions: Array<{
      name: string;
      served?: boolean;
      referenceable?: boolean;
      schema?: { openAPIV3Schema?: JSONSchemaProps };
    }>;
  };
}

const str: JSONSchemaProps = { type: 'string' };
const stringMap: JSONSchemaProps = { type: 'object', additionalProperties: { type: 'string' } };

/** Crossplane's machinery spec fields (`CompositeResourceSpecProps`). */
function machinerySpecProps(scope: string, defaultPolicy: string | undefined): Record<string, JSONSchemaProps> {
  const refProps: Record<string, JSONSchemaProps> = { apiVersion: str, name: str, kind: str };
  if (scope !== 'Namespaced') refProps['namespace'] = str;
  const props: Record<string, JSONSchemaProps> = {
    compositionRef: { type: 'object', required: ['name'], properties: { name: str } },
    compositionSelector: { type: 'object', required: ['matchLabels'], properties: { matchLabels: stringMap } },
    compositionRevisionRef: { type: 'object', required: ['name'], properties: { name: str } },
    compositionRevisionSelector: {
      type: 'object',
      required: ['matchLabels'],
      properties: { matchLabels: stringMap },
    },
    compositionUpdatePolicy: {
      type: 'string',
      enum: ['Automatic', 'Manual'],
      ...(defaultPolicy !== undefined ? { default: defaultPolicy } : {}),
    },
    resourceRefs: {
      type: 'array',
      items: { type: 'object', required: ['apiVersion', 'kind'], properties: refProps },
      'x-kubernetes-list-type': 'atomic',
    },
  };
  if (scope === 'LegacyCluster') {
    props['claimRef'] = {
      type: 'object',
      required: ['apiVersion', 'kind', 'namespace', 'name'],
      properties: { apiVersion: str, kind: str, namespace: str, name: str },
    };
    props['writeConnectionSecretToRef'] = {
      type: 'object',
      required: ['name', 'namespace'],
      properties: { name: str, namespace: str },
    };
    return props;
  }
  return {
    crossplane: {
      type: 'object',
      description: 'Configures how Crossplane will reconcile this composite resource',
      properties: props,
    },
  };
}

/** Crossplane's machinery status fields (`CompositeResourceStatusProps`). */
function machineryStatusProps(scope: string): Record<string, JSONSchemaProps> {
  const lastPublished: JSONSchemaProps = {
    type: 'object',
    properties: { lastPublishedTime: { type: 'string', format: 'date-time' } },
  };
  const props: Record<string, JSONSchemaProps> = {
    conditions: {
      description: 'Conditions of the resource.',
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
      items: {
        type: 'object',
        required: ['lastTransitionTime', 'reason', 'status', 'type'],
        properties: {
          lastTransitionTime: { type: 'string', format: 'date-time' },
          message: str,
          reason: str,
          status: str,
          type: str,
          observedGeneration: { type: 'integer', format: 'int64' },
        },
      },
    },
  };
  if (scope === 'LegacyCluster') {
    props['connectionDetails'] = lastPublished;
    props['claimConditionTypes'] = { type: 'array', 'x-kubernetes-list-type': 'set', items: str };
  } else {
    props['crossplane'] = {
      type: 'object',
      description: 'Indicates how Crossplane is reconciling this composite resource',
      properties: { connectionDetails: lastPublished },
    };
  }
  return props;
}

/** Maximum composite name length: names are used as label values. */
const MAX_COMPOSITE_NAME_LENGTH = 63;

/**
 * Converts one XRD version's schema into the CRD schema Crossplane would create.
 * @param xrd a parsed `CompositeResourceDefinition` (v1 or v2)
 * @param version the version name; default: the referenceable version (else the first)
 * @throws Error when the XRD has no such version or the version has no schema
 */
export function xrdToCrdSchema(xrd: Xrd, version?: string): KindSchema {
  const versions = xrd.spec.versions;
  const v =
    version !== undefined
      ? versions.find((x) => x.name === version)
      : (versions.find((x) => x.referenceable) ?? versions[0]);
  if (v === undefined) throw new Error(`XRD ${xrd.metadata?.name ?? '?'} has no version ${version ?? ''}`.trim());
  const s = v.schema?.openAPIV3Schema;
  if (s === undefined) throw new Error(`XRD ${xrd.metadata?.name ?? '?'} version ${v.name}: custom resource validation cannot be nil`);
  const x = structuredClone(s);
  // v1 XRDs have no scope and are LegacyCluster; v2 XRDs default to Namespaced.
  const scope = xrd.spec.scope ?? (xrd.apiVersion === 'apiextensions.crossplane.io/v1' ? 'LegacyCluster' : 'Namespaced');

  const nameMax = x.properties?.['metadata']?.properties?.['name']?.maxLength;
  const xSpec = x.properties?.['spec'] ?? {};
  const xStatus = x.properties?.['status'] ?? {};

  const spec: JSONSchemaProps = { type: 'object', properties: {} };
  if (xSpec.description !== undefined) spec.description = xSpec.description;
  spec.required = [...(xSpec.required ?? [])];
  if (spec.required.length === 0) delete spec.required;
  copyIf(xSpec, spec, 'x-kubernetes-preserve-unknown-fields');
  copyIf(xSpec, spec, 'x-kubernetes-validations');
  copyIf(xSpec, spec, 'oneOf');
  Object.assign(spec.properties!, xSpec.properties ?? {}, machinerySpecProps(scope, xrd.spec.defaultCompositionUpdatePolicy));

  const status: JSONSchemaProps = { type: 'object', properties: {} };
  for (const k of ['description', 'required', 'x-kubernetes-validations', 'oneOf'] as const) copyIf(xStatus, status, k);
  Object.assign(status.properties!, xStatus.properties ?? {}, machineryStatusProps(scope));

  const root: JSONSchemaProps = {
    type: 'object',
    required: ['spec'],
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: {
        type: 'object',
        properties: {
          name: { type: 'string', maxLength: Math.min(MAX_COMPOSITE_NAME_LENGTH, nameMax ?? MAX_COMPOSITE_NAME_LENGTH) },
        },
      },
      spec,
      status,
    },
  };
  if (x.description !== undefined) root.description = x.description;
  copyIf(x, root, 'x-kubernetes-validations');
  return {
    apiVersion: `${xrd.spec.group}/${v.name}`,
    kind: xrd.spec.names.kind,
    plural: xrd.spec.names.plural,
    scope: scope === 'Namespaced' ? 'Namespaced' : 'Cluster',
    schema: root,
  };
}

/** Converts every version of an XRD (see {@link xrdToCrdSchema}). */
export function xrdToCrdSchemas(xrd: Xrd): KindSchema[] {
  return xrd.spec.versions.map((v) => xrdToCrdSchema(xrd, v.name));
}

function copyIf(from: JSONSchemaProps, to: JSONSchemaProps, key: string): void {
  if (from[key] !== undefined) to[key] = from[key];
}
