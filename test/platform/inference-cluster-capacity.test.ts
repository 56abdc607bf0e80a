/**
 * compose-inference-cluster, capacity types and class pricing
 * (docs/capacity-types.md): what each cloud's nested pool carries for Spot,
 * every refusal with its exact message, and the published
 * `status.gpuPools[]` `className`, `capacityType` and `price`, as
 * whole-response tables.
 */
import { describe, expect, it } from 'vitest';
import { resolvedCapacityType } from '../../functions/compose-inference-cluster/nested-cluster.js';
import { compose } from '../../functions/compose-inference-cluster/compose.js';
import { readInferenceClass } from '../../functions/compose-inference-cluster/spec.js';
import type { InferenceClass, NodePool } from '../../functions/compose-inference-cluster/spec.js';
import { gpuPools } from '../../functions/compose-inference-cluster/status.js';
import type { ComposeRequest, ComposeResult, Condition, JsonObject, KubeObject, Result } from '../../functions/lib/function.js';
import {
  classes,
  gpuDevice,
  icRequirements,
  inferenceCluster,
  pool,
  request,
  requiredClasses,
  stdStatus,
  withFirstHealth,
} from '../builders/platform.js';
import { eksPool, eksSpec, gkeSpec, nested } from './fixtures/clusters.js';

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
/** A refused pool: nothing composed (nothing observed), one ClusterReady naming the field and the fix, one Warning. */
const refused = (message: string): { ready: false; resources: ComposeResult['resources']; conditions: Condition[]; results: Result[] } => ({
  ready: false,
  resources: {},
  conditions: [
    { type: 'ClusterReady', status: 'False', reason: 'InvalidNodePool', message },
    { type: 'BackendReady', status: 'False', reason: 'WaitingForCluster' },
  ],
  results: [{ severity: 'Warning', message }],
});

const eks = { source: 'EKS', eks: { region: 'us-west-2' } };
const gke = { source: 'GKE', gke: { region: 'us-central1' } };
const aks = { source: 'AKS', aks: { location: 'westeurope' } };
const CR = { capacityReservationId: 'cr-0123456789abcdef0' };
const EKS_ZONES = { zones: ['us-west-2a', 'us-west-2b'] };

/** `cls` with `spec.pricing`. */
function priced(cls: KubeObject, pricing: JsonObject): KubeObject {
  return { ...cls, spec: { ...(cls['spec'] as JsonObject), pricing } };
}
const L4_PRICING = { currency: 'EUR', perNodeHour: '0.805', capacityTypes: { Spot: '0.322' } };

/** An L4 pool as published (4 nodes, one 24Gi GPU, Ethernet). */
const l4 = (className: string, capacityType: string, extra: JsonObject = {}): JsonObject => ({
  name: 'l4-pool',
  className,
  capacityType,
  nodes: 4,
  devices: [gpuDevice(1, '24Gi')],
  fabric: 'Ethernet',
  ...extra,
});

const cases: Case[] = [
  {
    name: 'EKS Spot',
    reason: 'the nested EKSCluster pool carries capacityType Spot (its node group buys SPOT); published Spot',
    req: () =>
      request(inferenceCluster(eks, [pool('l4-pool', 'gpu-l4-eks', { ...EKS_ZONES, capacityType: 'Spot' })]), {
        required: requiredClasses(classes.eksL4()),
      }),
    want: {
      resources: { 'eks-cluster': { resource: nested('EKSCluster', eksSpec(eksPool({ capacityType: 'Spot' }))) } },
      status: stdStatus([l4('gpu-l4-eks', 'Spot')]),
      conditions: provisioning,
      results: [],
      requirements: icRequirements(['gpu-l4-eks']),
    },
  },
  {
    name: 'EKS OnDemand declared',
    reason: 'an explicit OnDemand pool composes exactly as one without capacityType',
    req: () =>
      request(inferenceCluster(eks, [pool('l4-pool', 'gpu-l4-eks', { ...EKS_ZONES, capacityType: 'OnDemand' })]), {
        required: requiredClasses(classes.eksL4()),
      }),
    want: {
      resources: { 'eks-cluster': { resource: nested('EKSCluster', eksSpec()) } },
      status: stdStatus([l4('gpu-l4-eks', 'OnDemand')]),
      conditions: provisioning,
      results: [],
      requirements: icRequirements(['gpu-l4-eks']),
    },
  },
  {
    name: 'EKS Reserved with a capacity block',
    reason: 'Reserved is the capacity block: the nested pool carries capacityBlock and no capacityType; priced at perNodeHour (no Reserved override)',
    req: () =>
      request(inferenceCluster(eks, [pool('l4-pool', 'gpu-l4-eks', { zones: ['us-west-2a'], capacityBlock: CR, capacityType: 'Reserved' })]), {
        required: requiredClasses(priced(classes.eksL4(), L4_PRICING)),
      }),
    want: {
      resources: {
        'eks-cluster': { resource: nested('EKSCluster', eksSpec(eksPool({ zones: ['us-west-2a'], capacityBlock: CR }))) },
      },
      status: stdStatus([l4('gpu-l4-eks', 'Reserved', { price: { currency: 'EUR', perNodeHour: '0.805' } })]),
      conditions: provisioning,
      results: [],
      requirements: icRequirements(['gpu-l4-eks']),
    },
  },
  {
    name: 'priced OnDemand and Spot pools',
    reason: 'the Spot pool pays the capacityTypes.Spot override, the on-demand pool perNodeHour; currency from the class',
    req: () =>
      request(
        inferenceCluster(eks, [
          pool('l4-pool', 'gpu-l4-eks', EKS_ZONES),
          pool('l4-spot', 'gpu-l4-eks', { ...EKS_ZONES, capacityType: 'Spot' }),
        ]),
        { required: requiredClasses(priced(classes.eksL4(), L4_PRICING)) },
      ),
    want: {
      resources: {
        'eks-cluster': {
          resource: nested('EKSCluster', {
            ...eksSpec(),
            nodePools: [eksPool(), eksPool({ name: 'l4-spot', capacityType: 'Spot' })],
          }),
        },
      },
      status: stdStatus([
        l4('gpu-l4-eks', 'OnDemand', { price: { currency: 'EUR', perNodeHour: '0.805' } }),
        l4('gpu-l4-eks', 'Spot', { name: 'l4-spot', price: { currency: 'EUR', perNodeHour: '0.322' } }),
      ]),
      conditions: provisioning,
      results: [],
      requirements: icRequirements(['gpu-l4-eks']),
    },
  },
  {
    name: 'GKE Spot',
    reason: 'the nested GKECluster pool carries capacityType Spot (its node pool sets nodeConfig.spot)',
    req: () =>
      request(inferenceCluster(gke, [pool('l4-pool', 'gpu-l4', { zones: ['us-central1-a'], capacityType: 'Spot' })]), {
        required: requiredClasses(classes.gkeL4()),
      }),
    want: {
      resources: {
        'gke-cluster': {
          resource: nested('GKECluster', gkeSpec({ nodePools: [{ ...((gkeSpec()['nodePools'] as JsonObject[])[0] as JsonObject), capacityType: 'Spot' }] })),
        },
      },
      status: stdStatus([l4('gpu-l4', 'Spot')]),
      conditions: provisioning,
      results: [],
      requirements: icRequirements(['gpu-l4']),
    },
  },
  {
    name: 'AKS Spot',
    reason: 'the nested AKSCluster pool carries capacityType Spot (its node pool has priority Spot)',
    req: () =>
      request(inferenceCluster(aks, [pool('h100pool', 'gpu-h100-aks', { minNodeCount: 1, capacityType: 'Spot' })]), {
        required: requiredClasses(classes.aksH100()),
      }),
    want: {
      resources: {
        'aks-cluster': {
          resource: nested('AKSCluster', {
            location: 'westeurope',
            kubernetesVersion: '1.34',
            nodePools: [
              {
                name: 'h100pool',
                role: 'GPU',
                className: 'gpu-h100-aks',
                vmSize: 'Standard_ND96isr_H100_v5',
                diskSizeGb: 200,
                nodeCount: 2,
                minNodeCount: 1,
                maxNodeCount: 4,
                gpu: { acceleratorType: 'nvidia-h100' },
                capacityType: 'Spot',
              },
            ],
          }),
        },
      },
      status: stdStatus([
        { name: 'h100pool', className: 'gpu-h100-aks', capacityType: 'Spot', nodes: 4, devices: [gpuDevice(8, '81559Mi')], fabric: 'Ethernet' },
      ]),
      conditions: provisioning,
      results: [],
      requirements: icRequirements(['gpu-h100-aks']),
    },
  },
  {
    name: 'EKS Reserved without a capacity block',
    reason: 'an EKS reservation is a Capacity Block: name the missing field',
    req: () =>
      request(inferenceCluster(eks, [pool('l4-pool', 'gpu-l4-eks', { ...EKS_ZONES, capacityType: 'Reserved' })]), {
        required: requiredClasses(classes.eksL4()),
      }),
    want: {
      ...refused(
        "spec.nodePools[0].capacityType: Reserved needs spec.nodePools[0].capacityBlock on EKS; set capacityBlock.capacityReservationId to the EC2 Capacity Block's reservation, or use OnDemand or Spot",
      ),
      status: stdStatus([l4('gpu-l4-eks', 'Reserved')]),
      requirements: icRequirements(['gpu-l4-eks']),
    },
  },
  {
    name: 'EKS capacity block declared Spot',
    reason: 'a Capacity Block cannot be bought as Spot',
    req: () =>
      request(inferenceCluster(eks, [pool('l4-pool', 'gpu-l4-eks', { zones: ['us-west-2a'], capacityBlock: CR, capacityType: 'Spot' })]), {
        required: requiredClasses(classes.eksL4()),
      }),
    want: {
      ...refused(
        'spec.nodePools[0].capacityBlock is a reservation, but spec.nodePools[0].capacityType is Spot; set capacityType to Reserved (or omit it), or drop capacityBlock',
      ),
      status: stdStatus([l4('gpu-l4-eks', 'Spot')]),
      requirements: icRequirements(['gpu-l4-eks']),
    },
  },
  {
    name: 'EKS capacity block declared OnDemand',
    reason: 'a Capacity Block is not on-demand capacity',
    req: () =>
      request(inferenceCluster(eks, [pool('l4-pool', 'gpu-l4-eks', { zones: ['us-west-2a'], capacityBlock: CR, capacityType: 'OnDemand' })]), {
        required: requiredClasses(classes.eksL4()),
      }),
    want: {
      ...refused(
        'spec.nodePools[0].capacityBlock is a reservation, but spec.nodePools[0].capacityType is OnDemand; set capacityType to Reserved (or omit it), or drop capacityBlock',
      ),
      status: stdStatus([l4('gpu-l4-eks', 'OnDemand')]),
      requirements: icRequirements(['gpu-l4-eks']),
    },
  },
  {
    name: 'GKE Reserved',
    reason: 'reservations are offered only as EKS Capacity Blocks',
    req: () =>
      request(inferenceCluster(gke, [pool('l4-pool', 'gpu-l4', { zones: ['us-central1-a'], capacityType: 'Reserved' })]), {
        required: requiredClasses(classes.gkeL4()),
      }),
    want: {
      ...refused('spec.nodePools[0].capacityType: Reserved is not offered on GKE; use OnDemand or Spot, or place reserved pools on EKS with a capacityBlock'),
      status: stdStatus([l4('gpu-l4', 'Reserved')]),
      requirements: icRequirements(['gpu-l4']),
    },
  },
  {
    name: 'AKS Reserved',
    reason: 'reservations are offered only as EKS Capacity Blocks',
    req: () =>
      request(inferenceCluster(aks, [pool('h100pool', 'gpu-h100-aks', { capacityType: 'Reserved' })]), {
        required: requiredClasses(classes.aksH100()),
      }),
    want: {
      ...refused('spec.nodePools[0].capacityType: Reserved is not offered on AKS; use OnDemand or Spot, or place reserved pools on EKS with a capacityBlock'),
      status: stdStatus([
        { name: 'h100pool', className: 'gpu-h100-aks', capacityType: 'Reserved', nodes: 4, devices: [gpuDevice(8, '81559Mi')], fabric: 'Ethernet' },
      ]),
      requirements: icRequirements(['gpu-h100-aks']),
    },
  },
  {
    name: 'Nebius Spot',
    reason: 'Nebius pools are on demand only',
    req: () =>
      request(inferenceCluster({ source: 'Nebius', nebius: {} }, [pool('h100', 'gpu-h100-nebius', { capacityType: 'Spot' })]), {
        required: requiredClasses(classes.nebiusH100()),
      }),
    want: {
      ...refused('spec.nodePools[0].capacityType: Spot is not offered on Nebius; use OnDemand or place spot pools on EKS, GKE or AKS'),
      status: stdStatus([
        { name: 'h100', className: 'gpu-h100-nebius', capacityType: 'Spot', nodes: 4, devices: [gpuDevice(8, '81559Mi')], fabric: 'Ethernet' },
      ]),
      requirements: icRequirements(['gpu-h100-nebius']),
    },
  },
  {
    name: 'Nebius Reserved',
    reason: 'Nebius pools are on demand only',
    req: () =>
      request(inferenceCluster({ source: 'Nebius', nebius: {} }, [pool('h100', 'gpu-h100-nebius', { capacityType: 'Reserved' })]), {
        required: requiredClasses(classes.nebiusH100()),
      }),
    want: {
      ...refused('spec.nodePools[0].capacityType: Reserved is not offered on Nebius; use OnDemand, or place reserved pools on EKS with a capacityBlock'),
      status: stdStatus([
        { name: 'h100', className: 'gpu-h100-nebius', capacityType: 'Reserved', nodes: 4, devices: [gpuDevice(8, '81559Mi')], fabric: 'Ethernet' },
      ]),
      requirements: icRequirements(['gpu-h100-nebius']),
    },
  },
  {
    name: 'Vultr Spot',
    reason: 'Vultr pools are on demand only',
    req: () =>
      request(inferenceCluster({ source: 'Vultr', vultr: { region: 'ewr' } }, [pool('l40s-pool', 'gpu-l40s-vultr', { capacityType: 'Spot' })]), {
        required: requiredClasses(classes.vultrL40s()),
      }),
    want: {
      ...refused('spec.nodePools[0].capacityType: Spot is not offered on Vultr; use OnDemand or place spot pools on EKS, GKE or AKS'),
      status: stdStatus([{ name: 'l40s-pool', className: 'gpu-l40s-vultr', capacityType: 'Spot', nodes: 4, devices: [gpuDevice(1, '46068Mi')] }]),
      requirements: icRequirements(['gpu-l40s-vultr']),
    },
  },
  {
    name: 'Vultr Reserved',
    reason: 'Vultr pools are on demand only',
    req: () =>
      request(inferenceCluster({ source: 'Vultr', vultr: { region: 'ewr' } }, [pool('l40s-pool', 'gpu-l40s-vultr', { capacityType: 'Reserved' })]), {
        required: requiredClasses(classes.vultrL40s()),
      }),
    want: {
      ...refused('spec.nodePools[0].capacityType: Reserved is not offered on Vultr; use OnDemand, or place reserved pools on EKS with a capacityBlock'),
      status: stdStatus([{ name: 'l40s-pool', className: 'gpu-l40s-vultr', capacityType: 'Reserved', nodes: 4, devices: [gpuDevice(1, '46068Mi')] }]),
      requirements: icRequirements(['gpu-l40s-vultr']),
    },
  },
];

describe('compose-inference-cluster: capacity types and pricing', () => {
  it.each(cases)('$name', ({ req, want }) => {
    expect(compose(req())).toStrictEqual(withFirstHealth(want));
  });
});

/** A domain pool with defaults, as spec.ts reads it. */
const domainPool = (extra: Partial<NodePool> = {}): NodePool => ({ name: 'p', className: 'c', nodeCount: 1, zones: [], fabricType: 'None', ...extra });

describe('resolvedCapacityType', () => {
  it.each([
    { source: 'EKS', pool: domainPool(), want: 'OnDemand' },
    { source: 'EKS', pool: domainPool({ capacityReservationId: 'cr-0a' }), want: 'Reserved' },
    { source: 'EKS', pool: domainPool({ capacityType: 'Spot' }), want: 'Spot' },
    { source: 'Existing', pool: domainPool({ capacityReservationId: 'cr-0a' }), want: 'Reserved' },
    // Other clouds ignore capacityBlock, so the pool is on demand.
    { source: 'GKE', pool: domainPool({ capacityReservationId: 'cr-0a' }), want: 'OnDemand' },
    { source: 'Vultr', pool: domainPool(), want: 'OnDemand' },
  ] as const)('$source $pool.capacityType $pool.capacityReservationId → $want', ({ source, pool: p, want }) => {
    expect(resolvedCapacityType(source, p)).toBe(want);
  });
});

describe('published gpuPools on Existing', () => {
  it('publishes any declared capacity type as declared, with the class price for it (currency defaulted to USD)', () => {
    const read = readInferenceClass(priced(classes.gkeL4(), { perNodeHour: '2', capacityTypes: { Reserved: '1.25' } }));
    if (!read.ok) throw new Error(read.problem);
    const cls: ReadonlyMap<string, InferenceClass> = new Map([['gpu-l4', read.cls]]);
    const pools = [
      domainPool({ name: 'a', className: 'gpu-l4', capacityType: 'Spot' }),
      domainPool({ name: 'b', className: 'gpu-l4', capacityType: 'Reserved' }),
      domainPool({ name: 'c', className: 'gpu-l4' }),
    ];
    const entry = (name: string, capacityType: string, perNodeHour: string) => ({
      name,
      className: 'gpu-l4',
      capacityType,
      price: { currency: 'USD', perNodeHour },
      nodes: 1,
      devices: [gpuDevice(1, '24Gi')],
      fabric: 'Ethernet',
    });
    expect(gpuPools('Existing', pools, cls)).toStrictEqual([entry('a', 'Spot', '2'), entry('b', 'Reserved', '1.25'), entry('c', 'OnDemand', '2')]);
  });

  it('refuses a class whose price is not a decimal, naming the field', () => {
    const read = readInferenceClass(priced(classes.gkeL4(), { perNodeHour: '$3' }));
    expect(read.ok).toBe(false);
    expect(read.ok ? '' : read.problem).toMatch(/^InferenceClass gpu-l4 is invalid: spec\.pricing\.perNodeHour/);
  });
});
