/**
 * The objects compose-gke-cluster composes, one builder each
 * (docs/clouds.md#gke-resources).
 *
 * Guarantees: every builder returns a fresh plain-JSON object shaped as the
 * real CRDs accept it (provider-upjet-gcp v2.6.0, namespaced `.m.` groups;
 * provider-kubernetes v1.3.0), with only the fields the spec assigns. Every
 * GCP MR carries `spec.providerConfigRef` (the GCP credentials); wiring
 * between them is by `matchControllerRef` selectors, so two GKEClusters
 * never select each other's resources. The cluster is regional (location =
 * region). GPU pools get no taint: GKE taints GPU nodes `nvidia.com/gpu`
 * itself. List order is part of the contract: secondary ranges `[pods,
 * services]`.
 */
import type { JsonObject, KubeObject } from '../lib/function.js';
import type { GKEClusterNodePool, GKEClusterSpec } from '../lib/generated/gkeclusters.js';
import type { ProviderConfigRef } from '../lib/objects.js';
import { workloadStorageClass } from '../lib/workload.js';

/** provider-gcp-compute v2.6.0 (Network, Subnetwork). */
export const COMPUTE = 'compute.gcp.m.upbound.io/v1beta1';
/** provider-gcp-container v2.6.0 (Cluster, NodePool). */
export const CONTAINER = 'container.gcp.m.upbound.io/v1beta1';
/** provider-gcp-cloudplatform v2.6.0 (ProjectService, ServiceAccount, ServiceAccountKey, ProjectIAMMember). */
export const CLOUDPLATFORM = 'cloudplatform.gcp.m.upbound.io/v1beta1';

/** Node label carrying the pool name (docs/clouds.md#node-labels-and-taints). */
export const POOL_LABEL = 'modelplane.ai/pool';
/** Node label carrying the accelerator id on GPU pools. */
export const GPU_LABEL = 'modelplane.ai/gpu';
/** Lets GKE's autoscaler model DRA slices, so a GPU pool scales from zero. */
export const GKE_DRA_LABEL = 'cloud.google.com/gke-nvidia-gpu-dra-driver';
/** The OAuth scope of every node: IAM decides what nodes may do. */
export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
/** Name of the Filestore RWX StorageClass; published in `status.cache`. */
export const STORAGE_CLASS = 'modelplane-rwx';
/** Role the Crossplane service account gets on the project (to reach the cluster's API). */
export const CLUSTER_ROLE = 'roles/container.admin';

/** Everything the builders read, resolved once from the XR. */
export interface GkeContext {
  /** XR name. */
  name: string;
  /** XR namespace: where the Secrets and in-cluster objects live. */
  namespace: string;
  spec: GKEClusterSpec;
  /** GCP project (from the ProviderConfig, or the observed cluster's). */
  project: string;
  /** Kubeconfig connection Secret, `child_name(<xr>, "kubeconfig")`. */
  kubeconfigSecret: string;
  /** Service-account key connection Secret, `child_name(<xr>, "sa-key")` (key `private_key`). */
  saKeySecret: string;
  /** The GCP (Cluster)ProviderConfig of every GCP MR. */
  providerConfigRef: ProviderConfigRef;
}

const controllerRef = (): JsonObject => ({ matchControllerRef: true });

/** A GCP managed resource of this XR: forProvider, the GCP providerConfigRef, then `extra` spec fields. */
function mr(ctx: GkeContext, apiVersion: string, kind: string, forProvider: JsonObject, extra: JsonObject = {}): KubeObject {
  return { apiVersion, kind, spec: { forProvider, providerConfigRef: { ...ctx.providerConfigRef }, ...extra } };
}

/** Key `network`: a custom-mode VPC (no auto subnets); its GCP name is the provider-generated external name. */
export function network(ctx: GkeContext): KubeObject {
  return mr(ctx, COMPUTE, 'Network', { autoCreateSubnetworks: false });
}

/** Key `projectservice-filestore`: the Filestore API, left enabled when the XR goes. */
export function filestoreService(ctx: GkeContext): KubeObject {
  return mr(ctx, CLOUDPLATFORM, 'ProjectService', { service: 'file.googleapis.com', disableOnDestroy: false });
}

/** Key `subnet`: the node range with the `pods` and `services` secondary ranges (VPC-native). */
export function subnet(ctx: GkeContext): KubeObject {
  const net = ctx.spec.networking;
  return mr(ctx, COMPUTE, 'Subnetwork', {
    region: ctx.spec.region,
    networkSelector: controllerRef(),
    ipCidrRange: net?.nodeCidr ?? '10.0.0.0/24',
    secondaryIpRange: [
      { rangeName: 'pods', ipCidrRange: net?.podCidr ?? '10.1.0.0/16' },
      { rangeName: 'services', ipCidrRange: net?.serviceCidr ?? '10.2.0.0/16' },
    ],
  });
}

/**
 * Key `cluster`: a regional GKE cluster on the REGULAR channel without its
 * default node pool, Workload Identity on the project, the Filestore CSI
 * driver enabled; the kubeconfig goes to the kubeconfig Secret.
 */
export function cluster(ctx: GkeContext): KubeObject {
  return mr(
    ctx,
    CONTAINER,
    'Cluster',
    {
      location: ctx.spec.region,
      deletionProtection: false,
      removeDefaultNodePool: true,
      initialNodeCount: 1,
      minMasterVersion: ctx.spec.kubernetesVersion,
      networkSelector: controllerRef(),
      subnetworkSelector: controllerRef(),
      ipAllocationPolicy: { clusterSecondaryRangeName: 'pods', servicesSecondaryRangeName: 'services' },
      releaseChannel: { channel: 'REGULAR' },
      workloadIdentityConfig: { workloadPool: `${ctx.project}.svc.id.goog` },
      addonsConfig: { gcpFilestoreCsiDriverConfig: { enabled: true } },
    },
    { writeConnectionSecretToRef: { name: ctx.kubeconfigSecret } },
  );
}

/** Key `nodepool-system` (docs/clouds.md#the-system-pool): e2-standard-4, 1 node, autoscaled 1..2, labelled pool=system. */
export function systemNodePool(ctx: GkeContext): KubeObject {
  return mr(ctx, CONTAINER, 'NodePool', {
    location: ctx.spec.region,
    clusterSelector: controllerRef(),
    initialNodeCount: 1,
    autoscaling: { minNodeCount: 1, maxNodeCount: 2 },
    nodeConfig: {
      machineType: 'e2-standard-4',
      imageType: 'COS_CONTAINERD',
      oauthScopes: [CLOUD_PLATFORM_SCOPE],
      labels: { [POOL_LABEL]: 'system' },
    },
  });
}

/**
 * Key `nodepool-<pool>`: `nodeCount` nodes, autoscaled between the pool's
 * bounds; a GPU pool with a `gpu` block gets its accelerators with the
 * default driver installed by GKE and the gpu, pool and DRA-driver labels;
 * any other pool only the pool label. `nodeLocations` = the pool's zones.
 * A Spot pool (`capacityType: Spot`) runs Spot VMs (`nodeConfig.spot: true`,
 * docs/capacity-types.md#gke); any other pool sets no `spot`.
 */
export function poolNodePool(ctx: GkeContext, pool: GKEClusterNodePool, machineType: string): KubeObject {
  const nodeConfig: JsonObject = {
    machineType,
    diskSizeGb: pool.diskSizeGb,
    imageType: 'COS_CONTAINERD',
    oauthScopes: [CLOUD_PLATFORM_SCOPE],
  };
  if (pool.role === 'GPU' && pool.gpu) {
    nodeConfig['guestAccelerator'] = [
      {
        type: pool.gpu.acceleratorType,
        count: pool.gpu.acceleratorCount,
        gpuDriverInstallationConfig: { gpuDriverVersion: 'DEFAULT' },
      },
    ];
    nodeConfig['labels'] = { [GPU_LABEL]: pool.gpu.acceleratorType, [POOL_LABEL]: pool.name, [GKE_DRA_LABEL]: 'true' };
  } else {
    nodeConfig['labels'] = { [POOL_LABEL]: pool.name };
  }
  if (pool.capacityType === 'Spot') nodeConfig['spot'] = true;
  const forProvider: JsonObject = {
    location: ctx.spec.region,
    clusterSelector: controllerRef(),
    initialNodeCount: pool.nodeCount,
    autoscaling: { minNodeCount: pool.minNodeCount, maxNodeCount: pool.maxNodeCount },
    nodeConfig,
  };
  if (pool.zones) forProvider['nodeLocations'] = [...pool.zones];
  return mr(ctx, CONTAINER, 'NodePool', forProvider);
}

/** Key `service-account`: the identity Crossplane's providers use to reach the cluster. */
export function serviceAccount(ctx: GkeContext): KubeObject {
  return mr(ctx, CLOUDPLATFORM, 'ServiceAccount', { displayName: `Crossplane GKECluster ${ctx.name}` });
}

/** Key `service-account-key`: its key, written to the sa-key Secret (`private_key`). */
export function serviceAccountKey(ctx: GkeContext): KubeObject {
  return mr(
    ctx,
    CLOUDPLATFORM,
    'ServiceAccountKey',
    { serviceAccountIdSelector: controllerRef() },
    { writeConnectionSecretToRef: { name: ctx.saKeySecret } },
  );
}

/** Key `iam-binding`: `roles/container.admin` on the project for the service account `email`. */
export function iamBinding(ctx: GkeContext, email: string): KubeObject {
  return mr(ctx, CLOUDPLATFORM, 'ProjectIAMMember', { role: CLUSTER_ROLE, member: `serviceAccount:${email}` });
}

/** Key `storage-class-rwx`: Filestore Enterprise RWX volumes on the cluster's network, bound immediately. */
export function storageClass(ctx: GkeContext, networkName: string): KubeObject {
  return workloadStorageClass(ctx.namespace, ctx.kubeconfigSecret, STORAGE_CLASS, {
    provisioner: 'filestore.csi.storage.gke.io',
    parameters: { tier: 'enterprise', network: networkName },
    volumeBindingMode: 'Immediate',
    allowVolumeExpansion: true,
  });
}
