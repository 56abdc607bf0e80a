/**
 * compose-inference-cluster, Existing source, replica guard and hold paths:
 * docs/kinds/inferencecluster.md#existing-clusters and docs/kinds/inferencecluster.md#the-replica-guard
 * (cases ICL-1, ICL-1b, ICL-3, ICL-G1 … ICL-G3) and the
 * brief's "done when" cases (missing class, absent kubeconfig Secret), as
 * whole-response tables.
 */
import { describe, expect, it } from 'vitest';
import { compose } from '../../functions/compose-inference-cluster/compose.js';
import type { ComposeRequest, ComposeResult, Condition, JsonObject, KubeObject } from '../../functions/lib/function.js';
import {
  classes,
  cond,
  expectedCpc,
  expectedStack,
  gpuDevice,
  IC,
  icRequirements,
  inferenceCluster,
  observed,
  pool,
  replica,
  request,
  requiredClasses,
  secretRequirement,
  stdStatus,
  withFirstHealth,
} from '../builders/platform.js';

interface Case {
  name: string;
  reason: string;
  req: () => ComposeRequest;
  want: ComposeResult;
}

const existing = (extra: JsonObject = {}, pools = [pool('l4-pool', 'gpu-l4')]) =>
  inferenceCluster({ source: 'Existing', existing: { secretRef: { name: 'my-kubeconfig' }, ...extra } }, pools);
const kubeconfig = { type: 'Kubeconfig', name: 'my-kubeconfig', key: 'kubeconfig' };
const l4Pool = { name: 'l4-pool', className: 'gpu-l4', capacityType: 'OnDemand', nodes: 4, devices: [gpuDevice(1, '24Gi')], fabric: 'Ethernet' };
/** The capacity ledger once the replicas are read and none holds a device (docs/design.md#the-capacity-ledger, usage.ts). */
const NO_USAGE = { nodes: 0, devices: [], holders: [] };
/** Why an Existing cluster without a cache StorageClass has none (its declared capabilities). */
const NO_CACHE = 'spec.cluster.existing.cache.storageClassName is not set; name an RWX StorageClass of the cluster to cache models here.';

/** The standard status of an Existing cluster: with the capabilities its spec declares (Ethernet unless `fabric`). */
function byoStatus(pools: JsonObject[], extra: JsonObject = {}, fabric = 'Ethernet'): JsonObject {
  const cache = (extra['cache'] as JsonObject | undefined)?.['storageClassName'];
  return stdStatus(pools, {
    ...extra,
    capabilities: {
      rwxCacheStorageClass: typeof cache === 'string' ? { name: cache } : { reason: NO_CACHE },
      multiNodeFabric: fabric,
      nodeAutoscaling: 'None',
      gpuStack: 'Composed',
    },
  });
}
const running: Condition[] = [
  { type: 'ClusterReady', status: 'True', reason: 'ClusterRunning' },
  { type: 'BackendReady', status: 'False', reason: 'Installing' },
];
const requirements = icRequirements(['gpu-l4'], secretRequirement('my-kubeconfig'));
const icl1Resources = () => ({
  'cluster-provider-config-kubernetes': { resource: expectedCpc('my-kubeconfig', 'kubeconfig'), ready: true },
  'serving-stack': { resource: expectedStack([kubeconfig]) },
});
const guard = (): KubeObject => ({
  apiVersion: 'protection.crossplane.io/v1beta1',
  kind: 'ClusterUsage',
  spec: {
    of: { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceCluster', resourceRef: { name: IC } },
    reason: 'ModelReplicas are scheduled to this InferenceCluster',
    replayDeletion: true,
  },
});
const secret = (data: JsonObject): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'my-kubeconfig', namespace: 'modelplane-system' },
  data,
});
const secretAbsent =
  'Secret modelplane-system/my-kubeconfig not found (spec.cluster.existing.secretRef); create it with the cluster\'s kubeconfig under key kubeconfig';

const cases: Case[] = [
  {
    name: 'ICL-1 Existing',
    reason: 'an adopted cluster gets its ProviderConfig and ServingStack at once; the Secret is asked for',
    req: () => request(existing(), { required: requiredClasses(classes.gkeL4()) }),
    want: { resources: icl1Resources(), status: byoStatus([l4Pool]), conditions: running, results: [], requirements },
  },
  {
    name: 'ICL-1b Existing with an identity',
    reason: 'identitySecretRef becomes the ProviderConfig identity and a second ServingStack secret',
    req: () =>
      request(
        existing({
          identitySecretRef: { name: 'nebius-creds', key: 'credentials.json', type: 'NebiusServiceAccountCredentials' },
        }),
        { required: requiredClasses(classes.gkeL4()) },
      ),
    want: {
      resources: {
        'cluster-provider-config-kubernetes': {
          resource: expectedCpc('my-kubeconfig', 'kubeconfig', {
            type: 'NebiusServiceAccountCredentials',
            source: 'Secret',
            secretRef: { namespace: 'modelplane-system', name: 'nebius-creds', key: 'credentials.json' },
          }),
          ready: true,
        },
        'serving-stack': {
          resource: expectedStack([
            kubeconfig,
            { type: 'NebiusServiceAccountCredentials', name: 'nebius-creds', key: 'credentials.json' },
          ]),
        },
      },
      status: byoStatus([l4Pool]),
      conditions: running,
      results: [],
      requirements,
    },
  },
  {
    name: 'ICL-3 Existing second pass',
    reason: 'a Ready ServingStack makes the backend healthy and publishes its gateway address',
    req: () =>
      request(existing(), {
        required: { ...requiredClasses(classes.gkeL4()), 'kubeconfig-secret': [secret({ kubeconfig: 'YXBpVmVyc2lvbjogdjE=' })] },
        observed: { 'serving-stack': observed(expectedStack([kubeconfig]), { gateway: { address: '34.55.100.10' } }, [cond('Ready')]) },
      }),
    want: {
      resources: {
        'cluster-provider-config-kubernetes': { resource: expectedCpc('my-kubeconfig', 'kubeconfig'), ready: true },
        'serving-stack': { resource: expectedStack([kubeconfig]), ready: true },
      },
      status: byoStatus([l4Pool], { gateway: { address: '34.55.100.10' } }),
      conditions: [
        { type: 'ClusterReady', status: 'True', reason: 'ClusterRunning' },
        { type: 'BackendReady', status: 'True', reason: 'BackendHealthy' },
      ],
      results: [],
      requirements,
    },
  },
  {
    name: 'ICL-G1 replica guard',
    reason: 'replicas in two namespaces make one ClusterUsage of the InferenceCluster',
    req: () =>
      request(existing(), {
        required: { ...requiredClasses(classes.gkeL4()), 'model-replicas': [replica('team-a', 'r1'), replica('team-b', 'r2')] },
      }),
    want: {
      resources: { ...icl1Resources(), 'usage-replicas': { resource: guard(), ready: true } },
      status: byoStatus([{ ...l4Pool, used: NO_USAGE }]),
      conditions: running,
      results: [],
      requirements,
    },
  },
  {
    name: 'ICL-G2 no replicas',
    reason: 'an empty replica list composes no guard',
    req: () => request(existing(), { required: { ...requiredClasses(classes.gkeL4()), 'model-replicas': [] } }),
    want: { resources: icl1Resources(), status: byoStatus([{ ...l4Pool, used: NO_USAGE }]), conditions: running, results: [], requirements },
  },
  {
    name: 'ICL-G3 waiting for classes',
    reason: 'classes not fetched yet: only the guard, no status, a Normal result (nothing observed to keep)',
    req: () => request(existing(), { required: { 'model-replicas': [replica('team-a', 'r1')] } }),
    want: {
      ready: false,
      resources: { 'usage-replicas': { resource: guard(), ready: true } },
      conditions: [
        { type: 'ClusterReady', status: 'False', reason: 'WaitingForClasses', message: 'Waiting for InferenceClasses: gpu-l4' },
      ],
      results: [{ severity: 'Normal', message: 'Waiting for InferenceClasses: gpu-l4' }],
      requirements,
    },
  },
  {
    name: 'waiting keeps children and status',
    reason: 'docs/design.md#not-fetched-yet-is-not-absent: a pass before the classes arrive changes nothing already composed or published',
    req: () => {
      const xr = existing();
      xr['status'] = { ...byoStatus([l4Pool]), conditions: [cond('Ready')] };
      return request(xr, {
        observed: {
          'cluster-provider-config-kubernetes': observed(expectedCpc('my-kubeconfig', 'kubeconfig')),
          'serving-stack': observed(expectedStack([kubeconfig]), {}, [cond('Ready')]),
          'usage-replicas': observed(guard()),
        },
      });
    },
    want: {
      ready: false,
      resources: {
        ...icl1Resources(),
        'cluster-provider-config-kubernetes': { resource: expectedCpc('my-kubeconfig', 'kubeconfig'), ready: true },
        'serving-stack': { resource: expectedStack([kubeconfig]), ready: true },
        'usage-replicas': { resource: guard(), ready: true },
      },
      status: byoStatus([l4Pool]),
      conditions: [
        { type: 'ClusterReady', status: 'False', reason: 'WaitingForClasses', message: 'Waiting for InferenceClasses: gpu-l4' },
      ],
      results: [{ severity: 'Normal', message: 'Waiting for InferenceClasses: gpu-l4' }],
      requirements,
    },
  },
  {
    name: 'missing class',
    reason: 'an absent class keeps what was composed, is named in a condition and publishes no pool',
    req: () =>
      request(existing({}, [pool('l4-pool', 'gpu-l4'), pool('h100', 'gpu-h100', { maxNodeCount: 1 })]), {
        required: { ...requiredClasses(classes.gkeL4()), 'class-gpu-h100': [] },
      }),
    want: {
      resources: icl1Resources(),
      status: byoStatus([l4Pool]),
      conditions: [
        {
          type: 'ClusterReady',
          status: 'False',
          reason: 'ClassNotFound',
          message: 'InferenceClass gpu-h100 not found (spec.nodePools[1].className); create it or change the className',
        },
        { type: 'BackendReady', status: 'False', reason: 'Installing' },
      ],
      results: [
        {
          severity: 'Warning',
          message: 'InferenceClass gpu-h100 not found (spec.nodePools[1].className); create it or change the className',
        },
      ],
      requirements: icRequirements(['gpu-h100', 'gpu-l4'], secretRequirement('my-kubeconfig')),
    },
  },
  {
    name: 'kubeconfig Secret absent',
    reason: 'an adopted cluster without its Secret says so with namespace/name; children stay',
    req: () => request(existing(), { required: { ...requiredClasses(classes.gkeL4()), 'kubeconfig-secret': [] } }),
    want: {
      resources: icl1Resources(),
      status: byoStatus([l4Pool]),
      conditions: [
        { type: 'ClusterReady', status: 'False', reason: 'KubeconfigSecretNotFound', message: secretAbsent },
        { type: 'BackendReady', status: 'False', reason: 'WaitingForCluster' },
      ],
      results: [{ severity: 'Warning', message: secretAbsent }],
      requirements,
    },
  },
  {
    name: 'kubeconfig Secret without its key',
    reason: 'the Secret exists but the configured key is missing',
    req: () =>
      request(existing(), {
        required: { ...requiredClasses(classes.gkeL4()), 'kubeconfig-secret': [secret({ config: 'eA==' })] },
      }),
    want: {
      resources: icl1Resources(),
      status: byoStatus([l4Pool]),
      conditions: [
        {
          type: 'ClusterReady',
          status: 'False',
          reason: 'KubeconfigKeyNotFound',
          message:
            'Secret modelplane-system/my-kubeconfig has no key kubeconfig (spec.cluster.existing.secretRef.key); store the kubeconfig under that key or change the key',
        },
        { type: 'BackendReady', status: 'False', reason: 'WaitingForCluster' },
      ],
      results: [
        {
          severity: 'Warning',
          message:
            'Secret modelplane-system/my-kubeconfig has no key kubeconfig (spec.cluster.existing.secretRef.key); store the kubeconfig under that key or change the key',
        },
      ],
      requirements,
    },
  },
  {
    name: 'shared class, fixed pool, BYO cache',
    reason: 'two pools of one class make one requirement; no maxNodeCount means nodes = nodeCount; the cache is relayed',
    req: () =>
      request(
        existing({ cache: { storageClassName: 'nfs-rwx' } }, [
          pool('a', 'gpu-l4', { nodeCount: 3, maxNodeCount: undefined }),
          pool('b', 'gpu-l4'),
        ]),
        { required: requiredClasses(classes.gkeL4()) },
      ),
    want: {
      resources: icl1Resources(),
      status: byoStatus(
        [
          { name: 'a', className: 'gpu-l4', capacityType: 'OnDemand', nodes: 3, devices: [gpuDevice(1, '24Gi')], fabric: 'Ethernet' },
          { name: 'b', className: 'gpu-l4', capacityType: 'OnDemand', nodes: 4, devices: [gpuDevice(1, '24Gi')], fabric: 'Ethernet' },
        ],
        { cache: { storageClassName: 'nfs-rwx' } },
      ),
      conditions: running,
      results: [],
      requirements,
    },
  },
  {
    name: 'BYO fabric',
    reason: 'a pool declaring InfiniBand publishes it, and the cluster declares the fabric (so gangs can be placed there)',
    req: () =>
      request(existing({}, [pool('ib', 'gpu-l4', { fabric: { type: 'InfiniBand' } }), pool('l4-pool', 'gpu-l4')]), {
        required: requiredClasses(classes.gkeL4()),
      }),
    want: {
      resources: icl1Resources(),
      status: byoStatus([{ name: 'ib', className: 'gpu-l4', capacityType: 'OnDemand', nodes: 4, devices: [gpuDevice(1, '24Gi')], fabric: 'InfiniBand' }, l4Pool], {}, 'InfiniBand'),
      conditions: running,
      results: [],
      requirements,
    },
  },
  {
    name: 'BYO pool name that is not a label value',
    reason: 'the function refuses it as the XRD does: ClusterReady False naming the field, the pool not published, the cluster kept',
    req: () => request(existing({}, [pool('l4 pool', 'gpu-l4')]), { required: requiredClasses(classes.gkeL4()) }),
    want: {
      resources: icl1Resources(),
      status: byoStatus([]),
      conditions: [
        {
          type: 'ClusterReady',
          status: 'False',
          reason: 'InvalidNodePool',
          message:
            'spec.nodePools[0].name "l4 pool" is not a Kubernetes label value (letters, digits, \'-\', \'_\' or \'.\', beginning and ending with a letter or digit); rename the pool',
        },
        { type: 'BackendReady', status: 'False', reason: 'Installing' },
      ],
      results: [
        {
          severity: 'Warning',
          message:
            'spec.nodePools[0].name "l4 pool" is not a Kubernetes label value (letters, digits, \'-\', \'_\' or \'.\', beginning and ending with a letter or digit); rename the pool',
        },
      ],
      requirements,
    },
  },
  {
    name: 'Existing without its block',
    reason: 'the reference warning; nothing observed is dropped',
    req: () => request(inferenceCluster({ source: 'Existing' }, [pool('l4-pool', 'gpu-l4')]), { required: requiredClasses(classes.gkeL4()) }),
    want: {
      ready: false,
      resources: {},
      conditions: [
        {
          type: 'ClusterReady',
          status: 'False',
          reason: 'InvalidSpec',
          message: 'spec.cluster.existing: Existing cluster configuration is required when source is Existing',
        },
      ],
      results: [{ severity: 'Warning', message: 'Existing cluster configuration is required when source is Existing' }],
      requirements: icRequirements(['gpu-l4']),
    },
  },
  {
    name: 'no spec.cluster',
    reason: 'the reference warning, as a condition too',
    req: () => request({ apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceCluster', metadata: { name: IC }, spec: {} }),
    want: {
      ready: false,
      resources: {},
      conditions: [{ type: 'ClusterReady', status: 'False', reason: 'InvalidSpec', message: 'spec.cluster is required' }],
      results: [{ severity: 'Warning', message: 'spec.cluster is required' }],
      requirements: icRequirements([]),
    },
  },
  {
    name: 'no name',
    reason: 'an XR without metadata.name is a Fatal result (Crossplane keeps everything)',
    req: () => request({ apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceCluster', spec: {} }),
    want: {
      resources: {},
      conditions: [],
      results: [{ severity: 'Fatal', message: 'metadata.name is unexpectedly absent; spec.cluster: Invalid input: expected object, received undefined' }],
      requirements: {},
    },
  },
];

describe('compose-inference-cluster: Existing, guard, hold paths', () => {
  it.each(cases)('$name', ({ req, want }) => {
    expect(compose(req())).toStrictEqual(withFirstHealth(want));
  });
});
