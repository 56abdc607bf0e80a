/**
 * compose-model-cache: stages a model's weights once per InferenceCluster on
 * an RWX volume (docs/kinds/modelcache.md; docs/design.md#keep-what-exists,
 * docs/design.md#not-fetched-yet-is-not-absent, docs/design.md#declared-capabilities).
 *
 * Guarantees:
 * - Requirements on every call: `clusters` (InferenceClusters matching
 *   `spec.clusterSelector.matchLabels`, or all) and, with
 *   `huggingFace.authSecret`, `auth-secret` (that Secret in the XR's
 *   namespace). While one is not fetched yet only the requirements are
 *   returned, plus the observed children kept (nothing is torn down because
 *   a read has not happened yet).
 * - Per cluster that declares an RWX cache class (clusters.ts): `pvc-<C>`
 *   always; `auth-<C>` (when the token resolved) and `hydrate-<C>` until the
 *   cluster is Ready and only while the token is not missing. Ready is
 *   latched: once Ready, the Job and Secret are dropped and the cluster stays
 *   Ready as long as its PVC is Bound.
 * - A fetched InferenceCluster whose `metadata.name` cannot be read (not a
 *   DNS-1123 subdomain, lib/names.ts `isObjectName`) could be
 *   any cluster: the children of every cluster not listed are kept as they
 *   are, with a Warning and a `ClustersMatched` note naming the item.
 * - A cluster that declares no RWX class is listed `Unsupported` with its
 *   declared reason and gets nothing composed; one that has not published
 *   yet is listed `Pending` with what it waits for.
 * - `status.summary.ready` = `<Ready>/<clusters that can hold it>`
 *   (Unsupported ones not counted); `status.clusters` lists every selected
 *   cluster in name order.
 * - Conditions, in order: `ClustersMatched` (True `Matched`, with a message
 *   counting the clusters that cannot hold the cache and why; False
 *   `NoClusters` or `NoSupportedClusters`), then `ArtifactReady` (False
 *   `NoClusters` | `NoSupportedClusters` | `AuthSecretMissing` | `Failed` |
 *   `Partial` | `Hydrating`, True `Staged`). The XR is Ready exactly when
 *   every cluster that can hold the cache holds it.
 * - Events: Normal "Staging <repo> to <n> clusters: …" when no PVC is
 *   observed yet; Normal "Artifact staged on all <n> clusters" when all are
 *   Ready and the XR was not Ready; Warning "authSecret <ns>/<name> is
 *   missing or has no key '<key>'".
 * Divergences from the reference: children are kept on the not-fetched path
 * (docs/design.md#keep-what-exists); clusters are listed in name order, not
 * list order; the Unsupported phase and the waiting clusters
 * (docs/design.md#declared-capabilities).
 */
import {
  type ComposeRequest,
  type ComposeResult,
  condition,
  conditionStatus,
  type DesiredResource,
  emptyResult,
  getPath,
  isReady,
  keepObserved,
  normal,
  readRequired,
  type ResourceSelector,
  warning,
} from '../lib/function.js';
import { type ModelCache, type ModelCacheSpec, parseModelCache } from '../lib/generated/modelcaches.js';
import { keepAndWarn } from '../lib/keep.js';
import { isObjectName } from '../lib/names.js';
import { markReady, readyOnlyIfServing } from '../lib/ready.js';
import { readComposite } from '../lib/xr.js';
import { type CacheCluster, classify, latchedReady, type Phase, phaseOf } from './clusters.js';
import { authSecret, type CacheSource, hydrateJob, pvc } from './resources.js';

/** Requirement names. */
export const REQ_CLUSTERS = 'clusters';
export const REQ_AUTH = 'auth-secret';

/** Condition types and reasons. */
export const ClustersMatched = 'ClustersMatched';
export const ArtifactReady = 'ArtifactReady';
export const Reason = {
  Matched: 'Matched',
  NoClusters: 'NoClusters',
  NoSupportedClusters: 'NoSupportedClusters',
  AuthSecretMissing: 'AuthSecretMissing',
  Failed: 'Failed',
  Staged: 'Staged',
  Partial: 'Partial',
  Hydrating: 'Hydrating',
  InvalidSpec: 'InvalidSpec',
} as const;

/** `authSecret <ns>/<name> is missing or has no key '<key>'`. */
export function msgAuthMissing(namespace: string, name: string, key: string): string {
  return `authSecret ${namespace}/${name} is missing or has no key '${key}'`;
}

/** `Staging <repo> to <n> clusters: a, b` (no pluralisation, as the reference). */
export function msgStaging(repo: string, clusters: readonly string[]): string {
  return `Staging ${repo} to ${clusters.length} clusters: ${clusters.join(', ')}`;
}

/** `Artifact staged on all <n> clusters`. */
export function msgStaged(n: number): string {
  return `Artifact staged on all ${n} clusters`;
}

/** `<n> of <m> selected clusters cannot hold the cache: a (reason); b (reason)`. */
export function msgUnsupported(unsupported: readonly { name: string; reason: string }[], selected: number): string {
  const list = unsupported.map((u) => `${u.name} (${u.reason})`).join('; ');
  return `${unsupported.length} of ${selected} selected clusters cannot hold the cache: ${list}`;
}

/**
 * `1 fetched InferenceCluster has no readable metadata.name; the children of
 * clusters not listed are kept as they are until it has one`: which cluster
 * such an item is cannot be known (counted, not indexed: items are read in
 * name order, so an index would point nowhere).
 */
export function msgUnnamedClusters(n: number): string {
  const what = n === 1 ? '1 fetched InferenceCluster has' : `${n} fetched InferenceClusters have`;
  return `${what} no readable metadata.name; the children of clusters not listed are kept as they are until ${n === 1 ? 'it has one' : 'they have one'}`;
}

/** One entry of `status.clusters`. */
interface ClusterStatus {
  name: string;
  phase: Phase;
  message?: string;
}

/** Desired-resource keys of cluster `name`'s children: its PVC, token Secret and hydrate Job. */
function clusterKeys(name: string): { pvc: string; auth: string; hydrate: string } {
  return { pvc: `pvc-${name}`, auth: `auth-${name}`, hydrate: `hydrate-${name}` };
}

/** Keeps the observed children of cluster `name` as they are. */
function keepCluster(result: ComposeResult, req: ComposeRequest, name: string): void {
  for (const key of Object.values(clusterKeys(name))) {
    const seen = req.observed[key];
    if (seen) Object.assign(result.resources, keepObserved({ [key]: seen }));
  }
}

/** Composes a ModelCache. */
export function compose(req: ComposeRequest): ComposeResult {
  const result = emptyResult();
  // Read through the generated parser (metadata and spec; status is ours and Crossplane's, never a reason to stop).
  const read = readComposite<ModelCache>(req.composite, parseModelCache);
  if (!read.ok) {
    keepAndWarn(result, req.observed, { type: ArtifactReady, reason: Reason.InvalidSpec, message: `Invalid ModelCache: ${read.problem}` });
    readyOnlyIfServing(result, false);
    return result;
  }
  const namespace = read.xr.metadata?.namespace ?? '';
  const name = read.xr.metadata?.name ?? '';
  const spec = read.xr.spec as ModelCacheSpec;
  const hf = spec.huggingFace;
  if (hf === undefined) {
    // The XRD's rule rejects this; a guard for objects not admitted by an API server.
    keepAndWarn(result, req.observed, {
      type: ArtifactReady,
      reason: Reason.InvalidSpec,
      message: 'Invalid ModelCache spec: spec.huggingFace is required when spec.source is HuggingFace.',
    });
    readyOnlyIfServing(result, false);
    return result;
  }

  const clustersSel: ResourceSelector = { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceCluster' };
  const labels = spec.clusterSelector?.matchLabels;
  if (labels !== undefined && Object.keys(labels).length > 0) clustersSel.matchLabels = { ...labels };
  result.requirements[REQ_CLUSTERS] = clustersSel;
  if (hf.authSecret !== undefined) {
    result.requirements[REQ_AUTH] = { apiVersion: 'v1', kind: 'Secret', matchName: hf.authSecret.name, namespace };
  }
  const clusters = readRequired(req, REQ_CLUSTERS);
  const auth = hf.authSecret !== undefined ? readRequired(req, REQ_AUTH) : undefined;
  if (clusters.state === 'pending' || auth?.state === 'pending') {
    result.resources = keepObserved(req.observed);
    return result;
  }

  // The token: copied verbatim (base64) when the Secret has a non-empty value at the key.
  const tokenKey = hf.authSecret?.key ?? 'HF_TOKEN';
  let authData: Record<string, string> = {};
  if (auth?.state === 'present') {
    const v = getPath(auth.items[0], 'data', tokenKey);
    if (typeof v === 'string' && v !== '') authData = { [tokenKey]: v };
  }
  const authMissing = hf.authSecret !== undefined && Object.keys(authData).length === 0;

  const items = clusters.state === 'present' ? clusters.items : [];
  const named = (c: (typeof items)[number]) => isObjectName(c.metadata?.name);
  const selected: CacheCluster[] = items.filter(named).map(classify);
  // No InferenceCluster at all is more likely a fleet briefly unreadable than one torn down: keep every child.
  if (clusters.state === 'absent') Object.assign(result.resources, keepObserved(req.observed));
  // A cluster without a readable name could be any of ours: nothing of a cluster not listed goes.
  const unnamed = items.filter((c) => !named(c)).length;
  const unnamedNote = unnamed > 0 ? msgUnnamedClusters(unnamed) : undefined;
  if (unnamedNote !== undefined) {
    const listed = new Set(selected.map((c) => c.name));
    for (const key of Object.keys(req.observed).sort()) {
      const m = /^(?:pvc|auth|hydrate)-(.+)$/.exec(key);
      if (m !== null && !listed.has(m[1]!)) Object.assign(result.resources, keepObserved({ [key]: req.observed[key]! }));
    }
    result.results.push(warning(unnamedNote));
  }
  const latched = latchedReady(req.composite);
  const source: CacheSource = { name, namespace, repo: hf.repo, revision: hf.revision, sizeGiB: hf.sizeGiB };
  const statuses: ClusterStatus[] = [];
  const holdable: string[] = [];
  const unsupported: { name: string; reason: string }[] = [];
  for (const c of selected) {
    if (c.kind === 'unsupported') {
      unsupported.push({ name: c.name, reason: c.reason });
      statuses.push({ name: c.name, phase: 'Unsupported', message: c.reason });
      continue;
    }
    if (c.kind === 'waiting') {
      // Not readable yet (or briefly garbage): what was composed there stays as it is.
      statuses.push({ name: c.name, phase: 'Pending', message: c.message });
      keepCluster(result, req, c.name);
      continue;
    }
    holdable.push(c.name);
    const keys = clusterKeys(c.name);
    const phase = phaseOf(req.observed[keys.pvc], req.observed[keys.hydrate], latched.has(c.name));
    statuses.push(phase.message ? { name: c.name, phase: phase.phase, message: phase.message } : { name: c.name, phase: phase.phase });
    result.resources[keys.pvc] = ready(pvc(source, c.providerConfig, c.storageClass), req, keys.pvc);
    if (phase.phase !== 'Ready' && !authMissing) {
      if (Object.keys(authData).length > 0) {
        result.resources[keys.auth] = ready(authSecret(source, c.providerConfig, authData), req, keys.auth);
      }
      result.resources[keys.hydrate] = ready(hydrateJob(source, c.providerConfig, hf.authSecret ? tokenKey : undefined), req, keys.hydrate);
    }
  }

  const counted = statuses.filter((s) => s.phase !== 'Unsupported');
  const readyCount = counted.filter((s) => s.phase === 'Ready').length;
  result.status = {
    summary: { ready: `${readyCount}/${counted.length}` },
    clusters: statuses.map((s) => ({ ...s })),
  };

  const allReady = counted.length > 0 && readyCount === counted.length;
  const withNote = (message: string | undefined) => (unnamedNote === undefined ? message : message === undefined ? unnamedNote : `${message}; ${unnamedNote}`);
  if (selected.length === 0) {
    result.conditions.push(condition(ClustersMatched, false, Reason.NoClusters, withNote(undefined)));
    result.conditions.push(condition(ArtifactReady, false, Reason.NoClusters));
  } else if (counted.length === 0) {
    const message = msgUnsupported(unsupported, selected.length);
    result.conditions.push(condition(ClustersMatched, false, Reason.NoSupportedClusters, withNote(message)));
    result.conditions.push(condition(ArtifactReady, false, Reason.NoSupportedClusters, message));
  } else {
    const gap = unsupported.length > 0 ? msgUnsupported(unsupported, selected.length) : undefined;
    result.conditions.push(condition(ClustersMatched, true, Reason.Matched, withNote(gap)));
    if (authMissing && !allReady) {
      const message = msgAuthMissing(namespace, hf.authSecret!.name, tokenKey);
      result.conditions.push(condition(ArtifactReady, false, Reason.AuthSecretMissing, message));
      result.results.push(warning(message));
    } else if (counted.some((s) => s.phase === 'Failed')) {
      const failed = counted.filter((s) => s.phase === 'Failed').map((s) => s.name);
      result.conditions.push(condition(ArtifactReady, false, Reason.Failed, `hydrate Job failed on ${failed.join(', ')}`));
    } else if (allReady) {
      result.conditions.push(condition(ArtifactReady, true, Reason.Staged));
      result.ready = true;
    } else if (readyCount > 0) {
      result.conditions.push(condition(ArtifactReady, false, Reason.Partial, `${readyCount} of ${counted.length} clusters Ready`));
    } else {
      result.conditions.push(condition(ArtifactReady, false, Reason.Hydrating));
    }
  }

  if (holdable.length > 0 && holdable.every((c) => req.observed[clusterKeys(c).pvc] === undefined)) {
    result.results.push(normal(msgStaging(hf.repo, holdable)));
  }
  if (allReady && conditionStatus(req.composite, 'Ready') !== 'True') result.results.push(normal(msgStaged(counted.length)));
  readyOnlyIfServing(result, allReady);
  return result;
}

function ready(resource: ReturnType<typeof pvc>, req: ComposeRequest, key: string): DesiredResource {
  return markReady(resource, isReady(req.observed[key]?.resource));
}
