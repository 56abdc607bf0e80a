/**
 * schedule-model-deployment end to end, the reference's acceptance cases
 * (docs/kinds/modeldeployment.md): whole-response
 * table tests (resources, status, readiness, conditions, results,
 * requirements) over fresh requests. Fixtures: deployment `my-model` in
 * `ml-team`, 1 replica, engine `main` with one Standalone member requesting
 * `gpu` with `device.driver == "gpu.nvidia.com"`; cluster-a Ready with gateway
 * 10.0.0.1 and pool `default` of 2 nodes with one DRA gpu.
 *
 * Where a section of docs/design.md changes an outcome, the case says which.
 */
import { describe, expect, it } from 'vitest';
import type { ComposeRequest, ComposeResult, JsonObject, KubeObject } from '../../functions/lib/function.js';
import { compose } from '../../functions/schedule-model-deployment/compose.js';
import { MSG_WAITING_FLEET } from '../../functions/schedule-model-deployment/status.js';
import { cluster, deployment, engine, member, pool, replica, req, request, sel, template, withoutDashboard } from '../builders/scheduler.js';

const DRIVER_SEL = sel.driver('gpu.nvidia.com');
const gpu = () => [req('gpu', [DRIVER_SEL])];
const eng = (name = 'main', opts: { phase?: string } = {}, args?: string[]) =>
  engine(name, [{ ...member('Standalone', { devices: gpu() }), template: template(args) }], opts);
const dep = (opts: Parameters<typeof deployment>[0] = {}) => deployment({ engines: [eng()], ...opts });
const clusterA = () => cluster('cluster-a', { pools: [pool('default')] });
const clusterB = () => cluster('cluster-b', { gateway: '10.0.0.2' });

const LABELS = (c: string, i: number, extra: Record<string, string> = {}) => ({
  ...extra,
  'modelplane.ai/deployment': 'my-model',
  'modelplane.ai/cluster': c,
  'modelplane.ai/replica-index': String(i),
});

/** The composed replica, literal (never built with production code). */
function wantReplica(c: string, i: number, name: string, opts: { labels?: Record<string, string>; engines?: JsonObject[]; spec?: JsonObject } = {}): KubeObject {
  return {
    apiVersion: 'modelplane.ai/v1alpha1',
    kind: 'ModelReplica',
    metadata: { name, namespace: 'ml-team', labels: LABELS(c, i, opts.labels) },
    spec: {
      clusterName: c,
      engines: opts.engines ?? [wantEngine()],
      ...(opts.spec ?? {}),
    },
  };
}

function wantEngine(name = 'main', extra: JsonObject = {}, args: string[] | null = ['--model=Qwen/Qwen3-0.6B']): JsonObject {
  const container: JsonObject = { name: 'engine', image: 'vllm/vllm-openai:latest' };
  if (args) container['args'] = args;
  return {
    name,
    copies: 1,
    ...extra,
    members: [
      {
        role: 'Standalone',
        nodePoolName: 'default',
        template: { spec: { containers: [container] } },
        deviceRequests: [{ name: 'gpu', deviceClassName: 'gpu.nvidia.com', count: 1, selectors: [{ cel: DRIVER_SEL }] }],
      },
    ],
  };
}

function wantEndpoint(c: string, i: number, name: string, gateway = '10.0.0.1', labels: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'modelplane.ai/v1alpha1',
    kind: 'ModelEndpoint',
    metadata: { name, namespace: 'ml-team', labels: LABELS(c, i, labels) },
    spec: { rewritePath: `/ml-team/${name}/`, url: `http://${gateway}/ml-team/${name}/v1` },
  };
}

const placement = (c: string, i: number, name: string, ready = false) => ({
  replica: name,
  cluster: c,
  index: i,
  ready,
  role: 'current',
  engines: [{ name: 'main', pool: 'default' }],
});

/** Progressing when nothing is in motion (docs/design.md#make-before-break). */
const UP_TO_DATE = { type: 'Progressing', status: 'True', reason: 'ReplicasUpToDate', message: 'Every replica runs the current spec' } as const;

const REQS = {
  clusters: { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceCluster' },
  // Issue 17: this deployment's replicas only; others are charged from the clusters' ledgers.
  'own-replicas': { apiVersion: 'modelplane.ai/v1alpha1', kind: 'ModelReplica', matchLabels: { 'modelplane.ai/deployment': 'my-model' }, namespace: 'ml-team' },
  quotas: { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceQuota', matchLabels: {}, namespace: 'ml-team' },
};
const CACHE_REQ = { cache: { apiVersion: 'modelplane.ai/v1alpha1', kind: 'ModelCache', matchName: 'qwen', namespace: 'ml-team' } };
const cache = (labels?: Record<string, string>): KubeObject => ({
  apiVersion: 'modelplane.ai/v1alpha1',
  kind: 'ModelCache',
  metadata: { name: 'qwen', namespace: 'ml-team' },
  spec: { source: 'HuggingFace', huggingFace: { repo: 'Qwen/Qwen3-0.6B', sizeGiB: 20 }, ...(labels ? { clusterSelector: { matchLabels: labels } } : {}) },
  // New replicas go only where the cache is staged (schedule-model-deployment/cache.ts).
  status: { summary: { ready: '1/1' }, clusters: [{ name: 'cluster-a', phase: 'Ready' }] },
});

const existing = (ready: boolean) => replica('cluster-a', 0, { name: 'my-model-5ab63', ready });
const withFleet = (xr: KubeObject, clusters: KubeObject[], replicas: KubeObject[] = [], observed: Record<string, KubeObject> = {}, more: Record<string, KubeObject[]> = {}) =>
  request(xr, { observed, required: { clusters, 'all-replicas': replicas, ...more } });
const readyEndpoint = (): KubeObject => ({ ...wantEndpoint('cluster-a', 0, 'my-model-5ab63'), status: { conditions: [{ type: 'Ready', status: 'True' }] } });

interface Case {
  name: string;
  reason: string;
  req: () => ComposeRequest;
  want: ComposeResult;
}

const cases: Case[] = [
  {
    name: 'fresh',
    reason: 'nothing observed: one replica, no endpoint, Scheduling, and the event',
    req: () => withFleet(dep(), [clusterA()]),
    want: {
      resources: { 'replica-cluster-a-0': { resource: wantReplica('cluster-a', 0, 'my-model-5ab63') } },
      status: { replicas: { total: 1, ready: 0, summary: '0/1' }, placements: [placement('cluster-a', 0, 'my-model-5ab63')] },
      conditions: [
        { type: 'ReplicasScheduled', status: 'False', reason: 'Scheduling' },
        { type: 'ReplicasReady', status: 'False', reason: 'ModelStarting', message: '0 of 1 ready' },
        UP_TO_DATE,
      ],
      results: [{ severity: 'Normal', message: 'Scheduled 1 replicas across 1 clusters: cluster-a' }],
      requirements: REQS,
    },
  },
  {
    name: 'not-ready-withdraws-endpoint',
    reason: 'an observed replica that is not Ready is re-emitted; its observed endpoint is withdrawn',
    req: () => withFleet(dep(), [clusterA()], [existing(false)], { 'replica-cluster-a-0': existing(false), 'endpoint-cluster-a-0': readyEndpoint() }),
    want: {
      resources: { 'replica-cluster-a-0': { resource: wantReplica('cluster-a', 0, 'my-model-5ab63') } },
      status: { replicas: { total: 1, ready: 0, summary: '0/1' }, placements: [placement('cluster-a', 0, 'my-model-5ab63')] },
      conditions: [
        { type: 'ReplicasScheduled', status: 'True', reason: 'ReplicasCreated', message: 'Scheduled 1 of 1 replicas' },
        { type: 'ReplicasReady', status: 'False', reason: 'ModelStarting', message: '0 of 1 ready' },
        UP_TO_DATE,
      ],
      results: [],
      requirements: REQS,
    },
  },
  {
    name: 'zero-clusters',
    reason: 'NoClusters and its Warning; status and ReplicasReady describe the (no) kept children (docs/design.md#keep-what-exists), XR not ready',
    req: () => withFleet(dep(), []),
    want: {
      resources: {},
      status: { replicas: { total: 0, ready: 0, summary: '0/1' }, placements: [] },
      ready: false,
      conditions: [
        { type: 'ReplicasScheduled', status: 'False', reason: 'NoClusters' },
        { type: 'ReplicasReady', status: 'False', reason: 'NoReplicasScheduled' },
      ],
      results: [{ severity: 'Warning', message: 'No InferenceClusters found' }],
      requirements: REQS,
    },
  },
  {
    name: 'pool-0-nodes',
    reason: 'nothing fits: InsufficientCapacity explained per cluster (docs/design.md#explained-placement), XR not ready',
    req: () => withFleet(dep(), [cluster('cluster-a', { pools: [pool('default', { nodes: 0 })] })]),
    want: {
      resources: {},
      status: { replicas: { total: 0, ready: 0, summary: '0/1' }, placements: [] },
      ready: false,
      conditions: [
        {
          type: 'ReplicasScheduled',
          status: 'False',
          reason: 'InsufficientCapacity',
          message: '0 of 1 replicas scheduled; 1 cluster: 1 pool default: needs 1 gpu on one node, 0 free',
        },
        { type: 'ReplicasReady', status: 'False', reason: 'NoReplicasScheduled' },
        UP_TO_DATE,
      ],
      results: [],
      requirements: REQS,
    },
  },
  {
    name: 'ready-replica-gets-endpoint',
    reason: 'a Ready replica is marked ready and gets its endpoint (not ready until observed Ready)',
    req: () => withFleet(dep(), [clusterA()], [existing(true)], { 'replica-cluster-a-0': existing(true) }),
    want: {
      resources: {
        'replica-cluster-a-0': { resource: wantReplica('cluster-a', 0, 'my-model-5ab63'), ready: true },
        'endpoint-cluster-a-0': { resource: wantEndpoint('cluster-a', 0, 'my-model-5ab63') },
      },
      status: { replicas: { total: 1, ready: 1, summary: '1/1' }, placements: [placement('cluster-a', 0, 'my-model-5ab63', true)] },
      conditions: [
        { type: 'ReplicasScheduled', status: 'True', reason: 'ReplicasCreated', message: 'Scheduled 1 of 1 replicas' },
        { type: 'ReplicasReady', status: 'True', reason: 'AllReplicasReady', message: '1 of 1 ready' },
        UP_TO_DATE,
      ],
      results: [],
      requirements: REQS,
    },
  },
  {
    name: 'endpoint-observed-ready',
    reason: 'an endpoint observed Ready is marked ready',
    req: () => withFleet(dep(), [clusterA()], [existing(true)], { 'replica-cluster-a-0': existing(true), 'endpoint-cluster-a-0': readyEndpoint() }),
    want: {
      resources: {
        'replica-cluster-a-0': { resource: wantReplica('cluster-a', 0, 'my-model-5ab63'), ready: true },
        'endpoint-cluster-a-0': { resource: wantEndpoint('cluster-a', 0, 'my-model-5ab63'), ready: true },
      },
      status: { replicas: { total: 1, ready: 1, summary: '1/1' }, placements: [placement('cluster-a', 0, 'my-model-5ab63', true)] },
      conditions: [
        { type: 'ReplicasScheduled', status: 'True', reason: 'ReplicasCreated', message: 'Scheduled 1 of 1 replicas' },
        { type: 'ReplicasReady', status: 'True', reason: 'AllReplicasReady', message: '1 of 1 ready' },
        UP_TO_DATE,
      ],
      results: [],
      requirements: REQS,
    },
  },
  {
    name: 'pinned-degraded',
    reason: 'the pinned cluster is not Ready and has no gateway: replica retained, no endpoint',
    req: () =>
      withFleet(dep(), [cluster('cluster-a', { ready: false, gateway: null })], [existing(false)], { 'replica-cluster-a-0': existing(false) }),
    want: {
      resources: { 'replica-cluster-a-0': { resource: wantReplica('cluster-a', 0, 'my-model-5ab63') } },
      status: { replicas: { total: 1, ready: 0, summary: '0/1' }, placements: [placement('cluster-a', 0, 'my-model-5ab63')] },
      conditions: [
        { type: 'ReplicasScheduled', status: 'True', reason: 'ReplicasCreated', message: 'Scheduled 1 of 1 replicas' },
        { type: 'ReplicasReady', status: 'False', reason: 'ModelStarting', message: '0 of 1 ready' },
        UP_TO_DATE,
      ],
      results: [],
      requirements: REQS,
    },
  },
  {
    name: 'pinned-deleted',
    reason: 'the pinned cluster is gone: a new replica on cluster-b, named for it',
    req: () => withFleet(dep(), [clusterB()], [existing(true)], { 'replica-cluster-a-0': existing(true) }),
    want: {
      resources: { 'replica-cluster-b-0': { resource: wantReplica('cluster-b', 0, 'my-model-f0b76') } },
      status: { replicas: { total: 1, ready: 0, summary: '0/1' }, placements: [placement('cluster-b', 0, 'my-model-f0b76')] },
      conditions: [
        { type: 'ReplicasScheduled', status: 'False', reason: 'Scheduling' },
        { type: 'ReplicasReady', status: 'False', reason: 'ModelStarting', message: '0 of 1 ready' },
        UP_TO_DATE,
      ],
      results: [{ severity: 'Normal', message: 'Scheduled 1 replicas across 1 clusters: cluster-b' }],
      requirements: REQS,
    },
  },
  {
    name: 'cache-present',
    reason: 'a resolved cache is referenced by the replica; ModelCacheResolved comes first',
    req: () => withFleet(dep({ cache: 'qwen' }), [clusterA()], [], {}, { cache: [cache()] }),
    want: {
      resources: { 'replica-cluster-a-0': { resource: wantReplica('cluster-a', 0, 'my-model-5ab63', { spec: { modelCacheRef: { name: 'qwen' } } }) } },
      status: { replicas: { total: 1, ready: 0, summary: '0/1' }, placements: [placement('cluster-a', 0, 'my-model-5ab63')] },
      conditions: [
        { type: 'ModelCacheResolved', status: 'True', reason: 'ModelCacheResolved' },
        { type: 'ReplicasScheduled', status: 'False', reason: 'Scheduling' },
        { type: 'ReplicasReady', status: 'False', reason: 'ModelStarting', message: '0 of 1 ready' },
        UP_TO_DATE,
      ],
      results: [{ severity: 'Normal', message: 'Scheduled 1 replicas across 1 clusters: cluster-a' }],
      requirements: { ...CACHE_REQ, ...REQS },
    },
  },
  {
    name: 'selector-merge',
    reason: "the clusters requirement merges the deployment's and the cache's selectors",
    req: () => withFleet(dep({ cache: 'qwen', clusterSelector: { region: 'us-east' } }), [], [], {}, { cache: [cache({ tier: 'gpu' })] }),
    want: {
      resources: {},
      status: { replicas: { total: 0, ready: 0, summary: '0/1' }, placements: [] },
      ready: false,
      conditions: [
        { type: 'ModelCacheResolved', status: 'True', reason: 'ModelCacheResolved' },
        { type: 'ReplicasScheduled', status: 'False', reason: 'NoClusters' },
        { type: 'ReplicasReady', status: 'False', reason: 'NoReplicasScheduled' },
      ],
      results: [{ severity: 'Warning', message: 'No InferenceClusters found' }],
      requirements: { ...CACHE_REQ, ...REQS, clusters: { ...REQS.clusters, matchLabels: { region: 'us-east', tier: 'gpu' } } },
    },
  },
  {
    name: 'cache-unresolved',
    reason: 'the cache is not fetched yet: retain only, nothing new, no event',
    req: () => withFleet(dep({ cache: 'qwen' }), [clusterA()]),
    want: {
      resources: {},
      status: { replicas: { total: 0, ready: 0, summary: '0/1' }, placements: [] },
      ready: false,
      conditions: [
        { type: 'ModelCacheResolved', status: 'False', reason: 'ModelCacheUnresolved', message: 'Waiting for ModelCache qwen' },
        { type: 'ReplicasScheduled', status: 'False', reason: 'InsufficientCapacity', message: '0 of 1 replicas scheduled; Waiting for ModelCache qwen' },
        { type: 'ReplicasReady', status: 'False', reason: 'NoReplicasScheduled' },
        UP_TO_DATE,
      ],
      results: [],
      requirements: { ...CACHE_REQ, ...REQS },
    },
  },
  {
    name: 'cache-deleted-holds',
    reason: 'the cache is gone: the Ready replica is held with its endpoint, and a Warning',
    req: () => withFleet(dep({ cache: 'qwen' }), [clusterA()], [existing(true)], { 'replica-cluster-a-0': existing(true) }, { cache: [] }),
    want: {
      resources: {
        'replica-cluster-a-0': { resource: wantReplica('cluster-a', 0, 'my-model-5ab63', { spec: { modelCacheRef: { name: 'qwen' } } }), ready: true },
        'endpoint-cluster-a-0': { resource: wantEndpoint('cluster-a', 0, 'my-model-5ab63') },
      },
      status: { replicas: { total: 1, ready: 1, summary: '1/1' }, placements: [placement('cluster-a', 0, 'my-model-5ab63', true)] },
      conditions: [
        { type: 'ModelCacheResolved', status: 'False', reason: 'ModelCacheNotFound', message: 'ModelCache qwen not found; holding replica placement' },
        { type: 'ReplicasScheduled', status: 'True', reason: 'ReplicasCreated', message: 'Scheduled 1 of 1 replicas' },
        { type: 'ReplicasReady', status: 'True', reason: 'AllReplicasReady', message: '1 of 1 ready' },
        UP_TO_DATE,
      ],
      results: [{ severity: 'Warning', message: 'ModelCache qwen not found; holding replica placement' }],
      requirements: { ...CACHE_REQ, ...REQS },
    },
  },
  {
    name: 'two-replicas-one-cluster',
    reason: 'replicas 2 on one 2-node cluster: indexes 0 and 1; no args key when the template has none',
    req: () => withFleet(dep({ replicas: 2, engines: [eng('main', {}, [])] }), [clusterA()]),
    want: {
      resources: {
        'replica-cluster-a-0': { resource: wantReplica('cluster-a', 0, 'my-model-5ab63', { engines: [wantEngine('main', {}, null)] }) },
        'replica-cluster-a-1': { resource: wantReplica('cluster-a', 1, 'my-model-609c5', { engines: [wantEngine('main', {}, null)] }) },
      },
      status: {
        replicas: { total: 2, ready: 0, summary: '0/2' },
        placements: [placement('cluster-a', 0, 'my-model-5ab63'), placement('cluster-a', 1, 'my-model-609c5')],
      },
      conditions: [
        { type: 'ReplicasScheduled', status: 'False', reason: 'Scheduling' },
        { type: 'ReplicasReady', status: 'False', reason: 'ModelStarting', message: '0 of 2 ready' },
        UP_TO_DATE,
      ],
      results: [{ severity: 'Normal', message: 'Scheduled 2 replicas across 1 clusters: cluster-a' }],
      requirements: REQS,
    },
  },
  {
    name: 'prefill-decode',
    reason: 'serving and engine phases are carried to the replica',
    req: () => withFleet(dep({ serving: 'PrefillDecode', engines: [eng('prefill', { phase: 'Prefill' }), eng('decode', { phase: 'Decode' })] }), [clusterA()]),
    want: {
      resources: {
        'replica-cluster-a-0': {
          resource: wantReplica('cluster-a', 0, 'my-model-5ab63', {
            engines: [wantEngine('prefill', { phase: 'Prefill' }), wantEngine('decode', { phase: 'Decode' })],
            spec: { serving: { mode: 'PrefillDecode' } },
          }),
        },
      },
      status: {
        replicas: { total: 1, ready: 0, summary: '0/1' },
        placements: [{ ...placement('cluster-a', 0, 'my-model-5ab63'), engines: [{ name: 'prefill', pool: 'default' }, { name: 'decode', pool: 'default' }] }],
      },
      conditions: [
        { type: 'ReplicasScheduled', status: 'False', reason: 'Scheduling' },
        { type: 'ReplicasReady', status: 'False', reason: 'ModelStarting', message: '0 of 1 ready' },
        UP_TO_DATE,
      ],
      results: [{ severity: 'Normal', message: 'Scheduled 1 replicas across 1 clusters: cluster-a' }],
      requirements: REQS,
    },
  },
  {
    name: 'template-labels',
    reason: 'template labels land on the replica and the endpoint with the managed ones; a managed key is overridden',
    req: () =>
      withFleet(dep({ labels: { tier: 'prod', team: 'search', 'modelplane.ai/cluster': 'wrong' } }), [clusterA()], [existing(true)], {
        'replica-cluster-a-0': existing(true),
      }),
    want: {
      resources: {
        'replica-cluster-a-0': { resource: wantReplica('cluster-a', 0, 'my-model-5ab63', { labels: { tier: 'prod', team: 'search' } }), ready: true },
        'endpoint-cluster-a-0': { resource: wantEndpoint('cluster-a', 0, 'my-model-5ab63', '10.0.0.1', { tier: 'prod', team: 'search' }) },
      },
      status: { replicas: { total: 1, ready: 1, summary: '1/1' }, placements: [placement('cluster-a', 0, 'my-model-5ab63', true)] },
      conditions: [
        { type: 'ReplicasScheduled', status: 'True', reason: 'ReplicasCreated', message: 'Scheduled 1 of 1 replicas' },
        { type: 'ReplicasReady', status: 'True', reason: 'AllReplicasReady', message: '1 of 1 ready' },
        UP_TO_DATE,
      ],
      results: [],
      requirements: REQS,
    },
  },
];

describe('schedule-model-deployment acceptance (docs/kinds/modeldeployment.md)', () => {
  it.each(cases)('$name: $reason', ({ req: build, want }) => {
    // The dashboard is composed once the fleet is read (dashboard.test.ts); a kept outcome passes the observed through.
    const got = compose(build());
    const kept = want.conditions.some(
      (c) => c.type === 'ReplicasScheduled' && (['InvalidSpec', 'InvalidNodeSelector', 'NoClusters'].includes(c.reason ?? '') || c.message === MSG_WAITING_FLEET),
    );
    expect(kept ? got : withoutDashboard(got)).toEqual(want);
  });

  it('template labels: the managed cluster label wins over a user value, user labels stay', () => {
    const out = compose(withFleet(dep({ labels: { tier: 'prod', 'modelplane.ai/cluster': 'wrong' } }), [clusterA()]));
    expect(out.resources['replica-cluster-a-0']?.resource.metadata?.labels).toEqual({
      tier: 'prod',
      'modelplane.ai/cluster': 'cluster-a',
      'modelplane.ai/deployment': 'my-model',
      'modelplane.ai/replica-index': '0',
    });
  });
});
