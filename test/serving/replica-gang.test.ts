/**
 * compose-model-replica, llm-d backend: a Leader + Worker engine becomes a
 * LeaderWorkerSet (docs/kinds/modelreplica.md#the-llm-d-backend).
 */
import { describe, expect, it } from 'vitest';
import { compose } from '../../functions/compose-model-replica/compose.js';
import type { ComposeRequest, ComposeResult, Condition, JsonObject, Result } from '../../functions/lib/function.js';
import { engine, gpu, inferenceCluster, member, replica, request } from '../builders/serving.js';
import {
  CACHE_MOUNT,
  cacheVolume,
  claimTemplate,
  GANG_ENV,
  leaderWorkerSet,
  obj,
  podSpec,
  budget,
  netpol,
  health,
  routing,
  SHM_MOUNT,
  SHM_VOLUME,
  unifiedConfig,
  monitor,
} from './replica-expected.js';

const cluster = { cluster: [inferenceCluster('cluster-a')] };
const requirements = {
  cluster: { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceCluster', matchName: 'cluster-a' },
};
const deploying: Condition[] = [
  { type: 'ModelAccepted', status: 'False', reason: 'Deploying' },
  { type: 'ModelReady', status: 'False', reason: 'WaitingForModel' },
];
const composing: Result[] = [{ severity: 'Normal', message: 'Composing vllm/vllm-openai:latest on cluster-a' }];

const LWS = 'r-main-bb4e3';
const LEADER_CLAIM = 'r-main-leader-devices-f58c6';
const WORKER_CLAIM = 'r-main-worker-devices-99b8a';
const LEADER_CMD = ['/bin/sh', '-c', 'ray start --head --port=6379 && vllm serve Qwen/Qwen3-0.6B --tensor-parallel-size 8'];
const WORKER_CMD = ['/bin/sh', '-c', 'ray start --block --address=$(LWS_LEADER_ADDRESS):6379'];
const HF = { name: 'HF_TOKEN', valueFrom: { secretKeyRef: { name: 'hf-token', key: 'token' } } };
const HOST_IP = { name: 'VLLM_HOST_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } };
const leaderLabels = { 'modelplane.ai/serving': 'r', 'modelplane.ai/lws-role': 'leader' };

/** A gang container: leader ones carry the port and probe. */
function gangContainer(o: {
  leader: boolean;
  claims?: boolean;
  command?: string[];
  args?: string[];
  env?: JsonObject[];
  mounts?: JsonObject[];
}): JsonObject {
  return {
    name: 'engine',
    image: 'vllm/vllm-openai:latest',
    volumeMounts: o.mounts ?? [SHM_MOUNT],
    ...(o.claims === false ? {} : { resources: { claims: [{ name: 'devices' }] } }),
    ...(o.command ? { command: o.command } : {}),
    ...(o.args ? { args: o.args } : {}),
    env: [...GANG_ENV, ...(o.env ?? [])],
    ...(o.leader ? { ports: [{ containerPort: 8000 }], ...health(8000) } : {}),
  };
}

const gang = (leader: Parameters<typeof member>[1], worker: Parameters<typeof member>[1], o: { copies?: number; cache?: string } = {}) =>
  replica('r', {
    ...(o.cache ? { cache: o.cache } : {}),
    engines: [engine('main', [member('Leader', leader), member('Worker', worker)], { copies: o.copies ?? 1 })],
  });

interface Case {
  name: string;
  reason: string;
  req: () => ComposeRequest;
  want: ComposeResult;
}

const cases: Case[] = [
  {
    name: 'llm-d golden',
    reason: 'LWS of size 2; both pinned, claiming 8 GPUs, tolerated; commands verbatim; rank env first; leader serves',
    req: () =>
      request(
        gang(
          { requests: [gpu({ count: 8 })], command: LEADER_CMD, env: [HF] },
          { requests: [gpu({ count: 8 })], command: WORKER_CMD, env: [HF, HOST_IP] },
        ),
        { required: cluster },
      ),
    want: {
      resources: {
        'model-serving-main': obj(
          leaderWorkerSet({
            name: LWS,
            size: 2,
            leaderMeta: { labels: leaderLabels },
            leader: podSpec({ claim: LEADER_CLAIM, containers: [gangContainer({ leader: true, command: LEADER_CMD, env: [HF] })] }),
            worker: podSpec({
              claim: WORKER_CLAIM,
              containers: [gangContainer({ leader: false, command: WORKER_CMD, env: [HF, HOST_IP] })],
            }),
          }),
          'workload',
        ),
        'resource-claim-main-leader': obj(claimTemplate(LEADER_CLAIM, [{ name: 'gpu', count: 8 }]), 'created'),
        'resource-claim-main-worker': obj(claimTemplate(WORKER_CLAIM, [{ name: 'gpu', count: 8 }]), 'created'),
        'disruption-budget-main': obj(budget(LWS, 2, 'lws'), 'created'),
        'network-policy-main': obj(netpol('r', [LWS, 'lws']), 'created'),
        ...routing('r', 'ml-team', unifiedConfig(16)),
        ...monitor('r', [{ engine: 'main', workload: LWS, lws: true }]),
      },
      conditions: deploying,
      results: composing,
      requirements,
    },
  },
  {
    name: 'claimless leader on its own pool, member metadata',
    reason: 'a coordinator leader claims nothing but stays pinned (to head) and tolerated; metadata lands per template',
    req: () =>
      request(
        gang(
          { pool: 'head', args: ['--block-size=8'], labels: { team: 'search' }, annotations: { 'example.com/a': 'b' } },
          { requests: [gpu()], workerNodes: 3, labels: { role: 'worker' } },
          { copies: 2 },
        ),
        { required: cluster },
      ),
    want: {
      resources: {
        'model-serving-main': obj(
          leaderWorkerSet({
            name: LWS,
            size: 4,
            copies: 2,
            leaderMeta: { labels: { team: 'search', ...leaderLabels }, annotations: { 'example.com/a': 'b' } },
            leader: podSpec({ pool: 'head', containers: [gangContainer({ leader: true, claims: false, args: ['--block-size=8'] })] }),
            workerMeta: { labels: { role: 'worker' } },
            worker: podSpec({ claim: WORKER_CLAIM, containers: [gangContainer({ leader: false })] }),
          }),
          'workload',
        ),
        'resource-claim-main-worker': obj(claimTemplate(WORKER_CLAIM, [{ name: 'gpu' }]), 'created'),
        'disruption-budget-main': obj(budget(LWS, 4, 'lws'), 'created'),
        'network-policy-main': obj(netpol('r', [LWS, 'lws']), 'created'),
        ...routing('r', 'ml-team', unifiedConfig(8)),
        ...monitor('r', [{ engine: 'main', workload: LWS, lws: true }]),
      },
      conditions: deploying,
      results: composing,
      requirements,
    },
  },
  {
    name: 'llm-d with cache',
    reason: 'both templates mount the cache; only the command-less leader gains --model=/mnt/models',
    req: () => request(gang({ requests: [gpu()] }, { requests: [gpu()], command: WORKER_CMD }, { cache: 'qwen' }), { required: cluster }),
    want: {
      resources: {
        'model-serving-main': obj(
          leaderWorkerSet({
            name: LWS,
            size: 2,
            leaderMeta: { labels: leaderLabels },
            leader: podSpec({
              claim: LEADER_CLAIM,
              volumes: [SHM_VOLUME, cacheVolume('modelcache-ml-team-qwen-17db2')],
              containers: [gangContainer({ leader: true, args: ['--model=/mnt/models'], mounts: [SHM_MOUNT, CACHE_MOUNT] })],
            }),
            worker: podSpec({
              claim: WORKER_CLAIM,
              volumes: [SHM_VOLUME, cacheVolume('modelcache-ml-team-qwen-17db2')],
              containers: [gangContainer({ leader: false, command: WORKER_CMD, mounts: [SHM_MOUNT, CACHE_MOUNT] })],
            }),
          }),
          'workload',
        ),
        'resource-claim-main-leader': obj(claimTemplate(LEADER_CLAIM, [{ name: 'gpu' }]), 'created'),
        'resource-claim-main-worker': obj(claimTemplate(WORKER_CLAIM, [{ name: 'gpu' }]), 'created'),
        'disruption-budget-main': obj(budget(LWS, 2, 'lws'), 'created'),
        'network-policy-main': obj(netpol('r', [LWS, 'lws']), 'created'),
        ...routing('r', 'ml-team', unifiedConfig(16)),
        ...monitor('r', [{ engine: 'main', workload: LWS, lws: true }]),
      },
      conditions: deploying,
      results: composing,
      requirements,
    },
  },
  {
    name: 'llm-d with cache, leader command',
    reason: 'a leader with its own command keeps it verbatim: no flag injected',
    req: () =>
      request(gang({ requests: [gpu()], command: LEADER_CMD }, { requests: [gpu()] }, { cache: 'qwen' }), { required: cluster }),
    want: {
      resources: {
        'model-serving-main': obj(
          leaderWorkerSet({
            name: LWS,
            size: 2,
            leaderMeta: { labels: leaderLabels },
            leader: podSpec({
              claim: LEADER_CLAIM,
              volumes: [SHM_VOLUME, cacheVolume('modelcache-ml-team-qwen-17db2')],
              containers: [gangContainer({ leader: true, command: LEADER_CMD, mounts: [SHM_MOUNT, CACHE_MOUNT] })],
            }),
            worker: podSpec({
              claim: WORKER_CLAIM,
              volumes: [SHM_VOLUME, cacheVolume('modelcache-ml-team-qwen-17db2')],
              containers: [gangContainer({ leader: false, mounts: [SHM_MOUNT, CACHE_MOUNT] })],
            }),
          }),
          'workload',
        ),
        'resource-claim-main-leader': obj(claimTemplate(LEADER_CLAIM, [{ name: 'gpu' }]), 'created'),
        'resource-claim-main-worker': obj(claimTemplate(WORKER_CLAIM, [{ name: 'gpu' }]), 'created'),
        'disruption-budget-main': obj(budget(LWS, 2, 'lws'), 'created'),
        'network-policy-main': obj(netpol('r', [LWS, 'lws']), 'created'),
        ...routing('r', 'ml-team', unifiedConfig(16)),
        ...monitor('r', [{ engine: 'main', workload: LWS, lws: true }]),
      },
      conditions: deploying,
      results: composing,
      requirements,
    },
  },
];

describe('compose-model-replica: llm-d backend (docs/kinds/modelreplica.md#the-llm-d-backend)', () => {
  it.each(cases)('$name: $reason', ({ req, want }) => {
    // A case without `status` composes before any workload is observed: phase Pending (phase.ts).
    expect(compose(req())).toStrictEqual({ status: { phase: 'Pending' }, ...want });
  });
});
