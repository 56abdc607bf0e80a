/**
 * The HPA autoscaler (docs/autoscaling.md#keda-or-hpa): where KEDA is absent
 * and the InferenceGateway `default` says `spec.autoscaling.autoscaler: HPA`,
 * a ModelDeployment with `spec.autoscaling` composes a Kubernetes
 * `autoscaling/v2` HorizontalPodAutoscaler instead of a KEDA ScaledObject.
 *
 * Guarantees:
 * - One writer of `spec.replicas`, as with KEDA: the HPA's `scaleTargetRef`
 *   is the ModelDeployment's own scale subresource.
 * - One `External` metric per target, served by the prometheus-adapter the
 *   gateway composes (its external rules run the same queries as KEDA's
 *   triggers, lib/fleet-queries.ts), selected by `deployment: <name>` and
 *   `deployment_namespace: <namespace>`, each
 *   an `AverageValue` target: the HPA asks for ceil(value / target).
 * - The same behaviour as KEDA's HPA: scale-up without a window, scale-down
 *   after `scaleDownStabilizationSeconds`, one replica a minute.
 * - No scale to zero: Kubernetes' HPA needs `minReplicas` >= 1 (scale to
 *   zero is behind the alpha `HPAScaleToZero` gate), so `minReplicas: 0` is
 *   held at 1 ({@link effectiveSpec}) and said in a Warning
 *   ({@link msgNoZeroWithHpa}); no standby endpoint is composed.
 * - `status.autoscaling` names the HPA and reads its conditions
 *   (`AbleToScale`, `ScalingActive`): `WaitingForHPA` before it reports,
 *   `NotReady` while either is not True, else `Ready`.
 */
import { type JsonObject, type KubeObject, readCondition } from '../lib/function.js';
import { deploymentMatchLabels, EXTERNAL_METRIC, METRIC_TARGETS } from '../lib/fleet-queries.js';
import { type Autoscaler, type AutoscalingSpec, behavior, DEFAULT_PROMETHEUS_ADDRESS } from './autoscaling.js';
import { API_VERSION } from './children.js';
import type { DeploymentSpec } from './deployment.js';

/** Desired-resource key of the HorizontalPodAutoscaler (the ScaledObject's is `autoscaler`: a switch deletes the other). */
export const HPA_KEY = 'autoscaler-hpa';

/** The spec the autoscaler runs: with the HPA, `minReplicas` at least 1. */
export function effectiveSpec(a: AutoscalingSpec, scaler: Autoscaler): AutoscalingSpec {
  return scaler === 'HPA' && a.minReplicas < 1 ? { ...a, minReplicas: 1 } : a;
}

/** Warning: `minReplicas: 0` under the HPA autoscaler. */
export function msgNoZeroWithHpa(d: Pick<DeploymentSpec, 'name'>): string {
  return `spec.autoscaling.minReplicas is 0, but the InferenceGateway default autoscales with HPA (spec.autoscaling.autoscaler), which cannot scale to zero: ${d.name} keeps at least 1 replica; set the gateway's autoscaler to KEDA, or minReplicas to 1`;
}

/**
 * Warning, and the Ready condition's message: spec.replicas is 0 under the
 * HPA autoscaler. Kubernetes' HPA leaves a target at zero replicas alone
 * (`ScalingActive` False, `ScalingDisabled`), so nothing brings this
 * deployment back: it is not Ready until someone scales it.
 */
export function msgHpaAtZero(d: Pick<DeploymentSpec, 'name' | 'namespace'>, a: AutoscalingSpec): string {
  return `spec.replicas is 0 and the HorizontalPodAutoscaler does not scale from zero, so no replica will start: kubectl scale modeldeployment/${d.name} -n ${d.namespace} --replicas ${a.minReplicas} (spec.autoscaling under HPA is ${a.minReplicas}..${a.maxReplicas}), or set the InferenceGateway's autoscaler to KEDA`;
}

/** `prometheusAddress` without a trailing slash: the same Prometheus either way. */
const sameAddress = (x: string, y: string): boolean => x.replace(/\/+$/, '') === y.replace(/\/+$/, '');

/** Warning: a `prometheusAddress` of its own under the HPA autoscaler, which reads the fleet view only. */
export function msgAddressUnused(address: string): string {
  return `spec.autoscaling.prometheusAddress ${address} is read by KEDA only: with the HPA autoscaler the InferenceGateway's prometheus-adapter queries the fleet view (${DEFAULT_PROMETHEUS_ADDRESS})`;
}

/** The Warnings an autoscaling spec gets under the HPA autoscaler, [] when none. */
export function hpaWarnings(d: DeploymentSpec, a: AutoscalingSpec): string[] {
  const out: string[] = [];
  if (a.minReplicas === 0) out.push(msgNoZeroWithHpa(d));
  if (!sameAddress(a.prometheusAddress, DEFAULT_PROMETHEUS_ADDRESS)) out.push(msgAddressUnused(a.prometheusAddress));
  return out;
}

/** The HorizontalPodAutoscaler of a deployment with `spec.autoscaling` (`a` already {@link effectiveSpec}). */
export function horizontalPodAutoscaler(d: DeploymentSpec, a: AutoscalingSpec): KubeObject {
  const metrics: JsonObject[] = [];
  for (const target of METRIC_TARGETS) {
    const value = a.metrics[target];
    if (value === undefined) continue;
    metrics.push({
      type: 'External',
      external: {
        metric: { name: EXTERNAL_METRIC[target], selector: { matchLabels: deploymentMatchLabels(d) } },
        target: { type: 'AverageValue', averageValue: String(value) },
      },
    });
  }
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: d.name, namespace: d.namespace },
    spec: {
      scaleTargetRef: { apiVersion: API_VERSION, kind: 'ModelDeployment', name: d.name },
      minReplicas: a.minReplicas,
      maxReplicas: a.maxReplicas,
      metrics,
      behavior: behavior(a),
    },
  };
}

/** What `status.autoscaling` says under the HPA, from the spec and the observed HPA's conditions. */
export function hpaStatus(d: DeploymentSpec, a: AutoscalingSpec, observed: KubeObject | undefined): JsonObject {
  const state = (type: string) => readCondition(observed, type).state;
  let word: string;
  if (observed === undefined || (state('AbleToScale') === 'absent' && state('ScalingActive') === 'absent')) word = 'WaitingForHPA';
  else if (state('AbleToScale') !== 'True' || state('ScalingActive') !== 'True') word = 'NotReady';
  else word = 'Ready';
  return { minReplicas: a.minReplicas, maxReplicas: a.maxReplicas, horizontalPodAutoscaler: d.name, summary: `${a.minReplicas}..${a.maxReplicas} ${word}` };
}
