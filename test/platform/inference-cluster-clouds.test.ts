/**
 * compose-inference-cluster, provisioned sources: docs/kinds/inferencecluster.md#provisioned-sources
 * (cases ICL-2, ICL-creds, ICL-4 … ICL-15) plus extra cases, as
 * whole-response tables.
 */
import { describe, expect, it } from 'vitest';
import { compose } from '../../functions/compose-inference-cluster/compose.js';
import type { ComposeRequest, ComposeResult, Condition } from '../../functions/lib/function.js';
import { childName } from '../../functions/lib/names.js';
import {
  CPC_NAME,
  classes,
  expectedBackendUsage,
  expectedStackPcUsages,
  expectedCpc,
  expectedStack,
  gpuDevice,
  IC,
  icRequirements,
  observed,
  pool,
  request,
  requiredClasses,
  stdStatus,
  withFirstHealth,
} from '../builders/platform.js';
import {
  aksIC,
  aksSpec,
  eksIC,
  eksPool,
  eksSpec,
  gkeIC,
  gkeSpec,
  nebiusIC,
  nebiusSpec,
  nested,
  readyNested,
  vultrIC,
  vultrSpec,
} from './fixtures/clusters.js';

interface Case {
  name: string;
  reason: string;
  req: () => ComposeRequest;
  want: ComposeResult;
}

const provisioning: Condition[] = [
  { type: 'ClusterReady', status: 'False', reason: 'Provisioning' },
  { type: 'BackendReady', status: 'False', reason: 'WaitingForCluster' },
];
const running: Condition[] = [
  { type: 'ClusterReady', status: 'True', reason: 'ClusterRunning' },
  { type: 'BackendReady', status: 'False', reason: 'Installing' },
];
/** The L4 pool as published: `className` is the GKE (`gpu-l4`) or EKS (`gpu-l4-eks`) class. */
const l4Pool = (className: string, capacityType = 'OnDemand') => ({
  name: 'l4-pool',
  className,
  capacityType,
  nodes: 4,
  devices: [gpuDevice(1, '24Gi')],
  fabric: 'Ethernet',
});
/** An H100 pool on InfiniBand (the AKS and Nebius fixtures): its fabric is published for the scheduler. */
const h100Pool = (name: string, className: string) => ({ name, className, capacityType: 'OnDemand', nodes: 4, devices: [gpuDevice(8, '81559Mi')], fabric: 'InfiniBand' });
const l40sPool = { name: 'l40s-pool', className: 'gpu-l40s-vultr', capacityType: 'OnDemand', nodes: 4, devices: [gpuDevice(1, '46068Mi')] };
const kubeconfigSecret = { type: 'Kubeconfig', name: 'test-cluster-kubeconfig-abcde', key: 'kubeconfig' };

const cases: Case[] = [
  {
    name: 'ICL-2 GKE first pass',
    reason: 'only the GKECluster is composed until it is Ready',
    req: () => request(gkeIC(), { required: requiredClasses(classes.gkeL4()) }),
    want: {
      resources: { 'gke-cluster': { resource: nested('GKECluster', gkeSpec()) } },
      status: stdStatus([l4Pool('gpu-l4')]),
      conditions: provisioning,
      results: [],
      requirements: icRequirements(['gpu-l4']),
    },
  },
  {
    name: 'ICL-creds GKE with credentials',
    reason: 'the InferenceCluster credentials are passed to the nested XR',
    req: () =>
      request(gkeIC({ credentials: { type: 'ProviderConfig', name: 'my-gcp-account' } }), {
        required: requiredClasses(classes.gkeL4()),
      }),
    want: {
      resources: {
        'gke-cluster': {
          resource: nested('GKECluster', gkeSpec({ credentials: { type: 'ProviderConfig', name: 'my-gcp-account' } })),
        },
      },
      status: stdStatus([l4Pool('gpu-l4')]),
      conditions: provisioning,
      results: [],
      requirements: icRequirements(['gpu-l4']),
    },
  },
  {
    name: 'ICL-4 EKS first pass',
    reason: 'EKS pools carry instanceType, null bounds and zones',
    req: () => request(eksIC(), { required: requiredClasses(classes.eksL4()) }),
    want: {
      resources: { 'eks-cluster': { resource: nested('EKSCluster', eksSpec()) } },
      status: stdStatus([l4Pool('gpu-l4-eks')]),
      conditions: provisioning,
      results: [],
      requirements: icRequirements(['gpu-l4-eks']),
    },
  },
  {
    name: 'ICL-5 EKS not ready, ClusterProviderConfig observed (changed: kept)',
    reason: 'docs/design.md#keep-what-exists: a cluster briefly not Ready must not delete the ProviderConfig replicas use',
    req: () =>
      request(eksIC(), {
        required: requiredClasses(classes.eksL4()),
        observed: { 'cluster-provider-config-kubernetes': observed(expectedCpc('test-cluster-kubeconfig-abcde', 'kubeconfig')) },
      }),
    want: {
      resources: {
        'eks-cluster': { resource: nested('EKSCluster', eksSpec()) },
        'cluster-provider-config-kubernetes': {
          resource: expectedCpc('test-cluster-kubeconfig-abcde', 'kubeconfig'),
          ready: true,
        },
      },
      status: stdStatus([l4Pool('gpu-l4-eks')]),
      conditions: provisioning,
      results: [],
      requirements: icRequirements(['gpu-l4-eks']),
    },
  },
  {
    name: 'ICL-6 GKE ready',
    reason: 'a Ready GKECluster yields the ProviderConfig with identity, the ServingStack with the GKE driver root and the Usage',
    req: () =>
      request(gkeIC(), {
        required: requiredClasses(classes.gkeL4()),
        observed: {
          'gke-cluster': readyNested(
            'GKECluster',
            gkeSpec(),
            [kubeconfigSecret, { type: 'GoogleApplicationCredentials', name: 'test-cluster-sa-key-fghij', key: 'credentials.json' }],
            'modelplane-rwx',
          ),
        },
      }),
    want: {
      resources: {
        'gke-cluster': { resource: nested('GKECluster', gkeSpec()), ready: true },
        'cluster-provider-config-kubernetes': {
          resource: expectedCpc('test-cluster-kubeconfig-abcde', 'kubeconfig', {
            type: 'GoogleApplicationCredentials',
            source: 'Secret',
            secretRef: { namespace: 'modelplane-system', name: 'test-cluster-sa-key-fghij', key: 'credentials.json' },
          }),
          ready: true,
        },
        'serving-stack': {
          resource: expectedStack(
            [kubeconfigSecret, { type: 'GoogleApplicationCredentials', name: 'test-cluster-sa-key-fghij', key: 'credentials.json' }],
            '/home/kubernetes/bin/nvidia',
          ),
        },
        'usage-gke-by-backend': { resource: expectedBackendUsage('GKECluster'), ready: true },
        ...expectedStackPcUsages('GKECluster', 'gke'),
      },
      status: stdStatus([l4Pool('gpu-l4')], { cache: { storageClassName: 'modelplane-rwx' } }),
      conditions: running,
      results: [{ severity: 'Normal', message: 'GKE cluster ready, composing backend' }],
      requirements: icRequirements(['gpu-l4']),
    },
  },
  {
    name: 'ICL-7 EKS ready',
    reason: 'EKS has no identity and no driver root; the cache is relayed',
    req: () =>
      request(eksIC(), {
        required: requiredClasses(classes.eksL4()),
        observed: { 'eks-cluster': readyNested('EKSCluster', eksSpec(), [kubeconfigSecret], 'modelplane-rwx-efs') },
      }),
    want: {
      resources: {
        'eks-cluster': { resource: nested('EKSCluster', eksSpec()), ready: true },
        'cluster-provider-config-kubernetes': {
          resource: expectedCpc('test-cluster-kubeconfig-abcde', 'kubeconfig'),
          ready: true,
        },
        'serving-stack': { resource: expectedStack([kubeconfigSecret]) },
        'usage-eks-by-backend': { resource: expectedBackendUsage('EKSCluster'), ready: true },
        ...expectedStackPcUsages('EKSCluster', 'eks'),
      },
      status: stdStatus([l4Pool('gpu-l4-eks')], { cache: { storageClassName: 'modelplane-rwx-efs' } }),
      conditions: running,
      results: [{ severity: 'Normal', message: 'EKS cluster ready, composing backend' }],
      requirements: icRequirements(['gpu-l4-eks']),
    },
  },
  {
    name: 'ICL-8 EKS capacity block',
    reason: 'a capacity reservation is passed to the EKS pool',
    req: () =>
      request(
        eksIC(
          pool('l4-pool', 'gpu-l4-eks', {
            zones: ['us-west-2a'],
            capacityBlock: { capacityReservationId: 'cr-0123456789abcdef0' },
          }),
        ),
        { required: requiredClasses(classes.eksL4()) },
      ),
    want: {
      resources: {
        'eks-cluster': {
          resource: nested(
            'EKSCluster',
            eksSpec(eksPool({ zones: ['us-west-2a'], capacityBlock: { capacityReservationId: 'cr-0123456789abcdef0' } })),
          ),
        },
      },
      status: stdStatus([l4Pool('gpu-l4-eks', 'Reserved')]),
      conditions: provisioning,
      results: [],
      requirements: icRequirements(['gpu-l4-eks']),
    },
  },
  {
    name: 'ICL-9 EKS EFA fabric',
    reason: 'fabric EFA becomes the EKS pool fabric',
    req: () =>
      request(eksIC(pool('l4-pool', 'gpu-l4-eks', { zones: ['us-west-2a', 'us-west-2b'], fabric: { type: 'EFA' } })), {
        required: requiredClasses(classes.eksL4()),
      }),
    want: {
      resources: { 'eks-cluster': { resource: nested('EKSCluster', eksSpec(eksPool({ fabric: 'EFA' }))) } },
      status: stdStatus([{ ...l4Pool('gpu-l4-eks'), fabric: 'EFA' }]),
      conditions: provisioning,
      results: [],
      requirements: icRequirements(['gpu-l4-eks']),
    },
  },
  {
    name: 'ICL-10 Nebius first pass',
    reason: 'Nebius has no region, defaults driversPreset, sets bounds only when given and passes the InfiniBand fabric',
    req: () => request(nebiusIC(), { required: requiredClasses(classes.nebiusH100()) }),
    want: {
      resources: { 'nebius-cluster': { resource: nested('NebiusCluster', nebiusSpec) } },
      status: stdStatus([h100Pool('h100-pool', 'gpu-h100-nebius')]),
      conditions: provisioning,
      results: [],
      requirements: icRequirements(['gpu-h100-nebius']),
    },
  },
  {
    name: 'ICL-11 Nebius ready',
    reason: 'the Nebius identity keeps its own namespace in the ProviderConfig and the ServingStack',
    req: () =>
      request(nebiusIC(), {
        required: requiredClasses(classes.nebiusH100()),
        observed: {
          'nebius-cluster': readyNested('NebiusCluster', nebiusSpec, [
            kubeconfigSecret,
            {
              type: 'NebiusServiceAccountCredentials',
              name: 'nebius-credentials',
              key: 'credentials.json',
              namespace: 'crossplane-system',
            },
          ]),
        },
      }),
    want: {
      resources: {
        'nebius-cluster': { resource: nested('NebiusCluster', nebiusSpec), ready: true },
        'cluster-provider-config-kubernetes': {
          resource: expectedCpc('test-cluster-kubeconfig-abcde', 'kubeconfig', {
            type: 'NebiusServiceAccountCredentials',
            source: 'Secret',
            secretRef: { namespace: 'crossplane-system', name: 'nebius-credentials', key: 'credentials.json' },
          }),
          ready: true,
        },
        'serving-stack': {
          resource: expectedStack([
            kubeconfigSecret,
            {
              type: 'NebiusServiceAccountCredentials',
              name: 'nebius-credentials',
              key: 'credentials.json',
              namespace: 'crossplane-system',
            },
          ]),
        },
        'usage-nebius-by-backend': { resource: expectedBackendUsage('NebiusCluster'), ready: true },
        ...expectedStackPcUsages('NebiusCluster', 'nebius'),
      },
      status: stdStatus([h100Pool('h100-pool', 'gpu-h100-nebius')]),
      conditions: running,
      results: [{ severity: 'Normal', message: 'Nebius cluster ready, composing backend' }],
      requirements: icRequirements(['gpu-h100-nebius']),
    },
  },
  {
    name: 'ICL-12 AKS first pass',
    reason: 'AKS pools use vmSize, keep explicit bounds, omit empty zones and map InfiniBand',
    req: () => request(aksIC(), { required: requiredClasses(classes.aksH100()) }),
    want: {
      resources: { 'aks-cluster': { resource: nested('AKSCluster', aksSpec) } },
      status: stdStatus([h100Pool('h100pool', 'gpu-h100-aks')]),
      conditions: provisioning,
      results: [],
      requirements: icRequirements(['gpu-h100-aks']),
    },
  },
  {
    name: 'ICL-13 AKS ready',
    reason: 'AKS: kubeconfig only, cache relayed',
    req: () =>
      request(aksIC(), {
        required: requiredClasses(classes.aksH100()),
        observed: { 'aks-cluster': readyNested('AKSCluster', aksSpec, [kubeconfigSecret], 'modelplane-rwx-fs') },
      }),
    want: {
      resources: {
        'aks-cluster': { resource: nested('AKSCluster', aksSpec), ready: true },
        'cluster-provider-config-kubernetes': {
          resource: expectedCpc('test-cluster-kubeconfig-abcde', 'kubeconfig'),
          ready: true,
        },
        'serving-stack': { resource: expectedStack([kubeconfigSecret]) },
        'usage-aks-by-backend': { resource: expectedBackendUsage('AKSCluster'), ready: true },
        ...expectedStackPcUsages('AKSCluster', 'aks'),
      },
      status: stdStatus([h100Pool('h100pool', 'gpu-h100-aks')], { cache: { storageClassName: 'modelplane-rwx-fs' } }),
      conditions: running,
      results: [{ severity: 'Normal', message: 'AKS cluster ready, composing backend' }],
      requirements: icRequirements(['gpu-h100-aks']),
    },
  },
  {
    name: 'AKS ready relays capabilities',
    reason: "the nested XR's status.capabilities is published as the InferenceCluster's (the provider contract)",
    req: () =>
      request(aksIC(), {
        required: requiredClasses(classes.aksH100()),
        observed: {
          'aks-cluster': readyNested('AKSCluster', aksSpec, [kubeconfigSecret], 'modelplane-rwx-fs', {
            rwxCacheStorageClass: { name: 'modelplane-rwx-fs' },
            multiNodeFabric: 'InfiniBand',
            nodeAutoscaling: 'Provider',
            gpuStack: 'Composed',
          }),
        },
      }),
    want: {
      resources: {
        'aks-cluster': { resource: nested('AKSCluster', aksSpec), ready: true },
        'cluster-provider-config-kubernetes': { resource: expectedCpc('test-cluster-kubeconfig-abcde', 'kubeconfig'), ready: true },
        'serving-stack': { resource: expectedStack([kubeconfigSecret]) },
        'usage-aks-by-backend': { resource: expectedBackendUsage('AKSCluster'), ready: true },
        ...expectedStackPcUsages('AKSCluster', 'aks'),
      },
      status: stdStatus([h100Pool('h100pool', 'gpu-h100-aks')], {
        cache: { storageClassName: 'modelplane-rwx-fs' },
        capabilities: {
          rwxCacheStorageClass: { name: 'modelplane-rwx-fs' },
          multiNodeFabric: 'InfiniBand',
          nodeAutoscaling: 'Provider',
          gpuStack: 'Composed',
        },
      }),
      conditions: running,
      results: [{ severity: 'Normal', message: 'AKS cluster ready, composing backend' }],
      requirements: icRequirements(['gpu-h100-aks']),
    },
  },
  {
    name: 'malformed capabilities are not relayed',
    reason: 'a block with both a name and a reason (or an unknown value) says nothing reliable: omitted',
    req: () =>
      request(vultrIC(), {
        required: requiredClasses(classes.vultrL40s()),
        observed: {
          'vultr-cluster': readyNested('VultrCluster', vultrSpec(), [kubeconfigSecret], undefined, {
            rwxCacheStorageClass: { name: 'x', reason: 'y' },
            multiNodeFabric: 'None',
            nodeAutoscaling: 'Provider',
            gpuStack: 'PreinstalledAndGated',
          }),
        },
      }),
    want: {
      resources: {
        'vultr-cluster': { resource: nested('VultrCluster', vultrSpec()), ready: true },
        'cluster-provider-config-kubernetes': { resource: expectedCpc('test-cluster-kubeconfig-abcde', 'kubeconfig'), ready: true },
        'serving-stack': { resource: expectedStack([kubeconfigSecret]) },
        'usage-vultr-by-backend': { resource: expectedBackendUsage('VultrCluster'), ready: true },
        ...expectedStackPcUsages('VultrCluster', 'vultr'),
      },
      status: stdStatus([l40sPool]),
      conditions: running,
      results: [{ severity: 'Normal', message: 'Vultr cluster ready, composing backend' }],
      requirements: icRequirements(['gpu-l40s-vultr']),
    },
  },
  {
    name: 'ICL-14 Vultr first pass',
    reason: 'a Vultr pool has no fabric to publish (VKE offers none; docs/design.md#multi-node-needs-a-fabric)',
    req: () => request(vultrIC(), { required: requiredClasses(classes.vultrL40s()) }),
    want: {
      resources: { 'vultr-cluster': { resource: nested('VultrCluster', vultrSpec()) } },
      status: stdStatus([l40sPool]),
      conditions: provisioning,
      results: [],
      requirements: icRequirements(['gpu-l40s-vultr']),
    },
  },
  {
    name: 'ICL-14b Vultr with credentials',
    reason: 'credentials are passed to the VultrCluster',
    req: () =>
      request(vultrIC({ credentials: { type: 'ProviderConfig', name: 'my-vultr-account' } }), {
        required: requiredClasses(classes.vultrL40s()),
      }),
    want: {
      resources: {
        'vultr-cluster': {
          resource: nested('VultrCluster', vultrSpec({ credentials: { type: 'ProviderConfig', name: 'my-vultr-account' } })),
        },
      },
      status: stdStatus([l40sPool]),
      conditions: provisioning,
      results: [],
      requirements: icRequirements(['gpu-l40s-vultr']),
    },
  },
  {
    name: 'ICL-15 Vultr ready',
    reason: 'Vultr publishes no cache even when Ready',
    req: () =>
      request(vultrIC(), {
        required: requiredClasses(classes.vultrL40s()),
        observed: { 'vultr-cluster': readyNested('VultrCluster', vultrSpec(), [kubeconfigSecret]) },
      }),
    want: {
      resources: {
        'vultr-cluster': { resource: nested('VultrCluster', vultrSpec()), ready: true },
        'cluster-provider-config-kubernetes': {
          resource: expectedCpc('test-cluster-kubeconfig-abcde', 'kubeconfig'),
          ready: true,
        },
        'serving-stack': { resource: expectedStack([kubeconfigSecret]) },
        'usage-vultr-by-backend': { resource: expectedBackendUsage('VultrCluster'), ready: true },
        ...expectedStackPcUsages('VultrCluster', 'vultr'),
      },
      status: stdStatus([l40sPool]),
      conditions: running,
      results: [{ severity: 'Normal', message: 'Vultr cluster ready, composing backend' }],
      requirements: icRequirements(['gpu-l40s-vultr']),
    },
  },
];

describe('compose-inference-cluster: provisioned sources (§13.2)', () => {
  it.each(cases)('$name', ({ req, want }) => {
    expect(compose(req())).toStrictEqual(withFirstHealth(want));
  });

  it('names children with the verified child_name hashes (§0.3)', () => {
    expect([childName(IC, 'cluster-kubeconfig'), childName(IC, 'serving-stack'), childName('test-backend', 'cluster')]).toEqual([
      CPC_NAME,
      'test-cluster-serving-stack-fd00b',
      'test-backend-cluster-63fde',
    ]);
  });
});
