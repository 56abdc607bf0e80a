/**
 * The Existing source: adopt a cluster through its kubeconfig Secret in
 * modelplane-system (docs/kinds/inferencecluster.md#existing-clusters).
 *
 * Guarantees:
 * - Always composes the ClusterProviderConfig (kubeconfig, plus identity from
 *   `identitySecretRef` when set) and the ServingStack (the kubeconfig entry,
 *   plus the identity entry) — no nested XR, no teardown Usage.
 * - The kubeconfig Secret is read as a required resource. Not fetched yet:
 *   nothing is said. Absent, or present without the key: `ClusterReady`
 *   False naming `modelplane-system/<name>` and the key, a Warning, and
 *   `BackendReady` waits for the cluster. Otherwise the cluster counts as
 *   running (Modelplane does not provision it).
 * - A missing class only removes its pool from `gpuPools`.
 * - `status.capabilities` is what the spec declares (see status.ts).
 * Divergence: the reference never reads the Secret (ClusterReady is always
 * True for Existing).
 */
import {
  type ComposeRequest,
  type ComposeResult,
  emptyResult,
  getPath,
  isReady,
  type ResourceSelector,
  readRequired,
  warning,
} from '../lib/function.js';
import { readyAsObserved } from '../lib/ready.js';
import {
  clusterProviderConfigFor,
  KEY_CPC,
  KEY_SERVING_STACK,
  providerConfigName,
  type SecretEntry,
  servingStack,
} from './backend.js';
import { isLabelValue } from '../lib/cloud-cluster.js';
import { errPoolName, REASON_INVALID_NODE_POOL, SYSTEM_NAMESPACE } from './nested-cluster.js';
import type { ExistingBlock, InferenceClass, InferenceCluster } from './spec.js';
import {
  type ClusterProblem,
  clusterConditions,
  clusterStatus,
  existingCapabilities,
  gpuPools,
  observedGatewayAddress,
} from './status.js';

/** Requirement that fetches the kubeconfig Secret. */
export const REQ_KUBECONFIG_SECRET = 'kubeconfig-secret';

/** Selector of the kubeconfig Secret (namespaced, in modelplane-system). */
export function kubeconfigSecretSelector(existing: ExistingBlock): ResourceSelector {
  return { apiVersion: 'v1', kind: 'Secret', matchName: existing.secretRef.name, namespace: SYSTEM_NAMESPACE };
}

/** Message: the kubeconfig Secret does not exist. */
export function errSecretNotFound(existing: ExistingBlock): string {
  return `Secret ${SYSTEM_NAMESPACE}/${existing.secretRef.name} not found (spec.cluster.existing.secretRef); create it with the cluster's kubeconfig under key ${existing.secretRef.key}`;
}

/** Message: the kubeconfig Secret has no such key. */
export function errSecretKeyMissing(existing: ExistingBlock): string {
  return `Secret ${SYSTEM_NAMESPACE}/${existing.secretRef.name} has no key ${existing.secretRef.key} (spec.cluster.existing.secretRef.key); store the kubeconfig under that key or change the key`;
}

function secretProblem(req: ComposeRequest, existing: ExistingBlock): ClusterProblem | undefined {
  const read = readRequired(req, REQ_KUBECONFIG_SECRET);
  if (read.state === 'pending') return undefined;
  if (read.state === 'absent') return { reason: 'KubeconfigSecretNotFound', message: errSecretNotFound(existing) };
  const secret = read.items[0];
  const key = existing.secretRef.key;
  const has = (field: string) => {
    const v = getPath(secret, field, key);
    return typeof v === 'string' && v !== '';
  };
  if (has('data') || has('stringData')) return undefined;
  return { reason: 'KubeconfigKeyNotFound', message: errSecretKeyMissing(existing) };
}

/** Composes an adopted cluster. */
export function composeExisting(
  req: ComposeRequest,
  ic: InferenceCluster,
  existing: ExistingBlock,
  classes: ReadonlyMap<string, InferenceClass>,
  classProblems: ClusterProblem[],
): ComposeResult {
  const result = emptyResult();
  const kubeconfig: SecretEntry = { type: 'Kubeconfig', ...existing.secretRef };
  const identity: SecretEntry | undefined = existing.identitySecretRef
    ? { type: existing.identitySecretRef.type, name: existing.identitySecretRef.name, key: existing.identitySecretRef.key }
    : undefined;
  result.resources[KEY_CPC] = { resource: clusterProviderConfigFor(ic.name, kubeconfig, identity), ready: true };
  const stackSecrets = identity ? [kubeconfig, identity] : [kubeconfig];
  const observedStack = req.observed[KEY_SERVING_STACK]?.resource;
  result.resources[KEY_SERVING_STACK] = readyAsObserved(
    servingStack(ic.name, stackSecrets, undefined, ic.gateway),
    req.observed[KEY_SERVING_STACK],
  );

  const secret = secretProblem(req, existing);
  const names = ic.nodePools.flatMap((p, i): ClusterProblem[] =>
    !isLabelValue(p.name)
      ? [{ reason: REASON_INVALID_NODE_POOL, message: errPoolName(`spec.nodePools[${i}]`, p.name) }]
      : [],
  );
  const problems = [...(secret ? [secret] : []), ...names, ...classProblems];
  for (const p of problems) result.results.push(warning(p.message));
  result.status = clusterStatus({
    providerConfigName: providerConfigName(ic.name),
    pools: gpuPools('Existing', ic.nodePools, classes),
    storageClassName: existing.storageClassName,
    gatewayAddress: observedGatewayAddress(observedStack),
    capabilities: existingCapabilities(existing, ic.nodePools),
  });
  result.conditions = clusterConditions(secret === undefined, isReady(observedStack), problems);
  return result;
}
