/**
 * Replicas that follow load (docs/autoscaling.md): the KEDA ScaledObject a
 * ModelDeployment with `spec.autoscaling` composes, and what its status says.
 *
 * Guarantees:
 * - One writer of `spec.replicas`: the ScaledObject targets the
 *   ModelDeployment's own scale subresource (`scaleTargetRef` apiVersion,
 *   kind and name of the XR), so KEDA's HorizontalPodAutoscaler sets
 *   `spec.replicas` between `minReplicaCount` and `maxReplicaCount` and the
 *   fleet scheduler places whatever it asks, as for `kubectl scale`.
 * - Scale-up never waits (`scaleUp.stabilizationWindowSeconds: 0`, up to
 *   doubling every 15 s); scale-down waits for
 *   `scaleDownStabilizationSeconds` (default 300) and removes at most one
 *   replica a minute. With `minReplicas: 0` KEDA's own cooldown is the same
 *   window, so the last replica goes only after that long without demand.
 * - One trigger per metric target, each a `prometheus` trigger on the fleet
 *   view (`prometheusAddress`), filtered by the `deployment` label the
 *   replicas' PodMonitors add (docs/observability.md#metric-names), for every
 *   runtime the engines run. Per-replica targets are `AverageValue` (KEDA
 *   divides by the current replica count); utilisation and latency targets
 *   are the level times the replicas reporting it (same ask). With
 *   `minReplicas: 0` a `demand` trigger on the validator's last request at
 *   zero wakes the deployment (at zero replicas no engine reports anything);
 *   it asks for one replica at most, so past the first the engine metrics
 *   decide. And a `one-at-a-time` trigger (the replicas reporting, less one)
 *   keeps KEDA from taking several replicas to zero at once: KEDA's own
 *   scale-to-zero skips the HPA's one-a-minute policy, so it may only take
 *   the last replica.
 * - Deterministic: triggers in a fixed order, queries built from the spec.
 */
import { type JsonObject, type KubeObject, readCondition } from '../lib/function.js';
import { deploymentSelector, FLEET_PROMETHEUS_ADDRESS, METRIC_TARGETS, type MetricTarget, oneAtATimeQuery, targetQuery } from '../lib/fleet-queries.js';
import { type EngineRuntime, METRIC_LABEL } from '../lib/observability.js';
import { API_VERSION } from './children.js';
import { deploymentRuntimes } from './dashboard.js';
import { DEMAND_TIMESTAMP_SERIES } from './standby.js';
import type { DeploymentSpec } from './deployment.js';

/** KEDA's ScaledObject apiVersion (keda.sh/v1alpha1, KEDA 2.x). */
export const SCALED_OBJECT_API_VERSION = 'keda.sh/v1alpha1';
/** Desired-resource key of the ScaledObject. */
export const AUTOSCALER_KEY = 'autoscaler';
/** The fleet view's Prometheus, composed on the control plane by the InferenceGateway (docs/autoscaling.md#the-fleet-signal). */
export const DEFAULT_PROMETHEUS_ADDRESS = FLEET_PROMETHEUS_ADDRESS;
/** A request at zero replicas counts as demand this long after it arrived, seconds (docs/autoscaling.md#zero-and-back). */
export const DEMAND_WINDOW_SECONDS = 120;
/** KEDA polls the triggers this often, seconds. */
export const POLLING_INTERVAL_SECONDS = 15;

/** What drives `spec.replicas` of an autoscaled deployment: the InferenceGateway `default`'s `spec.autoscaling.autoscaler` (hpa.ts). */
export type Autoscaler = 'KEDA' | 'HPA';

/** `spec.autoscaling`, defaults applied. */
export interface AutoscalingSpec {
  minReplicas: number;
  maxReplicas: number;
  metrics: {
    inFlightPerReplica?: number;
    queueDepth?: number;
    kvCacheUtilizationPercent?: number;
    timeToFirstTokenMilliseconds?: number;
  };
  scaleDownStabilizationSeconds: number;
  prometheusAddress: string;
}

/** Message: `spec.autoscaling.metrics` sets no target (the XRD's minProperties, for input that skipped the API server). */
export const MSG_NO_METRIC = 'spec.autoscaling.metrics: set at least one target (inFlightPerReplica, queueDepth, kvCacheUtilizationPercent or timeToFirstTokenMilliseconds)';

/** Message: minReplicas above maxReplicas (the XRD's rule, for input that skipped the API server). */
export function msgMinAboveMax(min: number, max: number): string {
  return `spec.autoscaling.minReplicas (${min}) must not exceed spec.autoscaling.maxReplicas (${max})`;
}

/** Problems with an autoscaling spec the schema accepted, [] when none. */
export function autoscalingProblems(a: AutoscalingSpec): string[] {
  const out: string[] = [];
  if (a.minReplicas > a.maxReplicas) out.push(msgMinAboveMax(a.minReplicas, a.maxReplicas));
  if (Object.values(a.metrics).every((v) => v === undefined)) out.push(MSG_NO_METRIC);
  return out;
}

/** One KEDA prometheus trigger; `activationThreshold` when the trigger decides KEDA's Active (0 ↔ 1). */
function trigger(name: string, a: AutoscalingSpec, query: string, threshold: number, activationThreshold?: number): JsonObject {
  const metadata: JsonObject = { serverAddress: a.prometheusAddress, query, threshold: String(threshold) };
  if (activationThreshold !== undefined) metadata['activationThreshold'] = String(activationThreshold);
  return { type: 'prometheus', name, metricType: 'AverageValue', metadata };
}

/** Trigger name of each metric target. */
const TRIGGER_NAME: Readonly<Record<MetricTarget, string>> = {
  inFlightPerReplica: 'in-flight-per-replica',
  queueDepth: 'queue-depth',
  kvCacheUtilizationPercent: 'kv-cache-utilization',
  timeToFirstTokenMilliseconds: 'time-to-first-token-p90',
};

/** The runtimes a deployment's engines run (vLLM when none is recognisable): what its queries sum over. */
function runtimesOf(d: DeploymentSpec): EngineRuntime[] {
  const runtimes = deploymentRuntimes(d);
  return runtimes.length > 0 ? runtimes : ['vLLM'];
}

/** The triggers of a deployment's ScaledObject, in a fixed order (lib/fleet-queries.ts writes the queries). */
export function triggers(d: DeploymentSpec, a: AutoscalingSpec): JsonObject[] {
  const rts = runtimesOf(d);
  const sel = deploymentSelector(d);
  const out: JsonObject[] = [];
  // Every trigger is an AverageValue: the HPA behind a ScaledObject divides a Value metric among the pods its
  // selector finds on the control plane, and the replicas' pods run elsewhere (lib/fleet-queries.ts).
  for (const target of METRIC_TARGETS) {
    const value = a.metrics[target];
    if (value !== undefined) out.push(trigger(TRIGGER_NAME[target], a, targetQuery(target, rts, sel), value));
  }
  if (a.minReplicas === 0) {
    // KEDA takes a deployment whose triggers are all inactive for cooldownPeriod straight to zero, from any count:
    // this trigger stays active while more than one replica reports and asks for one fewer (never more than there
    // are), so the HPA's one-a-minute scale-down brings it to one before KEDA's cooldown can take the last.
    out.push(trigger('one-at-a-time', a, oneAtATimeQuery(rts, sel), 1, 0));
    // A request turned away at zero in the last DEMAND_WINDOW_SECONDS wakes the deployment (activation above 0) and
    // asks for one replica, never more (clamped to 1): past the first replica the engine metrics decide.
    // The validator's demand series is its own, labelled `namespace` and `deployment` (standby.ts).
    const recent = `time() - ${DEMAND_TIMESTAMP_SERIES}{namespace="${d.namespace}",${METRIC_LABEL.deployment}="${d.name}"} < ${DEMAND_WINDOW_SECONDS}`;
    out.push(trigger('demand', a, `clamp_max(count(${recent}) or vector(0), 1)`, 1, 0));
  }
  return out;
}

/**
 * How the HPA moves (KEDA's own HPA and ours alike): scale-up without a
 * window, up to doubling every poll; scale-down after
 * `scaleDownStabilizationSeconds`, one replica a minute.
 */
export function behavior(a: AutoscalingSpec): JsonObject {
  return {
    scaleUp: { stabilizationWindowSeconds: 0, policies: [{ type: 'Percent', value: 100, periodSeconds: POLLING_INTERVAL_SECONDS }] },
    scaleDown: { stabilizationWindowSeconds: a.scaleDownStabilizationSeconds, policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] },
  };
}

/** The KEDA ScaledObject of a deployment with `spec.autoscaling`. */
export function scaledObject(d: DeploymentSpec, a: AutoscalingSpec): KubeObject {
  return {
    apiVersion: SCALED_OBJECT_API_VERSION,
    kind: 'ScaledObject',
    metadata: { name: d.name, namespace: d.namespace },
    spec: {
      scaleTargetRef: { apiVersion: API_VERSION, kind: 'ModelDeployment', name: d.name },
      minReplicaCount: a.minReplicas,
      maxReplicaCount: a.maxReplicas,
      pollingInterval: POLLING_INTERVAL_SECONDS,
      cooldownPeriod: a.scaleDownStabilizationSeconds,
      advanced: { horizontalPodAutoscalerConfig: { behavior: behavior(a) } },
      triggers: triggers(d, a),
    },
  };
}

/** What `status.autoscaling` says, from the spec and the observed ScaledObject (KEDA's Ready and Active conditions). */
export function autoscalingStatus(d: DeploymentSpec, a: AutoscalingSpec, observed: KubeObject | undefined): JsonObject {
  // lib's readCondition: a status KEDA never wrote is absent; one that cannot be read counts as not True.
  const state = (type: string) => {
    const read = readCondition(observed, type);
    return read.state === 'absent' ? undefined : read.state;
  };
  const bounds = `${a.minReplicas}..${a.maxReplicas}`;
  const out: JsonObject = { minReplicas: a.minReplicas, maxReplicas: a.maxReplicas, scaledObject: d.name };
  let word: string;
  if (observed === undefined || state('Ready') === undefined) word = 'WaitingForKEDA';
  else if (state('Ready') !== 'True') word = 'NotReady';
  else if (state('Active') === 'True') word = 'Active';
  else word = d.replicas === 0 ? 'ScaledToZero' : 'Idle';
  if (state('Active') !== undefined) out['active'] = state('Active') === 'True';
  out['summary'] = `${bounds} ${word}`;
  return out;
}

/**
 * A Warning when spec.replicas is outside the bounds (someone scaled by hand):
 * reported, not fought over. Zero under the HPA is hpa.ts's msgHpaAtZero.
 */
export function msgOutsideBounds(replicas: number, a: AutoscalingSpec, scaler: Autoscaler = 'KEDA'): string | undefined {
  if (replicas >= a.minReplicas && replicas <= a.maxReplicas) return undefined;
  const who = scaler === 'HPA' ? 'the HorizontalPodAutoscaler sets it back at its next sync' : 'the ScaledObject sets it back at its next poll';
  return `spec.replicas is ${replicas}, outside spec.autoscaling ${a.minReplicas}..${a.maxReplicas}: ${who}; change spec.autoscaling, or remove it to scale by hand`;
}

/**
 * The Normal event of a scale step: spec.replicas differs from the replicas
 * placed at the last reconcile (`status.replicas.total`), e.g. after KEDA
 * wrote the scale subresource; undefined when they agree or nothing was placed yet.
 */
export function msgScaling(placedBefore: number | undefined, replicas: number, d: DeploymentSpec, a: AutoscalingSpec, scaler: Autoscaler = 'KEDA'): string | undefined {
  if (placedBefore === undefined || placedBefore === replicas) return undefined;
  const by = scaler === 'HPA' ? `HorizontalPodAutoscaler ${d.name}` : `ScaledObject ${d.name}`;
  return `Scaling from ${placedBefore} to ${replicas} replicas (spec.replicas; autoscaling ${a.minReplicas}..${a.maxReplicas}, ${by})`;
}
