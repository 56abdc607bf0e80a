/**
 * `modelplane plan` text output: four tables (clusters and pools, what each
 * cluster offers, deployments, services), the why-not of every under-placed
 * deployment, and one line per invalid or skipped input. Colour only on a
 * terminal.
 */
import Table from 'cli-table3';
import pc from 'picocolors';
import type { PlanReport } from './report.js';

/** Options of {@link formatText}. */
export interface TextOptions {
  color?: boolean;
  /** Inputs that are not plan inputs, as `file:line apiVersion/kind name`. */
  skipped?: string[];
  /** Reconcile errors by XR. */
  errors?: Record<string, string>;
  /** False conditions of clusters, gateways and services (report.ts `problems`). */
  problems?: string[];
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

  out.push(c.bold('Clusters'));
  const clusterRows: string[][] = [];
  for (const cl of report.clusters) {
    if (cl.pools.length === 0) clusterRows.push([cl.name, cl.source ?? '', yes(cl.ready), cl.gatewayAddress ?? '-', '-', '', '', '', '']);
    for (const [i, p] of cl.pools.entries()) {
      const pool = [p.name, p.className ?? '', String(p.nodes), String(p.usedNodes), p.fabric ?? '-'];
      clusterRows.push(i === 0 ? [cl.name, cl.source ?? '', yes(cl.ready), cl.gatewayAddress ?? '-', ...pool] : ['', '', '', '', ...pool]);
    }
  }
  out.push(
    report.clusters.length > 0
      ? table(['CLUSTER', 'SOURCE', 'READY', 'GATEWAY', 'POOL', 'CLASS', 'NODES', 'USED', 'FABRIC'], clusterRows, color)
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
  out.push('');

  out.push(c.bold('Services'));
  out.push(
    report.services.length > 0
      ? table(
          ['SERVICE', 'ADDRESS', 'ENDPOINTS'],
          report.services.map((s) => [
            `${s.namespace}/${s.name}`,
            s.address ?? '-',
            s.endpoints.map((e) => `${e.name} (weight ${e.weight})`).join('\n') || '-',
          ]),
          color,
        )
      : '  (none)',
  );

  if ((opts.problems ?? []).length > 0) out.push('', ...(opts.problems ?? []).map((p) => c.yellow(p)));
  const problems: string[] = [
    ...report.invalid.map((i) => `invalid: ${i.file}:${i.line} ${i.kind}/${i.name}: ${i.error}`),
    ...(opts.skipped ?? []).map((s) => `skipped (not a plan input): ${s}`),
    ...Object.entries(opts.errors ?? {}).map(([k, e]) => `reconcile error: ${k}: ${e}`),
  ];
  if (problems.length > 0) out.push('', ...problems.map((p) => c.red(p)));
  return `${out.join('\n')}\n`;
}
