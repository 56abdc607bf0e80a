/**
 * The Helm releases of the serving stack (docs/kinds/servingstack.md#helm-releases): chart
 * coordinates, target namespaces, labels and values, exactly as the reference
 * installs them.
 *
 * Guarantees: every release is a provider-helm Release with the fixed release
 * name `mp-<chart name>` (through `crossplane.io/external-name`: short derived
 * names, stable across upgrades), no `metadata.namespace` (Crossplane puts it
 * in the ServingStack's namespace), and `providerConfigRef {kind:
 * ProviderConfig, name: <the stack's PC>}`.
 */
import { ENVOY_GATEWAY_NAMESPACE, MONITORING_NAMESPACE } from '../lib/serving-stack.js';
import type { JsonObject, KubeObject } from '../lib/function.js';
import { type Chart, helmRelease, type ProviderConfigRef } from '../lib/objects.js';
import type { ServingStack } from './spec.js';

/** Version of both Envoy AI Gateway charts (not configurable). */
export const AI_GATEWAY_VERSION = 'v0.7.0';
/** In-cluster Prometheus URL the stack's kube-prometheus-stack serves (`fullnameOverride: prometheus`). */
export const PROMETHEUS_URL = 'http://prometheus-prometheus.monitoring.svc.cluster.local:9090';
/** Namespace of the NVIDIA DRA driver (also of its critical-pods quota). */
export const DRA_DRIVER_NAMESPACE = 'dra-driver-nvidia-gpu';
/** Label that identifies a composed object for the ordering Usages. */
export const RESOURCE_LABEL = 'modelplane.ai/resource';

/** Toleration for the `nvidia.com/gpu` taint the cloud functions put on GPU nodes. */
const GPU_TOLERATION: JsonObject = { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' };

/** One release of the stack: desired-resource key, chart, target namespace, labels, values. */
export interface ReleaseSpec {
  key: string;
  chart: Chart;
  targetNamespace: string;
  labels?: Record<string, string>;
  values?: JsonObject;
}

function envoyGatewayValues(): JsonObject {
  return {
    config: {
      envoyGateway: {
        extensionApis: { enableBackend: true },
        extensionManager: {
          hooks: {
            xdsTranslator: {
              translation: {
                listener: { includeAll: true },
                route: { includeAll: true },
                cluster: { includeAll: true },
                secret: { includeAll: true },
              },
              post: ['Translation', 'Cluster', 'Route'],
            },
          },
          service: {
            fqdn: { hostname: 'ai-gateway-controller.envoy-ai-gateway-system.svc.cluster.local', port: 1063 },
          },
          backendResources: [{ group: 'inference.networking.k8s.io', kind: 'InferencePool', version: 'v1' }],
        },
      },
    },
  };
}

function prometheusValues(): JsonObject {
  return {
    fullnameOverride: 'prometheus',
    grafana: { enabled: false },
    alertmanager: { enabled: false },
    prometheus: {
      prometheusSpec: {
        podMonitorSelectorNilUsesHelmValues: false,
        podMonitorNamespaceSelector: {},
        additionalScrapeConfigs: [
          {
            job_name: 'envoy-gateway-proxy',
            kubernetes_sd_configs: [{ role: 'pod', namespaces: { names: [ENVOY_GATEWAY_NAMESPACE] } }],
            relabel_configs: [
              {
                source_labels: ['__meta_kubernetes_pod_label_app_kubernetes_io_component'],
                action: 'keep',
                regex: 'proxy',
              },
              {
                source_labels: ['__address__'],
                action: 'replace',
                regex: '([^:]+)(?::\\d+)?',
                replacement: '$1:19001',
                target_label: '__address__',
              },
            ],
            metrics_path: '/stats/prometheus',
          },
        ],
      },
    },
  };
}

function draDriverValues(root: string): JsonObject {
  const values: JsonObject = {
    gpuResourcesEnabledOverride: true,
    resources: { computeDomains: { enabled: false } },
  };
  if (root !== '/') values['nvidiaDriverRoot'] = root;
  return values;
}

/** Releases by desired-resource key, in composition order (docs/kinds/servingstack.md#order-of-composition). */
export function releaseSpecs(stack: ServingStack): ReleaseSpec[] {
  const v = stack.versions;
  const envoy = 'oci://docker.io/envoyproxy';
  return [
    {
      key: 'cert-manager',
      chart: { name: 'cert-manager', repository: 'https://charts.jetstack.io', version: v.certManager },
      targetNamespace: 'cert-manager',
      values: { crds: { enabled: true, keep: false } },
    },
    {
      key: 'envoy-gateway',
      chart: { name: 'gateway-helm', repository: envoy, version: v.envoyGateway },
      targetNamespace: ENVOY_GATEWAY_NAMESPACE,
      labels: { [RESOURCE_LABEL]: 'envoy-gateway' },
      values: envoyGatewayValues(),
    },
    {
      key: 'ai-gateway-crds',
      chart: { name: 'ai-gateway-crds-helm', repository: envoy, version: AI_GATEWAY_VERSION },
      targetNamespace: 'envoy-ai-gateway-system',
    },
    {
      key: 'ai-gateway',
      chart: { name: 'ai-gateway-helm', repository: envoy, version: AI_GATEWAY_VERSION },
      targetNamespace: 'envoy-ai-gateway-system',
    },
    {
      key: 'prometheus',
      chart: {
        name: 'kube-prometheus-stack',
        repository: 'https://prometheus-community.github.io/helm-charts',
        version: v.prometheus,
      },
      targetNamespace: MONITORING_NAMESPACE,
      values: prometheusValues(),
    },
    {
      key: 'leader-worker-set',
      chart: { name: 'lws', repository: 'oci://registry.k8s.io/lws/charts', version: v.leaderWorkerSet },
      targetNamespace: 'lws-system',
    },
    {
      key: 'node-feature-discovery',
      chart: {
        name: 'node-feature-discovery',
        repository: 'oci://registry.k8s.io/nfd/charts',
        version: v.nodeFeatureDiscovery,
      },
      targetNamespace: 'node-feature-discovery',
      values: { worker: { tolerations: [{ ...GPU_TOLERATION }] } },
    },
    {
      key: 'dra-driver',
      chart: {
        name: 'dra-driver-nvidia-gpu',
        repository: 'oci://registry.k8s.io/dra-driver-nvidia/charts',
        version: v.nvidiaDraDriver,
      },
      targetNamespace: DRA_DRIVER_NAMESPACE,
      values: draDriverValues(stack.nvidiaDriverRoot),
    },
  ];
}

/** The provider-helm Release of one {@link ReleaseSpec}; release name `mp-<chart name>`. */
export function stackRelease(spec: ReleaseSpec, providerConfigRef: ProviderConfigRef): KubeObject {
  return helmRelease({
    chart: spec.chart,
    targetNamespace: spec.targetNamespace,
    providerConfigRef,
    values: spec.values,
    labels: spec.labels,
    releaseName: `mp-${spec.chart.name}`,
  });
}
