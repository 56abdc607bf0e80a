/**
 * compose-vultr-cluster: whole-response table tests — every acceptance case of
 * docs/clouds.md#vultr, and our additions (a class
 * without a Vultr plan, the reserved `system` pool, an unparseable spec,
 * status limitations).
 */
import { describe, expect, it } from 'vitest';
import { compose } from '../../functions/compose-vultr-cluster/compose.js';
import type { ComposeRequest, ComposeResult, JsonObject, KubeObject } from '../../functions/lib/function.js';
import { KUBECONFIG, NS, poolL40s, request, seen, vultrPool, vultrXr } from '../builders/cloud.js';

const VKE = 'vke.vultr.m.upbound.io/v1beta1';
const K8S = 'kubernetes.m.crossplane.io/v1alpha1';
const DEFAULT_PC = { kind: 'ClusterProviderConfig', name: 'default' };

function clusterBody(providerConfigRef: JsonObject = DEFAULT_PC): KubeObject {
  return {
    apiVersion: VKE,
    kind: 'Kubernetes',
    spec: {
      forProvider: {
        label: 'test-cluster',
        region: 'ewr',
        version: 'v1.36.1+3',
        haControlplanes: true,
        nodePools: {
          label: 'system',
          plan: 'vc2-6c-16gb',
          nodeQuantity: 1,
          autoScaler: true,
          minNodes: 1,
          maxNodes: 2,
          labels: [{ key: 'modelplane.ai/pool', value: 'system' }],
        },
      },
      providerConfigRef,
      writeConnectionSecretToRef: { name: KUBECONFIG },
    },
  };
}

/** The §8.5 GPU node pool, with overrides of forProvider fields (undefined removes one). */
function poolBody(forProvider: JsonObject = {}, providerConfigRef: JsonObject = DEFAULT_PC): KubeObject {
  const fp: JsonObject = {
    label: 'gpu-l40s',
    plan: 'vcg-l40s-16c-180g-48vram',
    nodeQuantity: 1,
    labels: [
      { key: 'modelplane.ai/pool', value: 'gpu-l40s' },
      { key: 'modelplane.ai/gpu', value: 'nvidia-l40s' },
    ],
    clusterIdSelector: { matchControllerRef: true },
    taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }],
    autoScaler: true,
    minNodes: 1,
    maxNodes: 4,
    ...forProvider,
  };
  for (const [k, v] of Object.entries(fp)) if (v === undefined) delete fp[k];
  return { apiVersion: VKE, kind: 'KubernetesNodePool', spec: { forProvider: fp, providerConfigRef } };
}

const providerConfigBody: KubeObject = {
  apiVersion: K8S,
  kind: 'ProviderConfig',
  metadata: { name: KUBECONFIG, namespace: NS },
  spec: { credentials: { source: 'Secret', secretRef: { namespace: NS, name: KUBECONFIG, key: 'kubeconfig' } } },
};

const gpuObserverBody: KubeObject = {
  apiVersion: K8S,
  kind: 'Object',
  metadata: { namespace: NS },
  spec: {
    providerConfigRef: { kind: 'ProviderConfig', name: KUBECONFIG },
    forProvider: {
      manifest: {
        apiVersion: 'apps/v1',
        kind: 'DaemonSet',
        metadata: { name: 'nvidia-operator-validator', namespace: 'gpu-operator' },
      },
    },
    readiness: {
      policy: 'DeriveFromCelQuery',
      celQuery:
        'has(object.status.numberReady) && object.status.desiredNumberScheduled >= 1 && object.status.numberReady == object.status.desiredNumberScheduled',
    },
    watch: true,
    managementPolicies: ['Observe'],
  },
};

const STATUS = {
  secrets: [{ type: 'Kubeconfig', name: KUBECONFIG, key: 'kubeconfig' }],
  limitations: [
    {
      feature: 'ModelCache',
      message:
        'No RWX model-cache storage on GPU nodes: Vultr File System cannot be attached to VKE GPU nodes, so no RWX StorageClass is provided and ModelCache volumes cannot be provisioned here.',
    },
    {
      feature: 'MultiNode',
      message:
        'Single-node serving only: VKE offers no GPU fabric between nodes, so multi-node (Leader + Worker) engines are never placed here.',
    },
    {
      feature: 'PrivateNetworking',
      message: 'No VPC-only networking: the cluster is not attached to a Vultr VPC and its API server endpoint is public.',
    },
  ],
  capabilities: {
    rwxCacheStorageClass: {
      reason: 'Vultr File System cannot be attached to VKE GPU nodes, so this cluster has no RWX StorageClass for ModelCache volumes.',
    },
    multiNodeFabric: 'None',
    nodeAutoscaling: 'Provider',
    gpuStack: 'PreinstalledAndGated',
  },
};
/** The status of a cluster whose pools are all fixed-size. */
const STATUS_FIXED = { ...STATUS, capabilities: { ...STATUS.capabilities, nodeAutoscaling: 'None' } };

const clusterReady = () => seen(VKE, 'Kubernetes', { ready: true });
const clusterNotReady = () => seen(VKE, 'Kubernetes', { ready: false });

function want(resources: ComposeResult['resources'], extra: Partial<ComposeResult> = {}): ComposeResult {
  return { resources, status: STATUS, conditions: [], results: [], requirements: {}, ...extra };
}

const A16_NO_PLAN =
  'spec.nodePools[0] (gpu-a16): InferenceClass a16-1x has no Vultr plan (spec.provisioning.vultr.plan); set it on the class or point the pool at a Vultr class. Nothing new is composed for this pool; what exists is kept.';
/** A pool as an InferenceCluster passes it when its class has no Vultr block: className and counts, no plan or gpu. */
const a16NoPlan = (): JsonObject => ({ name: 'gpu-a16', role: 'GPU', className: 'a16-1x', nodeCount: 1, minNodeCount: 1, maxNodeCount: 1 });

const BAD_NAME =
  'spec.nodePools[0].name: "GPU L40S" is not a Kubernetes label value (at most 63 letters, digits, \'-\', \'_\' or \'.\', beginning and ending with a letter or digit), so it cannot label the pool\'s nodes; rename the pool. Nothing new is composed for this pool; what exists is kept.';

const cases: { name: string; reason: string; req: () => ComposeRequest; want: ComposeResult }[] = [
  {
    name: '8.5-1 first pass',
    reason: 'before the cluster is Ready only the VKE cluster is composed (1 key), not ready',
    req: () => request(vultrXr()),
    want: want({ cluster: { resource: clusterBody() } }),
  },
  {
    name: '8.5-2 cluster Ready',
    reason: 'a Ready cluster opens the gate: node pool, kubernetes ProviderConfig (ready) and GPU observer (4 keys)',
    req: () => request(vultrXr(), { cluster: clusterReady() }),
    want: want({
      cluster: { resource: clusterBody(), ready: true },
      'node-pool-gpu-l40s': { resource: poolBody() },
      'provider-config-kubernetes': { resource: providerConfigBody, ready: true },
      'gpu-observer': { resource: gpuObserverBody },
    }),
  },
  {
    name: '8.5-3 cluster regressed, ProviderConfig observed',
    reason: 'dependents composed before stay composed while Ready is briefly False',
    req: () =>
      request(vultrXr(), { cluster: clusterNotReady(), 'provider-config-kubernetes': seen(K8S, 'ProviderConfig') }),
    want: want({
      cluster: { resource: clusterBody() },
      'node-pool-gpu-l40s': { resource: poolBody() },
      'provider-config-kubernetes': { resource: providerConfigBody, ready: true },
      'gpu-observer': { resource: gpuObserverBody },
    }),
  },
  {
    name: '8.5-4 cluster regressed, node pool observed Ready',
    reason: 'an observed node pool keeps the dependents; only it and the ProviderConfig are ready',
    req: () =>
      request(vultrXr(), {
        cluster: clusterNotReady(),
        'node-pool-gpu-l40s': seen(VKE, 'KubernetesNodePool', { ready: true }),
      }),
    want: want({
      cluster: { resource: clusterBody() },
      'node-pool-gpu-l40s': { resource: poolBody(), ready: true },
      'provider-config-kubernetes': { resource: providerConfigBody, ready: true },
      'gpu-observer': { resource: gpuObserverBody },
    }),
  },
  {
    name: '8.5-5 fixed-size pool',
    reason: 'without maxNodeCount the pool has nodeQuantity only, no autoscaler fields',
    req: () => request(vultrXr([poolL40s({ nodeCount: 2, maxNodeCount: undefined })]), { cluster: clusterReady() }),
    want: want({
      cluster: { resource: clusterBody(), ready: true },
      'node-pool-gpu-l40s': {
        resource: poolBody({ nodeQuantity: 2, autoScaler: undefined, minNodes: undefined, maxNodes: undefined }),
      },
      'provider-config-kubernetes': { resource: providerConfigBody, ready: true },
      'gpu-observer': { resource: gpuObserverBody },
    }, { status: STATUS_FIXED }),
  },
  {
    name: '8.5-6 System-role pool',
    reason: 'a System pool is labelled with its name only, untainted, autoscaled between its bounds',
    req: () =>
      request(
        vultrXr([
          { name: 'workers', role: 'System', plan: 'vc2-6c-16gb', nodeCount: 2, minNodeCount: 2, maxNodeCount: 5 },
        ]),
        { cluster: clusterReady() },
      ),
    want: want({
      cluster: { resource: clusterBody(), ready: true },
      'node-pool-workers': {
        resource: poolBody({
          label: 'workers',
          plan: 'vc2-6c-16gb',
          nodeQuantity: 2,
          labels: [{ key: 'modelplane.ai/pool', value: 'workers' }],
          taints: undefined,
          minNodes: 2,
          maxNodes: 5,
        }),
      },
      'provider-config-kubernetes': { resource: providerConfigBody, ready: true },
      'gpu-observer': { resource: gpuObserverBody },
    }),
  },
  {
    name: '8.5-7 everything Ready',
    reason: 'cluster, node pool and the NVIDIA validator all Ready: all four keys ready, so the XR can be Ready',
    req: () =>
      request(vultrXr(), {
        cluster: clusterReady(),
        'node-pool-gpu-l40s': seen(VKE, 'KubernetesNodePool', { ready: true }),
        'gpu-observer': seen(K8S, 'Object', { ready: true }),
      }),
    want: want({
      cluster: { resource: clusterBody(), ready: true },
      'node-pool-gpu-l40s': { resource: poolBody(), ready: true },
      'provider-config-kubernetes': { resource: providerConfigBody, ready: true },
      'gpu-observer': { resource: gpuObserverBody, ready: true },
    }),
  },
  {
    name: '8.6 GPU pool without gpu',
    reason: 'a GPU-role pool without a gpu block is still tainted but has no gpu label',
    req: () => request(vultrXr([poolL40s({ gpu: undefined })]), { cluster: clusterReady() }),
    want: want({
      cluster: { resource: clusterBody(), ready: true },
      'node-pool-gpu-l40s': { resource: poolBody({ labels: [{ key: 'modelplane.ai/pool', value: 'gpu-l40s' }] }) },
      'provider-config-kubernetes': { resource: providerConfigBody, ready: true },
      'gpu-observer': { resource: gpuObserverBody },
    }),
  },
  {
    name: 'credentials',
    reason: 'the Vultr MRs use the named ProviderConfig; in-cluster objects never carry cloud credentials',
    req: () =>
      request(vultrXr(undefined, { credentials: { type: 'ProviderConfig', name: 'my-vultr' } }), {
        cluster: clusterReady(),
      }),
    want: want({
      cluster: { resource: clusterBody({ kind: 'ProviderConfig', name: 'my-vultr' }), ready: true },
      'node-pool-gpu-l40s': { resource: poolBody({}, { kind: 'ProviderConfig', name: 'my-vultr' }) },
      'provider-config-kubernetes': { resource: providerConfigBody, ready: true },
      'gpu-observer': { resource: gpuObserverBody },
    }),
  },
  {
    name: 'InferenceCluster nulls',
    reason: 'explicit null bounds mean unset, as the API server prunes them: a fixed pool',
    req: () => request(vultrXr([poolL40s({ maxNodeCount: null, minNodeCount: null })]), { cluster: clusterReady() }),
    want: want({
      cluster: { resource: clusterBody(), ready: true },
      'node-pool-gpu-l40s': {
        resource: poolBody({ autoScaler: undefined, minNodes: undefined, maxNodes: undefined }),
      },
      'provider-config-kubernetes': { resource: providerConfigBody, ready: true },
      'gpu-observer': { resource: gpuObserverBody },
    }, { status: STATUS_FIXED }),
  },
  {
    name: 'class without plan, first pass',
    reason: 'the pool whose class has no Vultr plan is reported by pool and class; the cluster is still composed',
    req: () => request(vultrXr([a16NoPlan()])),
    want: want(
      { cluster: { resource: clusterBody() } },
      {
        status: STATUS_FIXED,
        conditions: [{ type: 'SpecValid', status: 'False', reason: 'InvalidNodePool', message: A16_NO_PLAN }],
        results: [{ severity: 'Warning', message: A16_NO_PLAN, reason: 'InvalidNodePool' }],
      },
    ),
  },
  {
    name: 'class without plan, pool exists',
    reason: 'the existing node pool of that pool is kept as observed (never deleted), the rest composed',
    req: () =>
      request(vultrXr([a16NoPlan(), poolL40s()]), {
        cluster: clusterReady(),
        'node-pool-gpu-a16': seen(VKE, 'KubernetesNodePool', { ready: true, status: { atProvider: { id: 'np-1' } } }),
      }),
    want: want(
      {
        cluster: { resource: clusterBody(), ready: true },
        'node-pool-gpu-a16': {
          resource: { apiVersion: VKE, kind: 'KubernetesNodePool', metadata: { name: 'kubernetesnodepool-x' } },
          ready: true,
        },
        'node-pool-gpu-l40s': { resource: poolBody() },
        'provider-config-kubernetes': { resource: providerConfigBody, ready: true },
        'gpu-observer': { resource: gpuObserverBody },
      },
      {
        conditions: [{ type: 'SpecValid', status: 'False', reason: 'InvalidNodePool', message: A16_NO_PLAN }],
        results: [{ severity: 'Warning', message: A16_NO_PLAN, reason: 'InvalidNodePool' }],
      },
    ),
  },
  {
    name: 'plan missing without class, reserved name',
    reason: 'messages name the field and the fix, sorted by pool name',
    req: () =>
      request(vultrXr([vultrPool('zeta'), vultrPool('system', { plan: 'vc2-6c-16gb' })]), { cluster: clusterReady() }),
    want: want(
      {
        cluster: { resource: clusterBody(), ready: true },
        'provider-config-kubernetes': { resource: providerConfigBody, ready: true },
        'gpu-observer': { resource: gpuObserverBody },
      },
      {
        status: STATUS_FIXED,
        conditions: [
          {
            type: 'SpecValid',
            status: 'False',
            reason: 'InvalidNodePool',
            message:
              'spec.nodePools[1].name: "system" is reserved for the cluster\'s inline system pool; rename the pool. Nothing new is composed for this pool; what exists is kept. spec.nodePools[0] (zeta): plan is required; set spec.nodePools[0].plan. Nothing new is composed for this pool; what exists is kept.',
          },
        ],
        results: [
          {
            severity: 'Warning',
            reason: 'InvalidNodePool',
            message:
              'spec.nodePools[1].name: "system" is reserved for the cluster\'s inline system pool; rename the pool. Nothing new is composed for this pool; what exists is kept.',
          },
          {
            severity: 'Warning',
            reason: 'InvalidNodePool',
            message:
              'spec.nodePools[0] (zeta): plan is required; set spec.nodePools[0].plan. Nothing new is composed for this pool; what exists is kept.',
          },
        ],
      },
    ),
  },
  {
    name: 'pool name that is not a label value',
    reason: 'refused by the function too (the XRD refuses it first): never composed, its observed node pool kept',
    req: () =>
      request(vultrXr([poolL40s({ name: 'GPU L40S' })]), {
        cluster: clusterReady(),
        'node-pool-GPU L40S': seen(VKE, 'KubernetesNodePool', { ready: true }),
      }),
    want: want(
      {
        cluster: { resource: clusterBody(), ready: true },
        'node-pool-GPU L40S': {
          resource: { apiVersion: VKE, kind: 'KubernetesNodePool', metadata: { name: 'kubernetesnodepool-x' } },
          ready: true,
        },
        'provider-config-kubernetes': { resource: providerConfigBody, ready: true },
        'gpu-observer': { resource: gpuObserverBody },
      },
      {
        status: STATUS_FIXED,
        conditions: [{ type: 'SpecValid', status: 'False', reason: 'InvalidNodePool', message: BAD_NAME }],
        results: [{ severity: 'Warning', message: BAD_NAME, reason: 'InvalidNodePool' }],
      },
    ),
  },
  {
    name: 'fixed input clears SpecValid',
    reason: 'an XR still carrying SpecValid=False gets it back True once the input is valid',
    req: () => {
      const xr = vultrXr();
      xr['status'] = { conditions: [{ type: 'SpecValid', status: 'False', reason: 'InvalidNodePool' }] };
      return request(xr);
    },
    want: want({ cluster: { resource: clusterBody() } }, { conditions: [{ type: 'SpecValid', status: 'True', reason: 'Valid' }] }),
  },
  {
    name: 'unparseable spec',
    reason: 'a spec that does not parse keeps every observed child and the status written before, and names the field',
    req: () => {
      const xr = vultrXr([poolL40s({ nodeCount: 'two' })]);
      xr['status'] = { secrets: STATUS.secrets };
      return request(xr, {
        cluster: seen(VKE, 'Kubernetes', { ready: true }),
        'provider-config-kubernetes': seen(K8S, 'ProviderConfig'),
      });
    },
    want: {
      resources: {
        cluster: { resource: { apiVersion: VKE, kind: 'Kubernetes', metadata: { name: 'kubernetes-x' } }, ready: true },
        'provider-config-kubernetes': {
          resource: { apiVersion: K8S, kind: 'ProviderConfig', metadata: { name: 'providerconfig-x' } },
          ready: true,
        },
      },
      status: { secrets: STATUS.secrets },
      conditions: [
        {
          type: 'SpecValid',
          status: 'False',
          reason: 'InvalidSpec',
          message:
            'VultrCluster spec is invalid: spec.nodePools[0].nodeCount: Invalid input: expected number, received string. Fix the fields named; nothing is changed until then.',
        },
      ],
      results: [
        {
          severity: 'Warning',
          reason: 'InvalidSpec',
          message:
            'VultrCluster spec is invalid: spec.nodePools[0].nodeCount: Invalid input: expected number, received string. Fix the fields named; nothing is changed until then.',
        },
      ],
      requirements: {},
    },
  },
];

describe('compose-vultr-cluster', () => {
  it.each(cases)('$name: $reason', ({ req, want: expected }) => {
    expect(compose(req())).toEqual(expected);
  });

});
