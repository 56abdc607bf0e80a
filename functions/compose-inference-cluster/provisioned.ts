/**
 * The provisioned sources (GKE, EKS, AKS, Nebius, Vultr): the shared flow of
 * docs/kinds/inferencecluster.md#provisioned-sources with the nested XR of nested-cluster.ts.
 *
 * Guarantees:
 * - The nested XR is composed whenever every pool is valid for the cloud, or
 *   (EKS, Vultr) its only problems are pools whose class lacks the cloud's
 *   block, which the nested XR reports per pool; it is ready only when
 *   observed Ready. With another problem (missing class, pool the nested XR
 *   rejects) its observed spec is kept, never dropped. Every problem is
 *   reported on the InferenceCluster either way.
 * - Once the nested XR is Ready with a kubeconfig in `status.secrets`, the
 *   ClusterProviderConfig is composed from it (identity from the
 *   GoogleApplicationCredentials entry on GKE, the
 *   NebiusServiceAccountCredentials entry on Nebius); while the cluster is
 *   briefly not Ready, an observed one is kept.
 * - ServingStack secrets come from the Ready nested XR's `status.secrets`,
 *   else from the observed ServingStack's own spec; Nebius keeps each
 *   entry's namespace, the other clouds drop it. With neither, an observed
 *   ServingStack is kept as it is. The teardown Usage accompanies it.
 * - Event `<S> cluster ready, composing backend` while the cluster is Ready
 *   and the ServingStack not yet observed.
 * - `status.capabilities` is the nested XR's, relayed as it publishes it.
 * Divergences (docs/design.md#keep-what-exists): the reference drops the nested XR on
 * InvalidNodePool, drops the ProviderConfig when the cluster is not Ready,
 * and drops the ServingStack when no secrets resolve; we keep them. It also
 * emits a second `ClusterReady`; we emit one.
 */
import {
  type ComposeRequest,
  type ComposeResult,
  emptyResult,
  getPath,
  isReady,
  type JsonObject,
  normal,
  warning,
} from '../lib/function.js';
import { readyAsObserved } from '../lib/ready.js';
import {
  backendUsage,
  stackProviderConfigUsages,
  clusterProviderConfigFor,
  KEY_CPC,
  KEY_SERVING_STACK,
  keepChild,
  providerConfigName,
  type SecretEntry,
  servingStack,
} from './backend.js';
import { type CloudSource, nestedClusterXR, poolProblems } from './nested-cluster.js';
import type { InferenceClass, InferenceCluster } from './spec.js';
import {
  type ClusterProblem,
  clusterConditions,
  clusterStatus,
  gpuPools,
  observedGatewayAddress,
  relayedCapabilities,
} from './status.js';

/** The reference's message when the source's block is missing. */
export function errNoCloudBlock(source: string): string {
  return `${source} configuration is required when source is ${source}`;
}

/** The event when the cloud cluster is Ready and the backend is about to be composed. */
export function msgClusterReady(source: string): string {
  return `${source} cluster ready, composing backend`;
}

function secretEntries(v: unknown): SecretEntry[] {
  if (!Array.isArray(v)) return [];
  return (v as JsonObject[]).map((s) => {
    const e: SecretEntry = { type: String(s['type'] ?? ''), name: String(s['name'] ?? ''), key: String(s['key'] ?? '') };
    if (typeof s['namespace'] === 'string' && s['namespace'] !== '') e.namespace = s['namespace'];
    return e;
  });
}

/** Composes a provisioned cluster; a string is a hold-path message (the cloud block is missing). */
export function composeProvisioned(
  req: ComposeRequest,
  ic: InferenceCluster,
  cloud: CloudSource,
  classes: ReadonlyMap<string, InferenceClass>,
  classProblems: ClusterProblem[],
): ComposeResult | string {
  const block = ic.clouds[cloud.block];
  if (!block) return errNoCloudBlock(cloud.source);
  const result = emptyResult();
  const observed = req.observed;
  const nested = observed[cloud.key];
  const pools = poolProblems(cloud, ic.nodePools, classes);
  const problems: ClusterProblem[] = [...classProblems, ...pools.map(({ reason, message }) => ({ reason, message }))];
  if (classProblems.length === 0 && pools.every((p) => p.perPool)) {
    result.resources[cloud.key] = readyAsObserved(nestedClusterXR(cloud, ic.name, block, ic.nodePools, classes), nested);
  } else {
    const kept = keepChild(observed, cloud.key);
    if (kept) result.resources[cloud.key] = kept;
  }
  for (const p of problems) result.results.push(warning(p.message));

  const clusterReady = isReady(nested?.resource);
  const secrets = secretEntries(getPath(nested?.resource, 'status', 'secrets'));
  const kubeconfig = secrets.find((s) => s.type === 'Kubeconfig');
  const identity = cloud.identityType ? secrets.find((s) => s.type === cloud.identityType) : undefined;
  if (clusterReady && kubeconfig) {
    result.resources[KEY_CPC] = { resource: clusterProviderConfigFor(ic.name, kubeconfig, identity), ready: true };
  } else {
    const kept = keepChild(observed, KEY_CPC);
    if (kept) result.resources[KEY_CPC] = kept;
  }

  const observedStack = observed[KEY_SERVING_STACK];
  const stackSecrets =
    clusterReady && secrets.length > 0
      ? secrets
      : secretEntries(getPath(observedStack?.resource, 'spec', 'secrets'));
  const backendSecrets = stackSecrets.map((s) => {
    const { namespace, ...rest } = s;
    return cloud.keepSecretNamespace && namespace ? { ...rest, namespace } : rest;
  });
  if (backendSecrets.length > 0 || observedStack) {
    if (backendSecrets.length > 0) {
      result.resources[KEY_SERVING_STACK] = readyAsObserved(
        servingStack(ic.name, backendSecrets, cloud.nvidiaDriverRoot, ic.gateway),
        observedStack,
      );
    } else {
      const kept = keepChild(observed, KEY_SERVING_STACK);
      if (kept) result.resources[KEY_SERVING_STACK] = kept;
    }
    result.resources[`usage-${cloud.block}-by-backend`] = { resource: backendUsage(cloud.kind), ready: true };
    for (const [key, resource] of Object.entries(stackProviderConfigUsages(ic.name, cloud.kind, cloud.block))) result.resources[key] = { resource, ready: true };
  }
  if (clusterReady && !observedStack) result.results.push(normal(msgClusterReady(cloud.source)));

  const cache = getPath(nested?.resource, 'status', 'cache', 'storageClassName');
  result.status = clusterStatus({
    providerConfigName: providerConfigName(ic.name),
    pools: gpuPools(ic.source, ic.nodePools, classes),
    storageClassName: cloud.hasCache && typeof cache === 'string' ? cache : undefined,
    gatewayAddress: observedGatewayAddress(observedStack?.resource),
    capabilities: relayedCapabilities(nested?.resource),
  });
  result.conditions = clusterConditions(clusterReady, isReady(observedStack?.resource), problems);
  return result;
}
