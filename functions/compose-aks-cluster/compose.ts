/**
 * compose-aks-cluster: an AKSCluster becomes an AKS cluster
 * (docs/clouds.md#aks).
 *
 * Flow: resource group → virtual network → subnet → cluster (inline system
 * pool) → user node pools → network operator (InfiniBand, gated) →
 * ProviderConfigs → StorageClass (gated) → status → readiness.
 *
 * Guarantees:
 * - First pass, one GPU pool: 7 keys (5 Azure MRs + 2 ProviderConfigs); 8
 *   once the cluster is observed (the StorageClass); 9 with an InfiniBand pool
 *   (the network operator).
 * - Gates: the network operator release (any InfiniBand pool) and the
 *   StorageClass are composed once `cluster` is observed, or when they are
 *   observed themselves (never dropped once created).
 * - Readiness: both ProviderConfigs and the StorageClass are always ready;
 *   every other key is ready exactly when observed Ready.
 * - Status, on every pass: the kubeconfig Secret, the cache StorageClass,
 *   and `capabilities` (Azure Files RWX cache; InfiniBand when a pool is on
 *   it; AKS's own autoscaler; composed GPU stack).
 * - Invalid input (see validate.ts) is a `SpecValid` condition plus Warnings
 *   naming the field; nothing already composed is dropped.
 */
import {
  cloudProviderConfigRef,
  keepCluster,
  type KeepCluster,
  keepPoolChildren,
  type PoolProblem,
  poolReport,
  poolsByName,
  REASON_INVALID_SPEC,
  readCloudXr,
} from '../lib/cloud-cluster.js';
import {
  type ComposeRequest,
  type ComposeResult,
  type DesiredResource,
  emptyResult,
  isReady,
  type JsonObject,
  type KubeObject,
} from '../lib/function.js';
import { parseAKSCluster } from '../lib/generated/aksclusters.js';
import { childName } from '../lib/names.js';
import { markReady } from '../lib/ready.js';
import {
  capabilitiesStatus,
  type Fabric,
  PROVIDER_CONFIG_HELM,
  PROVIDER_CONFIG_KUBERNETES,
  workloadProviderConfigs,
} from '../lib/workload.js';
import {
  type AksContext,
  cluster,
  networkOperator,
  nodePool,
  resourceGroup,
  STORAGE_CLASS,
  storageClass,
  subnet,
  virtualNetwork,
} from './resources.js';
import { poolProblem } from './validate.js';

/** Key of the NVIDIA network operator release (InfiniBand pools). */
export const NETWORK_OPERATOR_KEY = 'release-network-operator';
/** Key of the Azure Files StorageClass Object. */
export const STORAGE_CLASS_KEY = 'storage-class-rwx-fs';

/** Keys ready as soon as they are composed. */
const ALWAYS_READY = new Set([PROVIDER_CONFIG_KUBERNETES, PROVIDER_CONFIG_HELM, STORAGE_CLASS_KEY]);
/** What an AKSCluster that cannot be composed keeps: its children and the status it wrote. */
const KEEP: KeepCluster = { alwaysReady: ALWAYS_READY, statusFields: ['secrets', 'cache', 'capabilities'] };

/** Composes an AKSCluster. */
export function compose(req: ComposeRequest): ComposeResult {
  const xr = readCloudXr(req.composite, 'AKSCluster', parseAKSCluster);
  if ('invalid' in xr) return keepCluster(req, KEEP, REASON_INVALID_SPEC, xr.invalid);
  const { name, namespace, spec } = xr;
  const ctx: AksContext = {
    namespace,
    spec,
    clusterName: childName(namespace, name, 'aks'),
    kubeconfigSecret: childName(name, 'kubeconfig'),
    providerConfigRef: cloudProviderConfigRef(spec.credentials),
  };
  const observed = req.observed;
  const desired: Record<string, KubeObject> = {
    'resource-group': resourceGroup(ctx),
    'virtual-network': virtualNetwork(ctx),
    subnet: subnet(ctx),
    cluster: cluster(ctx),
  };
  const kept: Record<string, DesiredResource> = {};
  const problems: PoolProblem[] = [];
  let fabric: Fabric = 'Ethernet';
  for (const { pool, index } of poolsByName(spec.nodePools)) {
    const key = `nodepool-${pool.name}`;
    const problem = poolProblem(pool, index);
    if (problem || pool.vmSize === undefined) {
      if (problem) problems.push(problem);
      keepPoolChildren(observed, [key], kept);
      continue;
    }
    desired[key] = nodePool(ctx, pool, pool.vmSize);
    if (pool.fabric === 'InfiniBand') fabric = 'InfiniBand';
  }

  const clusterObserved = 'cluster' in observed;
  const anyInfiniBand = spec.nodePools.some((p) => p.fabric === 'InfiniBand');
  if (anyInfiniBand && (clusterObserved || NETWORK_OPERATOR_KEY in observed)) desired[NETWORK_OPERATOR_KEY] = networkOperator(ctx);
  Object.assign(desired, workloadProviderConfigs(ctx.kubeconfigSecret, namespace));
  if (clusterObserved || STORAGE_CLASS_KEY in observed) desired[STORAGE_CLASS_KEY] = storageClass(ctx);

  const result = emptyResult();
  for (const key of Object.keys(desired).sort()) {
    result.resources[key] = markReady(desired[key]!, ALWAYS_READY.has(key) || isReady(observed[key]?.resource));
  }
  for (const [key, d] of Object.entries(kept)) result.resources[key] = ALWAYS_READY.has(key) ? { ...d, ready: true } : d;
  result.status = status(ctx.kubeconfigSecret, fabric);
  return Object.assign(result, poolReport(req.composite, problems));
}

/** The whole XR status (docs/clouds.md#aks-status-and-readiness) and the provider contract. */
function status(kubeconfigSecret: string, fabric: Fabric): JsonObject {
  return {
    secrets: [{ type: 'Kubeconfig', name: kubeconfigSecret, key: 'kubeconfig' }],
    cache: { storageClassName: STORAGE_CLASS },
    capabilities: capabilitiesStatus({
      rwxCacheStorageClass: { name: STORAGE_CLASS },
      multiNodeFabric: fabric,
      nodeAutoscaling: 'Provider',
      gpuStack: 'Composed',
    }),
  };
}
