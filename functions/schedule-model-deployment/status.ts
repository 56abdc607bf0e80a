/**
 * The ModelDeployment's status, conditions and messages (docs/kinds/modeldeployment.md#status-and-conditions,
 * docs/design.md#explained-placement and docs/design.md#scale-to-zero).
 *
 * Guarantees:
 * - Every message format is a constant or a helper here; the same state
 *   always gives byte-identical text.
 * - The placement explanation is bounded: at most {@link MAX_REASON_GROUPS}
 *   groups of clusters sharing a reason (sorted by reason kind, then text),
 *   each reason at most {@link MAX_REASON_LENGTH} characters, in the style of
 *   kube-scheduler's "0/3 nodes are available: ...".
 */
import { type Condition, condition, type JsonObject } from '../lib/function.js';
import type { DeploymentSpec } from './deployment.js';
import type { Candidate } from '../lib/fleet/model.js';
import type { Reason } from './placement.js';
import type { RolloutState } from './scheduling.js';

/** Condition types. */
export const TYPE_SCHEDULED = 'ReplicasScheduled';
export const TYPE_READY = 'ReplicasReady';
export const TYPE_CACHE = 'ModelCacheResolved';
/** Where a rollout stands (docs/design.md#make-before-break), as a Deployment's Progressing condition. */
export const TYPE_PROGRESSING = 'Progressing';

/** Condition reasons. */
export const REASON = {
  NoClusters: 'NoClusters',
  InvalidNodeSelector: 'InvalidNodeSelector',
  InvalidSpec: 'InvalidSpec',
  InsufficientCapacity: 'InsufficientCapacity',
  QuotaExceeded: 'QuotaExceeded',
  ReplicasCreated: 'ReplicasCreated',
  Scheduling: 'Scheduling',
  ScaledToZero: 'ScaledToZero',
  NoReplicasScheduled: 'NoReplicasScheduled',
  AllReplicasReady: 'AllReplicasReady',
  ModelStarting: 'ModelStarting',
  ModelCacheResolved: 'ModelCacheResolved',
  ModelCacheUnresolved: 'ModelCacheUnresolved',
  ModelCacheNotFound: 'ModelCacheNotFound',
  RollingUpdate: 'RollingUpdate',
  RolloutBlocked: 'RolloutBlocked',
  ReplicasUpToDate: 'ReplicasUpToDate',
  OverCapacity: 'OverCapacity',
  Failover: 'Failover',
  FailoverBlocked: 'FailoverBlocked',
  PolicyMove: 'PolicyMove',
  PolicyMoveBlocked: 'PolicyMoveBlocked',
} as const;

/** Message constants. */
export const MSG_NO_CLUSTERS = 'No InferenceClusters found';
export const MSG_WAITING_FLEET = 'Waiting for the InferenceClusters and ModelReplicas to be read';
export const MSG_SCALED_TO_ZERO = 'spec.replicas is 0: no replicas are placed';

/** Most reason groups listed in a ReplicasScheduled message. */
export const MAX_REASON_GROUPS = 6;
/** Longest reason text kept in a ReplicasScheduled message (characters). */
export const MAX_REASON_LENGTH = 200;

/** `Waiting for ModelCache <name>`. */
export function msgCacheWaiting(name: string): string {
  return `Waiting for ModelCache ${name}`;
}

/** `ModelCache <name> not found; holding replica placement`. */
export function msgCacheNotFound(name: string): string {
  return `ModelCache ${name} not found; holding replica placement`;
}

/** `Scheduled <n> replicas across <k> clusters: a, b` (no pluralisation, as the reference). */
export function msgScheduledEvent(candidates: readonly Candidate[]): string {
  const clusters = [...new Set(candidates.map((c) => c.cluster))].sort();
  return `Scheduled ${candidates.length} replicas across ${clusters.length} clusters: ${clusters.join(', ')}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * `1 of 2 replicas scheduled; 3 clusters: 1 no pool matches engine "qwen" (...), 1 not Ready`:
 * clusters grouped by reason, groups sorted by (kind, text), bounded.
 */
export function msgUnscheduled(placed: number, desired: number, clusterCount: number, refusals: ReadonlyMap<string, Reason>): string {
  const groups = new Map<string, { reason: Reason; count: number }>();
  for (const r of refusals.values()) {
    const text = r.text.length > MAX_REASON_LENGTH ? `${r.text.slice(0, MAX_REASON_LENGTH - 3)}...` : r.text;
    const g = groups.get(text);
    if (g) g.count++;
    else groups.set(text, { reason: { kind: r.kind, text }, count: 1 });
  }
  const sorted = [...groups.values()].sort((a, b) =>
    a.reason.kind !== b.reason.kind ? a.reason.kind - b.reason.kind : a.reason.text < b.reason.text ? -1 : a.reason.text > b.reason.text ? 1 : 0,
  );
  const shown = sorted.slice(0, MAX_REASON_GROUPS).map((g) => `${g.count} ${g.reason.text}`);
  const rest = sorted.slice(MAX_REASON_GROUPS).reduce((n, g) => n + g.count, 0);
  if (rest > 0) shown.push(`${rest} for other reasons`);
  const head = `${placed} of ${desired} replicas scheduled; ${plural(clusterCount, 'cluster')}`;
  return shown.length > 0 ? `${head}: ${shown.join(', ')}` : head;
}

/** `0 of 1 replicas scheduled; <why new replicas are held>` when fill did not run. */
export function msgHeld(placed: number, desired: number, why: string): string {
  return `${placed} of ${desired} replicas scheduled; ${why}`;
}

/** `; <n> replica(s) of the previous spec keep running until replaced`, appended to ReplicasScheduled during a rollout. */
export function msgKeptPrevious(n: number): string {
  return `; ${plural(n, 'replica')} of the previous spec keep running until replaced`;
}

/** `<a> of <d> replicas at the current spec; <n> of the previous spec retire as replacements become Ready (maxSurge s, maxUnavailable u)`. */
export function msgRolling(atSpec: number, d: Pick<DeploymentSpec, 'replicas' | 'rollout'>, retiring: number): string {
  return `${atSpec} of ${d.replicas} replicas at the current spec; ${retiring} of the previous spec retire as replacements become Ready (maxSurge ${d.rollout.maxSurge}, maxUnavailable ${d.rollout.maxUnavailable})`;
}

/**
 * `replica <name> on cluster <c> is over capacity in pool <p> (older replicas
 * hold its devices, so its pods are Pending): it is replaced where there is
 * room` (scheduling.ts phase 2b), a note in ReplicasScheduled.
 */
export function msgOverCapacity(name: string, cluster: string, pool: string): string {
  return `replica ${name} on cluster ${cluster} is over capacity in pool ${pool} (older replicas hold its devices, so its pods are Pending): it is replaced where there is room`;
}

/** `<a> of <d> replicas placed where they fit; <n> over capacity go as their replacements become Ready`. */
export function msgReplacingOverCapacity(atSpec: number, desired: number, n: number): string {
  return `${atSpec} of ${desired} replicas placed where they fit; ${n} over capacity go as their replacements become Ready`;
}

/** `<a> of <d> replicas placed on clusters that serve; <n> on Unavailable or drained clusters go as their replacements become Ready` (docs/failover.md). */
export function msgFailingOver(atSpec: number, desired: number, n: number): string {
  return `${atSpec} of ${desired} replicas placed on clusters that serve; ${n} on Unavailable or drained clusters go as their replacements become Ready`;
}

/** `<a> of <d> replicas placed; <n> moved by placement policy go as their replacements become Ready` (docs/placement-policy.md). */
export function msgPolicyMoving(atSpec: number, desired: number, n: number): string {
  return `${atSpec} of ${desired} replicas placed; ${n} moved by placement policy (drain-back or minOnDemand) go as their replacements become Ready`;
}

/** MSG when nothing is in motion. */
export const MSG_UP_TO_DATE = 'Every replica runs the current spec';

/**
 * Progressing (docs/design.md#make-before-break): False/FailoverBlocked when replicas on an
 * Unavailable or drained cluster must be re-placed and fit nowhere (they
 * stay; docs/failover.md); False/RolloutBlocked when replicas of the previous
 * spec (or over capacity) must be replaced and the current spec fits nowhere
 * (they keep running; the message says why per cluster); True/RollingUpdate
 * while replicas of the previous spec are being replaced; True/OverCapacity
 * while only replicas over capacity are; True/Failover while replicas are
 * re-placed from Unavailable or drained clusters; True/PolicyMove while
 * placement policy moves replicas (drain-back, minOnDemand;
 * docs/placement-policy.md), False/PolicyMoveBlocked when their
 * replacements fit nowhere; True/ReplicasUpToDate otherwise.
 */
export function progressingCondition(
  rollout: RolloutState,
  atSpec: number,
  d: Pick<DeploymentSpec, 'replicas' | 'rollout'>,
  clusterCount: number,
  refusals: ReadonlyMap<string, Reason>,
): Condition {
  const previous = rollout.retiring - rollout.overCapacity - rollout.failover - rollout.policy;
  if (rollout.blocked && rollout.failover > 0) {
    // docs/failover.md: no replacement fits, so the replicas on the lost clusters stay where they are.
    const why = msgUnscheduled(atSpec, d.replicas, clusterCount, refusals);
    return condition(TYPE_PROGRESSING, false, REASON.FailoverBlocked, `Failover held: keeping ${plural(rollout.failover, 'replica')} on Unavailable or drained clusters in place; ${why}`);
  }
  if (rollout.blocked && previous === 0 && rollout.overCapacity === 0 && rollout.policy > 0) {
    // Nowhere better has room after all: the replicas stay where they run.
    const why = msgUnscheduled(atSpec, d.replicas, clusterCount, refusals);
    return condition(TYPE_PROGRESSING, false, REASON.PolicyMoveBlocked, `Policy move held: keeping ${plural(rollout.policy, 'replica')} where they run; ${why}`);
  }
  if (rollout.blocked) {
    const why = msgUnscheduled(atSpec, d.replicas, clusterCount, refusals);
    const kept = previous > 0 ? `${plural(previous, 'replica')} of the previous spec running` : `${plural(rollout.overCapacity, 'replica')} over capacity in place`;
    return condition(TYPE_PROGRESSING, false, REASON.RolloutBlocked, `Rollout held: keeping ${kept}; ${why}`);
  }
  if (previous > 0) return condition(TYPE_PROGRESSING, true, REASON.RollingUpdate, msgRolling(atSpec, d, previous));
  if (rollout.failover > 0) return condition(TYPE_PROGRESSING, true, REASON.Failover, msgFailingOver(atSpec, d.replicas, rollout.failover));
  if (rollout.policy > 0) return condition(TYPE_PROGRESSING, true, REASON.PolicyMove, msgPolicyMoving(atSpec, d.replicas, rollout.policy));
  if (rollout.overCapacity > 0) return condition(TYPE_PROGRESSING, true, REASON.OverCapacity, msgReplacingOverCapacity(atSpec, d.replicas, rollout.overCapacity));
  return condition(TYPE_PROGRESSING, true, REASON.ReplicasUpToDate, MSG_UP_TO_DATE);
}

/**
 * The whole XR status: replica counts, `replicas.summary` = `<ready>/<desired>`
 * (the READY column of `kubectl get md`, as `kubectl get deployments` shows
 * it; `desired` defaults to the placed count when spec.replicas is unreadable),
 * and where each replica runs.
 */
export function deploymentStatus(
  placements: readonly { name: string; candidate: Candidate; ready: boolean }[],
  desired: number = placements.length,
  tierName: (tier: number | undefined) => string | undefined = () => undefined,
): JsonObject {
  const ready = placements.filter((p) => p.ready).length;
  return {
    replicas: { total: placements.length, ready, summary: `${ready}/${desired}` },
    placements: placements.map((p) => {
      const entry: JsonObject = {
        replica: p.name,
        cluster: p.candidate.cluster,
        index: p.candidate.index,
        ready: p.ready,
        role: p.candidate.role,
      };
      const tier = tierName(p.candidate.tier);
      if (tier !== undefined) entry['tier'] = tier;
      entry['engines'] = p.candidate.engines.map((e) => ({ name: e.name, pool: e.members[0]?.pool ?? '' }));
      return entry;
    }),
  };
}

/** Most notes (held resources) listed in one condition message. */
export const MAX_NOTES = 3;

/** `; <note>; <note>; <note>; and N more`, or "" with no notes: what is held, appended to a condition message. */
export function msgNotes(notes: readonly string[]): string {
  if (notes.length === 0) return '';
  const shown = notes.slice(0, MAX_NOTES);
  if (notes.length > MAX_NOTES) shown.push(`and ${notes.length - MAX_NOTES} more`);
  return `; ${shown.join('; ')}`;
}

/** ReplicasReady from R ready of N placed (docs/kinds/modeldeployment.md#conditions), with what is held ({@link msgNotes}) appended. */
export function readyCondition(ready: number, total: number, notes: readonly string[] = []): Condition {
  if (total === 0) return condition(TYPE_READY, false, REASON.NoReplicasScheduled);
  const message = `${ready} of ${total} ready${msgNotes(notes)}`;
  if (ready === total) return condition(TYPE_READY, true, REASON.AllReplicasReady, message);
  return condition(TYPE_READY, false, REASON.ModelStarting, message);
}
