/**
 * The fleet view the InferenceGateway composes (functions/compose-inference-gateway/fleet-metrics.ts,
 * docs/autoscaling.md#the-fleet-signal): kube-prometheus-stack named `fleet`, federating each workload
 * cluster's engine series through its inference gateway, scraping the key validator and Traefik; the
 * serving stack's federate route it scrapes.
 */
import { describe, expect, it } from 'vitest';
import { compose } from '../../functions/compose-inference-gateway/compose.js';
import { FEDERATE_MATCH, federatedClusters } from '../../functions/compose-inference-gateway/fleet-metrics.js';
import { expectValidAgainstCrd } from '../helpers/crd.js';
import { federateRouteObject } from '../../functions/compose-serving-stack/objects.js';
import type { JsonObject, KubeObject } from '../../functions/lib/function.js';
import { cond, observed, request } from '../builders/platform.js';
import { gatewayObjects } from './fixtures/serving-stack.js';

const NS = 'modelplane-system';
const xr: KubeObject = { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceGateway', metadata: { name: 'default' }, spec: { backend: 'Traefik', traefik: { version: '40.2.0' } } };
const pc: KubeObject = { apiVersion: 'helm.m.crossplane.io/v1beta1', kind: 'ProviderConfig', metadata: { name: 'modelplane-in-cluster', namespace: NS } };
const cluster = (name: string, address?: string): KubeObject => ({
  apiVersion: 'modelplane.ai/v1alpha1',
  kind: 'InferenceCluster',
  metadata: { name },
  ...(address ? { status: { gateway: { address } } } : {}),
});
const values = (r: KubeObject) => ((r['spec'] as JsonObject)['forProvider'] as JsonObject)['values'] as JsonObject;
const scrape = (r: KubeObject) => ((values(r)['prometheus'] as JsonObject)['prometheusSpec'] as JsonObject)['additionalScrapeConfigs'] as JsonObject[];

describe('the fleet view', () => {
  it('federates every cluster with a gateway address (by name), and scrapes the validator and Traefik', () => {
    const got = compose(request(xr, { observed: { 'provider-config-helm': observed(pc) }, required: { clusters: [cluster('gke-b', '203.0.113.7'), cluster('eks-a', '198.51.100.4'), cluster('new')] } }));
    const release = got.resources['fleet-prometheus']!;
    expect(release.ready).toBe(true);
    expect(release.resource['spec']).toMatchObject({
      forProvider: { chart: { name: 'kube-prometheus-stack', repository: 'https://prometheus-community.github.io/helm-charts', version: '72.6.2' }, namespace: NS },
    });
    expect(values(release.resource)['fullnameOverride']).toBe('fleet');
    expect(scrape(release.resource)).toEqual([
      {
        job_name: 'federate',
        honor_labels: true,
        metrics_path: '/modelplane/federate',
        params: { 'match[]': [FEDERATE_MATCH] },
        static_configs: [
          { targets: ['198.51.100.4'], labels: { cluster: 'eks-a' } },
          { targets: ['203.0.113.7'], labels: { cluster: 'gke-b' } },
        ],
      },
      {
        job_name: 'key-validator',
        kubernetes_sd_configs: [{ role: 'pod', namespaces: { names: [NS] } }],
        relabel_configs: [
          { source_labels: ['__meta_kubernetes_pod_label_app_kubernetes_io_name'], action: 'keep', regex: 'modelplane-key-validator' },
          { source_labels: ['__address__'], action: 'replace', regex: '([^:]+)(?::\\d+)?', replacement: '$1:8080', target_label: '__address__' },
        ],
      },
      {
        job_name: 'traefik',
        kubernetes_sd_configs: [{ role: 'pod', namespaces: { names: ['traefik-system'] } }],
        relabel_configs: [
          { source_labels: ['__meta_kubernetes_pod_label_app_kubernetes_io_name'], action: 'keep', regex: 'traefik' },
          { source_labels: ['__address__'], action: 'replace', regex: '([^:]+)(?::\\d+)?', replacement: '$1:9100', target_label: '__address__' },
        ],
      },
    ]);
    expect(got.resources['usage-pc-by-fleet-prometheus']?.ready).toBe(true);
    expect(got.conditions.find((c) => c.type === 'FleetMetricsReady')).toEqual({ type: 'FleetMetricsReady', status: 'False', reason: 'Installing' });
    expect(FEDERATE_MATCH).toBe('{__name__=~"vllm:.+|sglang:.+"}');
  });

  it('is Ready as observed, without holding back the gateway; kept as observed while the clusters are not fetched', () => {
    const first = compose(request(xr, { observed: { 'provider-config-helm': observed(pc) }, required: { clusters: [] } }));
    const release = first.resources['fleet-prometheus']!.resource;
    expect(scrape(release).map((s) => s['job_name'])).toEqual(['key-validator', 'traefik']);
    const seen = { 'provider-config-helm': observed(pc), 'fleet-prometheus': observed(release, {}, [cond('Ready')]) };
    const ready = compose(request(xr, { observed: seen, required: { clusters: [] } }));
    expect(ready.conditions.find((c) => c.type === 'FleetMetricsReady')).toEqual({
      type: 'FleetMetricsReady',
      status: 'True',
      reason: 'Available',
      message: 'fleet-prometheus.modelplane-system.svc:9090 serves the fleet view autoscaling reads',
    });
    const pending = compose(request(xr, { observed: seen }));
    expect(pending.resources['fleet-prometheus']?.resource['spec']).toEqual(release['spec']);
    expect(pending.resources['fleet-prometheus']?.ready).toBe(true);
    // Not composed before the ProviderConfig is observed.
    expect(compose(request(xr, { required: { clusters: [] } })).resources['fleet-prometheus']).toBeUndefined();
  });

  it('federatedClusters: a cluster without a gateway address waits for one', () => {
    expect(federatedClusters([cluster('b', '10.0.0.2'), cluster('a'), cluster('c', '10.0.0.3')])).toEqual([
      { name: 'b', address: '10.0.0.2' },
      { name: 'c', address: '10.0.0.3' },
    ]);
  });

  it('the serving stack\'s federate route: /modelplane/federate on its inference gateway is its Prometheus /federate', () => {
    // The expected Object is the serving-stack fixture's (test/platform/fixtures/serving-stack.ts), manifest and all.
    const o = federateRouteObject({ kind: 'ProviderConfig', name: 'pc' });
    const want = gatewayObjects()['federate-route'];
    expect(((o['spec'] as JsonObject)['forProvider'] as JsonObject)['manifest']).toEqual(((want['spec'] as JsonObject)['forProvider'] as JsonObject)['manifest']);
    expect(JSON.stringify(o)).toContain('"replaceFullPath":"/federate"');
  });

  describe('with the HPA autoscaler', () => {
    const hpaXr: KubeObject = { ...xr, spec: { ...(xr['spec'] as JsonObject), autoscaling: { autoscaler: 'HPA' } } };

    it('composes prometheus-adapter on the fleet view: only its external rules, one per target, the queries KEDA runs over every runtime', () => {
      const got = compose(request(hpaXr, { observed: { 'provider-config-helm': observed(pc) }, required: { clusters: [] } }));
      const adapter = got.resources['prometheus-adapter']!;
      expectValidAgainstCrd(adapter.resource);
      expect(adapter.ready).toBe(true); // never holds back the gateway's Ready: FleetMetricsReady says where it is
      expect(got.resources['usage-pc-by-prometheus-adapter']?.resource['spec']).toMatchObject({ by: { kind: 'Release' }, of: { kind: 'ProviderConfig' } });
      expect(adapter.resource['spec']).toMatchObject({
        forProvider: { chart: { name: 'prometheus-adapter', repository: 'https://prometheus-community.github.io/helm-charts', version: '5.2.0' }, namespace: NS },
      });
      const v = values(adapter.resource);
      expect(v['fullnameOverride']).toBe('fleet-prometheus-adapter');
      expect(v['prometheus']).toEqual({ url: 'http://fleet-prometheus.modelplane-system.svc', port: 9090 });
      // Each query as KEDA's trigger runs it, an empty answer read as 0.
      const rule = (series: string, as: string, query: string) => ({ seriesQuery: `{__name__=~"${series}",deployment!=""}`, resources: { namespaced: false }, name: { as }, metricsQuery: `(${query}) or vector(0)` });
      const m = '<<.LabelMatchers>>';
      expect(v['rules']).toEqual({
        default: false,
        external: [
          rule(
            'sglang:num_running_reqs|sglang:num_queue_reqs|vllm:num_requests_running|vllm:num_requests_waiting',
            'modelplane_in_flight',
            `(sum(sglang:num_running_reqs{${m}}) or vector(0)) + (sum(vllm:num_requests_running{${m}}) or vector(0)) + (sum(sglang:num_queue_reqs{${m}}) or vector(0)) + (sum(vllm:num_requests_waiting{${m}}) or vector(0))`,
          ),
          rule('sglang:num_queue_reqs|vllm:num_requests_waiting', 'modelplane_queue_depth', `(sum(sglang:num_queue_reqs{${m}}) or vector(0)) + (sum(vllm:num_requests_waiting{${m}}) or vector(0))`),
          rule(
            'sglang:token_usage|vllm:kv_cache_usage_perc',
            'modelplane_kv_cache_utilization_percent',
            `100 * avg(sglang:token_usage{${m}} or vllm:kv_cache_usage_perc{${m}}) * count(count by (replica) (sglang:token_usage{${m}} or vllm:kv_cache_usage_perc{${m}}))`,
          ),
          rule(
            'sglang:time_to_first_token_seconds_bucket|vllm:time_to_first_token_seconds_bucket',
            'modelplane_time_to_first_token_p90_milliseconds',
            `1000 * histogram_quantile(0.9, sum by (le) (rate(sglang:time_to_first_token_seconds_bucket{${m}}[2m]) or rate(vllm:time_to_first_token_seconds_bucket{${m}}[2m]))) * count(count by (replica) (rate(sglang:time_to_first_token_seconds_bucket{${m}}[2m]) or rate(vllm:time_to_first_token_seconds_bucket{${m}}[2m])))`,
          ),
        ],
      });
    });

    it('FleetMetricsReady waits for the adapter too; KEDA (the default) composes no adapter', () => {
      const first = compose(request(hpaXr, { observed: { 'provider-config-helm': observed(pc) }, required: { clusters: [] } }));
      const prom = observed(first.resources['fleet-prometheus']!.resource, {}, [cond('Ready')]);
      const promOnly = compose(request(hpaXr, { observed: { 'provider-config-helm': observed(pc), 'fleet-prometheus': prom }, required: { clusters: [] } }));
      expect(promOnly.conditions.find((c) => c.type === 'FleetMetricsReady')).toEqual({ type: 'FleetMetricsReady', status: 'False', reason: 'Installing' });
      const both = compose(
        request(hpaXr, {
          observed: { 'provider-config-helm': observed(pc), 'fleet-prometheus': prom, 'prometheus-adapter': observed(first.resources['prometheus-adapter']!.resource, {}, [cond('Ready')]) },
          required: { clusters: [] },
        }),
      );
      expect(both.conditions.find((c) => c.type === 'FleetMetricsReady')?.message).toBe(
        'fleet-prometheus.modelplane-system.svc:9090 serves the fleet view autoscaling reads; fleet-prometheus-adapter serves its queries as external metrics to the HorizontalPodAutoscalers',
      );
      const keda = compose(request({ ...xr, spec: { ...(xr['spec'] as JsonObject), autoscaling: { autoscaler: 'KEDA' } } }, { observed: { 'provider-config-helm': observed(pc) }, required: { clusters: [] } }));
      expect(keda.resources['prometheus-adapter']).toBeUndefined();
      expect(compose(request(xr, { observed: { 'provider-config-helm': observed(pc) }, required: { clusters: [] } })).resources['prometheus-adapter']).toBeUndefined();
    });
  });
});
