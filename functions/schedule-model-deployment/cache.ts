/**
 * The ModelDeployment's view of its ModelCache (docs/kinds/modeldeployment.md#the-modelcache;
 * docs/design.md#declared-capabilities): the three-state resolution, the footprint merge
 * and which clusters may take NEW replicas.
 *
 * Guarantees:
 * - Three states, never conflated: not fetched yet (`pending`: retain only,
 *   no warning), fetched and absent (`absent`: retain only, a Warning), and
 *   present. Only `present` lets fill place new replicas.
 * - Footprint: a present cache's `spec.clusterSelector.matchLabels` is merged
 *   over the deployment's selector (the cache's value wins on a shared key,
 *   as the reference does), so replicas outside it are not retained.
 * - New replicas only where the cache is staged: a cluster takes a new
 *   replica only when the cache's `status.clusters` lists it `Ready`. Any
 *   other state is a refusal that says why, e.g.
 *   `cache qwen-72b: not supported on vultr-demo (no RWX storage class)`.
 *   Retained replicas are never dropped for the cache's phase (a cache
 *   re-hydrating does not stop a running model).
 * Divergence from the reference: the reference places on every cluster of
 * the footprint whatever the cache's phase, so an engine could start before
 * its weights are there, or on a cluster that cannot hold them.
 */
import { condition, type ComposeResult, getPath, type KubeObject, readRequired, type ComposeRequest, warning } from '../lib/function.js';
import type { FleetCluster } from '../lib/fleet/model.js';
import { type Reason, ReasonKind } from './placement.js';
import { msgCacheNotFound, msgCacheWaiting, REASON, TYPE_CACHE } from './status.js';

/** A cache phase on one cluster, as the ModelCache publishes it. */
interface CachePhase {
  phase: string;
  message?: string;
}

/** The cache as the scheduler uses it. */
export type CacheView =
  | { state: 'none' }
  | { state: 'pending' | 'absent'; name: string; held: string }
  | {
      state: 'present';
      name: string;
      /** `spec.huggingFace.sizeGiB`, when set. */
      sizeGiB?: number;
      /** `spec.clusterSelector.matchLabels`, when non-empty. */
      selector?: Record<string, string>;
      /** `status.clusters` by cluster name. */
      clusters: Map<string, CachePhase>;
    };

/** `cache <name>: not supported on <cluster> (no RWX storage class)`. */
export function msgCacheUnsupported(cache: string, cluster: string): string {
  return `cache ${cache}: not supported on ${cluster} (no RWX storage class)`;
}

/** `cache <name>: <phase> on <cluster>` (Pending, Hydrating, Failed). */
export function msgCacheNotReady(cache: string, cluster: string, phase: string): string {
  return `cache ${cache}: ${phase} on ${cluster}`;
}

/** `cache <name>: not staged on <cluster> yet` (the cache does not list the cluster). */
export function msgCacheNotStaged(cache: string, cluster: string): string {
  return `cache ${cache}: not staged on ${cluster} yet`;
}

/** Reads a ModelCache object into a present {@link CacheView}. */
export function readCache(name: string, obj: KubeObject | undefined): CacheView {
  const clusters = new Map<string, CachePhase>();
  const list = getPath(obj, 'status', 'clusters');
  if (Array.isArray(list)) {
    for (const c of list) {
      const n = getPath(c, 'name');
      const phase = getPath(c, 'phase');
      if (typeof n !== 'string' || typeof phase !== 'string') continue;
      const message = getPath(c, 'message');
      clusters.set(n, typeof message === 'string' ? { phase, message } : { phase });
    }
  }
  const view: CacheView = { state: 'present', name, clusters };
  const size = getPath(obj, 'spec', 'huggingFace', 'sizeGiB');
  if (typeof size === 'number') view.sizeGiB = size;
  const labels = getPath(obj, 'spec', 'clusterSelector', 'matchLabels') as Record<string, string> | undefined;
  if (labels && typeof labels === 'object' && Object.keys(labels).length > 0) view.selector = { ...labels };
  return view;
}

/**
 * Declares the `cache` requirement, reads it in its three states and appends
 * `ModelCacheResolved` (and the Warning for an absent cache) to `result`.
 * `requirement` is the requirement name.
 */
export function resolveCache(
  req: ComposeRequest,
  result: ComposeResult,
  requirement: string,
  ref: { name: string; namespace: string } | undefined,
): CacheView {
  if (ref === undefined) return { state: 'none' };
  result.requirements[requirement] = { apiVersion: 'modelplane.ai/v1alpha1', kind: 'ModelCache', matchName: ref.name, namespace: ref.namespace };
  const read = readRequired(req, requirement);
  if (read.state === 'pending') {
    const held = msgCacheWaiting(ref.name);
    result.conditions.push(condition(TYPE_CACHE, false, REASON.ModelCacheUnresolved, held));
    return { state: 'pending', name: ref.name, held };
  }
  if (read.state === 'absent') {
    const held = msgCacheNotFound(ref.name);
    result.conditions.push(condition(TYPE_CACHE, false, REASON.ModelCacheNotFound, held));
    result.results.push(warning(held));
    return { state: 'absent', name: ref.name, held };
  }
  result.conditions.push(condition(TYPE_CACHE, true, REASON.ModelCacheResolved));
  return readCache(ref.name, read.items[0]);
}

/** The deployment's selector with the cache's merged over it (cache wins on a shared key). */
export function footprint(labels: Record<string, string> | undefined, cache: CacheView): Record<string, string> | undefined {
  if (cache.state !== 'present' || cache.selector === undefined) return labels;
  return { ...(labels ?? {}), ...cache.selector };
}

/** Why `cluster` may not take a new replica because of the cache, or undefined when it may. */
export function cacheRefusal(cache: CacheView, cluster: FleetCluster): Reason | undefined {
  if (cache.state !== 'present') return undefined;
  const c = cache.clusters.get(cluster.name);
  if (c === undefined) return { kind: ReasonKind.Cache, text: msgCacheNotStaged(cache.name, cluster.name) };
  if (c.phase === 'Ready') return undefined;
  if (c.phase === 'Unsupported') return { kind: ReasonKind.Cache, text: msgCacheUnsupported(cache.name, cluster.name) };
  return { kind: ReasonKind.Cache, text: msgCacheNotReady(cache.name, cluster.name, c.phase) };
}
