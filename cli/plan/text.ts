/**
 * `modelplane plan` text output: the problems (report.ts `planProblems`)
 * first, then four tables (clusters and pools, what each cluster offers,
 * deployments, services), the why-not of every under-placed deployment, and
 * one line per skipped input. Colour only on a terminal.
 */
import { autoscalingLine } from './autoscaling.js';
import Table from 'cli-table3';
import pc from 'picocolors';
import type { PlanReport } from './report.js';

/** The last line of every text plan: what in it no real fleet said. */
export const SIMULATED_NOTE =
  'Simulated: gateway addresses (workload gateways 198.51.100.0/24, TEST-NET-2; the control plane from the MetalLB pool, else 203.0.113.0/24) and every time (2024-01-01T00:00:00Z); providers and cluster controllers report Ready as soon as an object is composed.';

/** Options of {@link formatText}. */
export interface TextOptions {
  color?: boolean;
  /** Inputs that are not plan inputs, as `file:line apiVersion/kind name`. */
  skipped?: string[];
}

function table(head: string[], rows: string[][], color: boolean): string {
  const t = new Table({
    head,
    style: { head: color ? ['cyan'] : [], border: color ? ['grey'] : [], compact: true },
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  for (const r of rows) t.push(r);
  return t.toString();
}

/** `cold start (simulated times): 2 replicas, p50 6m12s, slowest 6m12s, 1000Gi from cache; bar 10m: WithinBar`, or undefined. */
export function coldStartLine(d: PlanReport['deployments'][number]): string | undefined {
  const cs = d.coldStart;
  if (!cs) return undefined;
  const source = cs.modelSource === 'Cache' ? (cs.sizeGiB !== null ? `${cs.sizeGiB}Gi from cache` : 'from cache') : 'pulled directly';
  const times = cs.maxSeconds === null ? 'not measured yet' : `p50 ${duration(cs.p50Seconds ?? 0)}, slowest ${duration(cs.maxSeconds)}`;
  const bar = d.conditions.find((x) => x.type === 'ColdStartWithinBar');
  const barText = cs.readyWithin && bar ? `; bar ${cs.readyWithin}: ${bar.status} ${bar.reason}` : '';
  return `cold start (simulated times): ${cs.replicas} measured, ${times}, ${source}${barText}`;
}

function duration(total: number): string {
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return h > 0 ? `${h}h${m}m${s}s` : m > 0 ? `${m}m${s}s` : `${s}s`;
}

/** The whole text report. */
export function formatText(report: PlanReport, opts: TextOptions = {}): string {
  const color = opts.color ?? false;
  const c = pc.createColors(color);
  const yes = (b: boolean) => (b ? c.green('yes') : c.red('no'));
  const out: string[] = [];
  const status = report.converged
    ? c.green(`converged in ${report.rounds} rounds`)
    : c.red(`not converged after ${report.rounds} rounds (raise --rounds to let it settle)`);
  out.push(`Plan: ${status}`, '');
  if (report.problems.length > 0) {
    out.push(c.bold(c.red(`Problems (${report.problems.length})`)), ...report.problems.map((p) => c.red(`  ${p}`)), '');
  }

  out.push(c.bold('Clusters'));
  const clusterRows: string[][] = [];
  for (const cl of report.clusters) {
    const health = `${cl.health?.state ?? '-'}${cl.lost ? ' (lost)' : ''}`;
    if (cl.pools.length === 0) clusterRows.push([cl.name, cl.source ?? '', yes(cl.ready), health, cl.gatewayAddress ?? '-', '-', '', '', '', '']);
    for (const [i, p] of cl.pools.entries()) {
      const pool = [p.name, p.className ?? '', String(p.nodes), String(p.usedNodes), p.fabric ?? '-'];
      clusterRows.push(i === 0 ? [cl.name, cl.source ?? '', yes(cl.ready), health, cl.gatewayAddress ?? '-', ...pool] : ['', '', '', '', '', ...pool]);
    }
  }
  out.push(
    report.clusters.length > 0
      ? table(['CLUSTER', 'SOURCE', 'READY', 'HEALTH', 'GATEWAY', 'POOL', 'CLASS', 'NODES', 'USED', 'FABRIC'], clusterRows, color)
      : '  (none)',
    '',
  );

  if (report.clusters.length > 0) {
    out.push(c.bold('Capabilities'));
    const capRows = report.clusters.map((cl) => {
      const k = cl.capabilities;
      if (!k) return [cl.name, '-', '-', '-', '-'];
      return [cl.name, k.rwxCacheStorageClass ?? 'none', k.multiNodeFabric ?? '-', k.nodeAutoscaling ?? '-', k.gpuStack ?? '-'];
    });
    out.push(table(['CLUSTER', 'RWX CACHE', 'MULTI-NODE FABRIC', 'NODE AUTOSCALING', 'GPU STACK'], capRows, color));
    for (const cl of report.clusters) {
      if (cl.capabilities?.rwxCacheReason) out.push(`  ${cl.name}: no RWX cache: ${cl.capabilities.rwxCacheReason}`);
    }
    out.push('');
  }

  out.push(c.bold('Deployments'));
  const depRows: string[][] = [];
  for (const d of report.deployments) {
    const head = [`${d.namespace}/${d.name}`, `${d.scheduledReplicas}/${d.desiredReplicas}`, `${d.readyReplicas}/${d.desiredReplicas}`];
    if (d.replicas.length === 0) depRows.push([...head, '-', '-', '-', '-']);
    for (const [i, r] of d.replicas.entries()) {
      const pools = r.engines.map((e) => `${e.name}: ${e.members.map((m) => (m.role === 'Standalone' ? m.pool : `${m.role} ${m.pool}`)).join(', ')}`).join('; ');
      depRows.push([...(i === 0 ? head : ['', '', '']), r.name, r.cluster, r.phase ?? '-', pools]);
    }
  }
  out.push(
    report.deployments.length > 0 ? table(['DEPLOYMENT', 'SCHEDULED', 'READY', 'REPLICA', 'CLUSTER', 'PHASE', 'POOLS'], depRows, color) : '  (none)',
  );
  for (const d of report.deployments) {
    if (d.scheduledReplicas >= d.desiredReplicas) continue;
    const why = d.conditions.find((x) => x.type === 'ReplicasScheduled');
    out.push(c.yellow(`  ${d.namespace}/${d.name}: ${why?.message || why?.reason || 'not all replicas scheduled'}`));
  }
  for (const d of report.deployments) {
    for (const line of [coldStartLine(d), autoscalingLine(d)]) if (line) out.push(`  ${d.namespace}/${d.name}: ${line}`);
  }
  out.push('');

  if (report.observability.length > 0) {
    out.push(c.bold('Observability'));
    const rows: string[][] = [];
    for (const o of report.observability) {
      const head = [o.deployment, o.dashboard ?? '-'];
      if (o.podMonitors.length === 0) rows.push([...head, '-', '-', '-']);
      for (const [i, p] of o.podMonitors.entries()) {
        rows.push([...(i === 0 ? head : ['', '']), p.replica, p.cluster, p.podMonitor === null ? '-' : `${p.podMonitor} (${p.endpoints})`]);
      }
    }
    out.push(table(['DEPLOYMENT', 'DASHBOARD', 'REPLICA', 'CLUSTER', 'PODMONITOR (ENDPOINTS)'], rows, color), '');
  }

  if (report.cost) {
    out.push(c.bold('Cost (per hour, from the InferenceClasses\' spec.pricing)'));
    const rows = [...report.cost.clusters.map((x) => ['cluster', x.name, x.hourly]), ...report.cost.deployments.map((x) => ['deployment', x.name, x.hourly]), ['fleet', '', report.cost.fleet]];
    out.push(table(['SCOPE', 'NAME', 'COST'], rows, color), '');
  }

  if (report.caches.length > 0) {
    out.push(c.bold('Caches'));
    const rows: string[][] = [];
    for (const m of report.caches) {
      const head = [`${m.namespace}/${m.name}`, m.source ?? '-', m.sizeGiB === null ? '-' : `${m.sizeGiB}Gi`, m.ready ?? '-'];
      if (m.clusters.length === 0) rows.push([...head, '-', '-']);
      for (const [i, cl] of m.clusters.entries()) rows.push([...(i === 0 ? head : ['', '', '', '']), cl.name, cl.phase]);
    }
    out.push(table(['CACHE', 'SOURCE', 'SIZE', 'READY', 'CLUSTER', 'PHASE'], rows, color));
    for (const m of report.caches) {
      for (const cl of m.clusters) if (cl.phase !== 'Ready' && cl.message) out.push(c.yellow(`  ${m.namespace}/${m.name} on ${cl.name}: ${cl.phase}: ${cl.message}`));
    }
    out.push('');
  }

  out.push(c.bold('Services'));
  out.push(
    report.services.length > 0
      ? table(
          ['SERVICE', 'ADDRESS', 'ENDPOINTS'],
          report.services.map((s) => [
            `${s.namespace}/${s.name}`,
            s.address ?? '-',
            s.endpoints.map((e) => `${e.name} (${e.priority === undefined ? '' : `priority ${e.priority}, `}weight ${e.weight})`).join('\n') || '-',
          ]),
          color,
        )
      : '  (none)',
  );

  const skipped = (opts.skipped ?? []).map((s) => `skipped (not a plan input): ${s}`);
  if (skipped.length > 0) out.push('', ...skipped.map((p) => c.yellow(p)));
  out.push('', c.dim(SIMULATED_NOTE));
  return `${out.join('\n')}\n`;
}
