/**
 * compose-vultr-cluster: a VultrCluster becomes a VKE cluster
 * (docs/clouds.md#vultr).
 *
 * Guarantees:
 * - `cluster` (the VKE `Kubernetes` MR with a fixed inline system pool) is
 *   always composed.
 * - The dependents (one `node-pool-<pool>` per pool, `provider-config-kubernetes`,
 *   `gpu-observer`) are composed once the observed cluster is Ready, and from
 *   then on whenever any of them is observed, so a transient Ready regression
 *   never deletes node pools. Pools are separate MRs: adding, resizing or
 *   removing one never touches the cluster.
 * - Readiness: `provider-config-kubernetes` is always ready; every other key
 *   is ready exactly when observed Ready, so the XR is Ready only once the
 *   cluster, every pool and the NVIDIA validator are.
 * - Status: the kubeconfig Secret, the platform's gaps in plain words
 *   (`limitations`: no RWX model cache on GPU nodes, single-node serving only,
 *   no VPC-only networking), and `capabilities` saying the same in the
 *   provider contract: no RWX cache StorageClass (with the reason), no
 *   fabric, VKE's autoscaler when a pool autoscales, a preinstalled GPU stack
 *   the cluster's readiness is gated on. No CSI driver, StorageClass or autoscaler is
 *   composed: VKE ships them.
 * - Invalid input (see validate.ts) is a `SpecValid` condition plus a Warning
 *   naming the field; nothing already composed is dropped.
 */
import {
  cloudProviderConfigRef,
  keepCluster,
  type KeepCluster,
  type PoolProblem,
  poolReport,
  poolsByName,
  REASON_INVALID_SPEC,
  readCloudXr,
} from '../lib/cloud-cluster.js';
import {
  type ComposeRequest,
  type ComposeResult,
  emptyResult,
  isReady,
  type JsonObject,
  keepObserved,
} from '../lib/function.js';
import { parseVultrCluster } from '../lib/generated/vultrclusters.js';
import { childName } from '../lib/names.js';
import { readyAsObserved } from '../lib/ready.js';
import { capabilitiesStatus, type NodeAutoscaling } from '../lib/workload.js';
import { cluster, gpuObserver, kubernetesProviderConfig, LIMITATIONS, NO_RWX_CACHE, nodePool } from './resources.js';
import { poolProblem } from './validate.js';

/** Composition resource name of the VKE cluster. */
export const CLUSTER_KEY = 'cluster';
/** Composition resource name of the kubernetes ProviderConfig. */
export const PROVIDER_CONFIG_KEY = 'provider-config-kubernetes';
/** Composition resource name of the NVIDIA validator observer. */
export const GPU_OBSERVER_KEY = 'gpu-observer';
/** Prefix of a node pool's composition resource name (`node-pool-<pool>`). */
export const NODE_POOL_PREFIX = 'node-pool-';

/** What a VultrCluster whose spec does not parse keeps: its children and the status it wrote. */
const KEEP: KeepCluster = { alwaysReady: [PROVIDER_CONFIG_KEY], statusFields: ['secrets', 'limitations', 'capabilities'] };

/** Composes a VultrCluster. */
export function compose(req: ComposeRequest): ComposeResult {
  const xr = readCloudXr(req.composite, 'VultrCluster', parseVultrCluster);
  if ('invalid' in xr) return keepCluster(req, KEEP, REASON_INVALID_SPEC, xr.invalid);
  const { name, namespace, spec } = xr;
  const kubeconfigSecret = childName(name, 'kubeconfig');
  const providerConfigRef = cloudProviderConfigRef(spec.credentials);

  const result = emptyResult();
  const observed = req.observed;
  result.resources[CLUSTER_KEY] = readyAsObserved(
    cluster({ name, region: spec.region, version: spec.kubernetesVersion, kubeconfigSecret, providerConfigRef }),
    observed[CLUSTER_KEY],
  );

  const problems: PoolProblem[] = [];
  let autoscaling: NodeAutoscaling = 'None';
  const dependentsComposed =
    PROVIDER_CONFIG_KEY in observed || Object.keys(observed).some((k) => k.startsWith(NODE_POOL_PREFIX));
  const gateOpen = isReady(observed[CLUSTER_KEY]?.resource) || dependentsComposed;
  for (const { pool, index } of poolsByName(spec.nodePools)) {
    const key = `${NODE_POOL_PREFIX}${pool.name}`;
    const problem = poolProblem(pool, index);
    if (problem) {
      problems.push(problem);
      const seen = observed[key];
      if (seen) Object.assign(result.resources, keepObserved({ [key]: seen }));
      continue;
    }
    if (pool.plan === undefined) continue;
    if (pool.maxNodeCount !== undefined) autoscaling = 'Provider';
    if (gateOpen) result.resources[key] = readyAsObserved(nodePool(pool, pool.plan, providerConfigRef), observed[key]);
  }
  if (gateOpen) {
    result.resources[PROVIDER_CONFIG_KEY] = { resource: kubernetesProviderConfig(kubeconfigSecret, namespace), ready: true };
    result.resources[GPU_OBSERVER_KEY] = readyAsObserved(gpuObserver(kubeconfigSecret, namespace), observed[GPU_OBSERVER_KEY]);
  }

  result.status = status(kubeconfigSecret, autoscaling);
  return Object.assign(result, poolReport(req.composite, problems));
}

/** The whole XR status: the kubeconfig Secret, the platform's limitations and the provider contract. */
function status(kubeconfigSecret: string, autoscaling: NodeAutoscaling): JsonObject {
  return {
    secrets: [{ type: 'Kubeconfig', name: kubeconfigSecret, key: 'kubeconfig' }],
    limitations: LIMITATIONS.map((l) => ({ ...l })),
    capabilities: capabilitiesStatus({
      rwxCacheStorageClass: { reason: NO_RWX_CACHE },
      multiNodeFabric: 'None',
      nodeAutoscaling: autoscaling,
      gpuStack: 'PreinstalledAndGated',
    }),
  };
}
