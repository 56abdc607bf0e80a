/**
 * The objects compose-vultr-cluster composes, one builder each
 * (docs/clouds.md#vultr-resources).
 *
 * Guarantees: every builder returns a fresh plain-JSON object shaped as the
 * real CRDs accept it (provider-vultr v1.0.0 `vke.vultr.m.upbound.io/v1beta1`,
 * provider-kubernetes v1.3.0 `kubernetes.m.crossplane.io/v1alpha1`), with
 * only the fields the spec assigns: no defaults, no empty objects, no nulls.
 * List order is part of the contract: node labels are `[pool, gpu]`.
 */
import type { KubeObject } from '../lib/function.js';
import type { VultrClusterNodePool } from '../lib/generated/vultrclusters.js';
import { kubernetesObject, type ProviderConfigRef, providerConfig } from '../lib/objects.js';

/** provider-vultr's namespaced VKE API. */
export const VKE_API_VERSION = 'vke.vultr.m.upbound.io/v1beta1';
/** Node label carrying the pool name, on every pool (docs/clouds.md#node-labels-and-taints). */
export const POOL_LABEL = 'modelplane.ai/pool';
/** Node label carrying the accelerator id, on GPU pools. */
export const GPU_LABEL = 'modelplane.ai/gpu';
/** Name (VKE label) of the inline system pool; reserved for user pools. */
export const SYSTEM_POOL_NAME = 'system';

/**
 * The inline system pool of the VKE cluster (docs/clouds.md#the-system-pool):
 * plan `vc2-6c-16gb`, 1 node, autoscaled between 1 and 2 nodes.
 * provider-vultr honours changes to it only at creation.
 */
export function systemPool(): Record<string, unknown> {
  return {
    label: SYSTEM_POOL_NAME,
    plan: 'vc2-6c-16gb',
    nodeQuantity: 1,
    autoScaler: true,
    minNodes: 1,
    maxNodes: 2,
    labels: [{ key: POOL_LABEL, value: SYSTEM_POOL_NAME }],
  };
}

/** What the cluster MR needs from the XR. */
export interface ClusterInput {
  /** XR name: the VKE cluster label. */
  name: string;
  /** Vultr region id, e.g. `ewr`. */
  region: string;
  /** Exact VKE version with build suffix, e.g. `v1.36.1+3`. */
  version: string;
  /** Connection Secret the provider writes the kubeconfig (static client certs) to, in the XR namespace. */
  kubeconfigSecret: string;
  /** The Vultr (Cluster)ProviderConfig. */
  providerConfigRef: ProviderConfigRef;
}

/** Key `cluster`: the VKE `Kubernetes` MR with its HA control plane and inline system pool. */
export function cluster(input: ClusterInput): KubeObject {
  return {
    apiVersion: VKE_API_VERSION,
    kind: 'Kubernetes',
    spec: {
      forProvider: {
        label: input.name,
        region: input.region,
        version: input.version,
        haControlplanes: true,
        nodePools: systemPool(),
      },
      providerConfigRef: { ...input.providerConfigRef },
      writeConnectionSecretToRef: { name: input.kubeconfigSecret },
    },
  };
}

/**
 * Key `node-pool-<pool>`: a `KubernetesNodePool` on the composed cluster
 * (`clusterIdSelector.matchControllerRef`).
 * - labels `[pool]`, plus `gpu` for a GPU pool that names its accelerator;
 * - the GPU taint `nvidia.com/gpu=true:NoSchedule` on every GPU-role pool;
 * - autoscaled only when `maxNodeCount` is set: `minNodes` is `minNodeCount`
 *   or else `nodeCount`; a fixed pool has none of the three autoscaler fields.
 */
export function nodePool(pool: VultrClusterNodePool, plan: string, providerConfigRef: ProviderConfigRef): KubeObject {
  const labels = [{ key: POOL_LABEL, value: pool.name }];
  if (pool.role === 'GPU' && pool.gpu) labels.push({ key: GPU_LABEL, value: pool.gpu.acceleratorType });
  const forProvider: Record<string, unknown> = {
    label: pool.name,
    plan,
    nodeQuantity: pool.nodeCount,
    labels,
    clusterIdSelector: { matchControllerRef: true },
  };
  if (pool.role === 'GPU') forProvider['taints'] = [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }];
  if (pool.maxNodeCount !== undefined) {
    forProvider['autoScaler'] = true;
    forProvider['minNodes'] = pool.minNodeCount ?? pool.nodeCount;
    forProvider['maxNodes'] = pool.maxNodeCount;
  }
  return {
    apiVersion: VKE_API_VERSION,
    kind: 'KubernetesNodePool',
    spec: { forProvider, providerConfigRef: { ...providerConfigRef } },
  };
}

/**
 * Key `provider-config-kubernetes`: the namespaced provider-kubernetes
 * ProviderConfig reaching the new cluster through its kubeconfig Secret.
 * Unlike the other clouds it sets `metadata.namespace`, and there is no helm one.
 */
export function kubernetesProviderConfig(kubeconfigSecret: string, namespace: string): KubeObject {
  return providerConfig(
    'kubernetes',
    { name: kubeconfigSecret, namespace },
    { kubeconfig: { namespace, name: kubeconfigSecret, key: 'kubeconfig' } },
  );
}

/**
 * The readiness query on VKE's `nvidia-operator-validator` DaemonSet: every
 * scheduled validator pod is ready, and at least one is scheduled. The
 * validator passes only once the driver, container toolkit and device plugin
 * work and the node advertises `nvidia.com/gpu`.
 */
export const GPU_VALIDATOR_CEL =
  'has(object.status.numberReady) && object.status.desiredNumberScheduled >= 1 && object.status.numberReady == object.status.desiredNumberScheduled';

/**
 * Key `gpu-observer`: an Observe-only provider-kubernetes Object on the
 * pre-installed NVIDIA GPU Operator's validator DaemonSet
 * (`gpu-operator/nvidia-operator-validator`), Ready by {@link GPU_VALIDATOR_CEL}.
 * Because every composed key gates XR readiness, the VultrCluster is Ready
 * only once GPUs are usable.
 */
export function gpuObserver(kubeconfigSecret: string, namespace: string): KubeObject {
  return kubernetesObject({
    namespace,
    manifest: {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'nvidia-operator-validator', namespace: 'gpu-operator' },
    },
    providerConfigRef: { kind: 'ProviderConfig', name: kubeconfigSecret },
    readiness: { policy: 'DeriveFromCelQuery', celQuery: GPU_VALIDATOR_CEL },
    managementPolicies: ['Observe'],
  });
}

/** Why a VKE cluster has no RWX StorageClass for ModelCache (`status.capabilities.rwxCacheStorageClass.reason`). */
export const NO_RWX_CACHE =
  'Vultr File System cannot be attached to VKE GPU nodes, so this cluster has no RWX StorageClass for ModelCache volumes.';

/** One gap of the platform, published in `status.limitations`. */
export interface Limitation {
  feature: 'ModelCache' | 'MultiNode' | 'PrivateNetworking';
  message: string;
}

/**
 * What a VKE cluster cannot offer today (the Vultr provider proposal;
 * docs/design.md#multi-node-needs-a-fabric). Published on every pass so nobody has to infer it
 * from what is missing.
 */
export const LIMITATIONS: readonly Limitation[] = [
  {
    feature: 'ModelCache',
    message:
      'No RWX model-cache storage on GPU nodes: Vultr File System cannot be attached to VKE GPU nodes, so no RWX StorageClass is provided and ModelCache volumes cannot be provisioned here.',
  },
  {
    feature: 'MultiNode',
    message:
      'Single-node serving only: VKE offers no GPU fabric between nodes, so multi-node (Leader + Worker) engines are never placed here.',
  },
  {
    feature: 'PrivateNetworking',
    message:
      'No VPC-only networking: the cluster is not attached to a Vultr VPC and its API server endpoint is public.',
  },
];
