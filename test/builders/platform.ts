/**
 * Test builders for the platform side (InferenceCluster, InferenceClass,
 * ServingStack, InferenceGateway): short, immutable, each call a fresh
 * object. Inputs are built here; expected outputs are literal in the tests,
 * except the few shapes every case repeats (also literal here, never built
 * with production code).
 */
import type {
  ComposeRequest,
  DesiredResource,
  JsonObject,
  KubeObject,
  ObservedResource,
  ResourceSelector,
} from '../../functions/lib/function.js';

/** Name of every InferenceCluster in the acceptance cases. */
export const IC = 'test-cluster';
/** `child_name("test-cluster", "cluster-kubeconfig")` (docs/clouds.md#names, verified). */
export const CPC_NAME = 'test-cluster-cluster-kubeconfig-d0f89';
/** `child_name("test-cluster", "serving-stack")` (verified). */
export const SS_NAME = 'test-cluster-serving-stack-fd00b';

/** A condition as Crossplane reports it on an observed object. */
export function cond(type: string, status: 'True' | 'False' = 'True'): JsonObject {
  return { type, status, reason: status === 'True' ? 'Available' : 'Creating', lastTransitionTime: '2026-01-01T00:00:00Z' };
}

/** An observed composed resource: the object plus optional status (conditions first). */
export function observed(resource: KubeObject, status?: JsonObject, conditions: JsonObject[] = []): ObservedResource {
  const obj: KubeObject = structuredClone(resource);
  if (status || conditions.length > 0) obj['status'] = { ...(conditions.length > 0 ? { conditions } : {}), ...(status ?? {}) };
  return { resource: obj, connectionDetails: {} };
}

/** A fresh request. */
export function request(
  composite: KubeObject,
  opts: {
    observed?: Record<string, ObservedResource>;
    desired?: Record<string, DesiredResource>;
    required?: Record<string, KubeObject[]>;
  } = {},
): ComposeRequest {
  return structuredClone({
    composite,
    observed: opts.observed ?? {},
    desired: opts.desired ?? {},
    required: opts.required ?? {},
    context: {},
    credentials: {},
  });
}

/** The GPU device of the acceptance classes. */
export function gpuDevice(count: number, memory: string): JsonObject {
  return {
    name: 'gpu',
    claim: 'DRA',
    driver: 'gpu.nvidia.com',
    deviceClassName: 'gpu.nvidia.com',
    count,
    capacity: { memory: { value: memory } },
  };
}

/** An InferenceClass with these devices and optional provisioning. */
export function inferenceClass(name: string, devices: JsonObject[], provisioning?: JsonObject): KubeObject {
  return {
    apiVersion: 'modelplane.ai/v1alpha1',
    kind: 'InferenceClass',
    metadata: { name },
    spec: { ...(provisioning ? { provisioning } : {}), devices },
  };
}

/** The five acceptance classes (docs/kinds/inferenceclass.md). */
export const classes = {
  gkeL4: () =>
    inferenceClass('gpu-l4', [gpuDevice(1, '24Gi')], {
      provider: 'GKE',
      gke: { machineType: 'g2-standard-48', diskSizeGb: 100, accelerator: { type: 'nvidia-l4', count: 1 } },
    }),
  eksL4: () =>
    inferenceClass('gpu-l4-eks', [gpuDevice(1, '24Gi')], {
      provider: 'EKS',
      eks: { instanceType: 'g6.xlarge', diskSizeGb: 100, accelerator: { type: 'nvidia-l4', count: 1 } },
    }),
  nebiusH100: () =>
    inferenceClass('gpu-h100-nebius', [gpuDevice(8, '81559Mi')], {
      provider: 'Nebius',
      nebius: {
        platform: 'gpu-h100-sxm',
        preset: '8gpu-128vcpu-1600gb',
        diskSizeGb: 200,
        accelerator: { type: 'nvidia-h100', count: 8 },
      },
    }),
  aksH100: () =>
    inferenceClass('gpu-h100-aks', [gpuDevice(8, '81559Mi')], {
      provider: 'AKS',
      aks: { vmSize: 'Standard_ND96isr_H100_v5', diskSizeGb: 200, accelerator: { type: 'nvidia-h100', count: 8 } },
    }),
  vultrL40s: () =>
    inferenceClass('gpu-l40s-vultr', [gpuDevice(1, '46068Mi')], {
      provider: 'Vultr',
      vultr: { plan: 'vcg-l40s-16c-180g-48vram', accelerator: { type: 'nvidia-l40s', count: 1 } },
    }),
};

/** A node pool; `extra` adds or overrides fields. */
export function pool(name: string, className: string, extra: JsonObject = {}): JsonObject {
  return { name, className, nodeCount: 2, maxNodeCount: 4, ...extra };
}

/** An InferenceCluster `test-cluster` (with the namespace the tests put on it). */
export function inferenceCluster(cluster: JsonObject, nodePools: JsonObject[], name = IC): KubeObject {
  return {
    apiVersion: 'modelplane.ai/v1alpha1',
    kind: 'InferenceCluster',
    metadata: { name, namespace: 'modelplane-system' },
    spec: { cluster, nodePools },
  };
}

/** `required` entry for classes: `class-<name>` → [class]. */
export function requiredClasses(...items: KubeObject[]): Record<string, KubeObject[]> {
  return Object.fromEntries(items.map((c) => [`class-${c.metadata?.name}`, [c]]));
}

/** A ModelReplica labelled for `test-cluster`. */
export function replica(namespace: string, name: string): KubeObject {
  return {
    apiVersion: 'modelplane.ai/v1alpha1',
    kind: 'ModelReplica',
    metadata: { name, namespace, labels: { 'modelplane.ai/cluster': IC } },
  };
}

/** Requirements of an InferenceCluster `test-cluster` using these classes (plus any extra). */
export function icRequirements(
  classNames: string[],
  extra: Record<string, ResourceSelector> = {},
): Record<string, ResourceSelector> {
  return {
    'model-replicas': { apiVersion: 'modelplane.ai/v1alpha1', kind: 'ModelReplica', matchLabels: { 'modelplane.ai/cluster': IC } },
    ...Object.fromEntries(
      classNames.map((n) => [`class-${n}`, { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceClass', matchName: n }]),
    ),
    ...extra,
  };
}

/** The kubeconfig Secret requirement of an Existing cluster. */
export function secretRequirement(name: string): Record<string, ResourceSelector> {
  return { 'kubeconfig-secret': { apiVersion: 'v1', kind: 'Secret', matchName: name, namespace: 'modelplane-system' } };
}

/** Expected ClusterProviderConfig of `test-cluster`. */
export function expectedCpc(name: string, key: string, identity?: JsonObject): KubeObject {
  return {
    apiVersion: 'kubernetes.m.crossplane.io/v1alpha1',
    kind: 'ClusterProviderConfig',
    metadata: { name: CPC_NAME },
    spec: {
      credentials: { source: 'Secret', secretRef: { namespace: 'modelplane-system', name, key } },
      ...(identity ? { identity } : {}),
    },
  };
}

/** Expected ServingStack of `test-cluster`. */
export function expectedStack(secrets: JsonObject[], nvidiaDriverRoot?: string): KubeObject {
  return {
    apiVersion: 'infrastructure.modelplane.ai/v1alpha1',
    kind: 'ServingStack',
    metadata: { name: SS_NAME, namespace: 'modelplane-system' },
    spec: { secrets, ...(nvidiaDriverRoot ? { nvidiaDriverRoot } : {}) },
  };
}

/** Expected `usage-<cloud>-by-backend`. */
export function expectedBackendUsage(kind: string): KubeObject {
  const api = 'infrastructure.modelplane.ai/v1alpha1';
  return {
    apiVersion: 'protection.crossplane.io/v1beta1',
    kind: 'Usage',
    metadata: { namespace: 'modelplane-system' },
    spec: {
      of: { apiVersion: api, kind, resourceSelector: { matchControllerRef: true } },
      by: { apiVersion: api, kind: 'ServingStack', resourceSelector: { matchControllerRef: true } },
      replayDeletion: true,
    },
  };
}

/** Name of the test cluster's ServingStack ProviderConfigs (both families). */
export const SS_PC_NAME = 'test-cluster-serving-stack-fd00b-cluster-c3af9';

/**
 * The two `usage-<block>-by-stack-pc-<family>` Usages: the nested cluster XR
 * of `kind` outlives the ServingStack's helm and kubernetes ProviderConfigs.
 */
export function expectedStackPcUsages(kind: string, block: string): Record<string, { resource: KubeObject; ready: true }> {
  const usage = (apiVersion: string): KubeObject => ({
    apiVersion: 'protection.crossplane.io/v1beta1',
    kind: 'Usage',
    metadata: { namespace: 'modelplane-system' },
    spec: {
      of: { apiVersion: 'infrastructure.modelplane.ai/v1alpha1', kind, resourceSelector: { matchControllerRef: true } },
      by: { apiVersion, kind: 'ProviderConfig', resourceRef: { name: SS_PC_NAME } },
      replayDeletion: true,
    },
  });
  return {
    [`usage-${block}-by-stack-pc-helm`]: { resource: usage('helm.m.crossplane.io/v1beta1'), ready: true },
    [`usage-${block}-by-stack-pc-kubernetes`]: { resource: usage('kubernetes.m.crossplane.io/v1alpha1'), ready: true },
  };
}

/** Expected "std status" (docs/kinds/inferencecluster.md#status) plus extras. */
export function stdStatus(pools: JsonObject[], extra: JsonObject = {}): JsonObject {
  return { providerConfigRef: { name: CPC_NAME }, namespace: 'modelplane-system', gpuPools: pools, ...extra };
}

/** The reachability probe an InferenceCluster composes once its ClusterProviderConfig is composed (literal). */
export function expectedProbe(): KubeObject {
  return {
    apiVersion: 'kubernetes.m.crossplane.io/v1alpha1',
    kind: 'Object',
    metadata: { namespace: 'modelplane-system' },
    spec: {
      providerConfigRef: { kind: 'ClusterProviderConfig', name: CPC_NAME },
      forProvider: { manifest: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-system' } } },
      managementPolicies: ['Observe'],
    },
  };
}

/**
 * `want` of a first reconcile (no health published before, probe not
 * observed) with what health adds: the probe next to a composed
 * ClusterProviderConfig, and `status.health` Provisioning since the default
 * now, named by the first condition that is not True (else the probe
 * pending). Hold paths (no BackendReady condition) publish no new health.
 */
export function withFirstHealth(want: import('../../functions/lib/function.js').ComposeResult): import('../../functions/lib/function.js').ComposeResult {
  if (!want.status || !want.conditions.some((c) => c.type === 'BackendReady')) return want;
  const out = structuredClone(want);
  if (out.resources['cluster-provider-config-kubernetes'] !== undefined) out.resources['reachability-probe'] = { resource: expectedProbe(), ready: true };
  const problem = out.conditions.find((c) => c.status !== 'True');
  const health = problem
    ? { state: 'Provisioning', since: '2024-01-01T00:00:00Z', reason: problem.reason, message: `${problem.type} ${problem.status}: ${problem.message ?? problem.reason}` }
    : { state: 'Provisioning', since: '2024-01-01T00:00:00Z', reason: 'ProbePending', message: 'the reachability probe has not been observed yet' };
  out.status = { ...out.status, health };
  return out;
}
