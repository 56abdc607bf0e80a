/**
 * compose-inference-cluster: turns an InferenceCluster into a running,
 * published workload cluster (platform-side.md §7, §11).
 *
 * Flow: replica guard → resolve classes → dispatch on `spec.cluster.source`
 * (a provisioned cloud: the nested cloud XR, then the ProviderConfig,
 * ServingStack and teardown Usage once it is Ready; Existing: adopt through
 * the kubeconfig Secret) → status (`gpuPools`, gateway address,
 * `providerConfigRef`, cache) and conditions (`ClusterReady`, `BackendReady`).
 *
 * Guarantees (spec/README.md items 2, 3 and 7 win over the reference):
 * - The replica guard ClusterUsage exists while any ModelReplica is labelled
 *   for this cluster; before replicas are fetched, an existing guard is kept.
 * - Classes not fetched yet: hold. Every observed child is kept, the status
 *   already published is republished unchanged, `ClusterReady` False
 *   `WaitingForClasses` and a Normal result say which classes (sorted).
 * - A class that is absent, or a pool the nested XR's schema would reject,
 *   never tears anything down: the nested XR keeps its observed spec (it is
 *   not composed before it can be valid), a missing class publishes no pool,
 *   and one `ClusterReady` False condition plus one Warning per problem name
 *   the field and the fix.
 * - Once composed, the ClusterProviderConfig and the ServingStack are kept
 *   while the cloud cluster is briefly not Ready (reference: dropped).
 * - An Existing cluster's kubeconfig Secret is read: absent, or without its
 *   key, is a `ClusterReady` False condition naming modelplane-system/<name>.
 * - Invalid user input is a condition and a Warning, never an exception; an
 *   XR without a name is a Fatal result.
 */
import {
  type ComposeRequest,
  type ComposeResult,
  condition,
  emptyResult,
  fatal,
  normal,
  type ResourceSelector,
  readRequired,
  warning,
} from '../lib/function.js';
import { KEY_REPLICA_GUARD, keepChild, keepChildren, replicaGuard } from './backend.js';
import { CLOUD_SOURCES } from './cloud.js';
import { composeExisting, kubeconfigSecretSelector } from './existing.js';
import { composeProvisioned } from './provisioned.js';
import { type InferenceClass, readExistingBlock, readInferenceCluster, readInferenceClass } from './spec.js';
import { echoStatus } from './status.js';

/** Messages (constants, so tests and docs quote them exactly). */
export const ERR_NO_NAME = 'metadata.name is unexpectedly absent';
export const ERR_NO_CLUSTER = 'spec.cluster is required';
export const errUnsupportedSource = (source: string) => `unsupported cluster source: ${source}`;
export const msgWaitingForClasses = (names: string[]) => `Waiting for InferenceClasses: ${names.join(', ')}`;
export const errClassNotFound = (name: string, fields: string[]) =>
  `InferenceClass ${name} not found (${fields.join(', ')}); create it or change the className`;

/** Requirement names. */
export const REQ_REPLICAS = 'model-replicas';
export const classRequirement = (name: string) => `class-${name}`;

/** Composes an InferenceCluster. */
export function compose(req: ComposeRequest): ComposeResult {
  const result = emptyResult();
  const ic = readInferenceCluster(req.composite);
  if (!ic) {
    result.results.push(fatal(ERR_NO_NAME));
    return result;
  }
  result.requirements[REQ_REPLICAS] = {
    apiVersion: 'modelplane.ai/v1alpha1',
    kind: 'ModelReplica',
    matchLabels: { 'modelplane.ai/cluster': ic.name },
  };
  const classNames = [...new Set(ic.nodePools.map((p) => p.className).filter((n) => n !== ''))].sort();
  for (const name of classNames) {
    result.requirements[classRequirement(name)] = { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceClass', matchName: name };
  }
  const existing = ic.source === 'Existing' ? readExistingBlock(ic) : undefined;
  if (existing) result.requirements['kubeconfig-secret'] = kubeconfigSecretSelector(existing) as ResourceSelector;

  // Replica guard, before any early return.
  const replicas = readRequired(req, REQ_REPLICAS);
  const guard =
    replicas.state === 'present'
      ? { resource: replicaGuard(ic.name), ready: true }
      : replicas.state === 'pending'
        ? keepChild(req.observed, KEY_REPLICA_GUARD)
        : undefined;

  const hold = (type: 'normal' | 'warning', reason: string, message: string): ComposeResult => {
    result.resources = keepChildren(req.observed);
    delete result.resources[KEY_REPLICA_GUARD];
    if (guard) result.resources[KEY_REPLICA_GUARD] = guard;
    const status = echoStatus(req.composite);
    if (status) result.status = status;
    result.conditions.push(condition('ClusterReady', false, reason, message));
    result.results.push(type === 'normal' ? normal(message) : warning(message));
    return result;
  };

  if (!ic.cluster || !ic.source) return hold('warning', 'InvalidSpec', ERR_NO_CLUSTER);

  const pending: string[] = [];
  const classes = new Map<string, InferenceClass>();
  const missing: string[] = [];
  for (const name of classNames) {
    const read = readRequired(req, classRequirement(name));
    if (read.state === 'pending') pending.push(name);
    else if (read.state === 'absent') missing.push(name);
    else classes.set(name, readInferenceClass(read.items[0]!));
  }
  if (pending.length > 0) return hold('normal', 'WaitingForClasses', msgWaitingForClasses(pending));
  const classProblems = missing.map((name) => ({
    reason: 'ClassNotFound',
    message: errClassNotFound(
      name,
      ic.nodePools.flatMap((p, i) => (p.className === name ? [`spec.nodePools[${i}].className`] : [])),
    ),
  }));

  const cloud = CLOUD_SOURCES[ic.source];
  let outcome: ComposeResult | string;
  if (ic.source === 'Existing') {
    if (!existing) return hold('warning', 'InvalidSpec', 'Existing cluster configuration is required when source is Existing');
    outcome = composeExisting(req, ic, existing, classes, classProblems);
  } else if (cloud) {
    outcome = composeProvisioned(req, ic, cloud, classes, classProblems);
  } else {
    return hold('warning', 'InvalidSpec', errUnsupportedSource(ic.source));
  }
  if (typeof outcome === 'string') return hold('warning', 'InvalidSpec', outcome);

  result.resources = outcome.resources;
  if (guard) result.resources[KEY_REPLICA_GUARD] = guard;
  if (outcome.status) result.status = outcome.status;
  result.conditions = outcome.conditions;
  result.results = outcome.results;
  return result;
}
