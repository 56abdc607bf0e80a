/**
 * `modelplane plan --check-survivable` (docs/failover.md#what-if): for every
 * InferenceCluster of the fleet, the plan once more with that one cluster
 * lost (plan.ts `lose`), and whether every deployment is still fully placed
 * and Ready, and every service Ready, once its `failover.after` has passed:
 * N+1, answered before an outage.
 *
 * Guarantees: one plan per cluster, in cluster-name order, each from the same
 * inputs (deterministic: the same fleet gives the same answer, byte for
 * byte); a deployment already short before any loss is reported in
 * `baseline`, and counts against every loss (it is not fully placed after it
 * either).
 */
import Table from 'cli-table3';
import { plan, type PlanOptions } from './planner.js';
import { buildReport, type PlanReport } from './report.js';

/** A deployment or service a loss leaves short. */
export interface Casualty {
  kind: 'ModelDeployment' | 'ModelService';
  namespace: string;
  name: string;
  /** Ready replicas of desired (`1/2`), for a deployment; null for a service. */
  ready: string | null;
  /** Why, from its conditions (FailoverBlocked, ReplicasScheduled, RoutingReady…). */
  why: string;
}

/** The answer for one lost cluster. */
export interface ClusterSurvival {
  cluster: string;
  survivable: boolean;
  /** What is short after the loss, sorted by kind, namespace, name. */
  short: Casualty[];
}

/** The whole answer (`-o json|yaml` prints it as is). */
export interface SurvivalReport {
  /** Every single-cluster loss is survivable. */
  survivable: boolean;
  /** The plan's problems before any loss (its own exit-4 list). */
  baseline: string[];
  clusters: ClusterSurvival[];
  /** Inputs left out as invalid (exit 1 when any). */
  invalid: number;
}

/** What is short in a finished plan: deployments not Ready at their replica count, services not Ready. */
export function casualties(report: PlanReport): Casualty[] {
  const out: Casualty[] = [];
  for (const d of report.deployments) {
    if (d.readyReplicas >= d.desiredReplicas) continue;
    const said =
      d.conditions.find((c) => c.type === 'Progressing' && c.status === 'False') ??
      d.conditions.find((c) => c.type === 'ReplicasScheduled' && c.status === 'False') ??
      d.conditions.find((c) => c.type === 'ReplicasReady' && c.status === 'False');
    out.push({ kind: 'ModelDeployment', namespace: d.namespace, name: d.name, ready: `${d.readyReplicas}/${d.desiredReplicas}`, why: said ? `${said.reason}: ${said.message}` : 'not Ready' });
  }
  for (const s of report.services) {
    if (s.ready) continue;
    const said = s.conditions.find((c) => c.status === 'False' && c.type !== 'Ready' && c.type !== 'Synced') ?? s.conditions.find((c) => c.type === 'Ready');
    out.push({ kind: 'ModelService', namespace: s.namespace, name: s.name, ready: null, why: said ? `${said.reason}: ${said.message}` : 'not Ready' });
  }
  return out;
}

/** Plans `paths` once as they are and once per cluster with that cluster lost. */
export async function checkSurvivable(paths: string[], opts: PlanOptions): Promise<SurvivalReport> {
  const base = await plan(paths, opts);
  const baseReport = buildReport(base);
  const clusters: ClusterSurvival[] = [];
  for (const c of baseReport.clusters) {
    const lost = await plan(paths, { ...opts, lose: [c.name] });
    const short = casualties(buildReport(lost));
    clusters.push({ cluster: c.name, survivable: short.length === 0 && lost.converged, short });
  }
  return { survivable: clusters.every((c) => c.survivable), baseline: baseReport.problems, clusters, invalid: base.invalid.length };
}

/** The text answer: one row per cluster, then what each loss leaves short and why. */
export function formatSurvival(s: SurvivalReport): string {
  const t = new Table({
    head: ['LOST CLUSTER', 'SURVIVABLE', 'SHORT AFTER THE LOSS'],
    style: { head: [], border: [], compact: true },
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  for (const c of s.clusters) t.push([c.cluster, c.survivable ? 'yes' : 'no', c.short.map((x) => `${x.kind} ${x.namespace}/${x.name}${x.ready ? ` (${x.ready} Ready)` : ''}`).join(', ') || '-']);
  const out = [`Survivable: ${s.survivable ? 'yes, every single-cluster loss (N+1)' : 'no'}`, ''];
  if (s.baseline.length > 0) out.push('Before any loss:', ...s.baseline.map((p) => `  problem: ${p}`), '');
  out.push(t.toString());
  for (const c of s.clusters) for (const x of c.short) out.push(`  without ${c.cluster}: ${x.kind} ${x.namespace}/${x.name}: ${x.why}`);
  out.push('', 'Each loss: the cluster stops answering once the plan converged, and the fleet is shown once its failover.after has passed (docs/failover.md).');
  return `${out.join('\n')}\n`;
}
