/**
 * The generated fleet of the scheduler benchmark and the wire tests:
 * InferenceClusters with 4 pools of 10 nodes over 4 GPU classes, each on an
 * EFA fabric (so a gang can be placed)
 * ({@link cluster}), a Leader + Worker gang ModelDeployment whose members use
 * 3 distinct CEL selectors ({@link deployment}), the steady state of a
 * scenario ({@link steady}), a rollout in progress ({@link rolloutDeployment})
 * and its RunFunctionRequest ({@link request}: the clusters and the
 * deployment's own replicas, `Scenario.replicas`; others are in the clusters'
 * ledgers, docs/design.md#the-capacity-ledger).
 */
import { Ready, RunFunctionRequest } from '@crossplane-org/function-sdk-typescript';
import type { JsonObject, KubeObject } from '../functions/lib/function.js';
import { celMatcher } from '../functions/lib/fleet/cel-matcher.js';
import { composeWith, REQ_REPLICAS } from '../functions/schedule-model-deployment/compose.js';

const API = 'modelplane.ai/v1alpha1';

const SELECTORS = {
  leader: 'device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("40Gi")) >= 0',
  worker: [
    'device.attributes["gpu.nvidia.com"].architecture == "Hopper"',
    'device.attributes["gpu.nvidia.com"].cudaComputeCapability.isGreaterThan(semver("8.9.0"))',
  ],
};

/** Four GPU classes as InferenceClass devices with defaults applied. */
const CLASSES: JsonObject[][] = [
  ['H100', 'Hopper', '81559Mi', '9.0.0'],
  ['H200', 'Hopper', '143771Mi', '9.0.0'],
  ['L40S', 'Ada Lovelace', '46068Mi', '8.9.0'],
  ['L4', 'Ada Lovelace', '23034Mi', '8.9.0'],
].map(([, arch, memory, cc]) => [
  {
    name: 'gpu',
    claim: 'DRA',
    driver: 'gpu.nvidia.com',
    deviceClassName: 'gpu.nvidia.com',
    count: 8,
    attributes: { architecture: { string: arch }, cudaComputeCapability: { version: cc } },
    capacity: { memory: { value: memory } },
  },
]);

export function cluster(i: number): KubeObject {
  const name = `cluster-${String(i).padStart(4, '0')}`;
  return {
    apiVersion: API,
    kind: 'InferenceCluster',
    metadata: { name, labels: { 'modelplane.ai/region': `r${i % 7}` } },
    spec: { cluster: { source: 'EKS', eks: { region: 'us-east-1' } } },
    status: {
      conditions: [{ type: 'Ready', status: 'True', reason: 'Available' }],
      providerConfigRef: { name: `${name}-pc` },
      namespace: 'modelplane-system',
      gateway: { address: `10.${(i >> 8) & 255}.${i & 255}.1` },
      capabilities: { rwxCacheStorageClass: { reason: 'none' }, multiNodeFabric: 'EFA', nodeAutoscaling: 'None', gpuStack: 'Composed' },
      // The capacity ledger as the cluster's function publishes it with nothing placed yet (docs/design.md#the-capacity-ledger).
      gpuPools: CLASSES.map((devices, p) => ({ name: `pool-${p}`, className: `class-${p}`, capacityType: p % 2 === 0 ? 'OnDemand' : 'Spot', price: { currency: 'USD', perNodeHour: '3.25' }, nodes: 10, fabric: 'EFA', devices, used: { nodes: 0, devices: [], holders: [] } })),
    },
  };
}

export function deployment(replicas: number): KubeObject {
  const template = { spec: { containers: [{ name: 'engine', image: 'vllm/vllm-openai:v0.23.0', args: ['--model=Qwen/Qwen3-32B'] }] } };
  return {
    apiVersion: API,
    kind: 'ModelDeployment',
    metadata: { name: 'bench', namespace: 'ml-team' },
    spec: {
      replicas,
      template: {
        spec: {
          engines: [
            {
              name: 'main',
              members: [
                { role: 'Leader', nodeSelector: { devices: [{ name: 'gpu', selectors: [{ cel: SELECTORS.leader }] }] }, template },
                {
                  role: 'Worker',
                  worker: { nodes: 1 },
                  nodeSelector: { devices: [{ name: 'gpu', selectors: SELECTORS.worker.map((cel) => ({ cel })) }] },
                  template,
                },
              ],
            },
          ],
        },
      },
    },
  };
}

/**
 * A single-GPU Standalone deployment (packed onto the 8-GPU nodes by
 * devices) whose engine is now `next`: every existing replica runs engine
 * `main` and must move, so the call is a rollout in progress (maxSurge 25%).
 */
export function rolloutDeployment(replicas: number, engineName: string): KubeObject {
  const template = { spec: { containers: [{ name: 'engine', image: 'vllm/vllm-openai:v0.23.0', args: ['--model=Qwen/Qwen3-8B'] }] } };
  return {
    apiVersion: API,
    kind: 'ModelDeployment',
    metadata: { name: 'bench', namespace: 'ml-team' },
    spec: {
      replicas,
      strategy: { rollingUpdate: { maxSurge: '25%' } },
      template: {
        spec: {
          engines: [{ name: engineName, members: [{ role: 'Standalone', nodeSelector: { devices: [{ name: 'gpu', selectors: [{ cel: SELECTORS.leader }] }] }, template }] }],
        },
      },
    },
  };
}

export interface Scenario {
  xr: KubeObject;
  clusters: KubeObject[];
  replicas: KubeObject[];
  observed: Record<string, KubeObject>;
  /** The namespace's InferenceQuotas (the `quotas` requirement), when the scenario has some. */
  quotas?: KubeObject[];
}

/**
 * The `policy` scenario (docs/placement-policy.md, docs/quotas.md): the gang
 * deployment with tiers by capacity type (on demand, then Spot), a 50%
 * on-demand floor, cost tie-breaks, and one InferenceQuota of its namespace
 * that admits everything (so every placement is checked against it).
 */
export function policyScenario(replicas: number, clusters: KubeObject[]): Scenario {
  const xr = deployment(replicas);
  (xr['spec'] as Record<string, unknown>)['placement'] = {
    tiers: [
      { name: 'on-demand', capacityTypes: ['OnDemand', 'Reserved'] },
      { name: 'spot', capacityTypes: ['Spot'] },
    ],
    minOnDemand: '50%',
    optimize: 'Cost',
  };
  const quota: KubeObject = { apiVersion: API, kind: 'InferenceQuota', metadata: { name: 'team', namespace: 'ml-team' }, spec: { limits: [{ devices: 100000 }, { replicas: 1000 }] } };
  return { xr, clusters, replicas: [], observed: {}, quotas: [quota] };
}

/** The steady state: what the function composed on a fresh call, observed Ready. */
export function steady(s: Scenario): Scenario {
  const out = composeWith({ composite: s.xr, observed: {}, desired: {}, required: { clusters: s.clusters, [REQ_REPLICAS]: [] }, context: {}, credentials: {} }, celMatcher);
  const observed: Record<string, KubeObject> = {};
  const replicas: KubeObject[] = [];
  for (const [key, r] of Object.entries(out.resources)) {
    const obj = { ...structuredClone(r.resource), status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Available' }] } };
    observed[key] = obj;
    replicas.push(obj);
  }
  return { ...s, replicas, observed };
}

export function request(s: Scenario): RunFunctionRequest {
  const items = (objs: KubeObject[]) => ({ items: objs.map((o) => ({ resource: o, connectionDetails: {}, ready: Ready.READY_UNSPECIFIED })) });
  const resources: Record<string, { resource: KubeObject; connectionDetails: Record<string, Buffer>; ready: Ready }> = {};
  for (const [k, o] of Object.entries(s.observed)) resources[k] = { resource: o, connectionDetails: {}, ready: Ready.READY_UNSPECIFIED };
  return RunFunctionRequest.fromPartial({
    meta: { tag: 'bench' },
    observed: { composite: { resource: s.xr, connectionDetails: {}, ready: Ready.READY_UNSPECIFIED }, resources },
    desired: { resources: {} },
    context: {},
    requiredResources: { clusters: items(s.clusters), [REQ_REPLICAS]: items(s.replicas), ...(s.quotas ? { quotas: items(s.quotas) } : {}) },
  });
}

