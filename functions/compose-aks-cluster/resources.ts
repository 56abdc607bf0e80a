/**
 * The objects compose-aks-cluster composes, one builder each
 * (docs/clouds.md#aks-resources).
 *
 * Guarantees: every builder returns a fresh plain-JSON object shaped as the
 * real CRDs accept it (provider-upjet-azure v2.6.0, namespaced `.m.` groups;
 * provider-helm v1.4.0, provider-kubernetes v1.3.0), with only the fields the
 * spec assigns. The resource group and the cluster are named
 * `child_name(<ns>, <xr>, "aks")`, which is also the DNS prefix and, with
 * `-nodes`, the node resource group. The system pool is the cluster's inline
 * default pool; user pools are separate `KubernetesClusterNodePool`s whose
 * external name is the pool name, managed without LateInitialize so the AKS
 * autoscaler owns `nodeCount`. List order is part of the contract: mount
 * options as listed.
 */
import type { JsonObject, KubeObject } from '../lib/function.js';
import type { AKSClusterNodePool, AKSClusterSpec } from '../lib/generated/aksclusters.js';
import { EXTERNAL_NAME_ANNOTATION, type ProviderConfigRef } from '../lib/objects.js';
import { GPU_TOLERATION, workloadRelease, workloadStorageClass } from '../lib/workload.js';

/** provider-family-azure v2.6.0 (ResourceGroup). */
export const AZURE = 'azure.m.upbound.io/v1beta1';
/** provider-azure-network v2.6.0 (VirtualNetwork, Subnet). */
export const NETWORK = 'network.azure.m.upbound.io/v1beta1';
/** provider-azure-containerservice v2.6.0 (KubernetesCluster, KubernetesClusterNodePool). */
export const CONTAINERSERVICE = 'containerservice.azure.m.upbound.io/v1beta1';

/** The label AKS sets on spot nodes (value `spot`). */
export const SPOT_LABEL = 'kubernetes.azure.com/scalesetpriority';
/** The taint AKS sets on spot nodes; a deployment on a spot pool must tolerate it. */
export const SPOT_TAINT = 'kubernetes.azure.com/scalesetpriority=spot:NoSchedule';

/** Node label carrying the pool name (docs/clouds.md#node-labels-and-taints). */
export const POOL_LABEL = 'modelplane.ai/pool';
/** Node label carrying the accelerator id on GPU pools. */
export const GPU_LABEL = 'modelplane.ai/gpu';
/** AKS pool name of the inline default (system) pool. */
export const SYSTEM_POOL_NAME = 'system';
/** The name AKS gives the default pool while rotating it. */
export const ROTATION_POOL_NAME = 'systemtmp';
/** Name of the Azure Files RWX StorageClass; published in `status.cache`. */
export const STORAGE_CLASS = 'modelplane-rwx-fs';
/** Defaults of `spec.networking` (docs/clouds.md#aks-fields). */
export const DEFAULT_VNET_CIDR = '10.0.0.0/16';
export const DEFAULT_SUBNET_CIDR = '10.0.0.0/20';

/** Everything the builders read, resolved once from the XR. */
export interface AksContext {
  /** XR namespace: where the kubeconfig Secret and in-cluster objects live. */
  namespace: string;
  spec: AKSClusterSpec;
  /** Resource group, cluster and DNS prefix: `child_name(<xr namespace>, <xr name>, "aks")`. */
  clusterName: string;
  /** Kubeconfig connection Secret, `child_name(<xr>, "kubeconfig")`. */
  kubeconfigSecret: string;
  /** The Azure (Cluster)ProviderConfig of every Azure MR. */
  providerConfigRef: ProviderConfigRef;
}

const controllerRef = (): JsonObject => ({ matchControllerRef: true });

/** An Azure managed resource of this XR: optional metadata, then spec `{...before, forProvider, providerConfigRef, ...after}`. */
function mr(
  ctx: AksContext,
  apiVersion: string,
  kind: string,
  forProvider: JsonObject,
  opts: { metadata?: JsonObject; before?: JsonObject; after?: JsonObject } = {},
): KubeObject {
  const out: KubeObject = { apiVersion, kind };
  if (opts.metadata) out.metadata = structuredClone(opts.metadata);
  out['spec'] = { ...(opts.before ?? {}), forProvider, providerConfigRef: { ...ctx.providerConfigRef }, ...(opts.after ?? {}) };
  return out;
}

/** Key `resource-group`: named like the cluster, in the cluster's location. */
export function resourceGroup(ctx: AksContext): KubeObject {
  return mr(ctx, AZURE, 'ResourceGroup', { location: ctx.spec.location }, { metadata: { name: ctx.clusterName } });
}

/** Key `virtual-network`: the VNet (`spec.networking.vnetCidr`) in the resource group. */
export function virtualNetwork(ctx: AksContext): KubeObject {
  return mr(ctx, NETWORK, 'VirtualNetwork', {
    location: ctx.spec.location,
    addressSpace: [ctx.spec.networking?.vnetCidr ?? DEFAULT_VNET_CIDR],
    resourceGroupNameSelector: controllerRef(),
  });
}

/** Key `subnet`: the node subnet (`spec.networking.subnetCidr`); pods use the overlay range. */
export function subnet(ctx: AksContext): KubeObject {
  return mr(ctx, NETWORK, 'Subnet', {
    addressPrefixes: [ctx.spec.networking?.subnetCidr ?? DEFAULT_SUBNET_CIDR],
    resourceGroupNameSelector: controllerRef(),
    virtualNetworkNameSelector: controllerRef(),
  });
}

/**
 * Key `cluster`: the AKS cluster with a system-assigned identity, its inline
 * default pool (docs/clouds.md#the-system-pool: Standard_D4s_v5, autoscaled 1..2, 100 GB, rotating
 * through `systemtmp`), Azure CNI overlay networking; the kubeconfig (a
 * cluster-admin client certificate) goes to the kubeconfig Secret.
 */
export function cluster(ctx: AksContext): KubeObject {
  return mr(
    ctx,
    CONTAINERSERVICE,
    'KubernetesCluster',
    {
      location: ctx.spec.location,
      kubernetesVersion: ctx.spec.kubernetesVersion,
      dnsPrefix: ctx.clusterName,
      nodeResourceGroup: `${ctx.clusterName}-nodes`,
      resourceGroupNameSelector: controllerRef(),
      identity: { type: 'SystemAssigned' },
      defaultNodePool: {
        name: SYSTEM_POOL_NAME,
        vmSize: 'Standard_D4s_v5',
        autoScalingEnabled: true,
        minCount: 1,
        maxCount: 2,
        osDiskSizeGb: 100,
        temporaryNameForRotation: ROTATION_POOL_NAME,
        nodeLabels: { [POOL_LABEL]: SYSTEM_POOL_NAME },
        vnetSubnetIdSelector: controllerRef(),
      },
      networkProfile: {
        networkPlugin: 'azure',
        networkPluginMode: 'overlay',
        podCidr: '10.244.0.0/16',
        serviceCidr: '10.96.0.0/16',
        dnsServiceIp: '10.96.0.10',
      },
    },
    { metadata: { name: ctx.clusterName }, after: { writeConnectionSecretToRef: { name: ctx.kubeconfigSecret } } },
  );
}

/**
 * Key `nodepool-<pool>`: a User-mode agent pool (external name = pool name),
 * autoscaled between the pool's bounds from `nodeCount` nodes; a GPU pool
 * with a `gpu` block has AKS install the GPU driver, the gpu and pool labels
 * and the `nvidia.com/gpu=true:NoSchedule` taint; any other pool only the
 * pool label. `zones` when set. The fabric does not change the pool.
 * A Spot pool (`capacityType: Spot`, docs/capacity-types.md#aks) runs Spot
 * VMs: `priority: Spot`, `evictionPolicy: Delete`, `spotMaxPrice: -1` (pay
 * up to the on-demand price, never evicted for price). AKS itself labels and
 * taints spot nodes `kubernetes.azure.com/scalesetpriority=spot:NoSchedule`;
 * the pool declares that label and taint too, as AKS sets them, so the
 * provider never sees them as drift (node taints force a new pool). No
 * toleration is added to any workload: a deployment placed on a spot pool
 * must tolerate the taint.
 */
export function nodePool(ctx: AksContext, pool: AKSClusterNodePool, vmSize: string): KubeObject {
  const forProvider: JsonObject = {
    kubernetesClusterIdSelector: controllerRef(),
    vnetSubnetIdSelector: controllerRef(),
    mode: 'User',
    vmSize,
    osDiskSizeGb: pool.diskSizeGb,
    orchestratorVersion: ctx.spec.kubernetesVersion,
    autoScalingEnabled: true,
    minCount: pool.minNodeCount,
    maxCount: pool.maxNodeCount,
  };
  if (pool.zones) forProvider['zones'] = [...pool.zones];
  if (pool.role === 'GPU' && pool.gpu) {
    forProvider['gpuDriver'] = 'Install';
    forProvider['nodeLabels'] = { [GPU_LABEL]: pool.gpu.acceleratorType, [POOL_LABEL]: pool.name };
    forProvider['nodeTaints'] = ['nvidia.com/gpu=true:NoSchedule'];
  } else {
    forProvider['nodeLabels'] = { [POOL_LABEL]: pool.name };
  }
  if (pool.capacityType === 'Spot') {
    forProvider['priority'] = 'Spot';
    forProvider['evictionPolicy'] = 'Delete';
    forProvider['spotMaxPrice'] = -1;
    forProvider['nodeLabels'] = { ...(forProvider['nodeLabels'] as JsonObject), [SPOT_LABEL]: 'spot' };
    forProvider['nodeTaints'] = [...((forProvider['nodeTaints'] as string[] | undefined) ?? []), SPOT_TAINT];
  }
  return mr(ctx, CONTAINERSERVICE, 'KubernetesClusterNodePool', forProvider, {
    metadata: { annotations: { [EXTERNAL_NAME_ANNOTATION]: pool.name } },
    before: {
      managementPolicies: ['Observe', 'Create', 'Update', 'Delete'],
      initProvider: { nodeCount: pool.nodeCount },
    },
  });
}

/**
 * Key `release-network-operator`: NVIDIA's network operator 26.4.0 with the
 * OFED driver and the RDMA shared device plugin, for InfiniBand pools; its
 * DaemonSets tolerate the GPU taint.
 */
export function networkOperator(ctx: AksContext): KubeObject {
  return workloadRelease({
    namespace: ctx.namespace,
    kubeconfigSecret: ctx.kubeconfigSecret,
    chart: { name: 'network-operator', repository: 'https://helm.ngc.nvidia.com/nvidia', version: '26.4.0' },
    targetNamespace: 'network-operator',
    values: {
      deployCR: true,
      ofedDriver: { deploy: true },
      rdmaSharedDevicePlugin: { deploy: true },
      daemonsets: { tolerations: [{ ...GPU_TOLERATION }] },
    },
  });
}

/** Key `storage-class-rwx-fs`: Azure Files Premium RWX volumes, bound when first consumed. */
export function storageClass(ctx: AksContext): KubeObject {
  return workloadStorageClass(ctx.namespace, ctx.kubeconfigSecret, STORAGE_CLASS, {
    provisioner: 'file.csi.azure.com',
    parameters: { skuName: 'Premium_LRS' },
    mountOptions: ['dir_mode=0777', 'file_mode=0777', 'uid=0', 'gid=0', 'mfsymlinks', 'cache=strict', 'actimeo=30', 'nosharesock'],
    reclaimPolicy: 'Delete',
    allowVolumeExpansion: true,
    volumeBindingMode: 'WaitForFirstConsumer',
  });
}
