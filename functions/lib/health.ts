/**
 * Cluster health with hysteresis (docs/failover.md): what an InferenceCluster
 * publishes in `status.health`, and how the fleet scheduler reads it.
 *
 * An InferenceCluster's function observes a signal on every reconcile (its
 * reachability probe, its cloud cluster, its serving stack) and folds it
 * into the health it published last time, against a `now` the gRPC entry
 * passes in (lib/sdk.ts; `plan` and `render` use their fixed time), so the
 * core stays pure and is tested with a fixed clock:
 *
 * | state          | meaning                                                        | new replicas | replicas there |
 * |----------------|----------------------------------------------------------------|--------------|----------------|
 * | `Provisioning` | never Healthy yet                                              | when Ready   | —              |
 * | `Healthy`      | reachable, cluster and serving stack Ready                     | yes          | stay           |
 * | `Degraded`     | reachable, but the cluster or serving stack reports a problem  | when Ready   | stay           |
 * | `Unreachable`  | the control plane cannot see it, for less than `failover.after`| no           | stay, not counted Ready |
 * | `Unavailable`  | Unreachable for `failover.after`, until Healthy for `recoverAfter` | no       | re-placed, make before break |
 * | `Draining`     | `spec.drain: true` or a NoExecute taint                        | no           | re-placed, make before break |
 *
 * The two bounds are Kubernetes' node lifecycle rules in fleet form: a node
 * NotReady for `--node-monitor-grace-period` is tainted, and its pods are
 * evicted only after their `tolerationSeconds`; here a cluster Unreachable
 * for `failover.after` (default 5m) turns Unavailable, and one that comes
 * back must stay Healthy for `failover.recoverAfter` (default 2m) before it
 * takes replicas again, so a flapping cluster churns nothing.
 *
 * Guarantees: {@link nextHealth} is total and deterministic (no clock: `now`
 * is an input); `since` never moves while the state holds; the remaining
 * time to the next bound is returned so the function sets its response TTL
 * and Crossplane calls it again when the bound expires.
 */
import { getPath, type JsonObject, type KubeObject } from './function.js';

/** The health states, in the order {@link nextHealth} decides them. */
export const HEALTH_STATES = ['Provisioning', 'Healthy', 'Degraded', 'Unreachable', 'Unavailable', 'Draining'] as const;
/** One health state. */
export type HealthState = (typeof HEALTH_STATES)[number];

/** `status.health` of an InferenceCluster. `since` is RFC 3339 (UTC, whole seconds). */
export interface ClusterHealth {
  state: HealthState;
  since: string;
  /** PascalCase, e.g. `ProbeFailed`, `Recovering`. */
  reason: string;
  message: string;
}

/** What the cluster's function observes on one reconcile. `since`: RFC 3339, when the observation began (a condition's lastTransitionTime), if known. */
export type HealthSignal =
  | { kind: 'Healthy'; since?: string | undefined }
  | { kind: 'Degraded'; since?: string | undefined; reason: string; message: string }
  | { kind: 'Unreachable'; since?: string | undefined; reason: string; message: string };

/** The failover bounds, in seconds (`spec.failover`). */
export interface FailoverBounds {
  /** Unreachable this long turns Unavailable. @default 300 */
  afterSeconds: number;
  /** Unavailable turns available again after being Healthy this long. @default 120 */
  recoverAfterSeconds: number;
}

/** `spec.failover` defaults: `after: 5m`, `recoverAfter: 2m`. */
export const DEFAULT_BOUNDS: FailoverBounds = { afterSeconds: 300, recoverAfterSeconds: 120 };

/**
 * Seconds in a Go-style duration of hours, minutes and seconds (`5m`,
 * `1h30m`, `90s`; the XRD's pattern), or undefined when it is not one.
 */
export function parseDuration(s: unknown): number | undefined {
  if (typeof s !== 'string') return undefined;
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(s);
  if (m === null || s === '') return undefined;
  return Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
}

/** RFC 3339 in UTC without fractional seconds. */
export function formatTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Milliseconds of an RFC 3339 time, or undefined. */
export function parseTime(s: unknown): number | undefined {
  if (typeof s !== 'string' || s === '') return undefined;
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : t;
}

/** The outcome of {@link nextHealth}. */
export interface HealthOutcome {
  health: ClusterHealth;
  /** Seconds until a bound expires and the health may change with no other input; undefined when none is running. */
  recheckSeconds?: number;
}

/** Unreachable for less than `after`: `<why>; Unavailable at <t> (failover.after <d>)`. */
export function msgUnreachable(why: string, at: string, after: number): string {
  return `${why}; replicas here are not counted Ready, and are re-placed if it is still unreachable at ${at} (failover.after ${formatSeconds(after)})`;
}

/** Unavailable: `<why>; unreachable for failover.after <d>: replicas are re-placed`. */
export function msgUnavailable(why: string, after: number): string {
  return `${why}; unreachable for failover.after ${formatSeconds(after)}: replicas here are re-placed on other clusters, make before break`;
}

/** Recovering: `reachable again since <t>; takes replicas again at <t2> if it stays Healthy (failover.recoverAfter <d>)`. */
export function msgRecovering(since: string, at: string, recoverAfter: number): string {
  return `reachable and Healthy again since ${since}; takes new replicas at ${at} if it stays Healthy (failover.recoverAfter ${formatSeconds(recoverAfter)})`;
}

/** Not recovering while Degraded: `<why>; takes new replicas only after being Healthy for failover.recoverAfter <d>`. */
export function msgDegradedRecovery(why: string, recoverAfter: number): string {
  return `${why}; takes new replicas only after being Healthy for failover.recoverAfter ${formatSeconds(recoverAfter)}`;
}

/** `5m`, `1h30m`, `90s` → the shortest Go-style spelling. */
export function formatSeconds(s: number): string {
  if (s === 0) return '0s';
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${sec ? `${sec}s` : ''}`;
}

/**
 * The health to publish now, from the last published one (`previous`,
 * undefined before the first), this reconcile's `signal`, why the platform
 * drains the cluster (`drain`, undefined when it does not), the bounds and
 * `now` (ms since the epoch).
 *
 * Order of decision: Unreachable past `after` (or Unavailable and not yet
 * Healthy for `recoverAfter`) is Unavailable; then a drain is Draining; then
 * a cluster never Healthy is Provisioning; then the signal itself. A signal
 * without a `since` starts now, unless the state it continues already has one.
 */
export function nextHealth(previous: ClusterHealth | undefined, signal: HealthSignal, drain: string | undefined, bounds: FailoverBounds, now: number): HealthOutcome {
  const keep = (state: HealthState, fallback: number) => (previous?.state === state ? previous.since : formatTime(fallback));
  const startOf = (s: string | undefined) => parseTime(s) ?? now;
  const wasUnavailable = previous?.state === 'Unavailable';
  const everUp = previous !== undefined && previous.state !== 'Provisioning';

  if (signal.kind === 'Unreachable' && everUp) {
    // While Unreachable, `since` is when it became so; a signal without a time continues the state's.
    const since = parseTime(signal.since) ?? (previous.state === 'Unreachable' ? parseTime(previous.since) : undefined) ?? now;
    const unavailableAt = since + bounds.afterSeconds * 1000;
    if (wasUnavailable || now >= unavailableAt) {
      return { health: { state: 'Unavailable', since: keep('Unavailable', Math.min(now, unavailableAt)), reason: signal.reason, message: msgUnavailable(signal.message, bounds.afterSeconds) } };
    }
    if (drain === undefined) {
      const health: ClusterHealth = { state: 'Unreachable', since: formatTime(since), reason: signal.reason, message: msgUnreachable(signal.message, formatTime(unavailableAt), bounds.afterSeconds) };
      return { health, recheckSeconds: Math.ceil((unavailableAt - now) / 1000) };
    }
  }
  if (wasUnavailable && signal.kind !== 'Unreachable') {
    if (signal.kind === 'Degraded') {
      return { health: { ...previous, reason: signal.reason, message: msgDegradedRecovery(signal.message, bounds.recoverAfterSeconds) } };
    }
    // Healthy since the later of its own start and the unavailability: a stale time cannot shorten recovery.
    const healthySince = Math.max(startOf(signal.since), parseTime(previous.since) ?? now);
    const availableAt = healthySince + bounds.recoverAfterSeconds * 1000;
    if (now < availableAt) {
      const health: ClusterHealth = { ...previous, reason: 'Recovering', message: msgRecovering(formatTime(healthySince), formatTime(availableAt), bounds.recoverAfterSeconds) };
      return { health, recheckSeconds: Math.ceil((availableAt - now) / 1000) };
    }
    if (drain === undefined) return { health: { state: 'Healthy', since: formatTime(availableAt), reason: 'Recovered', message: 'reachable, cluster and serving stack Ready' } };
  }
  if (drain !== undefined) return { health: { state: 'Draining', since: keep('Draining', now), reason: 'Drain', message: `${drain}: replicas here are re-placed on other clusters, make before break; no new replica is placed here` } };
  if (!everUp && signal.kind !== 'Healthy') {
    return { health: { state: 'Provisioning', since: keep('Provisioning', now), reason: signal.reason, message: signal.message } };
  }
  if (signal.kind === 'Healthy') {
    return { health: { state: 'Healthy', since: keep('Healthy', startOf(signal.since)), reason: 'Healthy', message: 'reachable, cluster and serving stack Ready' } };
  }
  // Degraded (an Unreachable signal never reaches here: handled above or Provisioning).
  return { health: { state: 'Degraded', since: keep('Degraded', startOf(signal.since)), reason: signal.reason, message: signal.message } };
}

/**
 * The published `status.health` of an InferenceCluster object, or undefined
 * when it publishes none (or an unknown state): readers then fall back to
 * its Ready condition.
 */
export function readHealth(obj: KubeObject | undefined): ClusterHealth | undefined {
  const h = getPath(obj, 'status', 'health') as JsonObject | undefined;
  if (typeof h !== 'object' || h === null) return undefined;
  const state = h['state'];
  if (typeof state !== 'string' || !(HEALTH_STATES as readonly string[]).includes(state)) return undefined;
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  return { state: state as HealthState, since: str(h['since']), reason: str(h['reason']), message: str(h['message']) };
}

/** Whether the control plane can see a cluster in `state` (a replica there may be counted Ready). */
export function reachable(state: HealthState): boolean {
  return state !== 'Unreachable' && state !== 'Unavailable';
}
