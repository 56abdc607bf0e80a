/**
 * Metrics and traces of a replica's engines (docs/observability.md): the
 * prometheus-operator PodMonitor `<replica>-metrics` that scrapes them, the
 * flag SGLang needs to serve metrics, and the OTLP trace endpoint of the
 * replica's cluster.
 *
 * Guarantees:
 * - One `podMetricsEndpoints` entry per engine, in spec order: path
 *   `/metrics` on the port of the serving pod's `engine` container (8000, or
 *   the decode engine's own `--port` in PrefillDecode serving: the pd-sidecar
 *   on 8000 is a reverse proxy with no metrics of its own), kept to that
 *   engine's pods (`modelplane.ai/workload` on Deployment pods,
 *   `leaderworkerset.sigs.k8s.io/name` on LeaderWorkerSet pods) and its
 *   `engine` container, then labelled `deployment` (when the replica carries
 *   `modelplane.ai/deployment`), `replica`, `cluster` and `engine`.
 * - The PodMonitor selects the replica's serving pods (`modelplane.ai/serving`).
 * - Flags are added only to a serving container that launches the engine
 *   itself (no `command`, or a command that runs `vllm` or
 *   `sglang.launch_server`; a shell wrapper is left alone), never twice:
 *   SGLang gets `--enable-metrics`; with an OTLP endpoint, vLLM gets
 *   `--otlp-traces-endpoint <url>` and SGLang `--enable-trace
 *   --otlp-traces-endpoint <url>`. The env `OTEL_EXPORTER_OTLP_ENDPOINT` and
 *   `OTEL_SERVICE_NAME` (the deployment, else the replica) is added unless the
 *   user set it.
 */
import type { JsonObject, KubeObject } from '../lib/function.js';
import { engineRuntime, METRIC_LABEL } from '../lib/observability.js';
import type { Workload } from './native.js';
import { LWS_NAME_LABEL } from './lws.js';
import { ENGINE_PORT, REMOTE_NAMESPACE, type Replica, SERVING_LABEL, WORKLOAD_LABEL } from './types.js';

/** prometheus-operator's API (v0.82.2, the one kube-prometheus-stack 72.6.2 installs). */
export const MONITORING_API_VERSION = 'monitoring.coreos.com/v1';
/** Path both engines serve Prometheus metrics on. */
export const METRICS_PATH = '/metrics';

/** Name of the replica's PodMonitor. */
export function podMonitorName(replica: string): string {
  return `${replica}-metrics`;
}

/** Prometheus' pod SD meta label of a pod label (non-alphanumerics become `_`). */
function podLabelMeta(label: string): string {
  return `__meta_kubernetes_pod_label_${label.replace(/[^a-zA-Z0-9_]/g, '_')}`;
}

function engineContainerOf(w: Workload): JsonObject {
  return (w.servingPod.spec['containers'] as JsonObject[])[0]!;
}

function portOf(w: Workload): number {
  const ports = engineContainerOf(w)['ports'] as { containerPort: number }[] | undefined;
  return ports?.[0]?.containerPort ?? ENGINE_PORT;
}

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The PodMonitor scraping every engine of the replica. */
export function podMonitor(replica: Replica, workloads: readonly Workload[]): KubeObject {
  const statics: [string, string][] = [];
  if (replica.deployment !== undefined) statics.push([METRIC_LABEL.deployment, replica.deployment], [METRIC_LABEL.deploymentNamespace, replica.namespace]);
  statics.push([METRIC_LABEL.replica, replica.name], [METRIC_LABEL.cluster, replica.spec.clusterName]);
  const endpoints = workloads.map((w) => {
    const name = w.manifest.metadata?.name ?? '';
    const podLabel = w.manifest.kind === 'LeaderWorkerSet' ? LWS_NAME_LABEL : WORKLOAD_LABEL;
    return {
      portNumber: portOf(w),
      path: METRICS_PATH,
      relabelings: [
        { action: 'keep', sourceLabels: [podLabelMeta(podLabel)], regex: escapeRegex(name) },
        { action: 'keep', sourceLabels: ['__meta_kubernetes_pod_container_name'], regex: 'engine' },
        ...[...statics, [METRIC_LABEL.engine, w.engine.name] as [string, string]].map(([label, value]) => ({
          action: 'replace',
          targetLabel: label,
          replacement: value,
        })),
      ],
    };
  });
  return {
    apiVersion: MONITORING_API_VERSION,
    kind: 'PodMonitor',
    metadata: { name: podMonitorName(replica.name), namespace: REMOTE_NAMESPACE },
    spec: {
      selector: { matchLabels: { [SERVING_LABEL]: replica.name } },
      podMetricsEndpoints: endpoints,
    },
  };
}

/** True when the container's own command starts the engine, so flags reach it. */
function launchesEngine(c: JsonObject): boolean {
  const command = c['command'] as string[] | undefined;
  if (command === undefined) return true;
  return command.some((w) => /(^|\/)vllm$/.test(w) || w.includes('vllm.entrypoints') || w.includes('sglang.launch_server'));
}

function hasFlag(args: readonly string[], flag: string): boolean {
  return args.some((a) => a === flag || a.startsWith(`${flag}=`));
}

/**
 * Adds the metrics flag and, with `otlpEndpoint`, the trace flags and OTEL
 * env to each workload's serving engine container, in place (they are this
 * call's fresh objects).
 */
export function applyObservability(replica: Replica, workloads: readonly Workload[], otlpEndpoint: string | undefined): void {
  for (const w of workloads) {
    const c = engineContainerOf(w);
    const runtime = engineRuntime({ image: c['image'] as string, command: c['command'] as string[] | undefined });
    if (launchesEngine(c)) {
      const args = [...((c['args'] as string[] | undefined) ?? [])];
      if (runtime === 'SGLang' && !hasFlag(args, '--enable-metrics')) args.push('--enable-metrics');
      if (otlpEndpoint !== undefined && !hasFlag(args, '--otlp-traces-endpoint')) {
        if (runtime === 'SGLang' && !hasFlag(args, '--enable-trace')) args.push('--enable-trace');
        args.push('--otlp-traces-endpoint', otlpEndpoint);
      }
      if (args.length > 0) c['args'] = args;
    }
    if (otlpEndpoint === undefined) continue;
    const env = [...((c['env'] as JsonObject[] | undefined) ?? [])];
    const add = (name: string, value: string) => {
      if (!env.some((e) => e['name'] === name)) env.push({ name, value });
    };
    add('OTEL_EXPORTER_OTLP_ENDPOINT', otlpEndpoint);
    add('OTEL_SERVICE_NAME', replica.deployment ?? replica.name);
    c['env'] = env;
  }
}
