/**
 * The InferenceCluster and InferenceClass specs as compose-inference-cluster
 * reads them, with the XRDs' defaults applied
 * (apis/inferenceclusters/definition.yaml, apis/inferenceclasses/definition.yaml;
 * platform-side.md §0.2, §2, §3).
 *
 * Guarantees: readers never throw and never mutate their input; a value the
 * XRD would default (kubernetesVersion, nodeCount, credentials type/name,
 * secret keys, identity type, device claim/count, class diskSizeGb and
 * driversPreset) is always filled in, so the nested XRs and the published
 * pools carry explicit values whether or not the API server defaulted them.
 */
import { getPath, type JsonObject, type KubeObject } from '../lib/function.js';

/** Where a cluster comes from (`spec.cluster.source`). */
export type Source = 'GKE' | 'EKS' | 'AKS' | 'Nebius' | 'Vultr' | 'Existing';

/** The cloud (Cluster)ProviderConfig a nested cluster XR uses. */
export interface Credentials {
  /** @default "ClusterProviderConfig" */
  type: string;
  /** @default "default" */
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
  /** Kubeconfig Secret in modelplane-system; key @default "kubeconfig". */
  secretRef: { name: string; key: string };
  /** key @default "private_key", type @default "GoogleApplicationCredentials". */
  identitySecretRef?: { name: string; key: string; type: string };
  /** An existing RWX StorageClass for ModelCache. */
  storageClassName?: string;
}

/** One `spec.nodePools[]` entry, defaults applied. */
export interface NodePool {
  name: string;
  className: string;
  /** Nodes (initial count when autoscaling). @default 1 */
  nodeCount: number;
  minNodeCount?: number;
  maxNodeCount?: number;
  /** `[]` when unset. */
  zones: string[];
  capacityReservationId?: string;
  /** @default "None" */
  fabricType: string;
  /** Nebius InfiniBand fabric, e.g. `fabric-2`. */
  infinibandFabric?: string;
}

/** An InferenceCluster, defaults applied. */
export interface InferenceCluster {
  name: string;
  /** `undefined` when `spec.cluster` is absent. */
  source?: string;
  /** The `spec.cluster` object, for reading the block of the source. */
  cluster?: JsonObject;
  nodePools: NodePool[];
  /** Whether `spec.nodePools` is set at all. */
  hasNodePools: boolean;
}

/** Default `kubernetesVersion` per cloud block (platform-side.md §3.1). */
export const DEFAULT_KUBERNETES_VERSION: Readonly<Record<string, string>> = {
  gke: '1.35',
  eks: '1.36',
  aks: '1.34',
  nebius: '1.34',
  vultr: 'v1.36.1+3',
};

function obj(v: unknown): JsonObject | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function int(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** Reads the observed InferenceCluster. `undefined` when it has no name. */
export function readInferenceCluster(xr: KubeObject): InferenceCluster | undefined {
  const name = str(xr.metadata?.name);
  if (!name) return undefined;
  const cluster = obj(getPath(xr, 'spec', 'cluster'));
  const rawPools = getPath(xr, 'spec', 'nodePools');
  const out: InferenceCluster = {
    name,
    nodePools: (Array.isArray(rawPools) ? rawPools : []).map((p) => readPool(obj(p) ?? {})),
    hasNodePools: Array.isArray(rawPools) && rawPools.length > 0,
  };
  if (cluster) {
    out.cluster = cluster;
    const source = str(cluster['source']);
    if (source) out.source = source;
  }
  return out;
}

function readPool(p: JsonObject): NodePool {
  const pool: NodePool = {
    name: String(p['name'] ?? ''),
    className: String(p['className'] ?? ''),
    nodeCount: int(p['nodeCount']) ?? 1,
    zones: Array.isArray(p['zones']) ? (p['zones'] as unknown[]).map(String) : [],
    fabricType: str(getPath(p, 'fabric', 'type')) ?? 'None',
  };
  const min = int(p['minNodeCount']);
  if (min !== undefined) pool.minNodeCount = min;
  const max = int(p['maxNodeCount']);
  if (max !== undefined) pool.maxNodeCount = max;
  const cr = str(getPath(p, 'capacityBlock', 'capacityReservationId'));
  if (cr) pool.capacityReservationId = cr;
  const ib = str(getPath(p, 'fabric', 'infiniband', 'fabric'));
  if (ib) pool.infinibandFabric = ib;
  return pool;
}

/** The block `spec.cluster.<block>` with defaults, or `undefined` when absent (`{}` counts as present). */
export function readCloudBlock(ic: InferenceCluster, block: string): CloudBlock | undefined {
  const b = obj(ic.cluster?.[block]);
  if (!b) return undefined;
  const out: CloudBlock = { kubernetesVersion: str(b['kubernetesVersion']) ?? DEFAULT_KUBERNETES_VERSION[block] ?? '' };
  const region = str(b['region']);
  if (region) out.region = region;
  const location = str(b['location']);
  if (location) out.location = location;
  const creds = obj(b['credentials']);
  if (creds) out.credentials = { type: str(creds['type']) ?? 'ClusterProviderConfig', name: str(creds['name']) ?? 'default' };
  return out;
}

/** `spec.cluster.existing` with defaults, or `undefined` when absent or without a secret name. */
export function readExistingBlock(ic: InferenceCluster): ExistingBlock | undefined {
  const e = obj(ic.cluster?.['existing']);
  const secretName = str(getPath(e, 'secretRef', 'name'));
  if (!e || !secretName) return undefined;
  const out: ExistingBlock = {
    secretRef: { name: secretName, key: str(getPath(e, 'secretRef', 'key')) ?? 'kubeconfig' },
  };
  const id = obj(e['identitySecretRef']);
  const idName = str(id?.['name']);
  if (id && idName) {
    out.identitySecretRef = {
      name: idName,
      key: str(id['key']) ?? 'private_key',
      type: str(id['type']) ?? 'GoogleApplicationCredentials',
    };
  }
  const sc = str(getPath(e, 'cache', 'storageClassName'));
  if (sc) out.storageClassName = sc;
  return out;
}

/** An InferenceClass, defaults applied. */
export interface InferenceClass {
  name: string;
  /** `spec.provisioning.provider`, when the class is provisionable. */
  provider?: string;
  /** `spec.provisioning.<gke|eks|aks|nebius|vultr>` blocks, defaults applied (diskSizeGb 100, driversPreset cuda13.0). */
  provisioning: Record<string, JsonObject | undefined>;
  /** The class's devices, claim/count defaulted, null fields dropped, in spec order. */
  devices: JsonObject[];
}

/** Device fields in the order they are published. */
const DEVICE_FIELDS = ['name', 'claim', 'driver', 'deviceClassName', 'count', 'attributes', 'capacity'] as const;

/** A device with the XRD defaults applied (`claim: DRA`, `count: 1`) and null fields dropped. */
export function normaliseDevice(d: JsonObject): JsonObject {
  const withDefaults: JsonObject = { ...d, claim: d['claim'] ?? 'DRA', count: d['count'] ?? 1 };
  const out: JsonObject = {};
  for (const k of DEVICE_FIELDS) {
    const v = withDefaults[k];
    if (v !== undefined && v !== null) out[k] = structuredClone(v);
  }
  return out;
}

/** Reads a fetched InferenceClass. */
export function readInferenceClass(cls: KubeObject): InferenceClass {
  const devices = getPath(cls, 'spec', 'devices');
  const prov = obj(getPath(cls, 'spec', 'provisioning'));
  const provisioning: Record<string, JsonObject | undefined> = {};
  for (const block of ['gke', 'eks', 'aks', 'nebius', 'vultr']) {
    const b = obj(prov?.[block]);
    if (!b) continue;
    const withDefaults: JsonObject = structuredClone(b);
    if (block !== 'vultr' && withDefaults['diskSizeGb'] === undefined) withDefaults['diskSizeGb'] = 100;
    if (block === 'nebius' && withDefaults['driversPreset'] === undefined) withDefaults['driversPreset'] = 'cuda13.0';
    provisioning[block] = withDefaults;
  }
  const out: InferenceClass = {
    name: String(cls.metadata?.name ?? ''),
    provisioning,
    devices: (Array.isArray(devices) ? devices : []).map((d) => normaliseDevice(obj(d) ?? {})),
  };
  const provider = str(prov?.['provider']);
  if (provider) out.provider = provider;
  return out;
}
