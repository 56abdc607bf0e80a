/**
 * compose-eks-cluster: an EKSCluster becomes a real EKS cluster
 * (docs/clouds.md#eks).
 *
 * Composition order: network → IAM → EKS cluster → ClusterAuth → node
 * groups (+ launch templates, EFA security group) → addons → EFS stack →
 * autoscaler IAM (+ gated Release) → EFA DRA driver (gated) → ProviderConfigs
 * → StorageClass (gated) → status → readiness.
 *
 * Guarantees:
 * - First pass, default networking, one plain GPU pool: 50 keys (48 AWS MRs
 *   + 2 ProviderConfigs); 52 once the cluster is observed and the EFS id known.
 * - Gates: the Helm releases are composed once `cluster` is observed, or when
 *   they are observed themselves (never dropped once created); the
 *   StorageClass once the EFS file system's external name is known, or when it
 *   is observed itself.
 * - Readiness: both ProviderConfigs and the StorageClass are always ready;
 *   every other key is ready exactly when observed Ready.
 * - Status, on every pass: the kubeconfig Secret, the cache StorageClass and
 *   `capabilities` (EFS RWX cache; EFA when a pool is on it, else Ethernet; the composed
 *   cluster autoscaler; composed GPU stack).
 * - Invalid input (see validate.ts) is a `SpecValid` condition plus Warning
 *   results naming the field; nothing already composed is dropped.
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
  type DesiredResource,
  emptyResult,
  isReady,
  type JsonObject,
  type KubeObject,
  keepObserved,
} from '../lib/function.js';
import { parseEKSCluster } from '../lib/generated/eksclusters.js';
import { childName } from '../lib/names.js';
import { markReady } from '../lib/ready.js';
import { capabilitiesStatus, type Fabric } from '../lib/workload.js';
import { type EksContext, externalName, usesLaunchTemplate } from './aws.js';
import { clusterAuth, coreAddons, eksCluster, podIdentity, providerConfigs } from './cluster.js';
import { autoscalerIam, clusterIam } from './iam.js';
import { DEFAULT_SUBNET_CIDRS, DEFAULT_VPC_CIDR, networkResources, zonesOf } from './network.js';
import { efaSecurityGroup, launchTemplate, poolNodeGroup, systemNodeGroup } from './nodegroups.js';
import { AUTOSCALER_KEY, clusterAutoscaler, EFA_DRA_KEY, efaDraDriver } from './releases.js';
import { efsResources, FILESYSTEM_KEY, STORAGE_CLASS, STORAGE_CLASS_KEY, storageClass } from './storage.js';
import { invalidNetworkingMessage, poolProblem, REASON_INVALID_NETWORKING } from './validate.js';

/** Keys ready as soon as they are composed. */
const ALWAYS_READY = new Set(['provider-config-kubernetes', 'provider-config-helm', STORAGE_CLASS_KEY]);

/** What an EKSCluster that cannot be composed keeps: its children and the status it wrote. */
const KEEP: KeepCluster = { alwaysReady: ALWAYS_READY, statusFields: ['secrets', 'cache', 'capabilities'] };

/** Composes an EKSCluster. */
export function compose(req: ComposeRequest): ComposeResult {
  const xr = readCloudXr(req.composite, 'EKSCluster', parseEKSCluster);
  if ('invalid' in xr) return keepCluster(req, KEEP, REASON_INVALID_SPEC, xr.invalid);
  const { name, namespace, spec } = xr;
  const zoned = zonesOf(name, spec.region, spec.networking?.subnetCidrs ?? DEFAULT_SUBNET_CIDRS);
  if ('errors' in zoned) {
    return keepCluster(req, KEEP, REASON_INVALID_NETWORKING, invalidNetworkingMessage(zoned.errors));
  }

  const observed: Record<string, KubeObject> = {};
  for (const [key, o] of Object.entries(req.observed)) observed[key] = o.resource;
  const ctx: EksContext = {
    name,
    namespace,
    spec,
    region: spec.region,
    vpcCidr: spec.networking?.vpcCidr ?? DEFAULT_VPC_CIDR,
    zones: zoned.zones,
    clusterName: childName(namespace, name, 'eks'),
    kubeconfigSecret: childName(name, 'kubeconfig'),
    providerConfigRef: cloudProviderConfigRef(spec.credentials),
    observed,
  };

  const desired: Record<string, KubeObject> = { ...networkResources(ctx), ...clusterIam(ctx) };
  desired['cluster'] = eksCluster(ctx);
  desired['cluster-auth'] = clusterAuth(ctx);
  desired['nodegroup-system'] = systemNodeGroup(ctx);

  const kept: Record<string, DesiredResource> = {};
  const problems: PoolProblem[] = [];
  let fabric: Fabric = 'Ethernet';
  for (const { pool, index } of poolsByName(spec.nodePools)) {
    const ngKey = `nodegroup-${pool.name}`;
    const ltKey = `launch-template-${pool.name}`;
    const problem = poolProblem(pool, index, ctx.zones);
    if (problem || pool.instanceType === undefined) {
      if (problem) problems.push(problem);
      for (const key of [ngKey, ltKey]) {
        const seen = req.observed[key];
        if (seen) Object.assign(kept, keepObserved({ [key]: seen }));
      }
      continue;
    }
    if (usesLaunchTemplate(pool)) desired[ltKey] = launchTemplate(ctx, pool, pool.instanceType);
    desired[ngKey] = poolNodeGroup(ctx, pool, pool.instanceType);
    if (pool.fabric === 'EFA') fabric = 'EFA';
  }
  const anyEfa = spec.nodePools.some((p) => p.fabric === 'EFA');
  if (anyEfa) Object.assign(desired, efaSecurityGroup(ctx));

  Object.assign(desired, coreAddons(ctx), efsResources(ctx), autoscalerIam(ctx));
  desired['pod-identity-cluster-autoscaler'] = podIdentity(ctx, 'cluster-autoscaler', 'cluster-autoscaler');
  const clusterObserved = 'cluster' in observed;
  if (clusterObserved || AUTOSCALER_KEY in observed) desired[AUTOSCALER_KEY] = clusterAutoscaler(ctx);
  if (anyEfa && (clusterObserved || EFA_DRA_KEY in observed)) desired[EFA_DRA_KEY] = efaDraDriver(ctx);
  Object.assign(desired, providerConfigs(ctx));

  const fileSystemId = externalName(ctx, FILESYSTEM_KEY);
  if (fileSystemId) desired[STORAGE_CLASS_KEY] = storageClass(ctx, fileSystemId);
  else if (req.observed[STORAGE_CLASS_KEY]) {
    Object.assign(kept, keepObserved({ [STORAGE_CLASS_KEY]: req.observed[STORAGE_CLASS_KEY] }));
  }

  const result = emptyResult();
  for (const key of Object.keys(desired).sort()) {
    const resource = desired[key]!;
    result.resources[key] = markReady(resource, ALWAYS_READY.has(key) || isReady(observed[key]));
  }
  for (const [key, d] of Object.entries(kept)) {
    result.resources[key] = ALWAYS_READY.has(key) ? { ...d, ready: true } : d;
  }
  result.status = status(ctx.kubeconfigSecret, fabric);
  return Object.assign(result, poolReport(req.composite, problems));
}

/** The whole XR status: the kubeconfig Secret, the ModelCache StorageClass and the provider contract. */
function status(kubeconfigSecret: string, fabric: Fabric): JsonObject {
  return {
    secrets: [{ type: 'Kubeconfig', name: kubeconfigSecret, key: 'kubeconfig' }],
    cache: { storageClassName: STORAGE_CLASS },
    capabilities: capabilitiesStatus({
      rwxCacheStorageClass: { name: STORAGE_CLASS },
      multiNodeFabric: fabric,
      nodeAutoscaling: 'ClusterAutoscaler',
      gpuStack: 'Composed',
    }),
  };
}
