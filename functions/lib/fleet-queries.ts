/**
 * The PromQL autoscaling reads from the fleet view (docs/autoscaling.md#scaling-up-and-down),
 * written once for both autoscalers: the ModelDeployment's KEDA triggers
 * (its own {@link deploymentSelector} and the runtimes its engines run)
 * and the prometheus-adapter external rules the InferenceGateway composes
 * for the HPA autoscaler (the adapter's `<<.LabelMatchers>>` as the selector,
 * every runtime, since one rule serves every deployment).
 *
 * Guarantees:
 * - Every sum is `(sum(…) or vector(0))`: a runtime that reports nothing
 *   counts 0 instead of emptying the whole expression.
 * - Levels (KV-cache use, time to first token) are multiplied by the
 *   replicas reporting them (`count(count by (replica) (…))`), so an
 *   `AverageValue` target asks for ceil(replicas × level / target), what a
 *   `Value` target on the replicas' pods would (they run on other clusters,
 *   so the control plane's HPA finds none to divide by).
 * - Pure and deterministic: the same runtimes (in the order given) and
 *   selector give the same strings.
 */
import { type EngineRuntime, METRIC_LABEL, RUNTIME_METRICS, type RuntimeMetrics } from './observability.js';

/**
 * The fleet view's in-cluster Service on the control plane: the InferenceGateway's
 * kube-prometheus-stack named `fleet`, what KEDA's triggers (by default) and
 * prometheus-adapter query.
 */
export const FLEET_PROMETHEUS = { url: 'http://fleet-prometheus.modelplane-system.svc', port: 9090 } as const;
/** {@link FLEET_PROMETHEUS} as one address, the default `spec.autoscaling.prometheusAddress`. */
export const FLEET_PROMETHEUS_ADDRESS = `${FLEET_PROMETHEUS.url}:${FLEET_PROMETHEUS.port}`;

/** The metric targets of `spec.autoscaling.metrics`, in the order triggers and HPA metrics are written. */
export const METRIC_TARGETS = ['inFlightPerReplica', 'queueDepth', 'kvCacheUtilizationPercent', 'timeToFirstTokenMilliseconds'] as const;
/** One metric target of `spec.autoscaling.metrics`. */
export type MetricTarget = (typeof METRIC_TARGETS)[number];

/**
 * The external metric each target is served as by prometheus-adapter, for
 * the HPA autoscaler (the HPA's `spec.metrics[].external.metric.name`).
 */
export const EXTERNAL_METRIC: Readonly<Record<MetricTarget, string>> = {
  inFlightPerReplica: 'modelplane_in_flight',
  queueDepth: 'modelplane_queue_depth',
  kvCacheUtilizationPercent: 'modelplane_kv_cache_utilization_percent',
  timeToFirstTokenMilliseconds: 'modelplane_time_to_first_token_p90_milliseconds',
};

/**
 * The label matchers of one ModelDeployment's engine series:
 * `deployment="<name>",deployment_namespace="<namespace>"` (the PodMonitor's
 * target labels, lib/observability.ts METRIC_LABEL).
 */
export function deploymentSelector(d: { name: string; namespace: string }): string {
  return `${METRIC_LABEL.deployment}="${d.name}",${METRIC_LABEL.deploymentNamespace}="${d.namespace}"`;
}

/** The same selector as the HPA's `matchLabels` (prometheus-adapter turns it into `<<.LabelMatchers>>`). */
export function deploymentMatchLabels(d: { name: string; namespace: string }): Record<string, string> {
  return { [METRIC_LABEL.deployment]: d.name, [METRIC_LABEL.deploymentNamespace]: d.namespace };
}

/** `(sum(<metric>{sel}) or vector(0))` over every runtime, joined by `+`. */
function sumOver(runtimes: readonly EngineRuntime[], metric: (m: RuntimeMetrics) => string, sel: string): string {
  return runtimes.map((r) => `(sum(${metric(RUNTIME_METRICS[r])}{${sel}}) or vector(0))`).join(' + ');
}

/** The union (`or`) of one series per runtime: runtimes run on different pods, so their series never collide. */
function union(runtimes: readonly EngineRuntime[], series: (m: RuntimeMetrics) => string): string {
  return runtimes.map((r) => series(RUNTIME_METRICS[r])).join(' or ');
}

/** The replicas reporting `series`: `count(count by (replica) (series))`. */
function reporting(series: string): string {
  return `count(count by (${METRIC_LABEL.replica}) (${series}))`;
}

/**
 * The query of one target, over `runtimes` with label matchers `sel`
 * (e.g. `deployment="qwen",deployment_namespace="default"`, or the
 * adapter's `<<.LabelMatchers>>`):
 * - inFlightPerReplica: running plus waiting requests;
 * - queueDepth: waiting requests;
 * - kvCacheUtilizationPercent: 100 × average KV-cache use × replicas reporting;
 * - timeToFirstTokenMilliseconds: p90 time to first token over 2 minutes,
 *   in milliseconds, × replicas reporting.
 */
export function targetQuery(target: MetricTarget, runtimes: readonly EngineRuntime[], sel: string): string {
  switch (target) {
    case 'inFlightPerReplica':
      return `${sumOver(runtimes, (m) => m.running, sel)} + ${sumOver(runtimes, (m) => m.waiting, sel)}`;
    case 'queueDepth':
      return sumOver(runtimes, (m) => m.waiting, sel);
    case 'kvCacheUtilizationPercent': {
      const kv = union(runtimes, (m) => `${m.kvCache}{${sel}}`);
      return `100 * avg(${kv}) * ${reporting(kv)}`;
    }
    case 'timeToFirstTokenMilliseconds': {
      const buckets = union(runtimes, (m) => `rate(${m.ttftBucket}{${sel}}[2m])`);
      return `1000 * histogram_quantile(0.9, sum by (le) (${buckets})) * ${reporting(buckets)}`;
    }
  }
}

/**
 * The replicas reporting running requests, less one, never below 0: what
 * the `one-at-a-time` KEDA trigger asks for (docs/autoscaling.md#scaling-up-and-down).
 */
export function oneAtATimeQuery(runtimes: readonly EngineRuntime[], sel: string): string {
  return `clamp_min((${reporting(union(runtimes, (m) => `${m.running}{${sel}}`))} or vector(0)) - 1, 0)`;
}

/** The series a target's query reads, per runtime (what a prometheus-adapter rule discovers). */
export function targetSeries(target: MetricTarget, runtimes: readonly EngineRuntime[]): string[] {
  const pick = (m: RuntimeMetrics): string[] => {
    switch (target) {
      case 'inFlightPerReplica':
        return [m.running, m.waiting];
      case 'queueDepth':
        return [m.waiting];
      case 'kvCacheUtilizationPercent':
        return [m.kvCache];
      case 'timeToFirstTokenMilliseconds':
        return [m.ttftBucket];
    }
  };
  return runtimes.flatMap((r) => pick(RUNTIME_METRICS[r]));
}
