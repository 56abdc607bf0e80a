/**
 * The seeds, through the real CEL library: the demo deployment against the
 * three seed clusters, the Vultr model against vultr-demo, re-placement when
 * a cluster disappears, and an invalid selector with replicas running
 * (issue #5 "done when"). Inputs are the example folders' files, so these
 * tests and the golden renders read the same fixtures.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { ComposeRequest, ComposeResult, JsonObject, KubeObject } from '../../functions/lib/function.js';
import { compose } from '../../functions/schedule-model-deployment/compose.js';
import { withLedgers, withoutDashboard } from '../builders/scheduler.js';
import { repoRoot } from '../helpers/crd.js';

const examples = join(repoRoot, 'examples');
const load = (path: string): KubeObject[] =>
  parseAllDocuments(readFileSync(join(examples, path), 'utf8'))
    .map((d) => d.toJS() as KubeObject | null)
    .filter((d): d is KubeObject => d !== null);
const one = (path: string) => load(path)[0]!;

const DEMO_CEL = 'device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("20Gi")) >= 0\n';
const VULTR_CEL = 'device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("14Gi")) >= 0\n';
const REQS = {
  clusters: { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceCluster' },
  // Issue 17: this deployment's replicas only; others are charged from the clusters' ledgers.
  'own-replicas': { apiVersion: 'modelplane.ai/v1alpha1', kind: 'ModelReplica', matchLabels: { 'modelplane.ai/deployment': 'qwen-demo' }, namespace: 'default' },
  quotas: { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceQuota', matchLabels: {}, namespace: 'default' },
};
const READY = { conditions: [{ type: 'Ready', status: 'True', reason: 'Available' }] };

function request(xr: KubeObject, clusters: KubeObject[], replicas: KubeObject[] = [], observed: Record<string, KubeObject> = {}): ComposeRequest {
  return structuredClone({
    composite: xr,
    observed: Object.fromEntries(Object.entries(observed).map(([k, v]) => [k, { resource: v, connectionDetails: {} }])),
    desired: {},
    // The clusters as their function publishes them (with the ledgers of `replicas`), and the deployment's own replicas.
    required: { clusters: withLedgers(clusters, replicas), 'own-replicas': replicas },
    context: {},
    credentials: {},
  });
}

/** A demo replica, literal. */
function demoReplica(cluster: string, name: string, pool: string): KubeObject {
  return {
    apiVersion: 'modelplane.ai/v1alpha1',
    kind: 'ModelReplica',
    metadata: {
      name,
      namespace: 'default',
      labels: { 'modelplane.ai/deployment': 'qwen-demo', 'modelplane.ai/cluster': cluster, 'modelplane.ai/replica-index': '0' },
    },
    spec: {
      clusterName: cluster,
      engines: [
        {
          name: 'qwen',
          copies: 1,
          members: [
            {
              role: 'Standalone',
              nodePoolName: pool,
              template: {
                spec: { containers: [{ name: 'engine', image: 'vllm/vllm-openai:v0.23.0', args: ['--model=Qwen/Qwen2.5-0.5B-Instruct', '--dtype=half'] }] },
              },
              deviceRequests: [{ name: 'gpu', deviceClassName: 'gpu.nvidia.com', count: 1, selectors: [{ cel: DEMO_CEL }] }],
            },
          ],
        },
      ],
    },
  };
}

const placement = (cluster: string, name: string, pool: string, ready = false): JsonObject => ({
  replica: name,
  cluster,
  index: 0,
  ready,
  role: 'current',
  engines: [{ name: 'qwen', pool }],
});

/** Progressing when nothing is in motion (docs/design.md#make-before-break). */
const UP_TO_DATE = { type: 'Progressing', status: 'True', reason: 'ReplicasUpToDate', message: 'Every replica runs the current spec' } as const;

describe('the demo seed (flat form) against the three seed clusters', () => {
  const xr = one('demo-deployment/xr.yaml');
  const clusters = load('demo-deployment/required.yaml');

  it('places two replicas on two clusters, ties by name: eks-eu-central and eks-us-east', () => {
    expect(withoutDashboard(compose(request(xr, clusters)))).toEqual({
      resources: {
        'replica-eks-eu-central-0': { resource: demoReplica('eks-eu-central', 'qwen-demo-d88f9', 'gpu-l40s') },
        'replica-eks-us-east-0': { resource: demoReplica('eks-us-east', 'qwen-demo-92535', 'gpu-l4') },
      },
      status: {
        replicas: { total: 2, ready: 0, summary: '0/2' },
        placements: [placement('eks-eu-central', 'qwen-demo-d88f9', 'gpu-l40s'), placement('eks-us-east', 'qwen-demo-92535', 'gpu-l4')],
      },
      conditions: [
        { type: 'ReplicasScheduled', status: 'False', reason: 'Scheduling' },
        { type: 'ReplicasReady', status: 'False', reason: 'ModelStarting', message: '0 of 2 ready' },
        UP_TO_DATE,
      ],
      results: [{ severity: 'Normal', message: 'Scheduled 2 replicas across 2 clusters: eks-eu-central, eks-us-east' }],
      requirements: REQS,
    } satisfies ComposeResult);
  });

  it('with eks-eu-central gone, re-places its replica and keeps the other where it was, with the same name', () => {
    const running = {
      'replica-eks-eu-central-0': { ...demoReplica('eks-eu-central', 'qwen-demo-d88f9', 'gpu-l40s'), status: READY },
      'replica-eks-us-east-0': { ...demoReplica('eks-us-east', 'qwen-demo-92535', 'gpu-l4'), status: READY },
    };
    const remaining = clusters.filter((c) => c.metadata?.name !== 'eks-eu-central');
    expect(withoutDashboard(compose(request(xr, remaining, Object.values(running), running)))).toEqual({
      resources: {
        'replica-eks-us-east-0': { resource: demoReplica('eks-us-east', 'qwen-demo-92535', 'gpu-l4'), ready: true },
        'endpoint-eks-us-east-0': {
          resource: {
            apiVersion: 'modelplane.ai/v1alpha1',
            kind: 'ModelEndpoint',
            metadata: {
              name: 'qwen-demo-92535',
              namespace: 'default',
              labels: { 'modelplane.ai/deployment': 'qwen-demo', 'modelplane.ai/cluster': 'eks-us-east', 'modelplane.ai/replica-index': '0' },
            },
            spec: { rewritePath: '/default/qwen-demo-92535/', url: 'http://203.0.113.10/default/qwen-demo-92535/v1' },
          },
        },
        'replica-eks-us-west-0': { resource: demoReplica('eks-us-west', 'qwen-demo-7323a', 'gpu-l40s') },
      },
      status: {
        replicas: { total: 2, ready: 1, summary: '1/2' },
        placements: [placement('eks-us-east', 'qwen-demo-92535', 'gpu-l4', true), placement('eks-us-west', 'qwen-demo-7323a', 'gpu-l40s')],
      },
      conditions: [
        { type: 'ReplicasScheduled', status: 'True', reason: 'ReplicasCreated', message: 'Scheduled 2 of 2 replicas' },
        { type: 'ReplicasReady', status: 'False', reason: 'ModelStarting', message: '1 of 2 ready' },
        UP_TO_DATE,
      ],
      results: [],
      requirements: REQS,
    } satisfies ComposeResult);
  });
});

describe('the Vultr seed (template form) against vultr-demo', () => {
  const xr = one('vultr-deployment/xr.yaml');
  const clusters = load('vultr-deployment/required.yaml');

  it('places qwen-7b on vultr-demo / gpu-a16', () => {
    const out = compose(request(xr, clusters));
    expect(Object.keys(out.resources)).toEqual(['replica-vultr-demo-0', 'dashboard']);
    expect(out.resources['replica-vultr-demo-0']?.resource.metadata?.name).toBe('qwen-7b-bf743');
    expect(out.status).toEqual({
      replicas: { total: 1, ready: 0, summary: '0/1' },
      placements: [{ replica: 'qwen-7b-bf743', cluster: 'vultr-demo', index: 0, ready: false, role: 'current', engines: [{ name: 'qwen-7b', pool: 'gpu-a16' }] }],
    });
    expect(getDeviceRequests(out.resources['replica-vultr-demo-0']!.resource)).toEqual([
      { name: 'gpu', deviceClassName: 'gpu.nvidia.com', count: 1, selectors: [{ cel: VULTR_CEL }] },
    ]);
  });

  it('an invalid selector keeps the running replica, naming the field and the CEL error', () => {
    const placed = compose(request(xr, clusters)).resources['replica-vultr-demo-0']!.resource;
    const running = { ...placed, status: READY };
    const bad = structuredClone(xr);
    const member = ((bad['spec'] as JsonObject)['template'] as { spec: { engines: { members: JsonObject[] }[] } }).spec.engines[0]!.members[0]!;
    (member['nodeSelector'] as { devices: { selectors: { cel: string }[] }[] }).devices[0]!.selectors[0]!.cel = 'device.capacity["gpu.nvidia.com"].memory >= ';
    const out = compose(request(bad, clusters, [running], { 'replica-vultr-demo-0': running }));
    expect(out.resources).toEqual({ 'replica-vultr-demo-0': { resource: placed, ready: true } });
    expect(out.ready).toBe(false);
    expect(out.conditions[0]?.type).toBe('ReplicasScheduled');
    expect(out.conditions[0]?.status).toBe('False');
    expect(out.conditions[0]?.reason).toBe('InvalidNodeSelector');
    expect(out.conditions[0]?.message).toMatch(
      /^Invalid nodeSelector CEL expression: spec\.template\.spec\.engines\[0\]\.members\[0\]\.nodeSelector\.devices\[0\]\.selectors\[0\]\.cel: \S/,
    );
    expect(out.results).toEqual([{ severity: 'Warning', message: out.conditions[0]?.message }]);
  });
});

function getDeviceRequests(replica: KubeObject): unknown {
  return ((replica['spec'] as { engines: { members: JsonObject[] }[] }).engines[0]!.members[0]! as JsonObject)['deviceRequests'];
}
