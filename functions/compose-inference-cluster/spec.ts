/**
 * The InferenceCluster and InferenceClass specs as compose-inference-cluster
 * reads them: parsed by the generated parsers (functions/lib/generated/), so
 * every XRD default is applied (kubernetesVersion per cloud, nodeCount 1,
 * credentials ClusterProviderConfig/default, secret keys, identity type,
 * device claim DRA / count 1, class diskSizeGb 100, driversPreset cuda13.0;
 * platform-side.md §0.2), then converted once into the flat domain types the
 * composition code uses.
 *
 * Guarantees: readers never throw and never mutate their input. An input the
 * XRD would reject is reported as one message naming each field
 * (`spec.nodePools[0].className: …`); `spec.cluster` missing and an unknown
 * source keep the reference's exact messages.
 */
import type { JsonObject, KubeObject } from '../lib/function.js';
import { type InferenceClassDevice, InferenceClassSpecSchema } from '../lib/generated/inferenceclasses.js';
import { InferenceClusterSpecSchema } from '../lib/generated/inferenceclusters.js';
import { formatZodIssues } from '../lib/zod-issues.js';

/** Where a cluster comes from (`spec.cluster.source`). */
export type Source = 'GKE' | 'EKS' | 'AKS' | 'Nebius' | 'Vultr' | 'Existing';
const SOURCES: readonly string[] = ['GKE', 'EKS', 'AKS', 'Nebius', 'Vultr', 'Existing'];

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
}

/** Messages of the reference for an XR without a name, a cluster or a known source. */
export const ERR_NO_NAME = 'metadata.name is unexpectedly absent';
export const ERR_NO_CLUSTER = 'spec.cluster is required';
export const errUnsupportedSource = (source: string) => `unsupported cluster source: ${source}`;

/** Result of {@link readInferenceCluster}. */
export type ReadCluster =
  | { ok: true; ic: InferenceCluster }
  | { ok: false; name?: string; problem: string; /** true when the XR has no name (Fatal). */ fatal: boolean };

/** Reads the observed InferenceCluster. */
export function readInferenceCluster(xr: KubeObject): ReadCluster {
  const name = xr.metadata?.name;
  if (!name) return { ok: false, problem: ERR_NO_NAME, fatal: true };
  const spec = (xr['spec'] ?? {}) as JsonObject;
  const cluster = spec['cluster'] as JsonObject | undefined;
  if (!cluster || typeof cluster !== 'object') return { ok: false, name, problem: ERR_NO_CLUSTER, fatal: false };
  const source = cluster['source'];
  if (typeof source !== 'string' || !SOURCES.includes(source)) {
    return { ok: false, name, problem: errUnsupportedSource(String(source)), fatal: false };
  }
  const parsed = InferenceClusterSpecSchema.safeParse(spec);
  if (!parsed.success) return { ok: false, name, problem: formatZodIssues('spec', parsed.error), fatal: false };
  const s = parsed.data;
  const ic: InferenceCluster = { name, source: s.cluster.source, clouds: {}, nodePools: (s.nodePools ?? []).map(toPool) };
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

function toPool(p: NonNullable<ReturnType<typeof InferenceClusterSpecSchema.parse>['nodePools']>[number]): NodePool {
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
  /** `spec.exclusive`: a claiming pod takes a whole node (issue 16). */
  exclusive: boolean;
}

/** Result of {@link readInferenceClass}. */
export type ReadClass = { ok: true; cls: InferenceClass } | { ok: false; problem: string };

/** Message: a fetched class its XRD would reject. */
export function errInvalidClass(name: string, issues: string): string {
  return `InferenceClass ${name} is invalid: ${issues}; fix the class`;
}

/** Reads a fetched InferenceClass. */
export function readInferenceClass(obj: KubeObject): ReadClass {
  const name = obj.metadata?.name ?? '';
  const parsed = InferenceClassSpecSchema.safeParse(obj['spec'] ?? {});
  if (!parsed.success) return { ok: false, problem: errInvalidClass(name, formatZodIssues('spec', parsed.error)) };
  const spec = parsed.data;
  const provisioning: Record<string, JsonObject | undefined> = {};
  for (const block of ['gke', 'eks', 'aks', 'nebius', 'vultr'] as const) {
    const b = spec.provisioning?.[block];
    if (b) provisioning[block] = structuredClone(b) as unknown as JsonObject;
  }
  const cls: InferenceClass = { name, provisioning, devices: spec.devices as InferenceClassDevice[], exclusive: spec.exclusive === true };
  if (spec.provisioning) cls.provider = spec.provisioning.provider;
  return { ok: true, cls };
}
