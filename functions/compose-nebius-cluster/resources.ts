/**
 * The objects compose-nebius-cluster composes, one builder each
 * (docs/clouds.md#nebius-resources).
 *
 * Guarantees: every builder returns a fresh plain-JSON object shaped as the
 * real CRDs accept it (provider-nebius v1.0.1, namespaced `.m.` groups;
 * provider-helm v1.4.0, provider-kubernetes v1.3.0), with only the fields the
 * spec assigns; the deliberately empty `publicEndpoint: {}` is kept. Every
 * Nebius MR sets an explicit `forProvider.name` (the Nebius API requires
 * one) and carries the Nebius `providerConfigRef`; the cluster is created in
 * that ProviderConfig's project. Every node group mounts the shared cache
 * filesystem at `/mnt/data` through the cloud-init Secret. A node group is
 * fixed-size (`fixedNodeCount`) unless `maxNodeCount` is set (mk8s node
 * groups are fixed XOR autoscaled).
 */
import type { JsonObject, KubeObject } from '../lib/function.js';
import type { NebiusClusterNodePool, NebiusClusterSpec } from '../lib/generated/nebiusclusters.js';
import type { ProviderConfigRef } from '../lib/objects.js';
import { GPU_TOLERATION, workloadRelease, workloadStorageClass } from '../lib/workload.js';

/** provider-nebius v1.0.1 APIs. */
export const VPC = 'vpc.nebius.m.upbound.io/v1beta1';
export const MK8S = 'mk8s.nebius.m.upbound.io/v1beta1';
export const COMPUTE = 'compute.nebius.m.upbound.io/v1beta1';

/** Node label carrying the pool name (docs/clouds.md#node-labels-and-taints). */
export const POOL_LABEL = 'modelplane.ai/pool';
/** Node label carrying the accelerator id on GPU pools. */
export const GPU_LABEL = 'modelplane.ai/gpu';
/** Label of a GpuCluster, naming its InfiniBand fabric (node groups select it). */
export const FABRIC_LABEL = 'modelplane.ai/fabric';
/** Virtiofs tag of the shared cache filesystem, mounted at `/mnt/data` by cloud-init. */
export const CACHE_MOUNT_TAG = 'modelplane-cache';
/** Name of the RWX StorageClass over the shared filesystem; published in `status.cache`. */
export const STORAGE_CLASS = 'modelplane-rwx-fs';

/**
 * The cloud-init document every node runs: mount the shared filesystem at
 * `/mnt/data` now and at every boot (the `\n` is a literal backslash-n inside
 * the printf string).
 */
export const CLOUD_INIT_USER_DATA = [
  '#cloud-config',
  'runcmd:',
  '  - mkdir -p /mnt/data',
  `  - mount -t virtiofs ${CACHE_MOUNT_TAG} /mnt/data`,
  `  - printf "${CACHE_MOUNT_TAG} /mnt/data virtiofs defaults,nofail 0 2\\n" >> /etc/fstab`,
  '',
].join('\n');

/** Everything the builders read, resolved once from the XR. */
export interface NebiusContext {
  /** XR name: the Nebius name of the network, subnet and cluster, and the prefix of the others. */
  name: string;
  /** XR namespace: where the Secrets and in-cluster objects live. */
  namespace: string;
  spec: NebiusClusterSpec;
  /** Kubeconfig connection Secret, `child_name(<xr>, "kubeconfig")` (endpoint and CA only). */
  kubeconfigSecret: string;
  /** The cloud-init Secret, `child_name(<xr>, "cloud-init")`. */
  cloudInitSecret: string;
  /** The Nebius (Cluster)ProviderConfig of every Nebius MR. */
  providerConfigRef: ProviderConfigRef;
}

const controllerRef = (): JsonObject => ({ matchControllerRef: true });

/** A Nebius managed resource of this XR. */
function mr(ctx: NebiusContext, apiVersion: string, kind: string, forProvider: JsonObject, opts: { labels?: Record<string, string>; extra?: JsonObject } = {}): KubeObject {
  const out: KubeObject = { apiVersion, kind };
  if (opts.labels) out.metadata = { labels: { ...opts.labels } };
  out['spec'] = { forProvider, providerConfigRef: { ...ctx.providerConfigRef }, ...(opts.extra ?? {}) };
  return out;
}

/** Key `network`: the VPC network, named like the XR. */
export function network(ctx: NebiusContext): KubeObject {
  return mr(ctx, VPC, 'Network', { name: ctx.name });
}

/** Key `subnet`: a subnet taking its addresses from the network's pools. */
export function subnet(ctx: NebiusContext): KubeObject {
  return mr(ctx, VPC, 'Subnet', { name: ctx.name, networkIdSelector: controllerRef(), ipv4PrivatePools: { useNetworkPools: true } });
}

/** Key `cluster`: the mk8s control plane with a public endpoint; the kubeconfig goes to the kubeconfig Secret. */
export function cluster(ctx: NebiusContext): KubeObject {
  return mr(
    ctx,
    MK8S,
    'Cluster',
    {
      name: ctx.name,
      controlPlane: { version: ctx.spec.kubernetesVersion, subnetIdSelector: controllerRef(), endpoints: { publicEndpoint: {} } },
    },
    { extra: { writeConnectionSecretToRef: { name: ctx.kubeconfigSecret } } },
  );
}

/** Key `filesystem`: the 1 TiB shared SSD filesystem every node mounts (the ModelCache). */
export function filesystem(ctx: NebiusContext): KubeObject {
  return mr(ctx, COMPUTE, 'Filesystem', { name: `${ctx.name}-cache`, type: 'NETWORK_SSD', sizeGibibytes: 1024 });
}

/** Key `cloud-init`: the plain Secret holding {@link CLOUD_INIT_USER_DATA} (not a managed resource). */
export function cloudInit(ctx: NebiusContext): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: ctx.cloudInitSecret, namespace: ctx.namespace },
    type: 'Opaque',
    stringData: { userData: CLOUD_INIT_USER_DATA },
  };
}

/** Key `gpu-cluster-<fabric>`: the GpuCluster of one InfiniBand fabric, labelled with it. */
export function gpuCluster(ctx: NebiusContext, fabric: string): KubeObject {
  return mr(ctx, COMPUTE, 'GpuCluster', { name: `${ctx.name}-${fabric}`, infinibandFabric: fabric }, { labels: { [FABRIC_LABEL]: fabric } });
}

/** The template pieces every node group shares: the subnet, the cache filesystem, cloud-init. */
function templateBase(ctx: NebiusContext, platform: string, preset: string, diskSizeGb: number, labels: Record<string, string>): JsonObject {
  return {
    resources: { platform, preset },
    bootDisk: { sizeGibibytes: diskSizeGb, type: 'NETWORK_SSD' },
    networkInterfaces: [{ subnetIdSelector: controllerRef() }],
    filesystems: [{ attachMode: 'READ_WRITE', mountTag: CACHE_MOUNT_TAG, existingFilesystem: { idSelector: controllerRef() } }],
    cloudInitUserDataSecretRef: { name: ctx.cloudInitSecret, key: 'userData' },
    metadata: { labels },
  };
}

/** Key `nodegroup-system` (docs/clouds.md#the-system-pool): cpu-d3 4vcpu-16gb, 100 GiB, autoscaled 1..2, labelled pool=system. */
export function systemNodeGroup(ctx: NebiusContext): KubeObject {
  return mr(ctx, MK8S, 'NodeGroup', {
    name: `${ctx.name}-system`,
    parentIdSelector: controllerRef(),
    version: ctx.spec.kubernetesVersion,
    autoscaling: { minNodeCount: 1, maxNodeCount: 2 },
    template: templateBase(ctx, 'cpu-d3', '4vcpu-16gb', 100, { [POOL_LABEL]: 'system' }),
  });
}

/**
 * Key `nodegroup-<pool>`: the pool's platform and preset; a GPU pool with a
 * `gpu` block gets its drivers preset, the gpu label and the
 * `nvidia.com/gpu=true:NO_SCHEDULE` taint; an InfiniBand pool joins its
 * fabric's GpuCluster. Autoscaled `{minNodeCount or nodeCount,
 * maxNodeCount}` when `maxNodeCount` is set, else `fixedNodeCount`.
 */
export function poolNodeGroup(ctx: NebiusContext, pool: NebiusClusterNodePool, platform: string, preset: string): KubeObject {
  const gpu = pool.role === 'GPU' ? pool.gpu : undefined;
  const labels: Record<string, string> = { [POOL_LABEL]: pool.name };
  if (gpu) labels[GPU_LABEL] = gpu.acceleratorType;
  const template = templateBase(ctx, platform, preset, pool.diskSizeGb, labels);
  if (gpu) {
    template['gpuSettings'] = { driversPreset: gpu.driversPreset };
    template['taints'] = [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NO_SCHEDULE' }];
  }
  const fabric = infinibandFabric(pool);
  if (fabric) template['gpuCluster'] = { idSelector: { matchControllerRef: true, matchLabels: { [FABRIC_LABEL]: fabric } } };
  const forProvider: JsonObject = { name: `${ctx.name}-${pool.name}`, parentIdSelector: controllerRef(), version: ctx.spec.kubernetesVersion };
  if (pool.maxNodeCount !== undefined) {
    forProvider['autoscaling'] = { minNodeCount: pool.minNodeCount ?? pool.nodeCount, maxNodeCount: pool.maxNodeCount };
  } else {
    forProvider['fixedNodeCount'] = pool.nodeCount;
  }
  forProvider['template'] = template;
  return mr(ctx, MK8S, 'NodeGroup', forProvider);
}

/** The pool's InfiniBand fabric, or undefined. */
export function infinibandFabric(pool: NebiusClusterNodePool): string | undefined {
  return pool.fabric?.type === 'InfiniBand' ? pool.fabric.infiniband?.fabric : undefined;
}

/** Key `release-csi-mounted-fs-path`: Nebius's CSI driver over the node-mounted filesystem; tolerates GPU nodes. */
export function csiDriver(ctx: NebiusContext): KubeObject {
  return workloadRelease({
    namespace: ctx.namespace,
    kubeconfigSecret: ctx.kubeconfigSecret,
    chart: { name: 'csi-mounted-fs-path', repository: 'oci://cr.eu-north1.nebius.cloud/mk8s/helm', version: '0.1.6' },
    targetNamespace: 'kube-system',
    values: { dataDir: '/mnt/data/csi-mounted-fs-path-data/', tolerations: [{ ...GPU_TOLERATION }] },
  });
}

/** Key `storage-class-rwx-fs`: RWX volumes on the shared filesystem, bound when first consumed. */
export function storageClass(ctx: NebiusContext): KubeObject {
  return workloadStorageClass(ctx.namespace, ctx.kubeconfigSecret, STORAGE_CLASS, {
    provisioner: 'mounted-fs-path.csi.nebius.ai',
    volumeBindingMode: 'WaitForFirstConsumer',
  });
}
