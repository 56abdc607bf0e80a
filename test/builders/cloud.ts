/**
 * Test builders for the cloud cluster XRs (EKSCluster, GKECluster,
 * AKSCluster, NebiusCluster, VultrCluster) and the provider configs they
 * require: short,
 * immutable, each call a fresh object. Inputs are built here; expected
 * outputs are literal in the tests and goldens, never built with production
 * code.
 */
import type { ComposeRequest, JsonObject, KubeObject, ObservedResource } from '../../functions/lib/function.js';

/** XR name of every acceptance case (docs/clouds.md). */
export const XR = 'test-cluster';
/** XR namespace of every acceptance case. */
export const NS = 'modelplane-system';
/** `child_name("test-cluster", "kubeconfig")` (§1.3 vector). */
export const KUBECONFIG = 'test-cluster-kubeconfig-55b57';
/** `child_name("modelplane-system", "test-cluster", "eks")` (§1.3 vector). */
export const EKS_NAME = 'modelplane-system-test-cluster-eks-0865f';
/** `child_name("test-cluster", "sa-key")` (§1.3 vector). */
export const SA_KEY = 'test-cluster-sa-key-3295c';
/** `child_name("modelplane-system", "test-cluster", "aks")` (§1.3 vector). */
export const AKS_NAME = 'modelplane-system-test-cluster-aks-1173e';
/** `child_name("test-cluster", "cloud-init")` (§1.3 vector). */
export const CLOUD_INIT = 'test-cluster-cloud-init-fd2f2';
/** The API version of every cloud XR. */
export const INFRA = 'infrastructure.modelplane.ai/v1alpha1';

/** An EKS pool; GPU pools default to `nvidia-l4` accelerators. */
export function eksPool(name: string, fields: JsonObject = {}): JsonObject {
  return { name, role: 'GPU', gpu: { acceleratorType: 'nvidia-l4' }, ...structuredClone(fields) };
}

/** §8.1 XR A's pool: `gpu-l4`, g6.xlarge, 1 node (0..4), zones us-west-2a/b. */
export function poolA(): JsonObject {
  return eksPool('gpu-l4', {
    instanceType: 'g6.xlarge',
    nodeCount: 1,
    minNodeCount: 0,
    maxNodeCount: 4,
    zones: ['us-west-2a', 'us-west-2b'],
  });
}

/** §8.1 case 12/13 pool: `gpu-h200`, p5en.48xlarge, 2 nodes (0..2), 1024 GB, zone us-west-2a. */
export function poolH200(fields: JsonObject = {}): JsonObject {
  return eksPool('gpu-h200', {
    instanceType: 'p5en.48xlarge',
    nodeCount: 2,
    minNodeCount: 0,
    maxNodeCount: 2,
    diskSizeGb: 1024,
    gpu: { acceleratorType: 'nvidia-h200' },
    zones: ['us-west-2a'],
    ...fields,
  });
}

/** An EKSCluster in us-west-2 with these pools (default: XR A's) and extra spec fields. */
export function eksXr(pools: JsonObject[] = [poolA()], spec: JsonObject = {}): KubeObject {
  return {
    apiVersion: INFRA,
    kind: 'EKSCluster',
    metadata: { name: XR, namespace: NS },
    spec: { region: 'us-west-2', nodePools: structuredClone(pools), ...structuredClone(spec) },
  };
}

/** A Vultr pool; GPU pools default to `nvidia-l40s` accelerators. */
export function vultrPool(name: string, fields: JsonObject = {}): JsonObject {
  return { name, role: 'GPU', gpu: { acceleratorType: 'nvidia-l40s' }, ...structuredClone(fields) };
}

/** §8.5's pool: `gpu-l40s`, plan vcg-l40s-16c-180g-48vram, up to 4 nodes. */
export function poolL40s(fields: JsonObject = {}): JsonObject {
  return vultrPool('gpu-l40s', { plan: 'vcg-l40s-16c-180g-48vram', maxNodeCount: 4, ...fields });
}

/** A VultrCluster in ewr with these pools (default: §8.5's). */
export function vultrXr(pools: JsonObject[] = [poolL40s()], spec: JsonObject = {}): KubeObject {
  return {
    apiVersion: INFRA,
    kind: 'VultrCluster',
    metadata: { name: XR, namespace: NS },
    spec: { region: 'ewr', nodePools: structuredClone(pools), ...structuredClone(spec) },
  };
}

/** §8.2's pool: `gpu-pool`, a2-highgpu-8g with 8 nvidia-tesla-a100, no zones, other fields defaulted. */
export function gkePool(name = 'gpu-pool', fields: JsonObject = {}): JsonObject {
  return {
    name,
    role: 'GPU',
    machineType: 'a2-highgpu-8g',
    gpu: { acceleratorType: 'nvidia-tesla-a100', acceleratorCount: 8 },
    ...structuredClone(fields),
  };
}

/** A GKECluster in us-central1 with these pools (default: §8.2's). */
export function gkeXr(pools: JsonObject[] = [gkePool()], spec: JsonObject = {}): KubeObject {
  return {
    apiVersion: INFRA,
    kind: 'GKECluster',
    metadata: { name: XR, namespace: NS },
    spec: { region: 'us-central1', nodePools: structuredClone(pools), ...structuredClone(spec) },
  };
}

/** A GCP (Cluster)ProviderConfig naming `projectID` (the §8.2 required resource: ClusterProviderConfig `default`, my-gcp-project). */
export function gcpProviderConfig(opts: { kind?: string; name?: string; namespace?: string; projectID?: string | null } = {}): KubeObject {
  const metadata: KubeObject['metadata'] = { name: opts.name ?? 'default' };
  if (opts.namespace) metadata.namespace = opts.namespace;
  const spec: JsonObject = { credentials: { source: 'Secret', secretRef: { namespace: 'crossplane-system', name: 'gcp-credentials', key: 'credentials' } } };
  if (opts.projectID !== null) spec['projectID'] = opts.projectID ?? 'my-gcp-project';
  return { apiVersion: 'gcp.m.upbound.io/v1beta1', kind: opts.kind ?? 'ClusterProviderConfig', metadata, spec };
}

/** §8.3's pool: `gpuh100`, Standard_ND96isr_H100_v5, 200 GB, 1 node (1..4), nvidia-h100. */
export function aksPool(name = 'gpuh100', fields: JsonObject = {}): JsonObject {
  return {
    name,
    role: 'GPU',
    vmSize: 'Standard_ND96isr_H100_v5',
    diskSizeGb: 200,
    nodeCount: 1,
    minNodeCount: 1,
    maxNodeCount: 4,
    gpu: { acceleratorType: 'nvidia-h100' },
    ...structuredClone(fields),
  };
}

/** An AKSCluster in westeurope with these pools (default: §8.3's). */
export function aksXr(pools: JsonObject[] = [aksPool()], spec: JsonObject = {}): KubeObject {
  return {
    apiVersion: INFRA,
    kind: 'AKSCluster',
    metadata: { name: XR, namespace: NS },
    spec: { location: 'westeurope', nodePools: structuredClone(pools), ...structuredClone(spec) },
  };
}

/** §8.4's pool: `gpu-h100`, gpu-h100-sxm / 8gpu-128vcpu-1600gb, 200 GiB, up to 4 nodes, nvidia-h100. */
export function nebiusPool(name = 'gpu-h100', fields: JsonObject = {}): JsonObject {
  return {
    name,
    role: 'GPU',
    platform: 'gpu-h100-sxm',
    preset: '8gpu-128vcpu-1600gb',
    diskSizeGb: 200,
    maxNodeCount: 4,
    gpu: { acceleratorType: 'nvidia-h100' },
    ...structuredClone(fields),
  };
}

/** A NebiusCluster with these pools (default: §8.4's). */
export function nebiusXr(pools: JsonObject[] = [nebiusPool()], spec: JsonObject = {}): KubeObject {
  return {
    apiVersion: INFRA,
    kind: 'NebiusCluster',
    metadata: { name: XR, namespace: NS },
    spec: { nodePools: structuredClone(pools), ...structuredClone(spec) },
  };
}

/**
 * A Nebius (Cluster)ProviderConfig (the §8.4 required resource:
 * ClusterProviderConfig `default`, credentials Secret
 * crossplane-system/nebius-credentials/credentials.json, project-e00test).
 */
export function nebiusProviderConfig(
  opts: { kind?: string; name?: string; namespace?: string; credentials?: JsonObject } = {},
): KubeObject {
  const metadata: KubeObject['metadata'] = { name: opts.name ?? 'default' };
  if (opts.namespace) metadata.namespace = opts.namespace;
  const credentials = opts.credentials ?? {
    source: 'Secret',
    secretRef: { namespace: 'crossplane-system', name: 'nebius-credentials', key: 'credentials.json' },
  };
  return {
    apiVersion: 'nebius.m.upbound.io/v1beta1',
    kind: opts.kind ?? 'ClusterProviderConfig',
    metadata,
    spec: { credentials, identity: { type: 'ServiceAccount' }, projectID: 'project-e00test' },
  };
}

/** Options of an observed composed resource. */
export interface ObservedOptions {
  /** Condition Ready True / False; omitted: no conditions. */
  ready?: boolean;
  /** `crossplane.io/external-name`. */
  externalName?: string;
  /** Extra status fields (besides conditions). */
  status?: JsonObject;
}

/** An observed composed resource of this apiVersion/kind. */
export function seen(apiVersion: string, kind: string, opts: ObservedOptions = {}): ObservedResource {
  const resource: KubeObject = { apiVersion, kind, metadata: { name: `${kind.toLowerCase()}-x` } };
  if (opts.externalName) resource.metadata!.annotations = { 'crossplane.io/external-name': opts.externalName };
  const status: JsonObject = { ...(opts.status ?? {}) };
  if (opts.ready !== undefined) {
    status['conditions'] = [
      { type: 'Ready', status: opts.ready ? 'True' : 'False', reason: opts.ready ? 'Available' : 'Creating' },
    ];
  }
  if (Object.keys(status).length > 0) resource['status'] = status;
  return { resource, connectionDetails: {} };
}

/** A fresh request for this XR, observed resources and required resources (by requirement name). */
export function request(
  composite: KubeObject,
  observed: Record<string, ObservedResource> = {},
  required: Record<string, KubeObject[]> = {},
): ComposeRequest {
  return structuredClone({ composite, observed, desired: {}, required, context: {}, credentials: {} });
}
