/**
 * compose-model-replica, PrefillDecode serving and the engine flags it reads
 * (docs/kinds/modelreplica.md#prefilldecode; docs/design.md#bad-engine-flags-are-input-errors: a bad decode --port
 * is a Warning and a False condition, never a crash).
 */
import { describe, expect, it } from 'vitest';
import { compose } from '../../functions/compose-model-replica/compose.js';
import { decodePort, kvBlockSize } from '../../functions/compose-model-replica/flags.js';
import type { ComposeRequest, ComposeResult, Condition, JsonObject, Result } from '../../functions/lib/function.js';
import { engine, gpu, inferenceCluster, member, observedObject, replica, request } from '../builders/serving.js';
import {
  claimTemplate,
  deployment,
  GANG_ENV,
  leaderWorkerSet,
  nativeContainer,
  NIXL_ENV,
  obj,
  pdConfig,
  podSpec,
  budget,
  netpol,
  health,
  routing,
  SHM_MOUNT,
  monitor,
} from './replica-expected.js';

/** The workloads of the two PrefillDecode replicas, each the other's gang peer in its NetworkPolicy. */
const AB: [string, 'workload' | 'lws'][] = [
  ['r-alpha-b36ce', 'workload'],
  ['r-beta-52d85', 'workload'],
];
const PD: [string, 'workload' | 'lws'][] = [
  ['r-prefill-d90b0', 'workload'],
  ['r-decode-4b27b', 'lws'],
];
const cluster = { cluster: [inferenceCluster('cluster-a')] };
const requirements = {
  cluster: { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceCluster', matchName: 'cluster-a' },
};
const deploying: Condition[] = [
  { type: 'ModelAccepted', status: 'False', reason: 'Deploying' },
  { type: 'ModelReady', status: 'False', reason: 'WaitingForModel' },
];
const composing: Result[] = [{ severity: 'Normal', message: 'Composing vllm/vllm-openai:latest on cluster-a' }];

const sidecar = (port: number): JsonObject => ({
  name: 'pd-sidecar',
  image: 'ghcr.io/llm-d/llm-d-router-disagg-sidecar:v0.9.0',
  args: ['--secure-proxy=false', '--kv-connector=nixlv2', `--vllm-port=${port}`],
  ports: [{ containerPort: 8000 }],
  ...health(8000),
});
const pdLabels = (role: string, workload?: string) => ({
  'modelplane.ai/serving': 'r',
  ...(workload ? { 'modelplane.ai/workload': workload } : {}),
  'llm-d.ai/role': role,
  'llm-d.ai/inference-serving': 'true',
  app: 'r',
});

/** Engines `alpha` (Decode, args as given) and `beta` (Prefill), both Standalone. */
const pd = (decodeArgs: string[]) =>
  replica('r', {
    mode: 'PrefillDecode',
    engines: [
      engine('alpha', [member('Standalone', { requests: [gpu()], args: decodeArgs })], { phase: 'Decode' }),
      engine('beta', [member('Standalone', { requests: [gpu()] })], { phase: 'Prefill' }),
    ],
  });

const invalid = (message: string): Pick<ComposeResult, 'conditions' | 'results'> => ({
  conditions: [
    { type: 'ModelAccepted', status: 'False', reason: 'InvalidSpec', message },
    { type: 'ModelReady', status: 'False', reason: 'ModelStarting' },
  ],
  results: [{ severity: 'Warning', message }],
});
const keptWorkload = () => ({
  'model-serving-alpha': observedObject({ manifest: true, ready: false }),
  'model-serving-beta': observedObject({ manifest: true, ready: false }),
});
const kept = { resource: { apiVersion: 'kubernetes.m.crossplane.io/v1alpha1', kind: 'Object', spec: {} } };
const keptResources = { 'model-serving-alpha': kept, 'model-serving-beta': kept };
const ARGS0 = 'spec.engines[0].members[0].template.spec.containers[0].args[0]';

interface Case {
  name: string;
  reason: string;
  req: () => ComposeRequest;
  want: ComposeResult;
}

const cases: Case[] = [
  {
    name: 'PrefillDecode golden',
    reason: 'roles by phase: the Decode engine alpha moves to --port 9000 behind the sidecar; both get NIXL env and llm-d labels',
    req: () => request(pd(['--port=9000']), { required: cluster }),
    want: {
      resources: {
        'model-serving-alpha': obj(
          deployment({
            name: 'r-alpha-b36ce',
            serving: 'r',
            meta: { labels: pdLabels('decode', 'r-alpha-b36ce') },
            spec: podSpec({
              claim: 'r-alpha-standalone-devices-9ec1c',
              containers: [
                nativeContainer({
                  args: ['--port=9000'],
                  extra: { ports: [{ containerPort: 9000 }], ...health(9000), env: NIXL_ENV },
                }),
                sidecar(9000),
              ],
            }),
          }),
          'workload',
        ),
        'resource-claim-alpha-standalone': obj(claimTemplate('r-alpha-standalone-devices-9ec1c', [{ name: 'gpu' }]), 'created'),
        'disruption-budget-alpha': obj(budget('r-alpha-b36ce', 1), 'created'),
        'network-policy-alpha': obj(netpol('r', ['r-alpha-b36ce', 'workload'], AB), 'created'),
        'model-serving-beta': obj(
          deployment({
            name: 'r-beta-52d85',
            serving: 'r',
            meta: { labels: pdLabels('prefill', 'r-beta-52d85') },
            spec: podSpec({ claim: 'r-beta-standalone-devices-9d8b1', containers: [nativeContainer({ extra: { env: NIXL_ENV } })] }),
          }),
          'workload',
        ),
        'resource-claim-beta-standalone': obj(claimTemplate('r-beta-standalone-devices-9d8b1', [{ name: 'gpu' }]), 'created'),
        'disruption-budget-beta': obj(budget('r-beta-52d85', 1), 'created'),
        'network-policy-beta': obj(netpol('r', ['r-beta-52d85', 'workload'], AB), 'created'),
        ...routing('r', 'ml-team', pdConfig(16)),
        ...monitor('r', [
          { engine: 'alpha', workload: 'r-alpha-b36ce', port: 9000 },
          { engine: 'beta', workload: 'r-beta-52d85' },
        ]),
      },
      conditions: deploying,
      results: composing,
      requirements,
    },
  },
  {
    name: 'PrefillDecode, gang decode without --port',
    reason: 'the decode LWS leader gets the sidecar on the default 8001; block size from the decode args; user NIXL env kept',
    req: () =>
      request(
        replica('r', {
          mode: 'PrefillDecode',
          engines: [
            engine('prefill', [member('Standalone', { requests: [gpu()], args: ['--block-size=64'] })], { phase: 'Prefill' }),
            engine(
              'decode',
              [
                member('Leader', {
                  requests: [gpu()],
                  args: ['--block-size', '32'],
                  env: [{ name: 'VLLM_NIXL_SIDE_CHANNEL_PORT', value: '6000' }],
                }),
                member('Worker', { requests: [gpu()] }),
              ],
              { phase: 'Decode' },
            ),
          ],
        }),
        { required: cluster },
      ),
    want: {
      resources: {
        'model-serving-prefill': obj(
          deployment({
            name: 'r-prefill-d90b0',
            serving: 'r',
            meta: { labels: pdLabels('prefill', 'r-prefill-d90b0') },
            spec: podSpec({
              claim: 'r-prefill-standalone-devices-f62af',
              containers: [nativeContainer({ args: ['--block-size=64'], extra: { env: NIXL_ENV } })],
            }),
          }),
          'workload',
        ),
        'resource-claim-prefill-standalone': obj(claimTemplate('r-prefill-standalone-devices-f62af', [{ name: 'gpu' }]), 'created'),
        'disruption-budget-prefill': obj(budget('r-prefill-d90b0', 1), 'created'),
        'network-policy-prefill': obj(netpol('r', ['r-prefill-d90b0', 'workload'], PD), 'created'),
        'model-serving-decode': obj(
          leaderWorkerSet({
            name: 'r-decode-4b27b',
            size: 2,
            leaderMeta: { labels: { ...pdLabels('decode'), 'modelplane.ai/lws-role': 'leader' } },
            leader: podSpec({
              claim: 'r-decode-leader-devices-d2e70',
              containers: [
                {
                  name: 'engine',
                  image: 'vllm/vllm-openai:latest',
                  volumeMounts: [SHM_MOUNT],
                  resources: { claims: [{ name: 'devices' }] },
                  args: ['--block-size', '32'],
                  env: [...GANG_ENV, { name: 'VLLM_NIXL_SIDE_CHANNEL_PORT', value: '6000' }, NIXL_ENV[0]!],
                  ports: [{ containerPort: 8001 }],
                  ...health(8001),
                },
                sidecar(8001),
              ],
            }),
            worker: podSpec({
              claim: 'r-decode-worker-devices-08d44',
              containers: [
                {
                  name: 'engine',
                  image: 'vllm/vllm-openai:latest',
                  volumeMounts: [SHM_MOUNT],
                  resources: { claims: [{ name: 'devices' }] },
                  env: GANG_ENV,
                },
              ],
            }),
          }),
          'workload',
        ),
        'resource-claim-decode-leader': obj(claimTemplate('r-decode-leader-devices-d2e70', [{ name: 'gpu' }]), 'created'),
        'resource-claim-decode-worker': obj(claimTemplate('r-decode-worker-devices-08d44', [{ name: 'gpu' }]), 'created'),
        'disruption-budget-decode': obj(budget('r-decode-4b27b', 2, 'lws'), 'created'),
        'network-policy-decode': obj(netpol('r', ['r-decode-4b27b', 'lws'], PD), 'created'),
        ...routing('r', 'ml-team', pdConfig(32)),
        ...monitor('r', [
          { engine: 'prefill', workload: 'r-prefill-d90b0' },
          { engine: 'decode', workload: 'r-decode-4b27b', lws: true, port: 8001 },
        ]),
      },
      conditions: deploying,
      results: composing,
      requirements,
    },
  },
  {
    name: 'non-integer decode --port',
    reason: 'docs/design.md#bad-engine-flags-are-input-errors: a Warning and a False condition naming the argument; the running workload is kept',
    req: () => request(pd(['--port', 'abc']), { required: cluster, observed: keptWorkload() }),
    want: {
      resources: keptResources,
      status: { phase: 'Starting' },
      ...invalid(`${ARGS0}: --port "abc" is not a port number (1-65535); give the decode engine its own port, e.g. --port=8001`),
      requirements,
    },
  },
  {
    name: 'decode --port without a value',
    reason: 'a trailing --port is malformed too',
    req: () => request(pd(['--port']), { required: cluster, observed: keptWorkload() }),
    want: {
      resources: keptResources,
      status: { phase: 'Starting' },
      ...invalid(`${ARGS0}: --port has no value; give the decode engine its own port, e.g. --port=8001`),
      requirements,
    },
  },
  {
    name: 'decode --port 8000',
    reason: "the decode engine cannot share the pd-sidecar's port",
    req: () => request(pd(['--port=8000']), { required: cluster, observed: keptWorkload() }),
    want: {
      resources: keptResources,
      status: { phase: 'Starting' },
      ...invalid(`${ARGS0}: --port 8000 is the pd-sidecar's port; give the decode engine another port, e.g. --port=8001`),
      requirements,
    },
  },
];

describe('compose-model-replica: PrefillDecode (docs/kinds/modelreplica.md#prefilldecode)', () => {
  it.each(cases)('$name: $reason', ({ req, want }) => {
    // A case without `status` composes before any workload is observed: phase Pending (phase.ts).
    expect(compose(req())).toStrictEqual({ status: { phase: 'Pending' }, ...want });
  });
});

describe('kvBlockSize: the peek of docs/kinds/modelreplica.md#kv-block-size', () => {
  it.each([
    [[], 16],
    [['--model=/mnt/models'], 16],
    [['--block-size', '32'], 32],
    [['--block-size=8'], 8],
    [['--page-size=64'], 64],
    [['--block-size', 'auto'], 16],
    [['--block-size'], 16],
    [['--page-size', '128', '--block-size=8'], 128],
  ])('%j -> %d', (args, want) => {
    expect(kvBlockSize(args)).toBe(want);
  });
});

describe('decodePort', () => {
  it.each([
    [[], { port: 8001 }],
    [['--port=9000'], { port: 9000 }],
    [['--model', 'x', '--port', '9001'], { port: 9001 }],
    [['--port=abc'], { index: 0, value: 'abc' }],
    [['--port', '70000'], { index: 0, value: '70000' }],
    [['--max-model-len=8192', '--port'], { index: 1, value: undefined }],
  ])('%j -> %j', (args, want) => {
    expect(decodePort(args)).toStrictEqual(want);
  });
});
