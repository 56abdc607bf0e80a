/**
 * schedule-model-deployment: the fleet scheduler's function core. Reads a
 * ModelDeployment, the InferenceClusters it may use (with their published
 * capacity ledgers) and its own ModelReplicas, places the replicas
 * (scheduling.ts) and composes one ModelReplica per placed replica and one
 * ModelEndpoint per Ready one (docs/kinds/modeldeployment.md#what-it-composes), and the deployment's Grafana
 * dashboard ConfigMap (dashboard.ts, docs/observability.md#dashboard).
 *
 * Guarantees:
 * - Requirements are declared on every call: `cache` (the ModelCache, when
 *   referenced), `clusters` (InferenceClusters matching the deployment's and
 *   the cache's cluster selectors) and `own-replicas` (the ModelReplicas
 *   labelled modelplane.ai/deployment=<name> in the XR's namespace). The
 *   request grows with the clusters and this deployment's replicas, not with
 *   the fleet's replicas (docs/design.md#the-capacity-ledger).
 * - Other deployments are charged from the clusters' ledgers
 *   (`status.gpuPools[].used`, ledger.ts), published by each
 *   InferenceCluster's function from the replicas placed on it; our own
 *   replicas replace our entry there, so nothing is counted twice and a
 *   replica we placed that the cluster has not seen yet still counts.
 *   Freshness: what others hold is one cluster reconcile behind (the
 *   cluster publishes what it read on its last reconcile, and Crossplane
 *   does not re-run us when it changes). This is safe for the same reason
 *   reading every replica was: two deployments reconciled from one snapshot
 *   could always both take the last free device; the workload cluster is
 *   the final arbiter (the pod that does not fit stays Pending and the
 *   replica not Ready, never overcommitted hardware), its ledger says which
 *   replica lost (`overCapacity`, arrival.ts), and that replica's scheduler
 *   replaces it where there is room, make before break (scheduling.ts). A cluster that has not published its
 *   ledger yet (a pool without `used`) is treated conservatively: it takes
 *   no new replica (refused "capacity of pool <p> not published yet"), and
 *   ours on it stay as they are. A ledger the XRD's schema rejects makes the
 *   cluster's status unreadable: ours there are held, with a Warning.
 * - Three outcomes: done; not yet (a requirement not fetched yet: ask, keep
 *   what exists, say nothing alarming); invalid input (a condition and a
 *   Warning naming the field). On every path that is not "done", the observed
 *   children are passed through as desired, so nothing running is deleted
 *   because of a transient or user error (docs/design.md#keep-what-exists,
 *   docs/design.md#not-fetched-yet-is-not-absent).
 * - Make before break (docs/design.md#make-before-break): a replica that
 *   must move stays composed exactly as it runs (its observed spec), with
 *   its endpoint while Ready, until a Ready replacement exists; replicas go
 *   away only because the spec asks for fewer, a Ready replacement exists or
 *   their cluster is gone or not Ready (scheduling.ts). `status.placements[]`
 *   carries each replica's `role` (current, surge, retiring).
 * - Failover (docs/failover.md): a replica on a cluster the control plane
 *   cannot see is not counted Ready; its endpoint is kept as it is while the
 *   cluster is Unreachable, and dropped once it is Unavailable unless no
 *   other replica is Ready (a route is never emptied). Progressing says
 *   Failover, or False/FailoverBlocked when no replacement fits.
 * - Conditions in order: ModelCacheResolved (only with a cache),
 *   ReplicasScheduled, ReplicasReady, Progressing (when scheduled:
 *   ReplicasUpToDate, RollingUpdate, or False/RolloutBlocked when the current
 *   spec fits nowhere and the previous replicas are kept), ColdStartWithinBar
 *   (only with serving.readyWithin, once placed; coldstart.ts).
 * - `status.coldStart` aggregates the measured cold starts of the replicas
 *   at the current spec.
 * - The XR is Ready only when `replicas` replicas run the current spec and
 *   every placed replica is Ready (a rollout in progress is not Ready).
 * - Garbage is held, not acted on (docs/design.md#keep-what-exists), each hold a
 *   Warning naming the field and a note in ReplicasScheduled (a held
 *   replica) or ReplicasReady (a kept endpoint):
 *   - a replica that reports neither Ready True nor Ready False (status,
 *     conditions or Ready condition missing, Unknown or garbage) keeps its
 *     observed endpoint until it reports Ready False (it counts as not Ready);
 *   - a Ready replica whose cluster publishes no gateway address keeps its
 *     observed endpoint as it is;
 *   - a replica whose cluster's published state cannot be read, or is
 *     missing where it decides the replica's fate, is passed through as
 *     observed, with its endpoint (scheduling.ts `held`);
 *   - our observed replicas are ours at their key's (cluster, index)
 *     whatever their labels say (observed.ts).
 *
 * Deliberate divergences from the reference (each a section of docs/design.md):
 * - no clusters, not-yet-read requirements, an invalid spec and invalid CEL
 *   keep the observed children and report status and ReplicasReady from them
 *   (docs/design.md#keep-what-exists; the reference composes nothing and
 *   Crossplane deletes them);
 * - the first pass before Crossplane has read the requirements reports
 *   ReplicasScheduled=False/Scheduling without a warning
 *   (docs/design.md#not-fetched-yet-is-not-absent);
 * - a partial or empty placement is ReplicasScheduled=False/InsufficientCapacity
 *   with a per-cluster explanation (docs/design.md#explained-placement; the
 *   reference says True for a partial placement);
 * - spec.replicas 0 is ScaledToZero and the XR is Ready
 *   (docs/design.md#scale-to-zero), except under the HPA autoscaler, which
 *   never scales from zero: there Ready is False and says the fix;
 * - the InvalidNodeSelector message names the selector's field path.
 */
import { msgUntracked, untrackedReplicas } from './orphans.js';
import { markReady, readyOnlyIfServing } from '../lib/ready.js';
import { autoscalerOf, GATEWAY_SELECTOR, REQ_GATEWAY, withStandby } from './standby.js';
import {
  type ComposeRequest,
  type ComposeResult,
  condition,
  type DesiredResource,
  emptyResult,
  isReady,
  type JsonObject,
  type KubeObject,
  keepObserved,
  normal,
  readCondition,
  readRequired,
  type ResourceSelector,
  warning,
} from '../lib/function.js';
import { DASHBOARD_KEY, dashboardConfigMap } from './dashboard.js';
import { type Autoscaler, AUTOSCALER_KEY, autoscalingStatus, msgOutsideBounds, msgScaling, scaledObject } from './autoscaling.js';
import { effectiveSpec, HPA_KEY, horizontalPodAutoscaler, hpaStatus, hpaWarnings, msgHpaAtZero } from './hpa.js';
import { API_VERSION, composeEndpoint, composeReplica, endpointKey, replicaKey, replicaName } from './children.js';
import { type DeploymentSpec, readDeployment } from './deployment.js';
import { DEPLOYMENT_LABEL } from '../lib/names.js';
import { readFleet, readReplica } from '../lib/fleet/fleet.js';
import { fleetReplicas, readinessGap } from './observed.js';
import { cacheRefusal, footprint, resolveCache } from './cache.js';
import { celMatcher } from '../lib/fleet/cel-matcher.js';
import { coldStart } from './coldstart.js';
import type { DeviceMatcher } from '../lib/fleet/matcher.js';
import { compileEngines, type SelectorError } from './matching.js';
import type { Candidate } from '../lib/fleet/model.js';
import { deploymentCost, tierName } from './policy.js';
import { schedule } from './scheduling.js';
import { QuotaBudget } from './quota-budget.js';
import { ReasonKind } from './placement.js';
import { type Quota, readQuota } from '../lib/quota.js';
import {
  deploymentStatus,
  MSG_NO_CLUSTERS,
  MSG_SCALED_TO_ZERO,
  MSG_WAITING_FLEET,
  msgHeld,
  msgKeptPrevious,
  msgNotes,
  msgOverCapacity,
  msgFailingOver,
  msgPolicyMoving,
  msgReplacingOverCapacity,
  msgRolling,
  msgScheduledEvent,
  progressingCondition,
  msgUnscheduled,
  REASON,
  readyCondition,
  TYPE_READY,
  TYPE_SCHEDULED,
} from './status.js';

/** The scheduler's core, public for benchmarks that time it without the compose shell (bench/scheduler.bench.ts). */
export { QuotaBudget, readDeployment, schedule };

/** A replica held as it was because its cluster's state is missing or cannot be read (`why` names the field). */
export function msgHeldReplica(replica: string, cluster: string, why: string): string {
  return `replica ${replica} on cluster ${cluster} is kept as it is until the cluster's state can be read: ${why}`;
}

/** A placed replica that reports neither Ready True nor Ready False: its endpoint is kept. */
export function msgUnreadableReplica(replica: string, r: { field: string; problem: string }): string {
  return `replica ${replica}: ${r.field} ${r.problem}; its endpoint is kept until the replica reports Ready False`;
}

/**
 * `replica <r>: cluster <c> is <state>: not counted Ready; its endpoint is kept as it is`
 * (Unreachable; or Unavailable when no other replica is Ready: the route is never emptied).
 */
export function msgUnseenEndpoint(replica: string, cluster: string, state: string): string {
  const why = state === 'Unreachable' ? 'until the cluster is Unavailable or the replica is replaced' : 'while no other replica is Ready (a route is never emptied)';
  return `replica ${replica}: cluster ${cluster} is ${state}: not counted Ready; its endpoint is kept ${why}`;
}

/** `replica <r>: <why>: it is re-placed and goes once enough replicas are Ready elsewhere` (a ReplicasScheduled note). */
export function msgFailover(replica: string, why: string): string {
  return `replica ${replica}: ${why}: it is re-placed and goes once enough replicas are Ready elsewhere`;
}

/** `replica <r>: <why>: it goes once its replacement is Ready` (a ReplicasScheduled note; docs/placement-policy.md). */
export function msgPolicyMove(replica: string, why: string): string {
  return `replica ${replica}: ${why}: it goes once its replacement is Ready`;
}

/** A replica's observed endpoint kept as it is while its cluster publishes no gateway address. */
export function msgNoGatewayEndpoint(replica: string, cluster: string): string {
  return `replica ${replica}: cluster ${cluster} publishes no status.gateway.address; its endpoint is kept as it is until the cluster publishes one`;
}

/** Requirement names. */
export const REQ_CACHE = 'cache';
export const REQ_CLUSTERS = 'clusters';
export const REQ_REPLICAS = 'own-replicas';
/** The InferenceQuotas of the deployment's namespace (docs/quotas.md). */
export const REQ_QUOTAS = 'quotas';
/** Every InferenceCluster, when quotas apply and the clusterSelector narrows `clusters`: a quota counts the whole fleet. */
export const REQ_QUOTA_CLUSTERS = 'quota-clusters';

/** Most selector errors listed in one InvalidNodeSelector message. */
const MAX_SELECTOR_ERRORS = 3;

/** `Invalid nodeSelector CEL expression: <path>.cel: <error>[; ...][; and N more]`. */
export function msgInvalidSelectors(errors: readonly SelectorError[]): string {
  const shown = errors.slice(0, MAX_SELECTOR_ERRORS).map((e) => `${e.path}.cel: ${e.error}`);
  if (errors.length > MAX_SELECTOR_ERRORS) shown.push(`and ${errors.length - MAX_SELECTOR_ERRORS} more`);
  return `Invalid nodeSelector CEL expression: ${shown.join('; ')}`;
}

/** `Invalid ModelDeployment spec: <errors>` (the API server normally rejects these first). */
export function msgInvalidSpec(errors: readonly string[]): string {
  const shown = errors.slice(0, MAX_SELECTOR_ERRORS);
  if (errors.length > MAX_SELECTOR_ERRORS) shown.push(`and ${errors.length - MAX_SELECTOR_ERRORS} more`);
  return `Invalid ModelDeployment spec: ${shown.join('; ')}`;
}

/** The function core with the real CEL library. */
export function compose(req: ComposeRequest): ComposeResult {
  return composeWith(req, celMatcher);
}

/** The function core over any {@link DeviceMatcher} (tests pass one that counts CEL evaluations). */
export function composeWith(req: ComposeRequest, matcher: DeviceMatcher): ComposeResult {
  const result = emptyResult();
  const read = readDeployment(req.composite);
  if (!read.ok) {
    const message = msgInvalidSpec(read.errors);
    return keep(req, result, condition(TYPE_SCHEDULED, false, REASON.InvalidSpec, message), warning(message));
  }
  const d = read.deployment;

  // Requirements and the ModelCache (docs/kinds/modeldeployment.md#inputs; cache.ts).
  const cache = resolveCache(req, result, REQ_CACHE, d.cacheRef !== undefined ? { name: d.cacheRef, namespace: d.namespace } : undefined);
  const fill = cache.state === 'none' || cache.state === 'present';
  const held = cache.state === 'pending' || cache.state === 'absent' ? cache.held : '';
  const clusterLabels = footprint(d.clusterLabels, cache);

  // Phase 1 first, whatever the fleet: invalid CEL is the user's to fix now.
  const compiled = compileEngines(d.engines, matcher);
  if (!compiled.ok) {
    const message = msgInvalidSelectors(compiled.errors);
    declareFleet(result, clusterLabels, d);
    const out = keep(req, result, condition(TYPE_SCHEDULED, false, REASON.InvalidNodeSelector, message), warning(message));
    out.ready = false;
    return out;
  }

  if (d.replicas === 0) {
    withDashboard(result, d);
    result.status = deploymentStatus([], 0);
    const scaler = withAutoscaler(req, result, d);
    withStandby(req, result, d, 0);
    // Under the HPA nothing wakes a deployment at zero (hpa.ts): not what spec.autoscaling asks, so not Ready.
    const stuck = d.autoscaling !== undefined && scaler === 'HPA';
    const message = stuck ? msgHpaAtZero(d, effectiveSpec(d.autoscaling!, 'HPA')) : MSG_SCALED_TO_ZERO;
    result.conditions.push(condition(TYPE_SCHEDULED, true, REASON.ScaledToZero, MSG_SCALED_TO_ZERO));
    result.conditions.push(condition(TYPE_READY, !stuck, REASON.ScaledToZero, message));
    result.ready = !stuck;
    return result;
  }

  declareFleet(result, clusterLabels, d);
  const clusters = readRequired(req, REQ_CLUSTERS);
  const own = readRequired(req, REQ_REPLICAS);
  if (clusters.state === 'pending' || own.state === 'pending') {
    return keep(req, result, condition(TYPE_SCHEDULED, false, REASON.Scheduling, MSG_WAITING_FLEET), undefined, d.replicas);
  }
  if (clusters.state === 'absent') {
    return keep(req, result, condition(TYPE_SCHEDULED, false, REASON.NoClusters), warning(MSG_NO_CLUSTERS), d.replicas);
  }

  const fleet = readFleet(clusters.items);
  const ownItems = own.state === 'present' ? own.items : [];
  const replicas = fleetReplicas(ownItems, req.observed, d);
  const quotaNotes: string[] = [];
  const quota = quotaBudget(req, result, d, clusters.items, quotaNotes);
  const outcome = schedule({ deployment: d, fleet, replicas, fill, matcher, admits: (c) => cacheRefusal(cache, c), ...(quota ? { quota } : {}) });
  if (outcome.kind === 'invalid') {
    // Unreachable after the compile above; kept total for a matcher that changes its mind.
    const message = msgInvalidSelectors(outcome.errors);
    return keep(req, result, condition(TYPE_SCHEDULED, false, REASON.InvalidNodeSelector, message), warning(message));
  }
  const { candidates, rollout } = outcome;
  const atSpec = candidates.filter((c) => c.role !== 'retiring');

  // Children (docs/kinds/modeldeployment.md#what-it-composes); a retiring replica stays exactly as it runs.
  const placements: { name: string; candidate: Candidate; ready: boolean }[] = [];
  // What is held because an input cannot be read, said in ReplicasScheduled / ReplicasReady too.
  const scheduledNotes: string[] = [...quotaNotes];
  for (const over of outcome.overQuota) {
    // A lowered quota removes nothing: it is said, and only new placements are refused (docs/quotas.md).
    scheduledNotes.push(`OverQuota: ${over}`);
    result.results.push(warning(`OverQuota: ${over}`));
  }
  for (const n of quotaNotes) result.results.push(warning(n));
  const readyNotes: string[] = [];
  // Replicas counted Ready: reported Ready on a cluster the control plane can see (docs/failover.md).
  const readyOf = (c: Candidate) => c.unseen === undefined && (readCondition(req.observed[replicaKey(c)]?.resource, 'Ready').state === 'True' || (req.observed[replicaKey(c)] === undefined && c.ready));
  const readyCount = candidates.filter(readyOf).length;
  for (const c of candidates) {
    const name = replicaName(d, c);
    const observed = req.observed[replicaKey(c)]?.resource;
    const readiness = readCondition(observed, 'Ready');
    const ready = readyOf(c);
    const endpointObserved = req.observed[endpointKey(c)];
    if (c.held !== undefined && observed !== undefined) {
      // Its cluster's state cannot be read: the replica and its endpoint stay exactly as they are.
      Object.assign(result.resources, keepObserved({ [replicaKey(c)]: req.observed[replicaKey(c)]! }));
      if (endpointObserved) Object.assign(result.resources, keepObserved({ [endpointKey(c)]: endpointObserved }));
      const message = msgHeldReplica(name, c.cluster, c.held);
      result.results.push(warning(message));
      scheduledNotes.push(message);
      placements.push({ name, candidate: c, ready });
      continue;
    }
    if (c.overCapacity !== undefined) scheduledNotes.push(msgOverCapacity(name, c.cluster, c.overCapacity));
    if (c.failover !== undefined) scheduledNotes.push(msgFailover(name, c.failover));
    if (c.policy !== undefined) scheduledNotes.push(msgPolicyMove(name, c.policy));
    const replica: DesiredResource = { resource: c.previous !== undefined ? asRunning(c.previous) : composeReplica(d, c) };
    if (ready) replica.ready = true;
    result.resources[replicaKey(c)] = replica;
    placements.push({ name, candidate: c, ready });
    // An endpoint of a replica that reports neither Ready True nor Ready False (its status missing,
    // Unknown or garbage) stays until the replica is really not Ready; garbage is said even without one.
    const gap = readinessGap(observed);
    const keepEndpoint = gap !== undefined && endpointObserved !== undefined;
    if (gap !== undefined && (keepEndpoint || readiness.state === 'unreadable')) {
      const message = msgUnreadableReplica(name, gap);
      result.results.push(warning(message));
      readyNotes.push(message);
    }
    if (c.unseen !== undefined) {
      // Its cluster cannot be seen: the endpoint stays as it is while Unreachable (a blip moves nothing),
      // and leaves the route once Unavailable, unless it is the deployment's last (docs/failover.md).
      if (endpointObserved !== undefined && (c.unseen === 'Unreachable' || readyCount === 0)) {
        Object.assign(result.resources, keepObserved({ [endpointKey(c)]: endpointObserved }));
        readyNotes.push(msgUnseenEndpoint(name, c.cluster, c.unseen));
      }
      continue;
    }
    if (!ready && !keepEndpoint) continue;
    if (c.gatewayAddress !== '') {
      const endpoint: DesiredResource = { resource: composeEndpoint(d, c) };
      if (isReady(endpointObserved?.resource)) endpoint.ready = true;
      result.resources[endpointKey(c)] = endpoint;
    } else if (endpointObserved !== undefined) {
      // No gateway address to route through: the endpoint stays as it is rather than be deleted.
      Object.assign(result.resources, keepObserved({ [endpointKey(c)]: endpointObserved }));
      const message = msgNoGatewayEndpoint(name, c.cluster);
      result.results.push(warning(message));
      readyNotes.push(message);
    }
  }

  // Replicas core lost track of are handed back to it (orphans.ts).
  for (const { key, replica } of untrackedReplicas(ownItems, req.observed, new Set(Object.keys(result.resources)), req.composite.metadata?.uid)) {
    result.resources[key] = { resource: asRunning(replica) };
    result.results.push(warning(msgUntracked(replica.metadata?.name ?? '', key)));
  }
  withDashboard(result, d);

  // Status, conditions, events (docs/kinds/modeldeployment.md#status-and-conditions).
  result.status = deploymentStatus(placements, d.replicas, (t) => tierName(d.policy, t));
  withAutoscaler(req, result, d);
  // Until a replica's endpoint is Ready (composed or kept), a deployment that may scale to zero keeps its standby (standby.ts).
  withStandby(req, result, d, Object.entries(result.resources).filter(([k, r]) => k.startsWith('endpoint-') && r.ready === true).length);
  const cost = deploymentCost(atSpec, fleet.clusters, d);
  if (cost.status !== undefined) {
    result.status['cost'] = cost.status;
    const entries = result.status['placements'] as JsonObject[];
    placements.forEach((p, i) => {
      const own = cost.perReplica.get(p.candidate);
      if (own !== undefined) entries[i]!['hourlyCost'] = own;
    });
  }
  const anyObserved = candidates.some((c) => req.observed[replicaKey(c)] !== undefined);
  const previous = rollout.retiring - rollout.overCapacity - rollout.failover - rollout.policy;
  const kept = (previous > 0 ? msgKeptPrevious(previous) : '') + msgNotes(scheduledNotes);
  if (atSpec.length < d.replicas && fill && rollout.short === 0) {
    // Held back by the surge bound, not by capacity.
    const rolling =
      previous > 0
        ? msgRolling(atSpec.length, d, previous)
        : rollout.failover > 0
          ? msgFailingOver(atSpec.length, d.replicas, rollout.failover)
          : rollout.policy > 0
            ? msgPolicyMoving(atSpec.length, d.replicas, rollout.policy)
            : msgReplacingOverCapacity(atSpec.length, d.replicas, rollout.overCapacity);
    result.conditions.push(condition(TYPE_SCHEDULED, false, REASON.RollingUpdate, rolling + msgNotes(scheduledNotes)));
  } else if (atSpec.length < d.replicas) {
    const message = fill
      ? msgUnscheduled(atSpec.length, d.replicas, fleet.clusters.length, outcome.refusals)
      : msgHeld(atSpec.length, d.replicas, held);
    const byQuota = [...outcome.refusals.values()].some((r) => r.kind === ReasonKind.Quota);
    result.conditions.push(condition(TYPE_SCHEDULED, false, byQuota ? REASON.QuotaExceeded : REASON.InsufficientCapacity, message + kept));
  } else if (!anyObserved) {
    result.conditions.push(condition(TYPE_SCHEDULED, false, REASON.Scheduling));
  } else {
    result.conditions.push(condition(TYPE_SCHEDULED, true, REASON.ReplicasCreated, `Scheduled ${atSpec.length} of ${d.replicas} replicas${kept}`));
  }
  result.conditions.push(readyCondition(placements.filter((p) => p.ready).length, placements.length, readyNotes));
  result.conditions.push(progressingCondition(rollout, atSpec.length, d, fleet.clusters.length, outcome.refusals));
  // The cold-start bar (coldstart.ts): measured by the replicas at the current spec, aggregated here.
  const cold = coldStart({
    replicas: atSpec.map((c) => req.observed[replicaKey(c)]?.resource),
    fromCache: d.cacheRef !== undefined,
    sizeGiB: cache.state === 'present' ? cache.sizeGiB : undefined,
    readyWithin: d.readyWithin,
  });
  if (cold.status['replicas'] !== 0 || d.readyWithin !== undefined) result.status['coldStart'] = cold.status;
  if (cold.condition) result.conditions.push(cold.condition);
  if (candidates.length > 0 && !anyObserved) result.results.push(normal(msgScheduledEvent(candidates)));
  // Ready means serving what was asked: every desired replica placed at the current spec and Ready (partial is not Ready).
  readyOnlyIfServing(result, atSpec.length >= d.replicas && placements.length > 0 && placements.every((p) => p.ready));
  return result;
}

/**
 * A retiring replica as it runs: its observed apiVersion, kind, name,
 * namespace, labels and spec (status and server-set metadata dropped), so
 * Crossplane keeps it unchanged until it goes.
 */
function asRunning(obj: KubeObject): KubeObject {
  const m = obj.metadata ?? {};
  const metadata: KubeObject['metadata'] = { name: m.name ?? '' };
  if (m.namespace !== undefined) metadata.namespace = m.namespace;
  if (m.labels !== undefined) metadata.labels = { ...m.labels };
  return { apiVersion: obj.apiVersion, kind: obj.kind, metadata, spec: structuredClone(obj['spec'] ?? {}) };
}

/**
 * The dashboard ConfigMap (dashboard.ts), last, always marked ready: a
 * dashboard never holds back the deployment's Ready (docs/observability.md#dashboard).
 */
function withDashboard(result: ComposeResult, d: DeploymentSpec): void {
  result.resources[DASHBOARD_KEY] = markReady(dashboardConfigMap(d), true);
}

/**
 * With `spec.autoscaling`: the autoscaler the InferenceGateway `default`
 * declares (`spec.autoscaling.autoscaler`): KEDA's ScaledObject
 * (autoscaling.ts), or where KEDA is absent a HorizontalPodAutoscaler
 * (hpa.ts); marked ready (the replicas' readiness is the deployment's, not
 * the autoscaler's), `status.autoscaling`, a Warning when spec.replicas is
 * outside the bounds, and a Normal `Scaling` event while spec.replicas
 * differs from what the last reconcile placed (a scale step, the
 * autoscaler's or anyone's). While the gateway is not fetched yet the
 * autoscaler runs on as observed (none is composed before). Returns the
 * autoscaler composed, undefined without spec.autoscaling or while pending.
 */
function withAutoscaler(req: ComposeRequest, result: ComposeResult, d: DeploymentSpec): Autoscaler | undefined {
  const declared = d.autoscaling;
  if (declared === undefined) return undefined;
  result.requirements[REQ_GATEWAY] = GATEWAY_SELECTOR;
  result.status = { ...result.status, selector: `${DEPLOYMENT_LABEL}=${d.name}` };
  const gateway = readRequired(req, REQ_GATEWAY);
  if (gateway.state === 'pending') {
    for (const key of [AUTOSCALER_KEY, HPA_KEY]) {
      const seen = req.observed[key];
      if (seen !== undefined) result.resources[key] = { ...keepObserved({ [key]: seen })[key]!, ready: true };
    }
    return undefined;
  }
  const scaler = autoscalerOf(gateway.state === 'present' ? gateway.items[0] : undefined);
  const a = effectiveSpec(declared, scaler);
  if (scaler === 'HPA') {
    result.resources[HPA_KEY] = markReady(horizontalPodAutoscaler(d, a), true);
    result.status['autoscaling'] = hpaStatus(d, a, req.observed[HPA_KEY]?.resource);
    for (const message of hpaWarnings(d, declared)) result.results.push(warning(message));
  } else {
    result.resources[AUTOSCALER_KEY] = markReady(scaledObject(d, a), true);
    result.status['autoscaling'] = autoscalingStatus(d, a, req.observed[AUTOSCALER_KEY]?.resource);
  }
  const outside = scaler === 'HPA' && d.replicas === 0 ? msgHpaAtZero(d, a) : msgOutsideBounds(d.replicas, a, scaler);
  if (outside !== undefined) result.results.push(warning(outside));
  const before = ((req.composite['status'] as JsonObject | undefined)?.['replicas'] as JsonObject | undefined)?.['total'];
  const scaling = msgScaling(typeof before === 'number' ? before : undefined, d.replicas, d, a, scaler);
  if (scaling !== undefined) result.results.push(normal(scaling, 'Scaling'));
  return scaler;
}

/** Declares the `clusters` and `own-replicas` requirements. */
function declareFleet(result: ComposeResult, labels: Record<string, string> | undefined, d: DeploymentSpec): void {
  const clusters: ResourceSelector = { apiVersion: API_VERSION, kind: 'InferenceCluster' };
  if (labels !== undefined) clusters.matchLabels = labels;
  result.requirements[REQ_CLUSTERS] = clusters;
  result.requirements[REQ_REPLICAS] = { apiVersion: API_VERSION, kind: 'ModelReplica', matchLabels: { [DEPLOYMENT_LABEL]: d.name }, namespace: d.namespace };
  result.requirements[REQ_QUOTAS] = { apiVersion: API_VERSION, kind: 'InferenceQuota', matchLabels: {}, namespace: d.namespace };
}

/**
 * The namespace's quotas as a budget (quota-budget.ts), or undefined without
 * quotas. Not fetched yet reads as none: Crossplane calls the function again
 * with every requirement it declares before it applies anything, so what is
 * applied was always decided with the quotas. A quota that cannot be read is
 * left out, said in `notes`.
 */
function quotaBudget(req: ComposeRequest, result: ComposeResult, d: DeploymentSpec, fleetClusters: readonly KubeObject[], notes: string[]): QuotaBudget | undefined {
  const fetched = readRequired(req, REQ_QUOTAS);
  if (fetched.state !== 'present') return undefined;
  const quotas: Quota[] = [];
  for (const item of fetched.items) {
    const read = readQuota(item);
    if (read.ok) quotas.push(read.quota);
    else notes.push(msgUnreadableQuota(`${item.metadata?.namespace ?? ''}/${item.metadata?.name ?? ''}`, read.errors));
  }
  if (quotas.length === 0) return undefined;
  let all = fleetClusters;
  if (d.clusterLabels !== undefined) {
    result.requirements[REQ_QUOTA_CLUSTERS] = { apiVersion: API_VERSION, kind: 'InferenceCluster' };
    const every = readRequired(req, REQ_QUOTA_CLUSTERS);
    if (every.state === 'present') all = every.items;
  }
  return new QuotaBudget(quotas, all, d);
}

/** `InferenceQuota <ns>/<name> cannot be read and is not applied: <errors>`. */
export function msgUnreadableQuota(name: string, errors: readonly string[]): string {
  return `InferenceQuota ${name} cannot be read and is not applied: ${errors.join('; ')}`;
}

/**
 * A "not done" outcome: the observed children pass through unchanged, the
 * status and ReplicasReady describe them, and `scheduled` says why. The XR
 * is Ready only when the kept replicas serve what was asked (`desired` of
 * them, all Ready: a fleet briefly unreadable does not stop a running
 * model); with `desired` unknown (the spec could not be read), never.
 */
function keep(
  req: ComposeRequest,
  result: ComposeResult,
  scheduled: ReturnType<typeof condition>,
  event?: ReturnType<typeof warning>,
  desired?: number,
): ComposeResult {
  result.resources = keepObserved(req.observed);
  const kept = Object.keys(req.observed)
    .sort()
    .map((k) => req.observed[k]!.resource)
    .filter((r) => r.kind === 'ModelReplica')
    .map((r) => {
      const o = readReplica(r);
      const candidate: Candidate = {
        cluster: o.clusterName,
        index: o.index,
        gatewayAddress: '',
        retained: true,
        role: 'current',
        ready: isReady(r),
        engines: o.engines.map((e) => ({
          name: e.name,
          members: e.members.map((m) => ({ role: m.role, pool: m.nodePoolName, requests: [] })),
        })),
      };
      return { name: o.name, candidate, ready: isReady(r) };
    })
    .sort((x, y) => (x.candidate.cluster < y.candidate.cluster ? -1 : x.candidate.cluster > y.candidate.cluster ? 1 : x.candidate.index - y.candidate.index));
  result.status = deploymentStatus(kept, desired ?? kept.length);
  // With none kept the XR would otherwise be trivially Ready (no children).
  readyOnlyIfServing(result, desired !== undefined && kept.length > 0 && kept.length >= desired && kept.every((k) => k.ready));
  result.conditions.push(scheduled);
  result.conditions.push(readyCondition(kept.filter((k) => k.ready).length, kept.length));
  if (event) result.results.push(event);
  return result;
}
