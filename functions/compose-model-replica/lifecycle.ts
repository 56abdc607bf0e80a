/**
 * The engine lifecycle every composed engine pod gets
 * (docs/design.md#production-runtime): a startup
 * budget from `serving.startupTimeout`, liveness after startup, and a drain
 * from `serving.drainSeconds`.
 *
 * Guarantees:
 * - Every container with a health endpoint (native engines, gang leaders, the
 *   prefill/decode sidecar) gets, on `/health` of its own port:
 *   `startupProbe` {periodSeconds 10, timeoutSeconds 5, failureThreshold
 *   ceil(startupTimeout / 10 s)}, so period × failureThreshold ≥ the timeout
 *   (30m → 180); `livenessProbe` {periodSeconds 10, timeoutSeconds 5,
 *   failureThreshold 3}, which the kubelet runs only after the startup probe
 *   succeeded (Kubernetes: "all other probes are disabled until it
 *   succeeds"), so a loading engine is never killed for being slow and a hung
 *   one is restarted after 30 s; and the readiness probe of
 *   docs/kinds/modelreplica.md#native-backend.
 * - Gang workers expose no health endpoint (only the leader serves,
 *   docs/kinds/modelreplica.md#the-llm-d-backend):
 *   they get no probes; LeaderWorkerSet's default `RecreateGroupOnPodRestart`
 *   restarts the whole group when its leader is restarted, so a hung worker
 *   (which hangs the leader) is restarted with it.
 * - Every engine pod (all templates) gets `terminationGracePeriodSeconds` =
 *   drainSeconds, and every serving container a `preStop` sleep of
 *   min(10, drainSeconds) seconds (none when drainSeconds is 0): the pod
 *   leaves the InferencePool's endpoints when it starts terminating, the wait
 *   lets the gateway and the endpoint picker stop routing to it, and the
 *   engine then has the rest of the grace period after SIGTERM.
 *   `preStop.sleep` is the kubelet's own sleep action (no `sleep` binary needed
 *   in the image; Kubernetes ≥ 1.30).
 */
import type { JsonObject } from '../lib/function.js';
import type { Replica } from './types.js';

/** `serving.startupTimeout` when omitted. */
export const DEFAULT_STARTUP_TIMEOUT = '30m';
/** `serving.drainSeconds` when omitted. */
export const DEFAULT_DRAIN_SECONDS = 60;
/** periodSeconds of the startup and liveness probes. */
export const PROBE_PERIOD_SECONDS = 10;
/** The longest preStop wait, seconds. */
export const MAX_PRESTOP_SECONDS = 10;
/** The health endpoint of every engine and of the pd-sidecar. */
export const HEALTH_PATH = '/health';

/** The lifecycle settings of one replica, defaults applied. */
export interface Lifecycle {
  /** serving.startupTimeout in seconds. */
  startupSeconds: number;
  /** serving.drainSeconds. */
  drainSeconds: number;
}

/** Error text of a startupTimeout that is not an `XhYmZs` duration of at least one second. */
export const errStartupTimeout = (value: string): string =>
  `spec.serving.startupTimeout: "${value}" is not a positive duration of hours, minutes and seconds; write it like 45m or 1h30m`;

/**
 * Seconds of a duration written as `[<n>h][<n>m][<n>s]` (the XRD's pattern,
 * a subset of Go's time.ParseDuration), or undefined when it is not one or is 0.
 */
export function durationSeconds(text: string): number | undefined {
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text);
  if (!m || text === '') return undefined;
  const seconds = Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
  return seconds > 0 && Number.isSafeInteger(seconds) ? seconds : undefined;
}

/** Reads the replica's lifecycle, or the error naming `spec.serving.startupTimeout`. */
export function readLifecycle(replica: Replica): Lifecycle | { error: string } {
  const timeout = replica.spec.serving?.startupTimeout ?? DEFAULT_STARTUP_TIMEOUT;
  const startupSeconds = durationSeconds(timeout);
  if (startupSeconds === undefined) return { error: errStartupTimeout(timeout) };
  return { startupSeconds, drainSeconds: replica.spec.serving?.drainSeconds ?? DEFAULT_DRAIN_SECONDS };
}

function httpHealth(port: number): JsonObject {
  return { httpGet: { path: HEALTH_PATH, port } };
}

/** The startup probe: /health on `port` every 10 s, failing after the whole budget. */
export function startupProbe(port: number, lc: Lifecycle): JsonObject {
  return {
    ...httpHealth(port),
    periodSeconds: PROBE_PERIOD_SECONDS,
    timeoutSeconds: 5,
    failureThreshold: Math.max(1, Math.ceil(lc.startupSeconds / PROBE_PERIOD_SECONDS)),
  };
}

/** The liveness probe: /health on `port` every 10 s, restarting after 3 failures. */
export function livenessProbe(port: number): JsonObject {
  return { ...httpHealth(port), periodSeconds: PROBE_PERIOD_SECONDS, timeoutSeconds: 5, failureThreshold: 3 };
}

/** The preStop wait of a serving container, or undefined when drainSeconds is 0. */
export function preStop(lc: Lifecycle): JsonObject | undefined {
  const seconds = Math.min(MAX_PRESTOP_SECONDS, lc.drainSeconds);
  return seconds > 0 ? { preStop: { sleep: { seconds } } } : undefined;
}

/**
 * Adds the startup and liveness probes on `port` (and the preStop wait) to a
 * container in place, keeping its key order: they follow `readinessProbe`.
 */
export function withHealth(container: JsonObject, port: number, lc: Lifecycle): void {
  container['startupProbe'] = startupProbe(port, lc);
  container['livenessProbe'] = livenessProbe(port);
  const lifecycle = preStop(lc);
  if (lifecycle) container['lifecycle'] = lifecycle;
}

/** Sets `terminationGracePeriodSeconds` on a pod spec in place. */
export function withDrain(podSpec: JsonObject, lc: Lifecycle): void {
  podSpec['terminationGracePeriodSeconds'] = lc.drainSeconds;
}

/** Pod label LeaderWorkerSet puts on every pod of a set (LWS v0.8.0 `leaderworkerset.sigs.k8s.io/name`). */
export const LWS_NAME_LABEL = 'leaderworkerset.sigs.k8s.io/name';

/**
 * The PodDisruptionBudget of one engine workload (policy/v1), named after it:
 * - Deployment: selects its pods (`modelplane.ai/workload`), minAvailable
 *   max(1, copies − 1): a voluntary eviction (node drain) takes at most one
 *   pod at a time and never the replica's last one; the drain waits and
 *   reports the budget instead.
 * - LeaderWorkerSet: selects every pod of the set (`leaderworkerset.sigs.k8s.io/name`),
 *   minAvailable size × max(1, copies − 1): with one group, no pod of the gang
 *   can be evicted (losing any pod restarts the whole group); with more, at
 *   most one group's worth of pods at a time.
 * Source: Kubernetes "Specifying a Disruption Budget for your Application".
 */
export function disruptionBudget(workload: { kind: string; name: string; copies: number; size?: number | undefined }): JsonObject {
  const keep = Math.max(1, workload.copies - 1);
  const lws = workload.kind === 'LeaderWorkerSet';
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: workload.name, namespace: 'default' },
    spec: {
      minAvailable: lws ? keep * (workload.size ?? 1) : keep,
      selector: { matchLabels: lws ? { [LWS_NAME_LABEL]: workload.name } : { 'modelplane.ai/workload': workload.name } },
    },
  };
}
