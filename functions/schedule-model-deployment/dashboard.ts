/**
 * The Grafana dashboard of a ModelDeployment (docs/observability.md#dashboard):
 * a ConfigMap `<deployment>-dashboard` labelled `grafana_dashboard: "1"`, the
 * label kube-prometheus-stack's Grafana sidecar loads dashboards from.
 *
 * Guarantees:
 * - Deterministic bytes: the JSON is written with a fixed key order, no
 *   timestamps, ids or random uids; `uid` is `mp-` + the first 20 hex digits
 *   of sha256(`<namespace>/<deployment>`).
 * - Panels, in order: requests per second, time to first token p50/p95,
 *   inter-token latency p50/p95, waiting requests, KV-cache use, GPU
 *   utilisation. Every engine query is filtered by the `deployment` label the
 *   replicas' PodMonitors add; one query per runtime the deployment's
 *   engines run (vLLM and/or SGLang, metric names in lib/observability.ts).
 * - GPU utilisation is DCGM exporter's `DCGM_FI_DEV_GPU_UTIL` on the
 *   deployment's pods, matched by name (`exported_pod`, as kube-prometheus-stack
 *   scrapes dcgm-exporter): the replica names' readable prefix then the hash.
 */
import { createHash } from 'node:crypto';
import type { JsonObject, KubeObject } from '../lib/function.js';
import { opaqueName } from '../lib/names.js';
import { deploymentSelector } from '../lib/fleet-queries.js';
import { DCGM_GPU_UTIL, type EngineRuntime, engineRuntime, RUNTIME_METRICS, type RuntimeMetrics } from '../lib/observability.js';
import type { DeploymentSpec } from './deployment.js';

/** Label kube-prometheus-stack's Grafana sidecar selects dashboard ConfigMaps by. */
export const GRAFANA_DASHBOARD_LABEL = 'grafana_dashboard';
/** Desired-resource key of the dashboard ConfigMap. */
export const DASHBOARD_KEY = 'dashboard';
/** Grafana dashboard schema version written. */
export const DASHBOARD_SCHEMA_VERSION = 39;

/** Name of a deployment's dashboard ConfigMap. */
export function dashboardName(deployment: string): string {
  return `${deployment}-dashboard`;
}

/** The dashboard uid: `mp-` + 20 hex digits of sha256(`<namespace>/<name>`). */
export function dashboardUid(namespace: string, name: string): string {
  return `mp-${createHash('sha256').update(`${namespace}/${name}`, 'utf8').digest('hex').slice(0, 20)}`;
}

/** The runtimes the deployment's engines run, sorted (vLLM for engines that are not recognisably SGLang). */
export function deploymentRuntimes(d: DeploymentSpec): EngineRuntime[] {
  const found = new Set<EngineRuntime>();
  for (const e of d.engines) {
    const member = e.members.find((m) => m.role !== 'Worker') ?? e.members[0];
    const c = ((member?.template['spec'] as JsonObject | undefined)?.['containers'] as JsonObject[] | undefined)?.[0];
    if (c === undefined) continue;
    found.add(engineRuntime({ image: String(c['image'] ?? ''), command: c['command'] as string[] | undefined }));
  }
  return [...found].sort();
}

interface PanelSpec {
  title: string;
  unit: string;
  /** One or more queries per runtime: [legend, expr]. */
  queries: (m: RuntimeMetrics, sel: string) => [string, string][];
}

const quantiles = (bucket: string, sel: string): [string, string][] => [
  ['p50', `histogram_quantile(0.5, sum by (le) (rate(${bucket}{${sel}}[5m])))`],
  ['p95', `histogram_quantile(0.95, sum by (le) (rate(${bucket}{${sel}}[5m])))`],
];

const PANELS: PanelSpec[] = [
  { title: 'Requests', unit: 'reqps', queries: (m, s) => [['requests/s', `sum(rate(${m.requests}{${s}}[5m]))`]] },
  { title: 'Time to first token', unit: 's', queries: (m, s) => quantiles(m.ttftBucket, s) },
  { title: 'Inter-token latency', unit: 's', queries: (m, s) => quantiles(m.itlBucket, s) },
  { title: 'Waiting requests', unit: 'short', queries: (m, s) => [['{{replica}}', `sum by (replica) (${m.waiting}{${s}})`]] },
  { title: 'KV-cache use', unit: 'percentunit', queries: (m, s) => [['{{replica}}', `max by (replica) (${m.kvCache}{${s}})`]] },
];

const DATASOURCE = { type: 'prometheus', uid: '$datasource' };

function panel(id: number, title: string, unit: string, targets: [string, string][]): JsonObject {
  return {
    datasource: { ...DATASOURCE },
    fieldConfig: { defaults: { unit }, overrides: [] },
    gridPos: { h: 8, w: 12, x: ((id - 1) % 2) * 12, y: Math.floor((id - 1) / 2) * 8 },
    id,
    targets: targets.map(([legendFormat, expr], i) => ({
      datasource: { ...DATASOURCE },
      expr,
      legendFormat,
      refId: String.fromCharCode(65 + i),
    })),
    title,
    type: 'timeseries',
  };
}

/** The dashboard JSON object of a deployment (keys in a fixed order). */
export function dashboard(d: DeploymentSpec): JsonObject {
  const runtimes = deploymentRuntimes(d);
  const sel = deploymentSelector(d);
  const panels = PANELS.map((p, i) => {
    const targets = runtimes.flatMap((r) =>
      p.queries(RUNTIME_METRICS[r], sel).map(([legend, expr]) => [runtimes.length > 1 ? `${r} ${legend}` : legend, expr] as [string, string]),
    );
    return panel(i + 1, p.title, p.unit, targets);
  });
  const podPrefix = opaqueName(d.name).replace(/-[0-9a-f]+$/, '');
  panels.push(
    panel(panels.length + 1, 'GPU utilisation', 'percent', [
      ['{{exported_pod}}', `avg by (exported_pod) (${DCGM_GPU_UTIL}{exported_pod=~"${podPrefix}-[0-9a-f]{5}-.+"})`],
    ]),
  );
  return {
    annotations: { list: [] },
    editable: false,
    panels,
    schemaVersion: DASHBOARD_SCHEMA_VERSION,
    tags: ['modelplane', d.namespace],
    templating: {
      list: [{ current: { text: 'Prometheus', value: 'prometheus' }, hide: 0, label: 'Data source', name: 'datasource', query: 'prometheus', type: 'datasource' }],
    },
    time: { from: 'now-1h', to: 'now' },
    title: `Modelplane ${d.namespace}/${d.name}`,
    uid: dashboardUid(d.namespace, d.name),
  };
}

/** The ConfigMap holding the dashboard as `<deployment>.json`. */
export function dashboardConfigMap(d: DeploymentSpec): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: dashboardName(d.name), namespace: d.namespace, labels: { [GRAFANA_DASHBOARD_LABEL]: '1' } },
    data: { [`${d.name}.json`]: `${JSON.stringify(dashboard(d), null, 2)}\n` },
  };
}
