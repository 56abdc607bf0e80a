/**
 * Which selected InferenceClusters can hold a ModelCache, and the staging
 * phase on each (docs/kinds/modelcache.md#which-clusters-hold-it,
 * docs/kinds/modelcache.md#phases; docs/design.md#declared-capabilities).
 *
 * Guarantees:
 * - A cluster's RWX cache StorageClass is read from the provider contract
 *   first (`status.capabilities.rwxCacheStorageClass.name`), then from the
 *   reference's `status.cache.storageClassName`; a cluster that declares
 *   `rwxCacheStorageClass.reason` and no class is `Unsupported` with that
 *   reason (a declared gap, never a volume that cannot bind).
 * - A cluster that has published neither a class nor a reason, or no
 *   `status.providerConfigRef.name` yet, is `Pending` with a message naming
 *   what it waits for, and gets nothing composed.
 * - Phases of a holdable cluster come from the observed provider-kubernetes
 *   Objects (`status.atProvider.manifest.status`), in this order: the Job's
 *   `Failed=True` → Failed; PVC `Bound` and (Job `Complete=True`, or this
 *   cluster was already Ready in the XR's status: latched) → Ready; PVC
 *   `Bound` → Hydrating; else Pending.
 * - Output is in cluster-name order (the requirement's items are sorted).
 */
import { getPath, type JsonObject, type KubeObject, type ObservedResource } from '../lib/function.js';

/** Staging phase of one cluster (the XRD's `status.clusters[].phase`). */
export type Phase = 'Pending' | 'Hydrating' | 'Ready' | 'Failed' | 'Unsupported';

/** One selected cluster as the cache sees it. */
export type CacheCluster =
  | { name: string; kind: 'holdable'; providerConfig: string; storageClass: string }
  | { name: string; kind: 'unsupported'; reason: string }
  | { name: string; kind: 'waiting'; message: string };

/** `waiting for <what> of cluster <name>` messages. */
export const MSG_WAITING_PC = 'waiting for the cluster to publish status.providerConfigRef';
export const MSG_WAITING_STORAGE = 'waiting for the cluster to declare status.capabilities.rwxCacheStorageClass';

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** Classifies one InferenceCluster. */
export function classify(obj: KubeObject): CacheCluster {
  const name = obj.metadata?.name ?? '';
  const declared = getPath(obj, 'status', 'capabilities', 'rwxCacheStorageClass');
  const storageClass = str(getPath(declared, 'name')) || str(getPath(obj, 'status', 'cache', 'storageClassName'));
  const reason = str(getPath(declared, 'reason'));
  if (storageClass === '' && reason !== '') return { name, kind: 'unsupported', reason };
  const providerConfig = str(getPath(obj, 'status', 'providerConfigRef', 'name'));
  if (providerConfig === '') return { name, kind: 'waiting', message: MSG_WAITING_PC };
  if (storageClass === '') return { name, kind: 'waiting', message: MSG_WAITING_STORAGE };
  return { name, kind: 'holdable', providerConfig, storageClass };
}

/** The remote object's status as provider-kubernetes observed it, or undefined. */
function remoteStatus(o: ObservedResource | undefined): JsonObject | undefined {
  const s = getPath(o?.resource, 'status', 'atProvider', 'manifest', 'status');
  return typeof s === 'object' && s !== null ? (s as JsonObject) : undefined;
}

/** The remote condition `type` with status True, or undefined. */
function trueCondition(status: JsonObject | undefined, type: string): JsonObject | undefined {
  const conditions = status?.['conditions'];
  if (!Array.isArray(conditions)) return undefined;
  return conditions.find(
    (c): c is JsonObject => typeof c === 'object' && c !== null && (c as JsonObject)['type'] === type && (c as JsonObject)['status'] === 'True',
  );
}

/** A holdable cluster's phase, and a message when the hydrate Job failed. */
export function phaseOf(pvc: ObservedResource | undefined, job: ObservedResource | undefined, latched: boolean): { phase: Phase; message?: string } {
  const jobStatus = remoteStatus(job);
  const failed = trueCondition(jobStatus, 'Failed');
  if (failed !== undefined) {
    const detail = str(failed['message']) || str(failed['reason']);
    return { phase: 'Failed', message: detail ? `hydrate Job failed: ${detail}` : 'hydrate Job failed' };
  }
  const bound = remoteStatus(pvc)?.['phase'] === 'Bound';
  if (bound && (trueCondition(jobStatus, 'Complete') !== undefined || latched)) return { phase: 'Ready' };
  if (bound) return { phase: 'Hydrating' };
  return { phase: 'Pending' };
}

/** Names of the clusters the XR's current status says were Ready (the latch). */
export function latchedReady(xr: KubeObject): Set<string> {
  const out = new Set<string>();
  const clusters = getPath(xr, 'status', 'clusters');
  if (!Array.isArray(clusters)) return out;
  for (const c of clusters) {
    if (getPath(c, 'phase') === 'Ready' && typeof getPath(c, 'name') === 'string') out.add(getPath(c, 'name') as string);
  }
  return out;
}
