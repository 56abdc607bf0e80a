/**
 * `modelplane plan` on real input: the bundled quickstart (the demo seeds), the
 * Vultr seeds unchanged, bad input, and a deployment that cannot fit.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../cli/functions.js';
import { writeComposed } from '../../cli/plan.js';
import { plan, type PlanResult } from '../../cli/plan/planner.js';
import { buildReport, type PlanReport } from '../../cli/plan/report.js';

const SEEDS = join(REPO_ROOT, '..', 'shared', 'corpus', 'seeds');

describe('plan examples/quickstart (the demo seeds)', () => {
  let result: PlanResult;
  let report: PlanReport;
  beforeAll(async () => {
    result = await plan([join(REPO_ROOT, 'examples/quickstart')]);
    report = buildReport(result);
  });

  it('converges with nothing invalid', () => {
    expect(report.converged).toBe(true);
    expect(report.invalid).toEqual([]);
    expect(result.skipped).toEqual([]);
    expect(result.errors).toEqual({});
  });

  it('brings the three EKS clusters up Ready, each with one node in its GPU pool', () => {
    expect(report.clusters.map((c) => [c.name, c.source, c.ready, c.pools.map((p) => [p.name, p.className, p.nodes])])).toEqual([
      ['eks-eu-central', 'EKS', true, [['gpu-l40s', 'l40s-1x-g6e', 1]]],
      ['eks-us-east', 'EKS', true, [['gpu-l4', 'l4-1x-g6', 1]]],
      ['eks-us-west', 'EKS', true, [['gpu-l40s', 'l4-1x-g6', 1]]],
    ]);
    for (const c of report.clusters) expect(c.gatewayAddress).toMatch(/^198\.51\.100\.\d+$/);
  });

  it('spreads qwen-demo over eks-eu-central and eks-us-east; eks-us-west gets none', () => {
    const [d] = report.deployments;
    expect([d?.namespace, d?.name, d?.desiredReplicas, d?.scheduledReplicas]).toEqual(['default', 'qwen-demo', 2, 2]);
    expect(d?.replicas.map((r) => [r.cluster, r.phase]).sort()).toEqual([
      ['eks-eu-central', 'Serving'],
      ['eks-us-east', 'Serving'],
    ]);
    expect(d?.readyReplicas).toBe(2);
    expect(report.clusters.map((c) => c.pools.map((p) => p.usedNodes))).toEqual([[1], [1], [0]]);
  });

  it('gives service qwen an address on the gateway, routing to both replicas', () => {
    const [s] = report.services;
    expect([s?.namespace, s?.name]).toEqual(['default', 'qwen']);
    expect(s?.address).toMatch(/^http:\/\/[0-9.]+\/default\/qwen$/);
    expect(s?.endpoints).toHaveLength(2);
  });

  it('writes every composed object, one file each, in a folder per XR', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mp-write-'));
    const n = writeComposed(join(dir, 'out'), result.store.all());
    const total = Object.values(report.resources).reduce((a, b) => a + b, 0);
    expect(n).toBe(total);
    const files = readdirSync(join(dir, 'out'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith('.yaml'));
    expect(files).toHaveLength(n);
    expect(readdirSync(join(dir, 'out'))).toContain('inferencecluster-eks-us-east');
    // A second --write to the same directory replaces it; a directory of yours is never touched.
    expect(writeComposed(join(dir, 'out'), result.store.all())).toBe(n);
    const mine = join(dir, 'mine');
    mkdirSync(mine);
    writeFileSync(join(mine, 'notes.txt'), 'keep me');
    expect(() => writeComposed(mine, result.store.all())).toThrow(
      `--write ${mine}: the directory is not empty and was not written by modelplane plan; choose an empty or new directory`,
    );
    expect(readFileSync(join(mine, 'notes.txt'), 'utf8')).toBe('keep me');
  });
});

describe('plan --together (a deployment arriving while the clusters come up)', () => {
  it('still converges and places both replicas once the clusters are Ready', async () => {
    const report = buildReport(await plan([join(REPO_ROOT, 'examples/quickstart')], { together: true }));
    expect(report.converged).toBe(true);
    expect(report.deployments[0]?.replicas.map((r) => r.cluster).sort()).toEqual(['eks-eu-central', 'eks-us-east']);
  });
});

describe('plan ../shared/corpus/seeds/vultr (unchanged)', () => {
  let report: PlanReport;
  beforeAll(async () => {
    report = buildReport(await plan([join(SEEDS, 'vultr')]));
  });

  it('converges, places qwen-7b on vultr-demo / gpu-a16 and addresses service qwen-7b', () => {
    expect(report.converged).toBe(true);
    expect(report.invalid).toEqual([]);
    const [d] = report.deployments;
    expect(d?.replicas.map((r) => [r.cluster, r.phase, r.engines.flatMap((e) => e.members.map((m) => m.pool))])).toEqual([
      ['vultr-demo', 'Serving', ['gpu-a16']],
    ]);
    expect(report.services[0]?.address).toBe('http://172.18.255.200/ml-team/qwen-7b');
  });
});

describe('plan: bad input and unplaceable deployments', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mp-plan-'));
  beforeAll(() => {
    writeFileSync(
      join(dir, 'extra.yaml'),
      [
        'apiVersion: modelplane.ai/v1alpha1',
        'kind: ModelService',
        'metadata: {name: broken, namespace: default}',
        'spec:',
        '  endpoints:',
        '  - {weight: 0, selector: {matchLabels: {a: b}}}',
        '---',
        'apiVersion: example.org/v1',
        'kind: Widget',
        'metadata: {name: w}',
        '---',
        'apiVersion: modelplane.ai/v1alpha1',
        'kind: ModelDeployment',
        'metadata: {name: huge, namespace: default}',
        'spec:',
        '  replicas: 5',
        '  engines:',
        '  - name: big',
        '    members:',
        '    - role: Standalone',
        '      nodeSelector:',
        '        devices:',
        '        - name: gpu',
        '          selectors:',
        '          - cel: device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("40Gi")) >= 0',
        '      template:',
        '        spec:',
        '          containers:',
        '          - name: engine',
        '            image: vllm/vllm-openai:latest',
        '',
      ].join('\n'),
    );
  });

  it('reports an invalid XR as file:line kind/name: field: problem, skips unknown kinds, and explains what did not fit', async () => {
    const result = await plan([join(REPO_ROOT, 'examples/quickstart'), join(dir, 'extra.yaml')]);
    const report = buildReport(result);
    expect(report.invalid).toEqual([
      {
        file: join(dir, 'extra.yaml'),
        line: 1,
        kind: 'ModelService',
        name: 'default/broken',
        error: 'spec.endpoints[0].weight: Invalid value: 0: spec.endpoints[0].weight in body should be greater than or equal to 1',
      },
    ]);
    expect(result.skipped).toEqual([`${join(dir, 'extra.yaml')}:8 example.org/v1/Widget w`]);
    const huge = report.deployments.find((d) => d.name === 'huge');
    expect(huge?.desiredReplicas).toBe(5);
    expect(huge?.scheduledReplicas).toBeLessThan(5);
    const why = huge?.conditions.find((c) => c.type === 'ReplicasScheduled');
    expect(why?.status).toBe('False');
    expect(huge?.scheduledReplicas).toBe(1);
    expect(why?.message).toBe(
      '1 of 5 replicas scheduled; 3 clusters: 2 no pool matches engine "big" (gpu: no device satisfies selectors[0]), 1 pool gpu-l40s: needs 1 gpu on one node, 0 free',
    );
  });

  it('is deterministic: the same inputs give the same report', async () => {
    const a = JSON.stringify(buildReport(await plan([join(SEEDS, 'vultr')])));
    const b = JSON.stringify(buildReport(await plan([join(SEEDS, 'vultr')])));
    expect(a).toBe(b);
  });
});
