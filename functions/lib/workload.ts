/**
 * What a cloud-cluster function composes *into* or *for* the workload cluster
 * it provisions, the same way on every cloud: the kubernetes and helm
 * ProviderConfigs that reach it through its kubeconfig Secret, Helm releases
 * and StorageClass Objects applied through them
 * (docs/clouds.md#reaching-the-workload-cluster), and the provider contract every cloud XR publishes,
 * `status.capabilities` (docs/design.md#declared-capabilities).
 *
 * Guarantees:
 * - In-cluster objects never carry the cloud credentials: they reference the
 *   namespaced ProviderConfig named like the kubeconfig Secret, live in the
 *   XR namespace, and are managed with `[Observe, Create, Update]` (no
 *   Delete: orphaned on teardown, so no finalizer wedges once the cluster and
 *   its kubeconfig are gone).
 * - StorageClass Objects are ready on successful creation
 *   (`readiness.policy: SuccessfulCreate`).
 * - Every builder returns a fresh object.
 */
import type { JsonObject, KubeObject } from './function.js';
import { type Chart, helmRelease, kubernetesObject, providerConfig, type SecretKeyRef } from './objects.js';

/** Keys of the two in-cluster ProviderConfigs; both are ready as soon as they are composed. */
export const PROVIDER_CONFIG_KUBERNETES = 'provider-config-kubernetes';
export const PROVIDER_CONFIG_HELM = 'provider-config-helm';

/** The toleration in-cluster DaemonSets need to run on GPU nodes (tainted `nvidia.com/gpu`, docs/clouds.md#node-labels-and-taints). */
export const GPU_TOLERATION: Readonly<JsonObject> = { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' };

/** A cloud identity the kubeconfig's exec plugin needs (GKE, Nebius). */
export interface WorkloadIdentity {
  /** e.g. `GoogleApplicationCredentials`, `NebiusServiceAccountCredentials`. */
  type: string;
  secretRef: SecretKeyRef;
}

/**
 * Keys `provider-config-kubernetes` and `provider-config-helm`: namespaced
 * ProviderConfigs named like the kubeconfig Secret (no `metadata.namespace`:
 * Crossplane puts them in the XR's), credentials
 * `{source: Secret, secretRef: {name, namespace, key: kubeconfig}}`, plus
 * `identity` when given.
 */
export function workloadProviderConfigs(
  kubeconfigSecret: string,
  namespace: string,
  identity?: WorkloadIdentity,
): Record<string, KubeObject> {
  const creds = {
    kubeconfig: { name: kubeconfigSecret, namespace, key: 'kubeconfig' },
    identity: identity ? { type: identity.type, secretRef: { ...identity.secretRef } } : undefined,
  };
  return {
    [PROVIDER_CONFIG_KUBERNETES]: providerConfig('kubernetes', { name: kubeconfigSecret }, creds),
    [PROVIDER_CONFIG_HELM]: providerConfig('helm', { name: kubeconfigSecret }, creds),
  };
}

/** What a release into the workload cluster needs. */
export interface WorkloadRelease {
  /** XR namespace: where the Release object lives. */
  namespace: string;
  /** The kubeconfig Secret, hence the helm ProviderConfig's name. */
  kubeconfigSecret: string;
  chart: Chart;
  /** Namespace the chart is installed into on the workload cluster. */
  targetNamespace: string;
  values: JsonObject;
}

/** A provider-helm Release installed through the workload cluster's helm ProviderConfig. */
export function workloadRelease(r: WorkloadRelease): KubeObject {
  return helmRelease({
    namespace: r.namespace,
    chart: r.chart,
    targetNamespace: r.targetNamespace,
    providerConfigRef: { kind: 'ProviderConfig', name: r.kubeconfigSecret },
    values: r.values,
    managementPolicies: ['Observe', 'Create', 'Update'],
  });
}

/**
 * A provider-kubernetes Object applying a `storage.k8s.io/v1` StorageClass
 * named `name` (the rest of its body in `body`: provisioner, parameters…)
 * into the workload cluster.
 */
export function workloadStorageClass(namespace: string, kubeconfigSecret: string, name: string, body: JsonObject): KubeObject {
  return kubernetesObject({
    namespace,
    manifest: { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, ...structuredClone(body) },
    providerConfigRef: { kind: 'ProviderConfig', name: kubeconfigSecret },
    readiness: { policy: 'SuccessfulCreate' },
    managementPolicies: ['Observe', 'Create', 'Update'],
  });
}

/**
 * A multi-node fabric (`status.capabilities.multiNodeFabric`): EFA or
 * InfiniBand (RDMA), Ethernet (the cluster network, no RDMA: multi-node
 * serving works, slower), None (single-node only; Vultr,
 * docs/design.md#multi-node-needs-a-fabric).
 */
export type Fabric = 'EFA' | 'InfiniBand' | 'Ethernet' | 'None';

/** True for a fabric a Leader + Worker gang can be placed on (anything but None). */
export function isMultiNodeFabric(f: unknown): f is Exclude<Fabric, 'None'> {
  return f === 'EFA' || f === 'InfiniBand' || f === 'Ethernet';
}
/** What scales GPU pools (`status.capabilities.nodeAutoscaling`). */
export type NodeAutoscaling = 'ClusterAutoscaler' | 'Provider' | 'None';
/** How the GPU stack arrives (`status.capabilities.gpuStack`). */
export type GpuStack = 'Composed' | 'PreinstalledAndGated';

/**
 * The provider contract (`status.capabilities`), the same block on every
 * cloud XR and on InferenceCluster (which relays it, or declares it for
 * Existing). Read by users (`kubectl get inferenceclusters -o wide`), the
 * fleet scheduler (a gang needs a fabric) and ModelCache (RWX storage).
 */
export interface Capabilities {
  /** The RWX StorageClass for ModelCache volumes, or why there is none. */
  rwxCacheStorageClass: { name: string } | { reason: string };
  /** The fabric multi-node gangs are placed on; `None`: single-node serving only. */
  multiNodeFabric: Fabric;
  nodeAutoscaling: NodeAutoscaling;
  gpuStack: GpuStack;
}

/** `status.capabilities` as JSON (a fresh object, keys in schema order). */
export function capabilitiesStatus(c: Capabilities): JsonObject {
  return {
    rwxCacheStorageClass: { ...c.rwxCacheStorageClass },
    multiNodeFabric: c.multiNodeFabric,
    nodeAutoscaling: c.nodeAutoscaling,
    gpuStack: c.gpuStack,
  };
}
