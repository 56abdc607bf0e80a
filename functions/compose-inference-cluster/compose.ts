/**
 * compose-inference-cluster: turns an InferenceCluster into a running,
 * published workload cluster (docs/kinds/inferencecluster.md).
 *
 * Flow: replica guard → resolve classes → dispatch on `spec.cluster.source`
 * (a provisioned cloud: the nested cloud XR, then the ProviderConfig,
 * ServingStack and teardown Usage once it is Ready; Existing: adopt through
 * the kubeconfig Secret) → status (`gpuPools`, gateway address,
 * `providerConfigRef`, cache) and conditions (`ClusterReady`, `BackendReady`).
 *
 * Guarantees (docs/design.md#keep-what-exists,
 * docs/design.md#not-fetched-yet-is-not-absent and
 * docs/design.md#multi-node-needs-a-fabric win over the reference):
 * - The replica guard ClusterUsage exists while any ModelReplica is labelled
 *   for this cluster; before replicas are fetched, an existing guard is kept.
 * - The capacity ledger: every published pool carries `used`, what the
 *   replicas placed here hold (usage.ts); the fleet scheduler charges other
 *   deployments from it (docs/design.md#the-capacity-ledger).
 * - Classes not fetched yet: hold. Every observed child is kept, the status
 *   already published is republished unchanged, `ClusterReady` False
 *   `WaitingForClasses` and a Normal result say which classes (sorted).
 * - A class that is absent, or a pool the nested XR's schema would reject,
 *   never tears anything down: the nested XR keeps its observed spec (it is
 *   not composed before it can be valid), a missing class publishes no pool,
 *   and one `ClusterReady` False condition plus one Warning per problem name
 *   the field and the fix. On EKS and Vultr a pool whose class lacks the
 *   cloud's block does not hold the others back: the nested XR is composed
 *   with that pool's `className` and no shape, and reports it per pool.
 * - Once composed, the ClusterProviderConfig and the ServingStack are kept
 *   while the cloud cluster is briefly not Ready (reference: dropped).
 * - An Existing cluster's kubeconfig Secret is read: absent, or without its
 *   key, is a `ClusterReady` False condition naming modelplane-system/<name>.
 * - Health (health.ts, docs/failover.md): once the ClusterProviderConfig
 *   is composed, an observe-only reachability probe; `status.health` with
 *   hysteresis against the request's `now`, the response TTL set to the next
 *   bound; the XR is not Ready while the cluster is Unreachable or
 *   Unavailable.
 * - Invalid user input is a condition and a Warning, never an exception; an
 *   XR without a name is a Fatal result.
 */
import {
  type ComposeRequest,
  type ComposeResult,
  condition,
  DEFAULT_NOW,
  emptyResult,
  fatal,
  getPath,
  type JsonObject,
  normal,
  readRequired,
  warning,
} from '../lib/function.js';
import { reachable } from '../lib/health.js';
import { readyOnlyIfServing } from '../lib/ready.js';
import { applyHealth } from './health.js';
import { KEY_REPLICA_GUARD, keepChild, keepChildren, replicaGuard } from './backend.js';
import { CLOUD_SOURCES } from './nested-cluster.js';
import { composeExisting, kubeconfigSecretSelector, REQ_KUBECONFIG_SECRET } from './existing.js';
import { composeProvisioned } from './provisioned.js';
import { withUsage } from '../lib/fleet/cluster-usage.js';
import { type InferenceClass, readInferenceClass, readInferenceCluster } from './spec.js';
import { type ClusterProblem, echoStatus } from './status.js';

export { ERR_NO_CLUSTER, ERR_NO_NAME, errUnsupportedSource } from './spec.js';
export const msgWaitingForClasses = (names: string[]) => `Waiting for InferenceClasses: ${names.join(', ')}`;
export const errClassNotFound = (name: string, fields: string[]) =>
  `InferenceClass ${name} not found (${fields.join(', ')}); create it or change the className`;
/** Message when `existing` is missing for source Existing (the reference's text). */
export const ERR_NO_EXISTING = 'Existing cluster configuration is required when source is Existing';

/** Requirement names. */
export const REQ_REPLICAS = 'model-replicas';
export const classRequirement = (name: string) => `class-${name}`;

/** Distinct non-empty `spec.nodePools[].className`, sorted; read raw so requirements hold even for an invalid spec. */
function classNamesOf(xr: ComposeRequest['composite']): string[] {
  const pools = getPath(xr, 'spec', 'nodePools');
  const names = (Array.isArray(pools) ? pools : []).map((p) => getPath(p, 'className'));
  return [...new Set(names.filter((n): n is string => typeof n === 'string' && n !== ''))].sort();
}

/** Composes an InferenceCluster. */
export function compose(req: ComposeRequest): ComposeResult {
  const result = emptyResult();
  const read = readInferenceCluster(req.composite);
  if (!read.ok && read.fatal) {
    result.results.push(fatal(read.problem));
    return result;
  }
  const name = read.ok ? read.ic.name : (read.name ?? '');
  result.requirements[REQ_REPLICAS] = {
    apiVersion: 'modelplane.ai/v1alpha1',
    kind: 'ModelReplica',
    matchLabels: { 'modelplane.ai/cluster': name },
  };
  const classNames = classNamesOf(req.composite);
  for (const cls of classNames) {
    result.requirements[classRequirement(cls)] = { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceClass', matchName: cls };
  }
  const existing = read.ok && read.ic.source === 'Existing' ? read.ic.existing : undefined;
  if (existing) result.requirements[REQ_KUBECONFIG_SECRET] = kubeconfigSecretSelector(existing);

  // Replica guard, before any early return.
  const replicas = readRequired(req, REQ_REPLICAS);
  const guard =
    replicas.state === 'present'
      ? { resource: replicaGuard(name), ready: true }
      : replicas.state === 'pending'
        ? keepChild(req.observed, KEY_REPLICA_GUARD)
        : undefined;

  const hold = (type: 'normal' | 'warning', reason: string, message: string, field?: string, also?: string): ComposeResult => {
    result.resources = keepChildren(req.observed);
    delete result.resources[KEY_REPLICA_GUARD];
    if (guard) result.resources[KEY_REPLICA_GUARD] = guard;
    const status = echoStatus(req.composite);
    if (status) result.status = status;
    // The Warning keeps the reference's exact text; the condition also names the field.
    const named = field !== undefined ? `${field}: ${message}` : message;
    result.conditions.push(condition('ClusterReady', false, reason, also !== undefined ? `${named}; ${also}` : named));
    result.results.push(type === 'normal' ? normal(message) : warning(message));
    readyOnlyIfServing(result, false);
    return result;
  };

  if (!read.ok) return hold('warning', 'InvalidSpec', read.problem, read.field, read.also);
  const ic = read.ic;

  const pending: string[] = [];
  const classes = new Map<string, InferenceClass>();
  const classProblems: ClusterProblem[] = [];
  for (const cls of classNames) {
    const got = readRequired(req, classRequirement(cls));
    if (got.state === 'pending') {
      pending.push(cls);
    } else if (got.state === 'absent') {
      const fields = ic.nodePools.flatMap((p, i) => (p.className === cls ? [`spec.nodePools[${i}].className`] : []));
      classProblems.push({ reason: 'ClassNotFound', message: errClassNotFound(cls, fields) });
    } else {
      const parsed = readInferenceClass(got.items[0]!);
      if (parsed.ok) classes.set(cls, parsed.cls);
      else classProblems.push({ reason: 'InvalidClass', message: parsed.problem });
    }
  }
  if (pending.length > 0) return hold('normal', 'WaitingForClasses', msgWaitingForClasses(pending));

  let outcome: ComposeResult | string;
  if (ic.source === 'Existing') {
    if (!existing) return hold('warning', 'InvalidSpec', ERR_NO_EXISTING);
    outcome = composeExisting(req, ic, existing, classes, classProblems);
  } else {
    outcome = composeProvisioned(req, ic, CLOUD_SOURCES[ic.source]!, classes, classProblems);
  }
  if (typeof outcome === 'string') return hold('warning', 'InvalidSpec', outcome);

  result.resources = outcome.resources;
  if (guard) result.resources[KEY_REPLICA_GUARD] = guard;
  if (outcome.status) result.status = outcome.status;
  // The capacity ledger (usage.ts): what the replicas placed here hold, per pool.
  const pools = result.status?.['gpuPools'];
  if (result.status && Array.isArray(pools)) result.status['gpuPools'] = withUsage(pools as JsonObject[], replicas, name, req.composite);
  result.conditions = outcome.conditions;
  result.results = outcome.results;
  // Health with hysteresis and the reachability probe (health.ts, docs/failover.md).
  const cloudKey = ic.source === 'Existing' ? undefined : CLOUD_SOURCES[ic.source]?.key;
  const health = applyHealth(result, req.composite, req.observed, ic, cloudKey, req.now ?? DEFAULT_NOW);
  // A cluster whose ClusterReady is False, or that the control plane cannot see, is not Ready.
  readyOnlyIfServing(result, result.conditions.some((c) => c.type === 'ClusterReady' && c.status === 'True') && reachable(health.state));
  return result;
}
