/**
 * The fleet view (docs/autoscaling.md#the-fleet-signal): one Prometheus on
 * the control plane that KEDA's triggers query, composed by the
 * InferenceGateway as a kube-prometheus-stack Release (`fleet-prometheus`,
 * Service `fleet-prometheus.modelplane-system.svc:9090`, the default
 * `spec.autoscaling.prometheusAddress`).
 *
 * It scrapes, and keeps only what autoscaling reads:
 * - `federate`: each workload cluster's serving-stack Prometheus through the
 *   cluster's inference gateway, `http://<status.gateway.address>/modelplane/federate`
 *   (the stack's federate route, compose-serving-stack/objects.ts), asking
 *   only for the engines' `vllm:`/`sglang:` series, labelled `cluster`;
 *   `honor_labels` keeps the engines' own `deployment`, `replica` and
 *   `cluster` labels;
 * - `key-validator`: the validator's pods' `/metrics` (the demand at zero);
 * - `traefik`: Traefik's pods' `/metrics` on 9100 (requests, in-flight and
 *   latency per route).
 *
 * With `spec.autoscaling.autoscaler: HPA` (docs/autoscaling.md#keda-or-hpa), also
 * prometheus-adapter (`fleet-prometheus-adapter`), serving the external
 * metrics the deployments' HorizontalPodAutoscalers read: one external rule
 * per metric target, the same query KEDA's trigger runs
 * (lib/fleet-queries.ts) over every runtime, with the HPA's metric selector
 * (`deployment: <name>`) as its label matchers, not namespaced (the engine
 * series carry no namespace label).
 *
 * Guarantees: deterministic (clusters by name; a cluster without a gateway
 * address is left out until it has one); the chart versions are pinned
 * ({@link FLEET_PROMETHEUS_CHART_VERSION}, the serving stacks' default, and
 * {@link PROMETHEUS_ADAPTER_CHART_VERSION}); nothing else of the charts runs
 * (no Alertmanager, Grafana, exporters or default rules and monitors; none of
 * the adapter's default custom or resource metrics rules).
 */
import { EXTERNAL_METRIC, FLEET_PROMETHEUS, METRIC_TARGETS, targetQuery, targetSeries } from '../lib/fleet-queries.js';
import { getPath, type JsonObject, type KubeObject } from '../lib/function.js';
import type { EngineRuntime } from '../lib/observability.js';
import { helmRelease } from '../lib/objects.js';
import { VALIDATOR } from '../lib/key-validator.js';
import { FEDERATE_PATH } from '../lib/serving-stack.js';
import { IN_CLUSTER_PC, RELEASE_LABEL, SYSTEM_NAMESPACE } from './resources.js';

/** kube-prometheus-stack chart version of the fleet view (the ServingStack's default). */
export const FLEET_PROMETHEUS_CHART_VERSION = '72.6.2';
/** prometheus-adapter chart version (the adapter serving the HPA autoscaler's external metrics). */
export const PROMETHEUS_ADAPTER_CHART_VERSION = '5.2.0';
/** Every runtime an adapter rule sums over: one rule serves every deployment. */
const ALL_RUNTIMES: readonly EngineRuntime[] = ['SGLang', 'vLLM'];

/** The series the fleet view federates: the engines'. */
export const FEDERATE_MATCH = '{__name__=~"vllm:.+|sglang:.+"}';

/** A workload cluster the fleet view federates: its name and its inference gateway's address. */
export interface FederatedCluster {
  name: string;
  address: string;
}

/** The clusters to federate from InferenceClusters: those with `status.gateway.address`, by name. */
export function federatedClusters(clusters: readonly KubeObject[]): FederatedCluster[] {
  return clusters
    .map((c) => {
      const address = getPath(c, 'status', 'gateway', 'address');
      return { name: c.metadata?.name ?? '', address: typeof address === 'string' ? address : '' };
    })
    .filter((c) => c.name !== '' && c.address !== '')
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** A kubernetes_sd pod scrape of `namespace`, keeping pods labelled `app.kubernetes.io/name: <app>`, on `port`. */
function podScrape(job: string, namespace: string, app: string, port: number): JsonObject {
  return {
    job_name: job,
    kubernetes_sd_configs: [{ role: 'pod', namespaces: { names: [namespace] } }],
    relabel_configs: [
      { source_labels: ['__meta_kubernetes_pod_label_app_kubernetes_io_name'], action: 'keep', regex: app },
      { source_labels: ['__address__'], action: 'replace', regex: '([^:]+)(?::\\d+)?', replacement: `$1:${port}`, target_label: '__address__' },
    ],
  };
}

/** The fleet view's scrape configurations (see the module comment). */
export function fleetScrapeConfigs(clusters: readonly FederatedCluster[]): JsonObject[] {
  const out: JsonObject[] = [];
  if (clusters.length > 0) {
    out.push({
      job_name: 'federate',
      honor_labels: true,
      metrics_path: FEDERATE_PATH,
      params: { 'match[]': [FEDERATE_MATCH] },
      static_configs: clusters.map((c) => ({ targets: [c.address], labels: { cluster: c.name } })),
    });
  }
  out.push(podScrape('key-validator', VALIDATOR.namespace, VALIDATOR.name, 8080));
  out.push(podScrape('traefik', 'traefik-system', 'traefik', 9100));
  return out;
}

/** The `fleet-prometheus` Release: kube-prometheus-stack with only its Prometheus, named `fleet` (Service `fleet-prometheus`). */
export function fleetPrometheusRelease(clusters: readonly FederatedCluster[]): KubeObject {
  return helmRelease({
    namespace: SYSTEM_NAMESPACE,
    labels: { [RELEASE_LABEL]: 'fleet-prometheus' },
    chart: { name: 'kube-prometheus-stack', repository: 'https://prometheus-community.github.io/helm-charts', version: FLEET_PROMETHEUS_CHART_VERSION },
    targetNamespace: SYSTEM_NAMESPACE,
    providerConfigRef: { kind: 'ProviderConfig', name: IN_CLUSTER_PC },
    values: {
      fullnameOverride: 'fleet',
      defaultRules: { create: false },
      alertmanager: { enabled: false },
      grafana: { enabled: false },
      kubeStateMetrics: { enabled: false },
      nodeExporter: { enabled: false },
      kubeApiServer: { enabled: false },
      kubelet: { enabled: false },
      kubeControllerManager: { enabled: false },
      coreDns: { enabled: false },
      kubeEtcd: { enabled: false },
      kubeScheduler: { enabled: false },
      kubeProxy: { enabled: false },
      prometheus: {
        prometheusSpec: {
          retention: '1d',
          scrapeInterval: '15s',
          additionalScrapeConfigs: fleetScrapeConfigs(clusters),
        },
      },
    },
  });
}

/**
 * prometheus-adapter's external rules: one per metric target, named as the
 * HPAs ask for it ({@link EXTERNAL_METRIC}), discovering the engine series the
 * query reads, the HPA's selector as `<<.LabelMatchers>>`. An empty answer
 * is 0 (`or vector(0)`), as KEDA reads one (`ignoreNullValues`): Kubernetes'
 * HPA never scales down while one of its metrics has no value.
 */
export function adapterExternalRules(): JsonObject[] {
  return METRIC_TARGETS.map((target) => ({
    seriesQuery: `{__name__=~"${targetSeries(target, ALL_RUNTIMES).join('|')}",deployment!=""}`,
    resources: { namespaced: false },
    name: { as: EXTERNAL_METRIC[target] },
    metricsQuery: `(${targetQuery(target, ALL_RUNTIMES, '<<.LabelMatchers>>')}) or vector(0)`,
  }));
}

/** The `prometheus-adapter` Release: prometheus-adapter on the fleet view, only its external rules. */
export function prometheusAdapterRelease(): KubeObject {
  return helmRelease({
    namespace: SYSTEM_NAMESPACE,
    labels: { [RELEASE_LABEL]: 'prometheus-adapter' },
    chart: { name: 'prometheus-adapter', repository: 'https://prometheus-community.github.io/helm-charts', version: PROMETHEUS_ADAPTER_CHART_VERSION },
    targetNamespace: SYSTEM_NAMESPACE,
    providerConfigRef: { kind: 'ProviderConfig', name: IN_CLUSTER_PC },
    values: {
      fullnameOverride: 'fleet-prometheus-adapter',
      prometheus: { url: FLEET_PROMETHEUS.url, port: FLEET_PROMETHEUS.port },
      rules: { default: false, external: adapterExternalRules() },
    },
  });
}
