/**
 * compose-model-replica, native backend and the inputs: the acceptance cases
 * of the reference (docs/kinds/modelreplica.md) for Standalone engines, the cluster read in its
 * three states, the cache, and docs/design.md#keep-what-exists (children kept on a wait).
 */
import { describe, expect, it } from 'vitest';
import { compose } from '../../functions/compose-model-replica/compose.js';
import type { ComposeRequest, ComposeResult, Condition, KubeObject, Result } from '../../functions/lib/function.js';
import {
  engine,
  gpu,
  inferenceCluster,
  member,
  observedObject,
  replica,
  request,
  standalone,
} from '../builders/serving.js';
import {
  CACHE_MOUNT,
  budget,
  netpol,
  cacheVolume,
  claimTemplate,
  deployment,
  GPU_CEL,
  nativeContainer,
  obj,
  podSpec,
  routing,
  SHM_MOUNT,
  SHM_VOLUME,
  unifiedConfig,
  monitor,
} from './replica-expected.js';

const MAIN = [{ engine: 'main', workload: 'test-replica-main-6b608' }];

const cluster = { cluster: [inferenceCluster('cluster-a')] };
const requirements = {
  cluster: { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceCluster', matchName: 'cluster-a' },
};
const deploying: Condition[] = [
  { type: 'ModelAccepted', status: 'False', reason: 'Deploying' },
  { type: 'ModelReady', status: 'False', reason: 'WaitingForModel' },
];
const waitingForCluster: Condition[] = [
  { type: 'ModelAccepted', status: 'False', reason: 'WaitingForCluster' },
  { type: 'ModelReady', status: 'False', reason: 'WaitingForModel' },
];
const composing: Result[] = [{ severity: 'Normal', message: 'Composing vllm/vllm-openai:latest on cluster-a' }];

const W = 'test-replica-main-6b608';
const CLAIM = 'test-replica-main-standalone-devices-e609d';

/** The standard native replica's workload and claim, with a container override. */
function standardWorkload(o: { container?: Parameters<typeof nativeContainer>[0]; cache?: string; ready?: boolean } = {}) {
  const volumes = o.cache ? [SHM_VOLUME, cacheVolume(o.cache)] : [SHM_VOLUME];
  return {
    'model-serving-main': obj(
      deployment({ name: W, serving: 'test-replica', spec: podSpec({ containers: [nativeContainer(o.container)], claim: CLAIM, volumes }) }),
      'workload',
      o.ready ?? false,
    ),
    'resource-claim-main-standalone': obj(claimTemplate(CLAIM, [{ name: 'gpu' }]), 'created', o.ready ?? false),
    'disruption-budget-main': obj(budget(W, 1), 'created', o.ready ?? false),
    'network-policy-main': obj(netpol('test-replica', [W, 'workload']), 'created', o.ready ?? false),
  };
}

interface Case {
  name: string;
  reason: string;
  req: () => ComposeRequest;
  want: ComposeResult;
}

const withCache = (args: string[] | undefined, command?: string[]) =>
  replica('test-replica', {
    cache: 'qwen',
    engines: [standalone('main', { ...(args ? { args } : {}), ...(command ? { command } : {}) })],
  });
const cached = (args: string[], extra?: Record<string, unknown>) => ({
  container: { args, mounts: [SHM_MOUNT, CACHE_MOUNT], ...(extra ? { extra } : {}) },
  cache: 'modelcache-ml-team-qwen-17db2',
});

const cases: Case[] = [
  {
    name: 'standard replica',
    reason: 'a Standalone engine: Deployment pinned to its pool with its claim, InferencePool routing, EPP; no model-service key',
    req: () => request(replica('test-replica'), { required: cluster }),
    want: {
      resources: { ...standardWorkload(), ...routing('test-replica', 'ml-team', unifiedConfig(16)), ...monitor('test-replica', MAIN) },
      conditions: deploying,
      results: composing,
      requirements,
    },
  },
  {
    name: 'cluster not fetched yet',
    reason: 'first call: ask for the cluster and wait, nothing alarming',
    req: () => request(replica('test-replica')),
    want: {
      ready: false,
      resources: {},
      conditions: waitingForCluster,
      results: [{ severity: 'Normal', message: 'Waiting for cluster to be resolved' }],
      requirements,
    },
  },
  {
    name: 'cluster absent',
    reason: 'docs/design.md#not-fetched-yet-is-not-absent: fetched and gone is a Warning naming the field, and observed children stay',
    req: () =>
      request(replica('test-replica'), {
        required: { cluster: [] },
        observed: {
          'model-serving-main': {
            resource: { apiVersion: 'kubernetes.m.crossplane.io/v1alpha1', kind: 'Object', metadata: { name: 'x' }, spec: { a: 1 } },
            connectionDetails: {},
          },
        },
      }),
    want: {
      resources: {
        'model-serving-main': {
          resource: { apiVersion: 'kubernetes.m.crossplane.io/v1alpha1', kind: 'Object', metadata: { name: 'x' }, spec: { a: 1 } },
        },
      },
      conditions: waitingForCluster,
      results: [
        {
          severity: 'Warning',
          message: 'spec.clusterName: InferenceCluster cluster-a not found; keeping the composed workload until it exists again',
        },
      ],
      requirements,
    },
  },
  {
    name: 'cluster without providerConfigRef',
    reason: 'the cluster is not connected yet: wait',
    req: () => request(replica('test-replica'), { required: { cluster: [inferenceCluster('cluster-a', null)] } }),
    want: {
      ready: false,
      resources: {},
      conditions: waitingForCluster,
      results: [{ severity: 'Normal', message: 'Waiting for cluster providerConfigRef' }],
      requirements,
    },
  },
  {
    name: 'workload serving',
    reason: 'workload applied and Ready, route and claim observed: all ready (the EPP as it is Ready), Accepted, Serving, no event',
    req: () =>
      request(replica('test-replica'), {
        required: cluster,
        observed: {
          'model-serving-main': observedObject({ manifest: true, ready: true }),
          'model-route': observedObject(),
          'resource-claim-main-standalone': observedObject(),
          'disruption-budget-main': observedObject(),
          'network-policy-main': observedObject(),
          epp: observedObject({ manifest: true, ready: true }),
        },
      }),
    want: {
      status: { phase: 'Serving' },
      resources: {
        ...standardWorkload({ ready: true }),
        ...routing('test-replica', 'ml-team', unifiedConfig(16), ['model-route', 'epp']), ...monitor('test-replica', MAIN),
      },
      conditions: [
        { type: 'ModelAccepted', status: 'True', reason: 'Accepted' },
        { type: 'ModelReady', status: 'True', reason: 'Serving' },
      ],
      results: [],
      requirements,
    },
  },
  {
    name: 'workload applied, not ready',
    reason: 'the manifest is applied but pods are not Available: Accepted, ModelStarting; the EPP is ready only when Ready',
    req: () =>
      request(replica('test-replica'), {
        required: cluster,
        observed: { 'model-serving-main': observedObject({ manifest: true, ready: false }), epp: observedObject({ ready: false }) },
      }),
    want: {
      status: { phase: 'Starting' },
      resources: { ...standardWorkload(), ...routing('test-replica', 'ml-team', unifiedConfig(16)), ...monitor('test-replica', MAIN) },
      conditions: [
        { type: 'ModelAccepted', status: 'True', reason: 'Accepted' },
        { type: 'ModelReady', status: 'False', reason: 'ModelStarting' },
      ],
      results: [],
      requirements,
    },
  },
  {
    name: 'cache mounted',
    reason: 'modelCacheRef qwen: the PVC by the cache contract name, mounted at /mnt/models, --model flag added',
    req: () => request(withCache(['--trust-remote-code']), { required: cluster }),
    want: {
      resources: {
        ...standardWorkload(cached(['--trust-remote-code', '--model=/mnt/models'])),
        ...routing('test-replica', 'ml-team', unifiedConfig(16)), ...monitor('test-replica', MAIN),
      },
      conditions: deploying,
      results: composing,
      requirements,
    },
  },
  {
    name: 'cache with --model already given',
    reason: 'an existing --model=/mnt/models is not duplicated',
    req: () => request(withCache(['--model=/mnt/models']), { required: cluster }),
    want: {
      resources: { ...standardWorkload(cached(['--model=/mnt/models'])), ...routing('test-replica', 'ml-team', unifiedConfig(16)), ...monitor('test-replica', MAIN) },
      conditions: deploying,
      results: composing,
      requirements,
    },
  },
  {
    name: 'cache with a command',
    reason: 'a container with its own command gets no --model flag: --model-path stays as written; SGLang gets --enable-metrics',
    req: () => request(withCache(['--model-path=/mnt/models'], ['python3', '-m', 'sglang.launch_server']), { required: cluster }),
    want: {
      resources: {
        ...standardWorkload(cached(['--model-path=/mnt/models', '--enable-metrics'], { command: ['python3', '-m', 'sglang.launch_server'] })),
        ...routing('test-replica', 'ml-team', unifiedConfig(16)), ...monitor('test-replica', MAIN),
      },
      conditions: deploying,
      results: composing,
      requirements,
    },
  },
  {
    name: 'two device requests, metadata, env, pull secrets, copies 2',
    reason: 'one container claim for the pod claim; both requests in the template; user labels merged under managed ones',
    req: () =>
      request(
        replica('test-replica', {
          engines: [
            engine(
              'main',
              [
                member('Standalone', {
                  requests: [gpu(), gpu({ name: 'nic', deviceClassName: 'nic.nvidia.com', cel: ['device.driver == "nic.nvidia.com"'] })],
                  args: ['--block-size', '32'],
                  env: [
                    { name: 'HF_TOKEN', valueFrom: { secretKeyRef: { name: 'hf', key: 'token' } } },
                    { name: 'VLLM_HOST_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
                  ],
                  labels: { tier: 'prod' },
                  annotations: { 'example.com/owner': 'search' },
                  imagePullSecrets: ['regcred'],
                }),
              ],
              { copies: 2 },
            ),
          ],
        }),
        { required: cluster },
      ),
    want: {
      resources: {
        'model-serving-main': obj(
          deployment({
            name: W,
            serving: 'test-replica',
            copies: 2,
            meta: {
              labels: { tier: 'prod', 'modelplane.ai/serving': 'test-replica', 'modelplane.ai/workload': W },
              annotations: { 'example.com/owner': 'search' },
            },
            spec: {
              ...podSpec({
                claim: CLAIM,
                containers: [
                  nativeContainer({
                    args: ['--block-size', '32'],
                    extra: {
                      env: [
                        { name: 'HF_TOKEN', valueFrom: { secretKeyRef: { name: 'hf', key: 'token' } } },
                        { name: 'VLLM_HOST_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
                      ],
                    },
                  }),
                ],
              }),
              imagePullSecrets: [{ name: 'regcred' }],
            },
          }),
          'workload',
        ),
        'resource-claim-main-standalone': obj(
          claimTemplate(CLAIM, [
            { name: 'gpu', cel: [GPU_CEL] },
            { name: 'nic', deviceClassName: 'nic.nvidia.com', cel: ['device.driver == "nic.nvidia.com"'] },
          ]),
          'created',
        ),
        'disruption-budget-main': obj(budget(W, 1), 'created'),
        'network-policy-main': obj(netpol('test-replica', [W, 'workload']), 'created'),
        ...routing('test-replica', 'ml-team', unifiedConfig(32)), ...monitor('test-replica', MAIN),
      },
      conditions: deploying,
      results: composing,
      requirements,
    },
  },
];

describe('compose-model-replica: native backend and inputs (docs/kinds/modelreplica.md#native-backend)', () => {
  it.each(cases)('$name: $reason', ({ req, want }) => {
    // A case without `status` composes before any workload is observed: phase Pending (phase.ts).
    expect(compose(req())).toStrictEqual({ status: { phase: 'Pending' }, ...want });
  });
});

describe('compose-model-replica: identity of remote names', () => {
  const names = (r: KubeObject): string[] => {
    const out = compose(request(r, { required: { cluster: [inferenceCluster('cluster-a')] } }));
    return Object.values(out.resources)
      .map((d) => (d.resource['spec'] as { forProvider: { manifest: KubeObject } }).forProvider.manifest)
      .filter((m) => m.kind === 'Deployment' && m.metadata?.name?.endsWith('-epp') !== true)
      .map((m) => m.metadata!.name!);
  };
  it('replicas of one deployment on two clusters never share a workload name', () => {
    expect([...names(replica('dep-clusterA')), ...names(replica('dep-clusterB'))]).toStrictEqual([
      'dep-clusterA-main-3d1d5',
      'dep-clusterB-main-d6c52',
    ]);
  });
  it('two engines on two replicas give four distinct names', () => {
    const two = (n: string) => replica(n, { engines: [standalone('prefill'), standalone('decode')] });
    const all = [...names(two('dep-clusterA')), ...names(two('dep-clusterB'))];
    expect(new Set(all).size).toBe(4);
  });
});
