/**
 * Issue 16, done when: `modelplane plan` on the fleet demo (examples/quickstart)
 * with a second engine added to qwen-demo, on a fleet where the new shape fits
 * nowhere, keeps both running replicas and says RolloutBlocked; once a cluster
 * with room is added, the new shape is placed there and the old replicas
 * retire. And examples/gpu-packing: 8 single-GPU replicas per 8-GPU node,
 * spread first across clusters.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { REPO_ROOT } from '../../cli/functions.js';
import { plan, type PlanResult } from '../../cli/plan/planner.js';
import { buildReport, type PlanReport } from '../../cli/plan/report.js';
import type { JsonObject, KubeObject } from '../../functions/lib/function.js';

const QUICKSTART = join(REPO_ROOT, 'examples/quickstart');

/** qwen-demo as the quickstart writes it, with a second engine `draft` (one more GPU per replica). */
function twoEngineDemo(dir: string): string {
  const docs = parseAllDocuments(readFileSync(join(QUICKSTART, 'inference.yaml'), 'utf8')).map((d) => d.toJS() as KubeObject);
  const dep = docs.find((d) => d.kind === 'ModelDeployment')!;
  const engines = (dep['spec'] as { engines: JsonObject[] }).engines;
  engines.push({ ...structuredClone(engines[0]!), name: 'draft' });
  const file = join(dir, 'inference.yaml');
  writeFileSync(file, stringify(dep));
  return file;
}

/** A fourth EKS cluster with room for the new shape: 4 one-GPU nodes. */
function roomyCluster(dir: string): string {
  const file = join(dir, 'cluster.yaml');
  writeFileSync(
    file,
    stringify({
      apiVersion: 'modelplane.ai/v1alpha1',
      kind: 'InferenceCluster',
      metadata: { name: 'eks-ap-south', labels: { 'modelplane.ai/region': 'ap-south' } },
      spec: {
        cluster: { source: 'EKS', eks: { region: 'ap-south-1' } },
        nodePools: [{ name: 'gpu-l4', className: 'l4-1x-g6', nodeCount: 4, minNodeCount: 4, maxNodeCount: 4, zones: ['ap-south-1a'] }],
      },
    }),
  );
  return file;
}

function placements(result: PlanResult): { cluster: string; role: string; engines: number; ready: boolean }[] {
  const xr = result.store.all().find((o) => o.kind === 'ModelDeployment' && o.metadata?.name === 'qwen-demo')!;
  return ((xr['status'] as JsonObject)['placements'] as JsonObject[]).map((p) => ({
    cluster: String(p['cluster']),
    role: String(p['role']),
    engines: (p['engines'] as unknown[]).length,
    ready: p['ready'] === true,
  }));
}

describe('plan: a second engine added to qwen-demo (examples/quickstart)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mp-rollout-'));
    mkdirSync(join(dir, 'edit'));
    mkdirSync(join(dir, 'add'));
  });

  it('on a fleet where the new shape fits nowhere, keeps both running replicas and says RolloutBlocked', async () => {
    const result = await plan([QUICKSTART], { changes: [[twoEngineDemo(join(dir, 'edit'))]] });
    const report = buildReport(result);
    expect(report.converged).toBe(true);
    expect(placements(result)).toEqual([
      { cluster: 'eks-eu-central', role: 'retiring', engines: 1, ready: true },
      { cluster: 'eks-us-east', role: 'retiring', engines: 1, ready: true },
    ]);
    const [d] = report.deployments;
    // eks-eu-central and eks-us-east are held by the old replicas; on eks-us-west the first engine takes the only GPU.
    const why =
      '0 of 2 replicas scheduled; 3 clusters: 2 pool gpu-l40s: needs 1 gpu on one node, 0 free, 1 pool gpu-l4: needs 1 gpu on one node, 0 free';
    expect(d?.conditions.find((c) => c.type === 'Progressing')).toEqual({
      type: 'Progressing',
      status: 'False',
      reason: 'RolloutBlocked',
      message: `Rollout held: keeping 2 replicas of the previous spec running; ${why}`,
    });
    expect(d?.conditions.find((c) => c.type === 'ReplicasScheduled')?.reason).toBe('InsufficientCapacity');
    // Both keep serving: service qwen still routes to two endpoints.
    expect(report.services[0]?.endpoints).toHaveLength(2);
  });

  it('places the new shape once a cluster with room is added, then retires the old replicas', async () => {
    const result = await plan([QUICKSTART], { changes: [[twoEngineDemo(join(dir, 'edit'))], [roomyCluster(join(dir, 'add'))]], rounds: 40 });
    const report = buildReport(result);
    expect(report.converged).toBe(true);
    expect(placements(result)).toEqual([
      { cluster: 'eks-ap-south', role: 'current', engines: 2, ready: true },
      { cluster: 'eks-ap-south', role: 'current', engines: 2, ready: true },
    ]);
    const [d] = report.deployments;
    expect(d?.conditions.find((c) => c.type === 'Progressing')?.reason).toBe('ReplicasUpToDate');
    expect(d?.conditions.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(report.clusters.find((c) => c.name === 'eks-ap-south')?.pools.map((p) => [p.usedNodes, p.usedDevices])).toEqual([[4, 4]]);
    expect(report.services[0]?.endpoints).toHaveLength(2);
  });
});

describe('plan examples/gpu-packing (8-GPU nodes)', () => {
  let report: PlanReport;
  beforeAll(async () => {
    report = buildReport(await plan([join(REPO_ROOT, 'examples/gpu-packing')]));
  });

  it('hosts 8 single-GPU replicas on each 8-GPU node, spread first across the two clusters', () => {
    expect(report.converged).toBe(true);
    const [d] = report.deployments;
    expect([d?.scheduledReplicas, d?.readyReplicas]).toEqual([16, 16]);
    const per = new Map<string, number>();
    for (const r of d?.replicas ?? []) per.set(r.cluster, (per.get(r.cluster) ?? 0) + 1);
    expect(Object.fromEntries(per)).toEqual({ 'eks-us-east': 8, 'eks-us-west': 8 });
    expect(report.clusters.map((c) => [c.name, c.pools.map((p) => [p.nodes, p.usedNodes, p.usedDevices])])).toEqual([
      ['eks-us-east', [[1, 1, 8]]],
      ['eks-us-west', [[1, 1, 8]]],
    ]);
  });
});
