/**
 * The plan's Observability section (docs/observability.md): per
 * ModelDeployment, its Grafana dashboard ConfigMap and, per replica, the
 * PodMonitor its function composes on the replica's cluster.
 *
 * Guarantees: read from the store only (what the functions composed, by
 * controller owner); deployments and replicas in the report's order; a
 * missing object is `null`, never left out.
 */
import type { JsonObject, KubeObject } from '../../functions/lib/function.js';
import { manifestOf } from '../simulated/providers.js';
import { controllerUid } from '../objects.js';

/** One replica's PodMonitor. */
export interface PodMonitorReport {
  replica: string;
  cluster: string;
  /** `metadata.name` of the PodMonitor manifest, or null when none was composed. */
  podMonitor: string | null;
  /** Its `podMetricsEndpoints` (one per engine). */
  endpoints: number;
}

/** A deployment's dashboard and PodMonitors. */
export interface ObservabilityReport {
  /** `namespace/name`. */
  deployment: string;
  /** Name of the dashboard ConfigMap (label `grafana_dashboard: "1"`), or null. */
  dashboard: string | null;
  podMonitors: PodMonitorReport[];
}

/** The Observability section over `deployments` and their `replicas` (both sorted), from every stored object. */
export function observabilityReport(all: readonly KubeObject[], deployments: readonly KubeObject[], replicas: readonly KubeObject[]): ObservabilityReport[] {
  const owned = new Map<string, KubeObject[]>();
  for (const o of all) {
    const uid = controllerUid(o);
    if (uid !== undefined) owned.set(uid, [...(owned.get(uid) ?? []), o]);
  }
  return deployments.map((d) => {
    const uid = d.metadata?.uid ?? '';
    const dashboard = (owned.get(uid) ?? []).find((o) => o.kind === 'ConfigMap' && o.metadata?.labels?.['grafana_dashboard'] === '1');
    const podMonitors = replicas
      .filter((r) => controllerUid(r) === uid)
      .map((r) => {
        const pm = (owned.get(r.metadata?.uid ?? '') ?? []).map(manifestOf).find((m) => m?.['kind'] === 'PodMonitor');
        const meta = pm?.['metadata'] as { name?: string } | undefined;
        const endpoints = ((pm?.['spec'] as JsonObject | undefined)?.['podMetricsEndpoints'] as unknown[] | undefined)?.length ?? 0;
        return {
          replica: r.metadata?.name ?? '',
          cluster: String((r['spec'] as JsonObject | undefined)?.['clusterName'] ?? ''),
          podMonitor: meta?.name ?? null,
          endpoints,
        };
      });
    return { deployment: `${d.metadata?.namespace ?? ''}/${d.metadata?.name ?? ''}`, dashboard: dashboard?.metadata?.name ?? null, podMonitors };
  });
}
