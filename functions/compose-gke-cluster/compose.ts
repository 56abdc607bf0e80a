/**
 * compose-gke-cluster: a GKECluster becomes a regional GKE cluster
 * (docs/clouds.md#gke).
 *
 * Flow: project (required GCP ProviderConfig) → network, Filestore API,
 * subnet → cluster → system and pool node pools → service account, its key
 * and (gated) IAM binding → ProviderConfigs with the key as identity →
 * StorageClass (gated) → status → readiness.
 *
 * Guarantees:
 * - The requirement `gcp-provider-config` is declared on every call. Without
 *   a project (the ProviderConfig not readable and no composed cluster to take
 *   it from) nothing new is composed: a Normal result says what it waits
 *   for, everything already composed and the status are kept, and the XR is
 *   not Ready (with nothing composed Crossplane would derive Ready; the
 *   reference leaves it so).
 * - First pass, one GPU pool: 10 keys (8 GCP MRs + 2 ProviderConfigs); 12
 *   once the service account's email and the network's name are observed.
 * - Gates: `iam-binding` once the observed service account has an email;
 *   `storage-class-rwx` once the observed network has an external name. Each
 *   is kept as observed when its gate closes again (never dropped once created).
 * - Readiness: both ProviderConfigs and the StorageClass are always ready;
 *   every other key is ready exactly when observed Ready.
 * - Status, on every composing pass: the kubeconfig and service-account key
 *   Secrets, the cache StorageClass, and `capabilities` (Filestore RWX cache,
 *   Ethernet for multi-node (no RDMA), GKE's own autoscaler, composed GPU stack).
 * - Invalid input (see validate.ts) is a `SpecValid` condition plus Warnings
 *   naming the field; nothing already composed is dropped.
 */
import {
  cloudProviderConfigRef,
  keepCluster,
  type KeepCluster,
  keepComposed,
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
  getPath,
  isReady,
  type JsonObject,
  type KubeObject,
  normal,
  warning,
} from '../lib/function.js';
import { parseGKECluster } from '../lib/generated/gkeclusters.js';
import { childName } from '../lib/names.js';
import { EXTERNAL_NAME_ANNOTATION } from '../lib/objects.js';
import { markReady } from '../lib/ready.js';
import {
  capabilitiesStatus,
  PROVIDER_CONFIG_HELM,
  PROVIDER_CONFIG_KUBERNETES,
  workloadProviderConfigs,
} from '../lib/workload.js';
import { providerConfigRequirement, REQ_PROVIDER_CONFIG, resolveProject } from './project.js';
import {
  cluster,
  filestoreService,
  type GkeContext,
  iamBinding,
  network,
  poolNodePool,
  serviceAccount,
  serviceAccountKey,
  STORAGE_CLASS,
  storageClass,
  subnet,
  systemNodePool,
} from './resources.js';
import { poolProblem } from './validate.js';

/** Key of the IAM binding, composed once the service account's email is known. */
export const IAM_BINDING_KEY = 'iam-binding';
/** Key of the Filestore StorageClass Object, composed once the network's name is known. */
export const STORAGE_CLASS_KEY = 'storage-class-rwx';

/** Keys ready as soon as they are composed. */
const ALWAYS_READY = new Set([PROVIDER_CONFIG_KUBERNETES, PROVIDER_CONFIG_HELM, STORAGE_CLASS_KEY]);
/** The status fields this function writes. */
const STATUS_FIELDS = ['secrets', 'cache', 'capabilities'] as const;
/** What a GKECluster that cannot be composed keeps: its children and the status it wrote. */
const KEEP: KeepCluster = { alwaysReady: ALWAYS_READY, statusFields: STATUS_FIELDS };

/** Composes a GKECluster. */
export function compose(req: ComposeRequest): ComposeResult {
  const xr = readCloudXr(req.composite, 'GKECluster', parseGKECluster);
  if ('invalid' in xr) return keepCluster(req, KEEP, REASON_INVALID_SPEC, xr.invalid);
  const { name, namespace, spec } = xr;
  const providerConfigRef = cloudProviderConfigRef(spec.credentials);
  const requirements = { [REQ_PROVIDER_CONFIG]: providerConfigRequirement(providerConfigRef, namespace) };

  const resolved = resolveProject(req, providerConfigRef);
  if ('wait' in resolved) return waitForProject(req, requirements, resolved.wait);

  const ctx: GkeContext = {
    name,
    namespace,
    spec,
    project: resolved.project,
    kubeconfigSecret: childName(name, 'kubeconfig'),
    saKeySecret: childName(name, 'sa-key'),
    providerConfigRef,
  };
  const observed = req.observed;
  const desired: Record<string, KubeObject> = {
    network: network(ctx),
    'projectservice-filestore': filestoreService(ctx),
    subnet: subnet(ctx),
    cluster: cluster(ctx),
    'nodepool-system': systemNodePool(ctx),
  };
  const kept: Record<string, DesiredResource> = {};
  const problems: PoolProblem[] = [];
  for (const { pool, index } of poolsByName(spec.nodePools)) {
    const key = `nodepool-${pool.name}`;
    const problem = poolProblem(pool, index);
    if (problem || pool.machineType === undefined) {
      if (problem) problems.push(problem);
      keepPoolChildren(observed, [key], kept);
      continue;
    }
    desired[key] = poolNodePool(ctx, pool, pool.machineType);
  }
  desired['service-account'] = serviceAccount(ctx);
  desired['service-account-key'] = serviceAccountKey(ctx);

  const email = getPath(observed['service-account']?.resource, 'status', 'atProvider', 'email');
  if (typeof email === 'string' && email !== '') desired[IAM_BINDING_KEY] = iamBinding(ctx, email);
  else keepPoolChildren(observed, [IAM_BINDING_KEY], kept);

  Object.assign(
    desired,
    workloadProviderConfigs(ctx.kubeconfigSecret, namespace, {
      type: 'GoogleApplicationCredentials',
      secretRef: { name: ctx.saKeySecret, namespace, key: 'private_key' },
    }),
  );
  const networkName = observed['network']?.resource.metadata?.annotations?.[EXTERNAL_NAME_ANNOTATION];
  if (networkName) desired[STORAGE_CLASS_KEY] = storageClass(ctx, networkName);
  else keepPoolChildren(observed, [STORAGE_CLASS_KEY], kept);

  const result = emptyResult();
  for (const key of Object.keys(desired).sort()) {
    result.resources[key] = markReady(desired[key]!, ALWAYS_READY.has(key) || isReady(observed[key]?.resource));
  }
  for (const [key, d] of Object.entries(kept)) result.resources[key] = ALWAYS_READY.has(key) ? { ...d, ready: true } : d;
  result.status = status(ctx);
  result.requirements = requirements;
  const report = poolReport(req.composite, problems);
  result.conditions = report.conditions;
  result.results = [...(resolved.message ? [normal(resolved.message)] : []), ...report.results];
  return result;
}

/**
 * No project yet: nothing new is composed; every observed child and the
 * status written before are kept; the XR is not Ready; the requirement stays
 * declared and the result says what the function waits for.
 */
function waitForProject(
  req: ComposeRequest,
  requirements: ComposeResult['requirements'],
  wait: { severity: 'Normal' | 'Warning'; message: string },
): ComposeResult {
  const result = keepComposed(req, KEEP);
  // Not Ready while waiting: with nothing composed, Crossplane would derive Ready.
  result.ready = false;
  result.requirements = requirements;
  result.results.push(wait.severity === 'Normal' ? normal(wait.message) : warning(wait.message));
  return result;
}

/** The whole XR status (docs/clouds.md#gke-status-and-readiness) and the provider contract. */
function status(ctx: GkeContext): JsonObject {
  return {
    secrets: [
      { type: 'Kubeconfig', name: ctx.kubeconfigSecret, key: 'kubeconfig' },
      { type: 'GoogleApplicationCredentials', name: ctx.saKeySecret, key: 'private_key' },
    ],
    cache: { storageClassName: STORAGE_CLASS },
    capabilities: capabilitiesStatus({
      rwxCacheStorageClass: { name: STORAGE_CLASS },
      multiNodeFabric: 'Ethernet',
      nodeAutoscaling: 'Provider',
      gpuStack: 'Composed',
    }),
  };
}
