/**
 * The InferenceCluster and InferenceClass specs as compose-inference-cluster
 * reads them: parsed by the generated parsers (functions/lib/generated/), so
 * every XRD default is applied (kubernetesVersion per cloud, nodeCount 1,
 * credentials ClusterProviderConfig/default, secret keys, identity type,
 * device claim DRA / count 1, class diskSizeGb 100, driversPreset cuda13.0;
 * docs/kinds/inferencecluster.md#defaults), then converted once into the flat domain types the
 * composition code uses.
 *
 * Guarantees: readers never throw and never mutate their input. An input the
 * XRD would reject (types, bounds, CEL rules) is reported as one message
 * naming each field (`spec.nodePools[0].className: …`); `spec.cluster`
 * missing, an unknown source and a missing source block keep the reference's
 * exact messages (the Warning's text), and name the field for the condition
 * (`spec.cluster.source: unsupported cluster source: OCI`).
 */
import type { JsonObject, KubeObject } from '../lib/function.js';
import { deepFrozen } from '../lib/json.js';
import { type InferenceClass as InferenceClassXr, type InferenceClassDevice, parseInferenceClass } from '../lib/generated/inferenceclasses.js';
import { type InferenceCluster as InferenceClusterXr, type InferenceClusterNodePool, parseInferenceCluster } from '../lib/generated/inferenceclusters.js';
import { readComposite } from '../lib/xr.js';
import { DEFAULT_BOUNDS, type FailoverBounds, parseDuration } from '../lib/health.js';

/** Where a cluster comes from (`spec.cluster.source`). */
export type Source = 'GKE' | 'EKS' | 'AKS' | 'Nebius' | 'Vultr' | 'Existing';
const SOURCES: readonly string[] = ['GKE', 'EKS', 'AKS', 'Nebius', 'Vultr', 'Existing'];

/** How a pool's nodes are bought (docs/capacity-types.md). */
export type CapacityType = 'OnDemand' | 'Spot' | 'Reserved';

/** The cloud (Cluster)ProviderConfig a nested cluster XR uses. */
export interface Credentials {
  type: 'ProviderConfig' | 'ClusterProviderConfig';
  name: string;
}

/** A cloud block (`spec.cluster.{gke,eks,aks,nebius,vultr}`), defaults applied. */
export interface CloudBlock {
  /** GKE/EKS/Vultr region. */
  region?: string;
  /** AKS location. */
  location?: string;
  /** Defaults: GKE "1.35", EKS "1.36", AKS "1.34", Nebius "1.34", Vultr "v1.36.1+3". */
  kubernetesVersion: string;
  /** Present only when the InferenceCluster sets it. */
  credentials?: Credentials;
}

/** `spec.cluster.existing`, defaults applied. */
export interface ExistingBlock {
  /** Kubeconfig Secret in modelplane-system; key defaults to `kubeconfig`. */
  secretRef: { name: string; key: string };
  /** key defaults to `private_key`, type to `GoogleApplicationCredentials`. */
  identitySecretRef?: { name: string; key: string; type: string };
  /** An existing RWX StorageClass for ModelCache. */
  storageClassName?: string;
}

/** One `spec.nodePools[]` entry, defaults applied. */
export interface NodePool {
  name: string;
  className: string;
  /** Nodes (the initial count when autoscaling). @default 1 */
  nodeCount: number;
  minNodeCount?: number;
  maxNodeCount?: number;
  /** `[]` when unset. */
  zones: string[];
  capacityReservationId?: string;
  /**
   * `spec.nodePools[].capacityType` as declared; absent when unset (resolved
   * per source by `resolvedCapacityType`, docs/capacity-types.md).
   */
  capacityType?: CapacityType;
  /** `None`, `EFA` or `InfiniBand`. @default "None" */
  fabricType: string;
  /** Nebius InfiniBand fabric, e.g. `fabric-2`. */
  infinibandFabric?: string;
}

/** An InferenceCluster, defaults applied. */
export interface InferenceCluster {
  name: string;
  source: Source;
  /** The block of each cloud that is set. */
  clouds: Partial<Record<'gke' | 'eks' | 'aks' | 'nebius' | 'vultr', CloudBlock>>;
  existing?: ExistingBlock;
  nodePools: NodePool[];
  /**
   * Why the platform drains the cluster (`spec.drain: true`, or a NoExecute
   * taint), or undefined: its replicas are re-placed (lib/health.ts).
   */
  drain?: string;
  /** `spec.failover`, in seconds (defaults 5m and 2m; lib/health.ts). */
  failover: FailoverBounds;
  /** `spec.gateway` (hostname, tls), passed to the ServingStack as its `spec.gateway` (docs/front-door.md). */
  gateway?: JsonObject;
}

/** Messages of the reference for an XR without a name, a cluster or a known source. */
export const ERR_NO_NAME = 'metadata.name is unexpectedly absent';
export const ERR_NO_CLUSTER = 'spec.cluster is required';
export const errUnsupportedSource = (source: string) => `unsupported cluster source: ${source}`;
/** The reference's messages for a source without its block (docs/kinds/inferencecluster.md#problems-and-messages). */
export const errNoSourceBlock = (source: string) => `${source} configuration is required when source is ${source}`;
export const ERR_NO_EXISTING_BLOCK = 'Existing cluster configuration is required when source is Existing';

/** Result of {@link readInferenceCluster}. */
export type ReadCluster =
  | { ok: true; ic: InferenceCluster }
  | {
      ok: false;
      name?: string;
      problem: string;
      /** The field a reference message is about, for the condition (`spec.cluster.gke`). */
      field?: string;
      /**
       * What else the XRD's schema rejects in the spec, for the condition
       * (the Warning keeps the reference's text): one fix should not reveal the next.
       */
      also?: string;
      /** true when the XR has no name (Fatal). */
      fatal: boolean;
    };

/** Reads the observed InferenceCluster. */
export function readInferenceCluster(xr: KubeObject): ReadCluster {
  const name = xr.metadata?.name;
  if (typeof name !== 'string' || name === '') {
    // The Fatal also names what is wrong in the spec, so one fix does not reveal the next.
    const spec = readComposite<InferenceClusterXr>(xr, parseInferenceCluster);
    return { ok: false, problem: spec.ok ? ERR_NO_NAME : `${ERR_NO_NAME}; ${spec.problem}`, fatal: true };
  }
  const spec = xr['spec'] as JsonObject | undefined;
  const cluster = typeof spec === 'object' && spec !== null ? (spec['cluster'] as JsonObject | undefined) : undefined;
  if (!cluster || typeof cluster !== 'object' || Array.isArray(cluster)) return { ok: false, name, problem: ERR_NO_CLUSTER, fatal: false };
  const source = cluster['source'];
  if (typeof source !== 'string' || !SOURCES.includes(source)) {
    return { ok: false, name, problem: errUnsupportedSource(String(source)), field: 'spec.cluster.source', fatal: false };
  }
  // The reference's message for a missing source block, before the XRD rule that says the same.
  const block = source.toLowerCase();
  if (cluster[block] === undefined) {
    const problem = source === 'Existing' ? ERR_NO_EXISTING_BLOCK : errNoSourceBlock(source);
    const rest = readComposite<InferenceClusterXr>(xr, parseInferenceCluster);
    return { ok: false, name, problem, field: `spec.cluster.${block}`, ...(rest.ok ? {} : { also: rest.problem }), fatal: false };
  }
  const parsed = readComposite<InferenceClusterXr>(xr, parseInferenceCluster);
  if (!parsed.ok) return { ok: false, name, problem: parsed.problem, fatal: false };
  const s = parsed.xr.spec;
  const failover: FailoverBounds = {
    afterSeconds: parseDuration(s.failover?.after) ?? DEFAULT_BOUNDS.afterSeconds,
    recoverAfterSeconds: parseDuration(s.failover?.recoverAfter) ?? DEFAULT_BOUNDS.recoverAfterSeconds,
  };
  const ic: InferenceCluster = { name, source: s.cluster.source, clouds: {}, nodePools: (s.nodePools ?? []).map(toPool), failover };
  if (s.gateway !== undefined && Object.keys(s.gateway).length > 0) ic.gateway = structuredClone(s.gateway) as unknown as JsonObject;
  const noExecute = (s.taints ?? []).find((t) => t.effect === 'NoExecute');
  if (s.drain === true) ic.drain = 'spec.drain is true';
  else if (noExecute) ic.drain = `taint ${noExecute.key}${noExecute.value ? `=${noExecute.value}` : ''}:NoExecute`;
  for (const block of ['gke', 'eks', 'aks', 'nebius', 'vultr'] as const) {
    const b = s.cluster[block];
    if (!b) continue;
    const out: CloudBlock = { kubernetesVersion: b.kubernetesVersion };
    if ('region' in b) out.region = b.region;
    if ('location' in b) out.location = b.location;
    if (b.credentials) out.credentials = { type: b.credentials.type, name: b.credentials.name };
    ic.clouds[block] = out;
  }
  const e = s.cluster.existing;
  if (e) {
    const existing: ExistingBlock = { secretRef: { name: e.secretRef.name, key: e.secretRef.key } };
    const id = e.identitySecretRef;
    if (id) existing.identitySecretRef = { name: id.name, key: id.key, type: id.type };
    if (e.cache?.storageClassName) existing.storageClassName = e.cache.storageClassName;
    ic.existing = existing;
  }
  return { ok: true, ic };
}

function toPool(p: InferenceClusterNodePool): NodePool {
  const pool: NodePool = {
    name: p.name,
    className: p.className,
    nodeCount: p.nodeCount,
    zones: [...(p.zones ?? [])],
    fabricType: p.fabric?.type ?? 'None',
  };
  if (p.minNodeCount !== undefined) pool.minNodeCount = p.minNodeCount;
  if (p.maxNodeCount !== undefined) pool.maxNodeCount = p.maxNodeCount;
  if (p.capacityBlock) pool.capacityReservationId = p.capacityBlock.capacityReservationId;
  if (p.capacityType) pool.capacityType = p.capacityType;
  if (p.fabric?.infiniband) pool.infinibandFabric = p.fabric.infiniband.fabric;
  return pool;
}

/** An InferenceClass, defaults applied. */
export interface InferenceClass {
  name: string;
  /** `spec.provisioning.provider`, when the class is provisionable. */
  provider?: string;
  /** `spec.provisioning.<gke|eks|aks|nebius|vultr>` blocks that are set, defaults applied. */
  provisioning: Record<string, JsonObject | undefined>;
  /** The class's devices with XRD defaults applied, in spec order. */
  devices: InferenceClassDevice[];
  /** `spec.exclusive`: a claiming pod takes a whole node (docs/design.md#devices-not-nodes). */
  exclusive: boolean;
  /** `spec.pricing`, when the class sets it (docs/capacity-types.md#pricing). */
  pricing?: Pricing;
}

/** `spec.pricing` of an InferenceClass, defaults applied. */
export interface Pricing {
  /** ISO 4217 code. @default "USD" */
  currency: string;
  /** On-demand price of one node for one hour, a decimal string (e.g. `"3.25"`). */
  perNodeHour: string;
  /** Per-capacity-type overrides of {@link Pricing.perNodeHour}, decimal strings. */
  capacityTypes: Partial<Record<CapacityType, string>>;
}

/** Result of {@link readInferenceClass}. */
export type ReadClass = { ok: true; cls: InferenceClass } | { ok: false; problem: string };

/** Message: a fetched class its XRD would reject. */
export function errInvalidClass(name: string, issues: string): string {
  return `InferenceClass ${name} is invalid: ${issues}; fix the class`;
}

/**
 * Reads a fetched InferenceClass. A frozen object (what a plan's store hands
 * every reconcile) cannot change, so it is read once and its reading, frozen
 * too, is shared by later calls; a decoded gRPC request is never frozen.
 */
export function readInferenceClass(obj: KubeObject): ReadClass {
  if (!Object.isFrozen(obj)) return readClass(obj);
  let read = READ_CLASSES.get(obj);
  if (read === undefined) {
    read = deepFrozen(readClass(obj));
    READ_CLASSES.set(obj, read);
  }
  return read;
}

/** {@link readInferenceClass} of frozen objects, by identity. */
const READ_CLASSES = new WeakMap<KubeObject, ReadClass>();


function readClass(obj: KubeObject): ReadClass {
  const name = typeof obj.metadata?.name === 'string' ? obj.metadata.name : '';
  const parsed = readComposite<InferenceClassXr>({ ...obj, spec: obj['spec'] ?? {} }, parseInferenceClass);
  if (!parsed.ok) return { ok: false, problem: errInvalidClass(name, parsed.problem) };
  const spec = parsed.xr.spec;
  const provisioning: Record<string, JsonObject | undefined> = {};
  for (const block of ['gke', 'eks', 'aks', 'nebius', 'vultr'] as const) {
    const b = spec.provisioning?.[block];
    if (b) provisioning[block] = structuredClone(b) as unknown as JsonObject;
  }
  const cls: InferenceClass = { name, provisioning, devices: spec.devices as InferenceClassDevice[], exclusive: spec.exclusive === true };
  if (spec.provisioning) cls.provider = spec.provisioning.provider;
  if (spec.pricing) {
    const capacityTypes: Partial<Record<CapacityType, string>> = {};
    for (const t of ['OnDemand', 'Spot', 'Reserved'] as const) {
      const v = spec.pricing.capacityTypes?.[t];
      if (v !== undefined) capacityTypes[t] = v;
    }
    cls.pricing = { currency: spec.pricing.currency, perNodeHour: spec.pricing.perNodeHour, capacityTypes };
  }
  return { ok: true, cls };
}
