/**
 * What an InferenceCluster publishes for the fleet scheduler
 * (docs/kinds/inferencecluster.md#status, docs/kinds/inferencecluster.md#conditions,
 * docs/kinds/inferencecluster.md#how-the-scheduler-reads-a-cluster; docs/design.md#multi-node-needs-a-fabric).
 *
 * Guarantees:
 * - `gpuPools`: one entry per spec pool (spec order) whose class resolved and
 *   has devices and whose name can label nodes (a Kubernetes label value):
 *   `{name, className, capacityType, price?, nodes, devices, fabric?}` where
 *   `capacityType` is the pool's resolved one (`resolvedCapacityType`),
 *   `price` is `{currency, perNodeHour}` from the class's pricing for that
 *   capacity type (`capacityTypes[type]`, else `perNodeHour`; absent without
 *   pricing; docs/capacity-types.md#what-is-published), `nodes` is
 *   `maxNodeCount` when set (non-zero) else `nodeCount` (a node budget, in
 *   nodes), `devices` are the class's devices with XRD defaults applied, and
 *   `fabric` is the multi-node fabric the pool's nodes are on when its source
 *   offers it (EFA on EKS, InfiniBand on AKS and Nebius, either on Existing;
 *   never on GKE or Vultr), read from the pool's spec.
 * - `capabilities` (the provider contract, docs/design.md#declared-capabilities): relayed
 *   from the nested cloud XR's status once it publishes a well-formed block
 *   (omitted before); for Existing, declared from the spec:
 *   `existing.cache.storageClassName` (or the reason there is none), the
 *   fabric its pools declare, no autoscaling Modelplane manages, the GPU
 *   stack composed by the serving stack. The fleet scheduler places a gang
 *   only on a pool with a `fabric` in a cluster whose capabilities offer one.
 * - `providerConfigRef.name` and `namespace` are always published, even
 *   before the ClusterProviderConfig exists.
 * - Conditions: exactly one `ClusterReady` and one `BackendReady`.
 */
import { type Condition, condition, getPath, type JsonObject, type KubeObject } from '../lib/function.js';
import { InferenceClusterStatusCapabilitiesSchema } from '../lib/generated/inferenceclusters.js';
import { isLabelValue } from '../lib/cloud-cluster.js';
import { cloneJson } from '../lib/json.js';
import { capabilitiesStatus, type Fabric } from '../lib/workload.js';
import { CLOUD_SOURCES, resolvedCapacityType, SYSTEM_NAMESPACE } from './nested-cluster.js';
import type { CapacityType, ExistingBlock, InferenceClass, NodePool, Pricing, Source } from './spec.js';

/** Status fields this function owns, echoed unchanged on hold paths. */
export const OWNED_STATUS_FIELDS = ['providerConfigRef', 'namespace', 'gpuPools', 'cache', 'gateway', 'capabilities', 'health'] as const;

/**
 * The multi-node fabric `pool`'s nodes are on: the RDMA fabric it declares
 * when its source offers it (EKS: EFA; AKS, Nebius: InfiniBand, Nebius with
 * its fabric named; Existing: whichever it declares), else `Ethernet` (the
 * cluster network); undefined for a cloud whose pools cannot serve
 * multi-node (`CloudSource.multiNode` false: Vultr,
 * docs/design.md#multi-node-needs-a-fabric).
 */
export function poolFabric(source: Source, pool: NodePool): Exclude<Fabric, 'None'> | undefined {
  const cloud = CLOUD_SOURCES[source];
  if (cloud?.multiNode === false) return undefined;
  const declared = pool.fabricType === 'EFA' || pool.fabricType === 'InfiniBand' ? pool.fabricType : undefined;
  if (!declared) return 'Ethernet';
  if (source === 'Existing') return declared;
  if (source === 'Nebius' && !pool.infinibandFabric) return 'Ethernet';
  return cloud?.fabric === declared ? declared : 'Ethernet';
}

/**
 * The price of one node for one hour at `type` (docs/capacity-types.md#pricing):
 * the class's override for that capacity type, else its `perNodeHour`.
 */
export function poolPrice(pricing: Pricing, type: CapacityType): { currency: string; perNodeHour: string } {
  return { currency: pricing.currency, perNodeHour: pricing.capacityTypes[type] ?? pricing.perNodeHour };
}

/** The published pools. */
export function gpuPools(source: Source, pools: readonly NodePool[], classes: ReadonlyMap<string, InferenceClass>): JsonObject[] {
  const out: JsonObject[] = [];
  for (const pool of pools) {
    const cls = classes.get(pool.className);
    if (!cls || cls.devices.length === 0 || !isLabelValue(pool.name)) continue;
    const capacityType = resolvedCapacityType(source, pool);
    const entry: JsonObject = { name: pool.name, className: pool.className, capacityType };
    if (cls.pricing) entry['price'] = poolPrice(cls.pricing, capacityType);
    Object.assign(entry, {
      nodes: pool.maxNodeCount ? pool.maxNodeCount : pool.nodeCount,
      devices: cls.devices.map((d) => structuredClone(d) as unknown as JsonObject),
    });
    if (cls.exclusive) entry['exclusive'] = true;
    const fabric = poolFabric(source, pool);
    if (fabric) entry['fabric'] = fabric;
    out.push(entry);
  }
  return out;
}

/** Why an Existing cluster without `existing.cache.storageClassName` has no RWX cache StorageClass. */
export const NO_EXISTING_CACHE =
  'spec.cluster.existing.cache.storageClassName is not set; name an RWX StorageClass of the cluster to cache models here.';

/** The capabilities an Existing cluster declares through its spec. */
export function existingCapabilities(existing: ExistingBlock, pools: readonly NodePool[]): JsonObject {
  const fabric = pools.map((p) => poolFabric('Existing', p)).find((f) => f !== 'Ethernet') ?? 'Ethernet';
  return capabilitiesStatus({
    rwxCacheStorageClass: existing.storageClassName ? { name: existing.storageClassName } : { reason: NO_EXISTING_CACHE },
    multiNodeFabric: fabric,
    nodeAutoscaling: 'None',
    gpuStack: 'Composed',
  });
}

/** The observed nested XR's `status.capabilities` when well-formed (a fresh copy), else undefined. */
export function relayedCapabilities(nested: KubeObject | undefined): JsonObject | undefined {
  const parsed = InferenceClusterStatusCapabilitiesSchema.safeParse(getPath(nested, 'status', 'capabilities'));
  if (!parsed.success) return undefined;
  const { name, reason } = parsed.data.rwxCacheStorageClass;
  if ((name === undefined) === (reason === undefined)) return undefined;
  const rwxCacheStorageClass = name !== undefined ? { name } : { reason: reason! };
  return capabilitiesStatus({ ...parsed.data, rwxCacheStorageClass });
}

/** Inputs of {@link clusterStatus}. */
export interface StatusInputs {
  providerConfigName: string;
  pools: JsonObject[];
  storageClassName?: string | undefined;
  gatewayAddress?: string | undefined;
  capabilities?: JsonObject | undefined;
}

/** The whole status this function writes. */
export function clusterStatus(s: StatusInputs): JsonObject {
  const status: JsonObject = {
    providerConfigRef: { name: s.providerConfigName },
    namespace: SYSTEM_NAMESPACE,
    gpuPools: s.pools,
  };
  if (s.storageClassName) status['cache'] = { storageClassName: s.storageClassName };
  if (s.gatewayAddress) status['gateway'] = { address: s.gatewayAddress };
  if (s.capabilities) status['capabilities'] = s.capabilities;
  return status;
}

/** The observed ServingStack's gateway address, read generically. */
export function observedGatewayAddress(servingStack: KubeObject | undefined): string | undefined {
  const a = getPath(servingStack, 'status', 'gateway', 'address');
  return typeof a === 'string' && a !== '' ? a : undefined;
}

/** The status fields this function owns, as currently observed; `undefined` when there are none. */
export function echoStatus(xr: KubeObject): JsonObject | undefined {
  const status = xr['status'];
  if (!status || typeof status !== 'object') return undefined;
  const out: JsonObject = {};
  for (const k of OWNED_STATUS_FIELDS) {
    const v = (status as JsonObject)[k];
    if (v !== undefined && v !== null) out[k] = cloneJson(v);
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** A reason and message that override the derived `ClusterReady`. */
export interface ClusterProblem {
  reason: string;
  message: string;
}

/**
 * `ClusterReady` then `BackendReady` (docs/kinds/inferencecluster.md#conditions). The first
 * problem's reason (all messages joined with "; ") overrides a derived
 * ClusterReady; BackendReady is True iff the ServingStack is Ready, with
 * reason WaitingForCluster while the cluster is not ready.
 */
export function clusterConditions(clusterReady: boolean, backendReady: boolean, problems: ClusterProblem[]): Condition[] {
  const first = problems[0];
  const cluster = first
    ? condition('ClusterReady', false, first.reason, problems.map((p) => p.message).join('; '))
    : clusterReady
      ? condition('ClusterReady', true, 'ClusterRunning')
      : condition('ClusterReady', false, 'Provisioning');
  const reason = !clusterReady ? 'WaitingForCluster' : backendReady ? 'BackendHealthy' : 'Installing';
  return [cluster, condition('BackendReady', backendReady, reason)];
}
