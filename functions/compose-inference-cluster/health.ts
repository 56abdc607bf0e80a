/**
 * The InferenceCluster's health (docs/failover.md): the reachability probe
 * it composes, the signal it reads from what it observes, and the
 * `status.health` it publishes through lib/health.ts.
 *
 * Guarantees:
 * - The probe is a provider-kubernetes Object that only observes the
 *   workload cluster's `kube-system` Namespace (management policy
 *   `Observe`: it never writes there) through the cluster's
 *   ClusterProviderConfig, composed once that exists. provider-kubernetes
 *   reads it on every poll (1m in the dev control plane) and sets
 *   `Synced=False` when it cannot reach the cluster's API server: that
 *   condition, and its `lastTransitionTime`, are the heartbeat. It is always
 *   marked ready, so a lost cluster's Ready condition is what the health
 *   says, not a stale composed readiness.
 * - Signal, first that holds: the probe Synced False, or (provisioned) the
 *   cloud cluster observed Ready False once it was Ready: Unreachable, since
 *   that condition's lastTransitionTime; ClusterReady or BackendReady False:
 *   Degraded (the first problem's reason and message); else Healthy, since
 *   the latest lastTransitionTime of the probe's Synced, the cloud cluster's
 *   and the serving stack's Ready. Before the probe is observed nothing is
 *   reachable yet: Provisioning until first Healthy. A paused probe
 *   (`crossplane.io/paused`, Synced False `ReconcilePaused`: the dev
 *   control plane pauses every Object of a simulated cluster) checks
 *   nothing, so it is no sign of a loss; nor is the Synced False a probe
 *   kept from before it was paused (the provider never looks again).
 * - The response TTL is the time left to the next bound (at least 1 s), so
 *   Crossplane calls the function again when it expires.
 */
import { type Condition, type ComposeResult, getPath, type JsonObject, type KubeObject, type ObservedResource } from '../lib/function.js';
import { type ClusterHealth, formatTime, type HealthSignal, nextHealth, parseTime, readHealth } from '../lib/health.js';
import { kubernetesObject } from '../lib/objects.js';
import { KEY_CPC, KEY_SERVING_STACK, providerConfigName } from './backend.js';
import { SYSTEM_NAMESPACE } from './nested-cluster.js';
import type { InferenceCluster } from './spec.js';

/** The Synced reason of a paused managed resource (crossplane-runtime `ReconcilePaused`): its provider does not look. */
const PAUSED = 'ReconcilePaused';

/** The annotation that pauses a managed resource (crossplane-runtime `meta.AnnotationKeyReconciliationPaused`). */
const PAUSED_ANNOTATION = 'crossplane.io/paused';

/** Composition resource name of the reachability probe. */
export const KEY_PROBE = 'reachability-probe';

/** The probe: an observe-only Object reading the workload cluster's `kube-system` Namespace. */
export function reachabilityProbe(ic: string): KubeObject {
  return kubernetesObject({
    namespace: SYSTEM_NAMESPACE,
    manifest: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-system' } },
    providerConfigRef: { kind: 'ClusterProviderConfig', name: providerConfigName(ic) },
    managementPolicies: ['Observe'],
  });
}

/** A condition of an observed object: status, reason, message, lastTransitionTime, or undefined. */
function observedCondition(obj: KubeObject | undefined, type: string): { status: string; reason: string; message: string; since: string } | undefined {
  const conditions = getPath(obj, 'status', 'conditions');
  if (!Array.isArray(conditions)) return undefined;
  for (const c of conditions as JsonObject[]) {
    if (typeof c !== 'object' || c === null || c['type'] !== type) continue;
    const str = (v: unknown) => (typeof v === 'string' ? v : '');
    return { status: str(c['status']), reason: str(c['reason']), message: str(c['message']), since: str(c['lastTransitionTime']) };
  }
  return undefined;
}

/** `the reachability probe cannot read the cluster (provider-kubernetes: <message>)`. */
export function msgProbeFailed(message: string): string {
  return `the reachability probe cannot read the cluster (provider-kubernetes Synced False: ${message || 'no message'})`;
}

/** `the cloud cluster <kind> reports Ready False (<reason>)`. */
export function msgCloudNotReady(kind: string, reason: string): string {
  return `the cloud cluster ${kind} reports Ready False${reason ? ` (${reason})` : ''}`;
}

function latest(times: (string | undefined)[]): string | undefined {
  let best: number | undefined;
  for (const t of times) {
    const ms = parseTime(t);
    if (ms !== undefined && (best === undefined || ms > best)) best = ms;
  }
  return best === undefined ? undefined : formatTime(best);
}

/**
 * This reconcile's signal from the observed probe, the nested cloud cluster
 * (`cloudKey`, undefined for Existing) and the conditions just computed.
 */
export function healthSignal(observed: Record<string, ObservedResource>, cloudKey: string | undefined, conditions: readonly Condition[], previous: ClusterHealth | undefined): HealthSignal {
  const probe = observed[KEY_PROBE]?.resource;
  const synced = observedCondition(probe, 'Synced');
  // A paused probe (crossplane.io/paused: Synced False ReconcilePaused) checks nothing: it says nothing of reachability,
  // nor does a Synced its provider wrote before the pause (it never looks again to replace it).
  const paused = getPath(probe, 'metadata', 'annotations', PAUSED_ANNOTATION) === 'true' || synced?.reason === PAUSED;
  if (synced?.status === 'False' && !paused) return { kind: 'Unreachable', since: synced.since, reason: 'ProbeFailed', message: msgProbeFailed(synced.message) };
  const cloud = cloudKey === undefined ? undefined : observed[cloudKey]?.resource;
  const cloudReady = observedCondition(cloud, 'Ready');
  if (cloud !== undefined && cloudReady?.status === 'False' && previous !== undefined && previous.state !== 'Provisioning') {
    return { kind: 'Unreachable', since: cloudReady.since, reason: 'CloudClusterNotReady', message: msgCloudNotReady(cloud.kind, cloudReady.reason) };
  }
  const problem = conditions.find((c) => c.status !== 'True');
  if (problem !== undefined) return { kind: 'Degraded', reason: problem.reason, message: `${problem.type} ${problem.status}: ${problem.message ?? problem.reason}` };
  // Observed by its provider (Synced True, or Ready True: a paused probe is only ever given Ready).
  const probeReady = observedCondition(probe, 'Ready');
  if (synced?.status !== 'True' && probeReady?.status !== 'True') return { kind: 'Degraded', reason: 'ProbePending', message: 'the reachability probe has not been observed yet' };
  const stack = observed[KEY_SERVING_STACK]?.resource;
  return { kind: 'Healthy', since: latest([synced?.since, probeReady?.since, cloudReady?.since, observedCondition(stack, 'Ready')?.since]) };
}

/**
 * Composes the probe (once the ClusterProviderConfig is composed), publishes
 * `status.health` and sets the TTL to the next bound. Returns the health.
 */
export function applyHealth(result: ComposeResult, observedXr: KubeObject, observed: Record<string, ObservedResource>, ic: InferenceCluster, cloudKey: string | undefined, now: number): ClusterHealth {
  if (result.resources[KEY_CPC] !== undefined || observed[KEY_PROBE] !== undefined) {
    result.resources[KEY_PROBE] = { resource: reachabilityProbe(ic.name), ready: true };
  }
  const previous = readHealth(observedXr);
  const { health, recheckSeconds } = nextHealth(previous, healthSignal(observed, cloudKey, result.conditions, previous), ic.drain, ic.failover, now);
  if (result.status) result.status['health'] = { ...health };
  if (recheckSeconds !== undefined) result.ttlSeconds = Math.max(1, Math.min(60, recheckSeconds));
  return health;
}
