/**
 * The nested cloud cluster XRs an InferenceCluster composes for a provisioned
 * source (docs/kinds/inferencecluster.md#the-nested-cloud-cluster), and the checks
 * that keep them applicable.
 *
 * Guarantees:
 * - One nested pool per InferenceCluster pool, in spec order, `role: GPU`,
 *   shaped from the pool and its class's provisioning block exactly as the
 *   reference passes it (GKE/EKS/AKS emit explicit `null` min/max node
 *   counts; Nebius/Vultr only set bounds; per-cloud zones/capacityBlock/fabric
 *   rules).
 * - The nested XR is named like the InferenceCluster, in `modelplane-system`;
 *   `credentials` only when the InferenceCluster block sets them.
 * - Every nested pool carries `className`; a pool whose class has no
 *   provisioning block for the cloud is passed without its shape
 *   (`instanceType`, `machineType`, `vmSize`, `platform`/`preset`, `plan`)
 *   and `gpu`, so the nested XR reports that pool (SpecValid=False naming
 *   the pool and the class) and keeps provisioning its other pools.
 * - {@link poolProblems} lists, in pool order, every pool the nested XR's own
 *   schema would reject (so we never compose an XR the API server refuses):
 *   a class without this cloud's provisioning block (the reference's
 *   InvalidNodePool; reported but not blocking, see above), and our
 *   additions: a pool name that is not a Kubernetes label value, GKE/EKS
 *   pools without zones, AKS pool names outside `^[a-z][a-z0-9]{0,11}$`,
 *   Nebius/Vultr minNodeCount without maxNodeCount, Vultr pools below one
 *   node, no pools at all, and a capacity type the cloud does not offer
 *   ({@link capacityTypeProblem}, docs/capacity-types.md).
 * - A pool whose capacity type resolves to Spot carries `capacityType: Spot`
 *   on EKS, GKE and AKS; OnDemand and Reserved pass nothing (an EKS
 *   reservation is its `capacityBlock`), so on-demand pools are unchanged.
 *
 * Divergence (docs/design.md#keep-what-exists): the reference skips the whole nested XR
 * when one pool's class lacks the cloud's block; we compose it with that pool
 * unshaped, on every cloud.
 */
import { isLabelValue } from '../lib/cloud-cluster.js';
import type { JsonObject, KubeObject } from '../lib/function.js';
import type { Fabric } from '../lib/workload.js';
import type { CapacityType, CloudBlock, InferenceClass, NodePool, Source } from './spec.js';
import { SYSTEM_NAMESPACE } from '../lib/names.js';

/** Namespace of every internal XR an InferenceCluster composes (the library's, shared with the dev runtime). */
export { SYSTEM_NAMESPACE };
/** API version of the nested cluster XRs and the ServingStack. */
export const INFRA_API_VERSION = 'infrastructure.modelplane.ai/v1alpha1';

/** What differs per provisioned source. */
export interface CloudSource {
  /** `spec.cluster.source` value, also the display name: GKE, EKS, AKS, Nebius, Vultr. */
  source: 'GKE' | 'EKS' | 'AKS' | 'Nebius' | 'Vultr';
  /** Block under `spec.cluster` and under the class's `spec.provisioning`. */
  block: 'gke' | 'eks' | 'aks' | 'nebius' | 'vultr';
  /** Nested XR kind. */
  kind: string;
  /** Desired-resource key of the nested XR, e.g. `gke-cluster`. */
  key: string;
  /** Secret type of the nested XR's identity entry used for the ProviderConfig. */
  identityType?: string;
  /** Whether ServingStack secrets keep the nested entry's `namespace`. */
  keepSecretNamespace: boolean;
  /** `nvidiaDriverRoot` of the ServingStack. */
  nvidiaDriverRoot?: string;
  /** Whether the nested XR publishes `status.cache.storageClassName`. */
  hasCache: boolean;
  /** The RDMA fabric a pool of this cloud can be on (`spec.nodePools[].fabric.type`), if any. */
  fabric?: Exclude<Fabric, 'None' | 'Ethernet'>;
  /**
   * Whether its pools can serve multi-node gangs at all (over `fabric`, else
   * Ethernet): false only for Vultr, which offers no GPU fabric
   * (docs/design.md#multi-node-needs-a-fabric).
   */
  multiNode: boolean;
}

/** The five provisioned sources. */
export const CLOUD_SOURCES: Readonly<Record<string, CloudSource>> = {
  GKE: {
    source: 'GKE',
    block: 'gke',
    kind: 'GKECluster',
    key: 'gke-cluster',
    identityType: 'GoogleApplicationCredentials',
    keepSecretNamespace: false,
    nvidiaDriverRoot: '/home/kubernetes/bin/nvidia',
    hasCache: true,
    multiNode: true,
  },
  EKS: {
    source: 'EKS',
    block: 'eks',
    kind: 'EKSCluster',
    key: 'eks-cluster',
    keepSecretNamespace: false,
    hasCache: true,
    fabric: 'EFA',
    multiNode: true,
  },
  AKS: {
    source: 'AKS',
    block: 'aks',
    kind: 'AKSCluster',
    key: 'aks-cluster',
    keepSecretNamespace: false,
    hasCache: true,
    fabric: 'InfiniBand',
    multiNode: true,
  },
  Nebius: {
    source: 'Nebius',
    block: 'nebius',
    kind: 'NebiusCluster',
    key: 'nebius-cluster',
    identityType: 'NebiusServiceAccountCredentials',
    keepSecretNamespace: true,
    hasCache: true,
    fabric: 'InfiniBand',
    multiNode: true,
  },
  Vultr: {
    source: 'Vultr',
    block: 'vultr',
    kind: 'VultrCluster',
    key: 'vultr-cluster',
    keepSecretNamespace: false,
    hasCache: false,
    multiNode: false,
  },
};

/** Reason of a pool the nested XR cannot take (the reference's condition reason). */
export const REASON_INVALID_NODE_POOL = 'InvalidNodePool';

/** A reason and a message naming the field and the fix. */
export interface Problem {
  reason: string;
  message: string;
  /** Reported by the nested XR for its pool too; the nested XR is still composed. */
  perPool?: true;
}

/** The reference's message for a class without the source's provisioning block. */
export function errNoProvisioningBlock(className: string, source: string): string {
  return `InferenceClass ${className} has no ${source} provisioning block`;
}

const AKS_POOL_NAME = /^[a-z][a-z0-9]{0,11}$/;

/** Message: a pool name that cannot label nodes. */
export function errPoolName(at: string, name: string): string {
  return `${at}.name ${JSON.stringify(name)} is not a Kubernetes label value (letters, digits, '-', '_' or '.', beginning and ending with a letter or digit); rename the pool`;
}

/**
 * The capacity type of `pool` (docs/capacity-types.md#resolution): as
 * declared, else Reserved when the pool has a `capacityBlock` on a source
 * that honours it (EKS, and Existing, taken at its word), else OnDemand.
 * Other clouds ignore `capacityBlock`, so their pools stay OnDemand.
 */
export function resolvedCapacityType(source: Source, pool: NodePool): CapacityType {
  if (pool.capacityType) return pool.capacityType;
  if (pool.capacityReservationId && (source === 'EKS' || source === 'Existing')) return 'Reserved';
  return 'OnDemand';
}

/** Message: a capacity type the source does not offer. */
export function errCapacityTypeNotOffered(at: string, type: CapacityType, source: string): string {
  const fix =
    type === 'Spot'
      ? 'use OnDemand or place spot pools on EKS, GKE or AKS'
      : `use OnDemand${source === 'GKE' || source === 'AKS' ? ' or Spot' : ''}, or place reserved pools on EKS with a capacityBlock`;
  return `${at}.capacityType: ${type} is not offered on ${source}; ${fix}`;
}

/** Message: an EKS pool declared Reserved without the reservation. */
export function errReservedWithoutBlock(at: string): string {
  return `${at}.capacityType: Reserved needs ${at}.capacityBlock on EKS; set capacityBlock.capacityReservationId to the EC2 Capacity Block's reservation, or use OnDemand or Spot`;
}

/** Message: an EKS capacity block declared with another capacity type. */
export function errBlockNotReserved(at: string, type: CapacityType): string {
  return `${at}.capacityBlock is a reservation, but ${at}.capacityType is ${type}; set capacityType to Reserved (or omit it), or drop capacityBlock`;
}

/**
 * Why `pool` (at `at`, e.g. `spec.nodePools[0]`) cannot be bought as it
 * declares on `cloud`, or undefined: Spot only on EKS, GKE and AKS;
 * Reserved only on EKS, with a `capacityBlock`; an EKS `capacityBlock`
 * only as Reserved.
 */
export function capacityTypeProblem(cloud: CloudSource, pool: NodePool, at: string): string | undefined {
  const declared = pool.capacityType;
  if (cloud.block === 'eks') {
    if (pool.capacityReservationId && declared !== undefined && declared !== 'Reserved') return errBlockNotReserved(at, declared);
    if (declared === 'Reserved' && !pool.capacityReservationId) return errReservedWithoutBlock(at);
    return undefined;
  }
  if (declared === 'Reserved') return errCapacityTypeNotOffered(at, declared, cloud.source);
  if (declared === 'Spot' && (cloud.block === 'nebius' || cloud.block === 'vultr')) {
    return errCapacityTypeNotOffered(at, declared, cloud.source);
  }
  return undefined;
}

/**
 * Pools the nested XR would reject, in pool order. `classes` holds only the
 * classes that resolved; pools of other classes are skipped (reported as
 * missing elsewhere).
 */
export function poolProblems(
  cloud: CloudSource,
  pools: readonly NodePool[],
  classes: ReadonlyMap<string, InferenceClass>,
): Problem[] {
  const invalid = (message: string): Problem => ({ reason: REASON_INVALID_NODE_POOL, message });
  if (pools.length === 0) {
    return [invalid(`spec.nodePools is required when spec.cluster.source is ${cloud.source}; add at least one pool`)];
  }
  const out: Problem[] = [];
  pools.forEach((pool, i) => {
    const at = `spec.nodePools[${i}]`;
    // Not about the class: reported even when the class is missing.
    const capacity = capacityTypeProblem(cloud, pool, at);
    if (capacity) out.push(invalid(capacity));
    const cls = classes.get(pool.className);
    if (!cls) return;
    if (!isLabelValue(pool.name)) out.push(invalid(errPoolName(at, pool.name)));
    if (!cls.provisioning[cloud.block]) out.push({ ...invalid(errNoProvisioningBlock(pool.className, cloud.source)), perPool: true });
    if ((cloud.block === 'gke' || cloud.block === 'eks') && pool.zones.length === 0) {
      out.push(invalid(`${at}.zones is required when spec.cluster.source is ${cloud.source}; list the pool's zones`));
    }
    if (cloud.block === 'aks' && !AKS_POOL_NAME.test(pool.name)) {
      out.push(
        invalid(`${at}.name ${pool.name} must match ^[a-z][a-z0-9]{0,11}$ when spec.cluster.source is AKS; rename the pool`),
      );
    }
    if ((cloud.block === 'nebius' || cloud.block === 'vultr') && pool.minNodeCount !== undefined && !pool.maxNodeCount) {
      out.push(
        invalid(
          `${at}.maxNodeCount is required when minNodeCount is set and spec.cluster.source is ${cloud.source}; set maxNodeCount or drop minNodeCount`,
        ),
      );
    }
    if (cloud.block === 'vultr' && pool.nodeCount < 1) {
      out.push(invalid(`${at}.nodeCount must be at least 1 when spec.cluster.source is Vultr; set nodeCount to 1 or more`));
    }
  });
  return out;
}

/** One nested pool; `block` is the class's block for this cloud, undefined when it has none. */
function gpuPool(cloud: CloudSource, pool: NodePool, block: JsonObject | undefined): JsonObject {
  if (block === undefined) return unshapedPool(cloud, pool);
  const p = block;
  const accelerator = (p['accelerator'] ?? {}) as JsonObject;
  const base: JsonObject = { name: pool.name, role: 'GPU', className: pool.className };
  const nullable = { minNodeCount: pool.minNodeCount ?? null, maxNodeCount: pool.maxNodeCount ?? null };
  const bounds: JsonObject = {};
  if (pool.minNodeCount !== undefined) bounds['minNodeCount'] = pool.minNodeCount;
  if (pool.maxNodeCount !== undefined) bounds['maxNodeCount'] = pool.maxNodeCount;
  switch (cloud.block) {
    case 'gke': {
      const out: JsonObject = {
        ...base,
        machineType: p['machineType'],
        diskSizeGb: p['diskSizeGb'],
        nodeCount: pool.nodeCount,
        ...nullable,
        gpu: { acceleratorType: accelerator['type'], acceleratorCount: accelerator['count'] },
        zones: [...pool.zones],
      };
      spot(cloud, pool, out);
      return out;
    }
    case 'eks': {
      const out: JsonObject = {
        ...base,
        instanceType: p['instanceType'],
        diskSizeGb: p['diskSizeGb'],
        nodeCount: pool.nodeCount,
        ...nullable,
        gpu: { acceleratorType: accelerator['type'] },
        zones: [...pool.zones],
      };
      if (pool.capacityReservationId) out['capacityBlock'] = { capacityReservationId: pool.capacityReservationId };
      if (pool.fabricType === 'EFA') out['fabric'] = 'EFA';
      spot(cloud, pool, out);
      return out;
    }
    case 'aks': {
      const out: JsonObject = {
        ...base,
        vmSize: p['vmSize'],
        diskSizeGb: p['diskSizeGb'],
        nodeCount: pool.nodeCount,
        ...nullable,
        gpu: { acceleratorType: accelerator['type'] },
      };
      if (pool.zones.length > 0) out['zones'] = [...pool.zones];
      if (pool.fabricType === 'InfiniBand') out['fabric'] = 'InfiniBand';
      spot(cloud, pool, out);
      return out;
    }
    case 'nebius': {
      const out: JsonObject = {
        ...base,
        platform: p['platform'],
        preset: p['preset'],
        diskSizeGb: p['diskSizeGb'],
        nodeCount: pool.nodeCount,
        ...bounds,
        gpu: { acceleratorType: accelerator['type'], driversPreset: p['driversPreset'] },
      };
      if (pool.fabricType === 'InfiniBand' && pool.infinibandFabric) {
        out['fabric'] = { type: 'InfiniBand', infiniband: { fabric: pool.infinibandFabric } };
      }
      return out;
    }
    case 'vultr':
      return {
        ...base,
        plan: p['plan'],
        nodeCount: pool.nodeCount,
        ...bounds,
        gpu: { acceleratorType: accelerator['type'] },
      };
  }
}

/**
 * A pool whose class has no block for the cloud: the pool's own fields (as
 * the shaped pool passes them) and `className`, without the shape, disk size
 * or `gpu`, which the cloud XRDs allow for such a pool and the nested
 * function reports by pool and class.
 */
function unshapedPool(cloud: CloudSource, pool: NodePool): JsonObject {
  const out: JsonObject = { name: pool.name, role: 'GPU', className: pool.className, nodeCount: pool.nodeCount };
  const nullable = cloud.block === 'eks' || cloud.block === 'gke' || cloud.block === 'aks';
  if (nullable) {
    out['minNodeCount'] = pool.minNodeCount ?? null;
    out['maxNodeCount'] = pool.maxNodeCount ?? null;
  } else {
    if (pool.minNodeCount !== undefined) out['minNodeCount'] = pool.minNodeCount;
    if (pool.maxNodeCount !== undefined) out['maxNodeCount'] = pool.maxNodeCount;
  }
  switch (cloud.block) {
    case 'eks':
      out['zones'] = [...pool.zones];
      if (pool.capacityReservationId) out['capacityBlock'] = { capacityReservationId: pool.capacityReservationId };
      if (pool.fabricType === 'EFA') out['fabric'] = 'EFA';
      break;
    case 'gke':
      out['zones'] = [...pool.zones];
      break;
    case 'aks':
      if (pool.zones.length > 0) out['zones'] = [...pool.zones];
      if (pool.fabricType === 'InfiniBand') out['fabric'] = 'InfiniBand';
      break;
    case 'nebius':
      if (pool.fabricType === 'InfiniBand' && pool.infinibandFabric) {
        out['fabric'] = { type: 'InfiniBand', infiniband: { fabric: pool.infinibandFabric } };
      }
      break;
    case 'vultr':
      break;
  }
  spot(cloud, pool, out);
  return out;
}

/**
 * Sets `capacityType: Spot` on a nested pool of EKS, GKE or AKS whose
 * capacity type resolves to Spot; nothing otherwise (Nebius and Vultr spot
 * pools are refused by {@link capacityTypeProblem} before composing).
 */
function spot(cloud: CloudSource, pool: NodePool, out: JsonObject): void {
  const offered = cloud.block === 'eks' || cloud.block === 'gke' || cloud.block === 'aks';
  if (offered && resolvedCapacityType(cloud.source, pool) === 'Spot') out['capacityType'] = 'Spot';
}

/**
 * The nested cluster XR for `cloud`. Every pool's class must have resolved
 * (compose only when {@link poolProblems} has no problem without `perPool`).
 */
export function nestedClusterXR(
  cloud: CloudSource,
  name: string,
  block: CloudBlock,
  pools: readonly NodePool[],
  classes: ReadonlyMap<string, InferenceClass>,
): KubeObject {
  const spec: JsonObject = {};
  if (cloud.block === 'aks') {
    if (block.location) spec['location'] = block.location;
  } else if (cloud.block !== 'nebius' && block.region) {
    spec['region'] = block.region;
  }
  spec['kubernetesVersion'] = block.kubernetesVersion;
  spec['nodePools'] = pools.map((pool) => gpuPool(cloud, pool, classes.get(pool.className)?.provisioning[cloud.block]));
  if (block.credentials) spec['credentials'] = { ...block.credentials };
  return { apiVersion: INFRA_API_VERSION, kind: cloud.kind, metadata: { name, namespace: SYSTEM_NAMESPACE }, spec };
}
