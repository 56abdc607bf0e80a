/**
 * compose-nebius-cluster: a NebiusCluster becomes an mk8s cluster
 * (docs/clouds.md#nebius).
 *
 * Flow: credentials (required Nebius ProviderConfig) → network, subnet,
 * cluster, cache filesystem, cloud-init Secret → one GpuCluster per
 * InfiniBand fabric → system and pool node groups → (with credentials)
 * ProviderConfigs, then the CSI driver and StorageClass (gated) → status →
 * readiness.
 *
 * Guarantees:
 * - The requirement `nebius-provider-config` is declared on every call.
 *   Missing credentials never stop the infrastructure: network, subnet,
 *   cluster, filesystem, cloud-init, GPU clusters and node groups are always
 *   composed; only what consumers need the credentials for (the
 *   ProviderConfigs, the CSI driver, the StorageClass, the status credential
 *   entry) waits for them, and what of it exists is kept meanwhile.
 * - First pass with credentials: 9 keys; 11 once the cluster is observed; 7
 *   without credentials; +1 per distinct InfiniBand fabric.
 * - Gates: the CSI driver release and the StorageClass are composed once
 *   `cluster` is observed, or when they are observed themselves (never
 *   dropped once created).
 * - Readiness: cloud-init, the ProviderConfigs and the StorageClass are
 *   always ready; every other key is ready exactly when observed Ready.
 *   Without credentials the XR is not Ready (divergence: the reference lets
 *   it become Ready, though nothing can authenticate to the cluster).
 * - Status: the kubeconfig Secret, the credentials Secret (its namespace only
 *   when outside the XR's), the cache StorageClass, and `capabilities` (RWX
 *   cache on the shared filesystem; InfiniBand when a pool is on a fabric, else Ethernet;
 *   mk8s's autoscaler when a pool autoscales; composed GPU stack).
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
import { parseNebiusCluster } from '../lib/generated/nebiusclusters.js';
import { childName } from '../lib/names.js';
import type { SecretKeyRef } from '../lib/objects.js';
import { markReady } from '../lib/ready.js';
import {
  capabilitiesStatus,
  type Fabric,
  type NodeAutoscaling,
  PROVIDER_CONFIG_HELM,
  PROVIDER_CONFIG_KUBERNETES,
  workloadProviderConfigs,
} from '../lib/workload.js';
import { providerConfigRequirement, REQ_PROVIDER_CONFIG, resolveCredentials } from './credentials.js';
import {
  cloudInit,
  cluster,
  csiDriver,
  filesystem,
  gpuCluster,
  infinibandFabric,
  type NebiusContext,
  network,
  poolNodeGroup,
  STORAGE_CLASS,
  storageClass,
  subnet,
  systemNodeGroup,
} from './resources.js';
import { poolProblem } from './validate.js';

/** Key of the cloud-init Secret. */
export const CLOUD_INIT_KEY = 'cloud-init';
/** Key of the CSI driver release. */
export const CSI_DRIVER_KEY = 'release-csi-mounted-fs-path';
/** Key of the StorageClass Object. */
export const STORAGE_CLASS_KEY = 'storage-class-rwx-fs';
/** Identity type of the ProviderConfigs and the status credential entry. */
export const CREDENTIALS_TYPE = 'NebiusServiceAccountCredentials';

/** Keys ready as soon as they are composed. */
const ALWAYS_READY = new Set([CLOUD_INIT_KEY, PROVIDER_CONFIG_KUBERNETES, PROVIDER_CONFIG_HELM, STORAGE_CLASS_KEY]);
/** What a NebiusCluster that cannot be composed keeps: its children and the status it wrote. */
const KEEP: KeepCluster = { alwaysReady: ALWAYS_READY, statusFields: ['secrets', 'cache', 'capabilities'] };

/** Composes a NebiusCluster. */
export function compose(req: ComposeRequest): ComposeResult {
  const xr = readCloudXr(req.composite, 'NebiusCluster', parseNebiusCluster);
  if ('invalid' in xr) return keepCluster(req, KEEP, REASON_INVALID_SPEC, xr.invalid);
  const { name, namespace, spec } = xr;
  const ctx: NebiusContext = {
    name,
    namespace,
    spec,
    kubeconfigSecret: childName(name, 'kubeconfig'),
    cloudInitSecret: childName(name, 'cloud-init'),
    providerConfigRef: cloudProviderConfigRef(spec.credentials),
  };
  const { creds, results } = resolveCredentials(req, ctx.providerConfigRef);
  const observed = req.observed;

  const desired: Record<string, KubeObject> = {
    network: network(ctx),
    subnet: subnet(ctx),
    cluster: cluster(ctx),
    filesystem: filesystem(ctx),
    [CLOUD_INIT_KEY]: cloudInit(ctx),
  };
  // One GpuCluster per fabric any pool names (a pool that cannot be composed
  // keeps its node group, so it keeps its fabric's GpuCluster too).
  for (const pool of spec.nodePools) {
    const fabric = infinibandFabric(pool);
    if (fabric) desired[`gpu-cluster-${fabric}`] ??= gpuCluster(ctx, fabric);
  }
  desired['nodegroup-system'] = systemNodeGroup(ctx);
  const kept: Record<string, DesiredResource> = {};
  const problems: PoolProblem[] = [];
  let fabric: Fabric = 'Ethernet';
  let autoscaling: NodeAutoscaling = 'None';
  for (const { pool, index } of poolsByName(spec.nodePools)) {
    const key = `nodegroup-${pool.name}`;
    const problem = poolProblem(pool, index);
    if (problem || pool.platform === undefined || pool.preset === undefined) {
      if (problem) problems.push(problem);
      keepPoolChildren(observed, [key], kept);
      continue;
    }
    desired[key] = poolNodeGroup(ctx, pool, pool.platform, pool.preset);
    if (infinibandFabric(pool)) fabric = 'InfiniBand';
    if (pool.maxNodeCount !== undefined) autoscaling = 'Provider';
  }

  if (creds) {
    Object.assign(
      desired,
      workloadProviderConfigs(ctx.kubeconfigSecret, namespace, { type: CREDENTIALS_TYPE, secretRef: { ...creds } }),
    );
    const gateOpen = (key: string) => 'cluster' in observed || key in observed;
    if (gateOpen(CSI_DRIVER_KEY)) desired[CSI_DRIVER_KEY] = csiDriver(ctx);
    if (gateOpen(STORAGE_CLASS_KEY)) desired[STORAGE_CLASS_KEY] = storageClass(ctx);
  } else {
    keepPoolChildren(observed, [PROVIDER_CONFIG_KUBERNETES, PROVIDER_CONFIG_HELM, CSI_DRIVER_KEY, STORAGE_CLASS_KEY], kept);
  }

  const result = emptyResult();
  for (const key of Object.keys(desired).sort()) {
    result.resources[key] = markReady(desired[key]!, ALWAYS_READY.has(key) || isReady(observed[key]?.resource));
  }
  for (const [key, d] of Object.entries(kept)) result.resources[key] = ALWAYS_READY.has(key) ? { ...d, ready: true } : d;
  result.status = status(ctx, creds, fabric, autoscaling);
  // Without credentials consumers cannot authenticate to the cluster: not Ready, whatever the infrastructure says.
  if (!creds) result.ready = false;
  result.requirements = { [REQ_PROVIDER_CONFIG]: providerConfigRequirement(ctx.providerConfigRef, namespace) };
  const report = poolReport(req.composite, problems);
  result.conditions = report.conditions;
  result.results = [...results, ...report.results];
  return result;
}

/** The whole XR status (docs/clouds.md#nebius-status-and-readiness) and the provider contract. */
function status(ctx: NebiusContext, creds: SecretKeyRef | undefined, fabric: Fabric, autoscaling: NodeAutoscaling): JsonObject {
  const secrets: JsonObject[] = [{ type: 'Kubeconfig', name: ctx.kubeconfigSecret, key: 'kubeconfig' }];
  if (creds) {
    const entry: JsonObject = { type: CREDENTIALS_TYPE, name: creds.name, key: creds.key };
    if (creds.namespace !== ctx.namespace) entry['namespace'] = creds.namespace;
    secrets.push(entry);
  }
  return {
    secrets,
    cache: { storageClassName: STORAGE_CLASS },
    capabilities: capabilitiesStatus({
      rwxCacheStorageClass: { name: STORAGE_CLASS },
      multiNodeFabric: fabric,
      nodeAutoscaling: autoscaling,
      gpuStack: 'Composed',
    }),
  };
}
