/**
 * compose-inference-cluster, user errors on provisioned sources
 * (docs/kinds/inferencecluster.md#problems-and-messages; docs/design.md#keep-what-exists): each error is
 * one ClusterReady condition and a Warning naming the field and the fix, and
 * nothing already composed is dropped.
 */
import { describe, expect, it } from 'vitest';
import { compose } from '../../functions/compose-inference-cluster/compose.js';
import type { ComposeRequest, ComposeResult, Condition, JsonObject, KubeObject, Result } from '../../functions/lib/function.js';
import {
  classes,
  cond,
  expectedBackendUsage,
  expectedStackPcUsages,
  expectedCpc,
  expectedStack,
  gpuDevice,
  IC,
  icRequirements,
  inferenceCluster,
  observed,
  pool,
  request,
  requiredClasses,
  stdStatus,
  withFirstHealth,
} from '../builders/platform.js';

interface Case {
  name: string;
  reason: string;
  req: () => ComposeRequest;
  want: ComposeResult;
}

const eks = { source: 'EKS', eks: { region: 'us-west-2' } };
const l4Pool = { name: 'l4-pool', className: 'gpu-l4-eks', capacityType: 'OnDemand', nodes: 4, devices: [gpuDevice(1, '24Gi')], fabric: 'Ethernet' };
const invalid = (message: string): { conditions: Condition[]; results: Result[] } => ({
  conditions: [
    { type: 'ClusterReady', status: 'False', reason: 'InvalidNodePool', message },
    { type: 'BackendReady', status: 'False', reason: 'WaitingForCluster' },
  ],
  results: [{ severity: 'Warning', message }],
});
/** A nested EKSCluster as it was composed on an earlier pass (the spec Crossplane's block and status strip). */
const earlierEks = (): KubeObject => ({
  apiVersion: 'infrastructure.modelplane.ai/v1alpha1',
  kind: 'EKSCluster',
  metadata: { name: IC, namespace: 'modelplane-system' },
  spec: {
    region: 'us-west-2',
    kubernetesVersion: '1.36',
    nodePools: [{ name: 'l4-pool', role: 'GPU', instanceType: 'g6.xlarge', gpu: { acceleratorType: 'nvidia-l4' }, zones: ['us-west-2a'] }],
  },
});
const withCrossplane = (o: KubeObject): KubeObject => ({
  ...o,
  spec: { ...(o['spec'] as JsonObject), crossplane: { compositionRef: { name: 'eksclusters.infrastructure.modelplane.ai' } } },
});
const kubeconfig = { type: 'Kubeconfig', name: 'test-cluster-kubeconfig-abcde', key: 'kubeconfig' };

const cases: Case[] = [
  {
    name: 'pool name that is not a label value',
    reason: 'the nested XR would refuse it: it is not composed, the pool is not published, ClusterReady names the field',
    req: () =>
      request(inferenceCluster(eks, [pool('l4 pool', 'gpu-l4-eks', { zones: ['us-west-2a'] })]), {
        required: requiredClasses(classes.eksL4()),
      }),
    want: {
      ready: false,
      resources: {},
      status: stdStatus([]),
      ...invalid(
        'spec.nodePools[0].name "l4 pool" is not a Kubernetes label value (letters, digits, \'-\', \'_\' or \'.\', beginning and ending with a letter or digit); rename the pool',
      ),
      requirements: icRequirements(['gpu-l4-eks']),
    },
  },
  {
    name: 'GKE: class without the GKE provisioning block',
    reason: 'the reference InvalidNodePool text, one ClusterReady; the GKECluster is composed with the pool unshaped (className, counts, zones) for it to report by pool',
    req: () =>
      request(inferenceCluster({ source: 'GKE', gke: { region: 'us-central1' } }, [pool('l4-pool', 'gpu-l4-eks', { zones: ['us-central1-a'] })]), {
        required: requiredClasses(classes.eksL4()),
      }),
    want: {
      resources: {
        'gke-cluster': {
          resource: {
            apiVersion: 'infrastructure.modelplane.ai/v1alpha1',
            kind: 'GKECluster',
            metadata: { name: IC, namespace: 'modelplane-system' },
            spec: {
              region: 'us-central1',
              kubernetesVersion: '1.35',
              nodePools: [
                {
                  name: 'l4-pool',
                  role: 'GPU',
                  className: 'gpu-l4-eks',
                  nodeCount: 2,
                  minNodeCount: null,
                  maxNodeCount: 4,
                  zones: ['us-central1-a'],
                },
              ],
            },
          },
        },
      },
      status: stdStatus([l4Pool]),
      ...invalid('InferenceClass gpu-l4-eks has no GKE provisioning block'),
      requirements: icRequirements(['gpu-l4-eks']),
    },
  },
  {
    name: 'EKS: class without the EKS provisioning block, beside one with it',
    reason: 'the EKSCluster is composed: the EKS pool is shaped, the other carries only className (no instanceType, disk or gpu) for the EKSCluster to report by pool; the InferenceCluster reports it too',
    req: () =>
      request(
        inferenceCluster(eks, [
          pool('gke-pool', 'gpu-l4', { zones: ['us-west-2a'], nodeCount: 1, minNodeCount: 1, fabric: { type: 'EFA' } }),
          pool('l4-pool', 'gpu-l4-eks', { zones: ['us-west-2b'] }),
        ]),
        { required: requiredClasses(classes.gkeL4(), classes.eksL4()) },
      ),
    want: {
      resources: {
        'eks-cluster': {
          resource: {
            apiVersion: 'infrastructure.modelplane.ai/v1alpha1',
            kind: 'EKSCluster',
            metadata: { name: IC, namespace: 'modelplane-system' },
            spec: {
              region: 'us-west-2',
              kubernetesVersion: '1.36',
              nodePools: [
                {
                  name: 'gke-pool',
                  role: 'GPU',
                  className: 'gpu-l4',
                  nodeCount: 1,
                  minNodeCount: 1,
                  maxNodeCount: 4,
                  zones: ['us-west-2a'],
                  fabric: 'EFA',
                },
                {
                  name: 'l4-pool',
                  role: 'GPU',
                  className: 'gpu-l4-eks',
                  instanceType: 'g6.xlarge',
                  diskSizeGb: 100,
                  nodeCount: 2,
                  minNodeCount: null,
                  maxNodeCount: 4,
                  gpu: { acceleratorType: 'nvidia-l4' },
                  zones: ['us-west-2b'],
                },
              ],
            },
          },
        },
      },
      status: stdStatus([{ ...l4Pool, name: 'gke-pool', className: 'gpu-l4', fabric: 'EFA' }, l4Pool]),
      ...invalid('InferenceClass gpu-l4 has no EKS provisioning block'),
      requirements: icRequirements(['gpu-l4', 'gpu-l4-eks']),
    },
  },
  {
    name: 'Vultr: class without the Vultr provisioning block',
    reason: 'the VultrCluster is composed with the pool unshaped (className and counts, no plan or gpu) for the VultrCluster to report',
    req: () =>
      request(inferenceCluster({ source: 'Vultr', vultr: { region: 'ewr' } }, [pool('l4-pool', 'gpu-l4', { minNodeCount: 1 })]), {
        required: requiredClasses(classes.gkeL4()),
      }),
    want: {
      resources: {
        'vultr-cluster': {
          resource: {
            apiVersion: 'infrastructure.modelplane.ai/v1alpha1',
            kind: 'VultrCluster',
            metadata: { name: IC, namespace: 'modelplane-system' },
            spec: {
              region: 'ewr',
              kubernetesVersion: 'v1.36.1+3',
              nodePools: [{ name: 'l4-pool', role: 'GPU', className: 'gpu-l4', nodeCount: 2, minNodeCount: 1, maxNodeCount: 4 }],
            },
          },
        },
      },
      status: stdStatus([{ name: 'l4-pool', className: 'gpu-l4', capacityType: 'OnDemand', nodes: 4, devices: [gpuDevice(1, '24Gi')] }]),
      ...invalid('InferenceClass gpu-l4 has no Vultr provisioning block'),
      requirements: icRequirements(['gpu-l4']),
    },
  },
  {
    name: 'missing class keeps the nested XR',
    reason: 'the observed EKSCluster passes through unchanged (without Crossplane-owned spec.crossplane); no pool is published',
    req: () =>
      request(inferenceCluster(eks, [pool('l4-pool', 'gone', { zones: ['us-west-2a'] })]), {
        required: { 'class-gone': [] },
        observed: { 'eks-cluster': observed(withCrossplane(earlierEks()), {}, [cond('Ready', 'False')]) },
      }),
    want: {
      resources: { 'eks-cluster': { resource: earlierEks() } },
      status: stdStatus([]),
      conditions: [
        {
          type: 'ClusterReady',
          status: 'False',
          reason: 'ClassNotFound',
          message: 'InferenceClass gone not found (spec.nodePools[0].className); create it or change the className',
        },
        { type: 'BackendReady', status: 'False', reason: 'WaitingForCluster' },
      ],
      results: [
        { severity: 'Warning', message: 'InferenceClass gone not found (spec.nodePools[0].className); create it or change the className' },
      ],
      requirements: icRequirements(['gone']),
    },
  },
  {
    name: 'EKS pool without zones',
    reason: 'the EKSCluster XRD requires zones on GPU pools; say so instead of composing an XR the API server rejects',
    req: () => request(inferenceCluster(eks, [pool('l4-pool', 'gpu-l4-eks')]), { required: requiredClasses(classes.eksL4()) }),
    want: {
      ready: false,
      resources: {},
      status: stdStatus([l4Pool]),
      ...invalid("spec.nodePools[0].zones is required when spec.cluster.source is EKS; list the pool's zones"),
      requirements: icRequirements(['gpu-l4-eks']),
    },
  },
  {
    name: 'AKS pool name',
    reason: 'AKS agent pool names are ^[a-z][a-z0-9]{0,11}$',
    req: () =>
      request(inferenceCluster({ source: 'AKS', aks: { location: 'westeurope' } }, [pool('gpu-h100', 'gpu-h100-aks')]), {
        required: requiredClasses(classes.aksH100()),
      }),
    want: {
      ready: false,
      resources: {},
      status: stdStatus([{ name: 'gpu-h100', className: 'gpu-h100-aks', capacityType: 'OnDemand', nodes: 4, devices: [gpuDevice(8, '81559Mi')], fabric: 'Ethernet' }]),
      ...invalid('spec.nodePools[0].name gpu-h100 must match ^[a-z][a-z0-9]{0,11}$ when spec.cluster.source is AKS; rename the pool'),
      requirements: icRequirements(['gpu-h100-aks']),
    },
  },
  {
    name: 'Nebius minNodeCount without maxNodeCount',
    reason: 'the NebiusCluster XRD rule, named on the InferenceCluster field',
    req: () =>
      request(
        inferenceCluster({ source: 'Nebius', nebius: {} }, [pool('h100', 'gpu-h100-nebius', { minNodeCount: 1, maxNodeCount: undefined })]),
        { required: requiredClasses(classes.nebiusH100()) },
      ),
    want: {
      ready: false,
      resources: {},
      status: stdStatus([{ name: 'h100', className: 'gpu-h100-nebius', capacityType: 'OnDemand', nodes: 2, devices: [gpuDevice(8, '81559Mi')], fabric: 'Ethernet' }]),
      ...invalid(
        'spec.nodePools[0].maxNodeCount is required when minNodeCount is set and spec.cluster.source is Nebius; set maxNodeCount or drop minNodeCount',
      ),
      requirements: icRequirements(['gpu-h100-nebius']),
    },
  },
  {
    name: 'GKE block missing',
    reason: 'the reference warning, kept as a hold',
    req: () =>
      request(inferenceCluster({ source: 'GKE' }, [pool('l4-pool', 'gpu-l4', { zones: ['a'] })]), { required: requiredClasses(classes.gkeL4()) }),
    want: {
      ready: false,
      resources: {},
      conditions: [
        { type: 'ClusterReady', status: 'False', reason: 'InvalidSpec', message: 'spec.cluster.gke: GKE configuration is required when source is GKE' },
      ],
      results: [{ severity: 'Warning', message: 'GKE configuration is required when source is GKE' }],
      requirements: icRequirements(['gpu-l4']),
    },
  },
  {
    name: 'GKE block missing and a pool the schema rejects',
    reason: 'the reference warning as it is; the condition also names the pool field, so one fix does not reveal the next (found by the fuzz run)',
    req: () => {
      const xr = inferenceCluster({ source: 'GKE' }, [pool('l4-pool', 'gpu-l4', { zones: ['a'] })]);
      ((xr['spec'] as JsonObject)['nodePools'] as JsonObject[])[0]!['name'] = 7;
      return request(xr, { required: requiredClasses(classes.gkeL4()) });
    },
    want: {
      ready: false,
      resources: {},
      conditions: [
        {
          type: 'ClusterReady',
          status: 'False',
          reason: 'InvalidSpec',
          message: 'spec.cluster.gke: GKE configuration is required when source is GKE; spec.nodePools[0].name: Invalid input: expected string, received number',
        },
      ],
      results: [{ severity: 'Warning', message: 'GKE configuration is required when source is GKE' }],
      requirements: icRequirements(['gpu-l4']),
    },
  },
  {
    name: 'unsupported source',
    reason: 'the reference warning for a source outside the enum',
    req: () => request(inferenceCluster({ source: 'OCI' }, [pool('l4-pool', 'gpu-l4')]), { required: requiredClasses(classes.gkeL4()) }),
    want: {
      ready: false,
      resources: {},
      conditions: [{ type: 'ClusterReady', status: 'False', reason: 'InvalidSpec', message: 'spec.cluster.source: unsupported cluster source: OCI' }],
      results: [{ severity: 'Warning', message: 'unsupported cluster source: OCI' }],
      requirements: icRequirements(['gpu-l4']),
    },
  },
  {
    name: 'cluster not Ready, backend already installed',
    reason: 'ServingStack secrets fall back to its observed spec; the ProviderConfig and Usage stay',
    req: () =>
      request(inferenceCluster(eks, [pool('l4-pool', 'gpu-l4-eks', { zones: ['us-west-2a'] })]), {
        required: requiredClasses(classes.eksL4()),
        observed: {
          'eks-cluster': observed(earlierEks(), { secrets: [kubeconfig] }, [cond('Ready', 'False')]),
          'cluster-provider-config-kubernetes': observed(expectedCpc(kubeconfig.name, 'kubeconfig')),
          'serving-stack': observed(expectedStack([kubeconfig]), { gateway: { address: '10.1.2.3' } }, [cond('Ready')]),
        },
      }),
    want: {
      resources: {
        'eks-cluster': {
          resource: {
            ...earlierEks(),
            spec: {
              region: 'us-west-2',
              kubernetesVersion: '1.36',
              nodePools: [
                {
                  name: 'l4-pool',
                  role: 'GPU',
                  className: 'gpu-l4-eks',
                  instanceType: 'g6.xlarge',
                  diskSizeGb: 100,
                  nodeCount: 2,
                  minNodeCount: null,
                  maxNodeCount: 4,
                  gpu: { acceleratorType: 'nvidia-l4' },
                  zones: ['us-west-2a'],
                },
              ],
            },
          },
        },
        'cluster-provider-config-kubernetes': { resource: expectedCpc(kubeconfig.name, 'kubeconfig'), ready: true },
        'serving-stack': { resource: expectedStack([kubeconfig]), ready: true },
        'usage-eks-by-backend': { resource: expectedBackendUsage('EKSCluster'), ready: true },
        ...expectedStackPcUsages('EKSCluster', 'eks'),
      },
      status: stdStatus([l4Pool], { gateway: { address: '10.1.2.3' } }),
      conditions: [
        { type: 'ClusterReady', status: 'False', reason: 'Provisioning' },
        { type: 'BackendReady', status: 'True', reason: 'WaitingForCluster' },
      ],
      results: [],
      requirements: icRequirements(['gpu-l4-eks']),
    },
  },
];

describe('compose-inference-cluster: user errors never tear down', () => {
  it.each(cases)('$name', ({ req, want }) => {
    expect(compose(req())).toStrictEqual(withFirstHealth(want));
  });
});

describe('compose-inference-cluster: garbage observed children are held, never a throw', () => {
  it('an observed ServingStack without apiVersion is passed through on a hold path (the fuzz run: "Cannot read properties of undefined")', () => {
    const { apiVersion: _a, ...stack } = { ...expectedStack([]), spec: { secrets: [], crossplane: { compositionRef: { name: 'x' } } } };
    const req = request(inferenceCluster({ source: 'GKE' }, [pool('l4-pool', 'gpu-l4', { zones: ['a'] })]), {
      observed: { 'serving-stack': observed(stack as unknown as KubeObject) },
    });
    const out = compose(req);
    // Kept as observed (status dropped); without an apiVersion it is not known to be our nested XR, so spec.crossplane stays.
    expect(out.resources).toEqual({ 'serving-stack': { resource: stack } });
    expect(out.conditions.map((c) => [c.type, c.reason, c.message])).toEqual([['ClusterReady', 'InvalidSpec', 'spec.cluster.gke: GKE configuration is required when source is GKE']]);
  });
});
