/**
 * Builders for the Crossplane-ecosystem objects our functions compose on or
 * through a cluster: provider-helm Releases, provider-kubernetes Objects,
 * provider ProviderConfigs (namespaced and cluster-scoped) and Crossplane
 * Usages / ClusterUsages.
 *
 * Guarantees:
 * - Every builder returns a fresh plain-JSON object (no shared sub-objects),
 *   shaped exactly as the real CRDs under `shared/crds/` accept it
 *   (provider-helm v1.4.0 `helm.m.crossplane.io/v1beta1`, provider-kubernetes
 *   v1.3.0 `kubernetes.m.crossplane.io/v1alpha1`, Crossplane v2.3
 *   `protection.crossplane.io/v1beta1`); `test/lib/objects.test.ts` and the
 *   platform/cloud CRD tests validate each shape against its CRD.
 * - Optional fields are omitted, never emitted empty: no `metadata` when there
 *   is neither a name, a namespace, labels nor annotations; no `values` on a
 *   Release whose values are empty (docs/kinds/servingstack.md#helm-releases).
 * - No `metadata.name` unless asked: Crossplane names composed resources
 *   deterministically (docs/composition.md#names-and-metadata-of-composed-resources).
 */
import type { JsonObject, KubeObject, ObjectMeta } from './function.js';
import { copyJson } from './json.js';

/** provider-helm's managed API (namespaced Release, ProviderConfig). */
export const HELM_API_VERSION = 'helm.m.crossplane.io/v1beta1';
/** provider-kubernetes' managed API (namespaced Object, ProviderConfig; ClusterProviderConfig). */
export const KUBERNETES_API_VERSION = 'kubernetes.m.crossplane.io/v1alpha1';
/** Crossplane's deletion-protection API (Usage, ClusterUsage). */
export const PROTECTION_API_VERSION = 'protection.crossplane.io/v1beta1';

/** Kind of a provider config a managed resource references. */
export type ProviderConfigKind = 'ProviderConfig' | 'ClusterProviderConfig';

/** `spec.providerConfigRef` of a managed resource. */
export interface ProviderConfigRef {
  kind: ProviderConfigKind;
  name: string;
}

/** Metadata a builder may set; everything optional, omitted when undefined or empty. */
export interface MetaOptions {
  /** `metadata.name`; leave unset to let Crossplane generate it. */
  name?: string | undefined;
  /** `metadata.namespace`; set it for namespaced kinds composed by a cluster-scoped XR. */
  namespace?: string | undefined;
  labels?: Record<string, string> | undefined;
  annotations?: Record<string, string> | undefined;
}

/** Builds `metadata` from options, or `undefined` when every field is empty. */
export function metadata(opts: MetaOptions): ObjectMeta | undefined {
  const meta: ObjectMeta = {};
  if (opts.name) meta.name = opts.name;
  if (opts.namespace) meta.namespace = opts.namespace;
  if (opts.labels && Object.keys(opts.labels).length > 0) meta.labels = { ...opts.labels };
  if (opts.annotations && Object.keys(opts.annotations).length > 0) meta.annotations = { ...opts.annotations };
  return Object.keys(meta).length > 0 ? meta : undefined;
}

function object(apiVersion: string, kind: string, meta: MetaOptions, body: JsonObject): KubeObject {
  const out: KubeObject = { apiVersion, kind };
  const m = metadata(meta);
  if (m) out.metadata = m;
  return Object.assign(out, copyJson(body));
}

/** A Helm chart coordinate. */
export interface Chart {
  /** Chart name, e.g. `cert-manager`. */
  name: string;
  /** Repository URL: `https://…` or `oci://…` (an OCI repository without the chart name). */
  repository: string;
  /** Chart version, e.g. `v1.17.1`. */
  version: string;
}

/** Options of {@link helmRelease}. */
export interface ReleaseOptions extends MetaOptions {
  chart: Chart;
  /** Namespace the chart is installed into on the target cluster (`spec.forProvider.namespace`). */
  targetNamespace: string;
  /** The helm ProviderConfig that reaches the target cluster. */
  providerConfigRef: ProviderConfigRef;
  /** Chart values; omitted when empty. */
  values?: JsonObject | undefined;
  /**
   * Helm release name, set through `crossplane.io/external-name` (provider-helm
   * uses the external name as the release name). Unset: provider-helm uses the
   * object's generated name.
   */
  releaseName?: string | undefined;
  /**
   * Crossplane management policies (`spec.managementPolicies`), e.g.
   * `['Observe', 'Create', 'Update']` to orphan the release on deletion.
   * Omitted: provider-helm's default `['*']`.
   */
  managementPolicies?: ManagementPolicy[] | undefined;
}

/**
 * A provider-helm `Release` (`helm.m.crossplane.io/v1beta1`):
 * `spec.providerConfigRef`, `spec.forProvider {chart {name, repository,
 * version}, namespace, values?}`, then `managementPolicies` when given.
 */
export function helmRelease(opts: ReleaseOptions): KubeObject {
  const annotations = { ...(opts.annotations ?? {}) };
  if (opts.releaseName) annotations['crossplane.io/external-name'] = opts.releaseName;
  const forProvider: JsonObject = {
    chart: { name: opts.chart.name, repository: opts.chart.repository, version: opts.chart.version },
    namespace: opts.targetNamespace,
  };
  if (opts.values && Object.keys(opts.values).length > 0) forProvider['values'] = opts.values;
  const spec: JsonObject = { providerConfigRef: { ...opts.providerConfigRef }, forProvider };
  if (opts.managementPolicies) spec['managementPolicies'] = [...opts.managementPolicies];
  return object(HELM_API_VERSION, 'Release', { ...opts, annotations }, { spec });
}

/** `spec.readiness` of a provider-kubernetes Object. */
export type ObjectReadiness =
  | { policy: 'SuccessfulCreate' | 'DeriveFromObject' | 'AllTrue' }
  | { policy: 'DeriveFromCelQuery'; celQuery: string };

/** Crossplane management policies (`spec.managementPolicies`). */
export type ManagementPolicy = 'Observe' | 'Create' | 'Update' | 'Delete' | 'LateInitialize' | '*';

/** Options of {@link kubernetesObject}. */
export interface ObjectOptions extends MetaOptions {
  /** The Kubernetes object applied on the target cluster, verbatim. */
  manifest: KubeObject;
  /** The kubernetes ProviderConfig (or ClusterProviderConfig) that reaches the target cluster. */
  providerConfigRef: ProviderConfigRef;
  /** Omitted: provider-kubernetes' default `SuccessfulCreate`. */
  readiness?: ObjectReadiness | undefined;
  managementPolicies?: ManagementPolicy[] | undefined;
}

/**
 * A provider-kubernetes `Object` (`kubernetes.m.crossplane.io/v1alpha1`)
 * wrapping `manifest`: `spec.providerConfigRef`, `spec.forProvider.manifest`,
 * then `readiness` and `managementPolicies` when given.
 *
 * An Object whose readiness is derived from the remote object's status
 * (every policy but `SuccessfulCreate`) also gets `spec.watch: true`, so
 * provider-kubernetes (with `--enable-watches`, README "A real control
 * plane") watches that object on its cluster and reports a change in
 * seconds; without it the status is read on the provider's poll (10 minutes
 * by default), and a replica's readiness, its endpoint and its route wait
 * for it. A provider without the feature ignores the field.
 */
export function kubernetesObject(opts: ObjectOptions): KubeObject {
  const spec: JsonObject = {
    providerConfigRef: { ...opts.providerConfigRef },
    forProvider: { manifest: opts.manifest },
  };
  if (opts.readiness) spec['readiness'] = { ...opts.readiness };
  if (opts.readiness && opts.readiness.policy !== 'SuccessfulCreate') spec['watch'] = true;
  if (opts.managementPolicies) spec['managementPolicies'] = [...opts.managementPolicies];
  return object(KUBERNETES_API_VERSION, 'Object', opts, { spec });
}

/** A key in a Secret: `{namespace, name, key}`. */
export interface SecretKeyRef {
  namespace: string;
  name: string;
  key: string;
}

/** Identity types provider-kubernetes and provider-helm accept (`spec.identity.type`). */
export type IdentityType =
  | 'GoogleApplicationCredentials'
  | 'AzureServicePrincipalCredentials'
  | 'AzureWorkloadIdentityCredentials'
  | 'UpboundTokens'
  | 'AWSWebIdentityCredentials'
  | 'NebiusServiceAccountCredentials';

/** Credentials of a kubernetes/helm provider config. */
export interface ProviderConfigCredentials {
  /** The kubeconfig Secret key; omitted means `InjectedIdentity` (the provider's own pod identity). */
  kubeconfig?: SecretKeyRef | undefined;
  /** Extra cloud identity the kubeconfig's exec plugin needs. */
  identity?: { type: IdentityType | string; secretRef: SecretKeyRef } | undefined;
}

function providerConfigSpec(creds: ProviderConfigCredentials): JsonObject {
  const spec: JsonObject = {
    credentials: creds.kubeconfig
      ? { source: 'Secret', secretRef: { ...creds.kubeconfig } }
      : { source: 'InjectedIdentity' },
  };
  if (creds.identity) {
    spec['identity'] = { type: creds.identity.type, source: 'Secret', secretRef: { ...creds.identity.secretRef } };
  }
  return spec;
}

/** Which provider a provider config belongs to. */
export type ProviderFamily = 'kubernetes' | 'helm';

function providerApiVersion(family: ProviderFamily): string {
  return family === 'helm' ? HELM_API_VERSION : KUBERNETES_API_VERSION;
}

/**
 * A namespaced `ProviderConfig` of provider-kubernetes or provider-helm:
 * `spec.credentials {source: Secret, secretRef}` (or `{source:
 * InjectedIdentity}`), plus `spec.identity {type, source: Secret, secretRef}`.
 */
export function providerConfig(family: ProviderFamily, meta: MetaOptions, creds: ProviderConfigCredentials): KubeObject {
  return object(providerApiVersion(family), 'ProviderConfig', meta, { spec: providerConfigSpec(creds) });
}

/** A cluster-scoped `ClusterProviderConfig` (same spec as {@link providerConfig}). */
export function clusterProviderConfig(
  family: ProviderFamily,
  meta: MetaOptions,
  creds: ProviderConfigCredentials,
): KubeObject {
  return object(providerApiVersion(family), 'ClusterProviderConfig', meta, { spec: providerConfigSpec(creds) });
}

/** Selects the object a Usage protects (`of`) or the object using it (`by`). */
export interface UsageTarget {
  apiVersion: string;
  kind: string;
  /** A named object. */
  resourceRef?: { name: string; namespace?: string } | undefined;
  /** Or a selected one: same controller as the Usage, and/or labels. */
  resourceSelector?: { matchControllerRef?: boolean; matchLabels?: Record<string, string> } | undefined;
}

/** Options of {@link usage} and {@link clusterUsage}. */
export interface UsageOptions extends MetaOptions {
  of: UsageTarget;
  by?: UsageTarget | undefined;
  /** Why `of` is in use; required when there is no `by` (Usage CRD rule). */
  reason?: string | undefined;
  /** Re-issue the blocked deletion of `of` once the usage goes away. */
  replayDeletion?: boolean | undefined;
}

function usageSpec(opts: UsageOptions): JsonObject {
  const spec: JsonObject = { of: target(opts.of) };
  if (opts.by) spec['by'] = target(opts.by);
  if (opts.reason) spec['reason'] = opts.reason;
  if (opts.replayDeletion !== undefined) spec['replayDeletion'] = opts.replayDeletion;
  return spec;
}

function target(t: UsageTarget): JsonObject {
  const out: JsonObject = { apiVersion: t.apiVersion, kind: t.kind };
  if (t.resourceRef) out['resourceRef'] = { ...t.resourceRef };
  if (t.resourceSelector) {
    const sel: JsonObject = {};
    if (t.resourceSelector.matchControllerRef !== undefined) {
      sel['matchControllerRef'] = t.resourceSelector.matchControllerRef;
    }
    if (t.resourceSelector.matchLabels) sel['matchLabels'] = { ...t.resourceSelector.matchLabels };
    out['resourceSelector'] = sel;
  }
  return out;
}

/**
 * A namespaced Crossplane `Usage` (`protection.crossplane.io/v1beta1`): while
 * it exists, deleting `of` is blocked (and with `by`, until `by` is gone).
 * `of` and `by` live in the Usage's namespace.
 */
export function usage(opts: UsageOptions): KubeObject {
  return object(PROTECTION_API_VERSION, 'Usage', opts, { spec: usageSpec(opts) });
}

/** A cluster-scoped `ClusterUsage`, for protecting cluster-scoped objects. */
export function clusterUsage(opts: UsageOptions): KubeObject {
  return object(PROTECTION_API_VERSION, 'ClusterUsage', opts, { spec: usageSpec(opts) });
}

/** The API group of an `apiVersion` (`''` for the core group `v1`). */
export function apiGroup(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** The annotation provider-helm (and every Crossplane provider) takes the external name from. */
export const EXTERNAL_NAME_ANNOTATION = 'crossplane.io/external-name';

