/**
 * One XR reconcile inside `modelplane plan`: the same render engine and the
 * same function cores as `modelplane render` and the gRPC servers, applied to
 * the in-memory store the way Crossplane applies a reconcile to the API server
 * (docs/composition.md#how-crossplane-runs-a-pipeline):
 *
 * - observed = the objects this XR controls; required resources are served
 *   from the whole store (Crossplane's selector semantics, cluster-scoped kinds
 *   without namespace);
 * - every desired composed resource is applied whole, keeping the status the
 *   live object already has (providers and nested reconciles own status);
 * - composed resources no longer desired are garbage-collected, with
 *   everything they control;
 * - the XR's status is replaced by the reconcile's status (functions' status,
 *   their conditions, Synced and Ready).
 *
 * A Fatal result or a harness error changes nothing and is returned as the
 * XR's error, as a failed reconcile leaves the cluster untouched.
 */
import { type JsonObject, type KubeObject, NOW_CONTEXT_KEY } from '../../functions/lib/function.js';
import type { ResourceSelector } from '@crossplane-org/function-sdk-typescript';
import type { FunctionRuntime } from '../functions.js';
import { render } from '../render/engine.js';
import { jsonEqual } from './json-equal.js';
import { groupOf, keyOf } from '../objects.js';
import type { ObjectStore } from './store.js';

/**
 * One required-resource read of a reconcile: the selector's `group/kind`, the
 * store revision when it was read, and what it matched (store key and
 * revision of each object, in the order served).
 */
interface SelectorRead {
  /** The selector's JSON: a selector resolved again (the requirements loop) replaces its earlier read. */
  id: string;
  sel: ResourceSelector;
  groupKind: string;
  at: number;
  /**
   * The stored objects it matched, in order. Every put stores a new frozen
   * object, so the same object is the same revision: comparing identities
   * needs no key lookups. (A stale read keeps an old version alive only
   * until its XR is reconciled again.)
   */
  matched: readonly KubeObject[];
}

/**
 * What a reconcile read, at the revisions it read them: the XR, the objects it
 * controls, and every required-resource selector it resolved with what each
 * matched. While none of these changes, reconciling again would send the same
 * requests (functions are deterministic: the same response), so the plan
 * skips it, as Crossplane's watches would. Holds revisions and references
 * to stored objects, never copies, so keeping one per XR costs little.
 */
export interface ReconcileInputs {
  xr: number | undefined;
  children: Map<string, number | undefined>;
  reads: SelectorRead[];
  /** Set when a step takes credentials: any Secret change counts (they are read by name, outside resolve). */
  secrets?: number;
}

/** True when nothing a previous reconcile read has changed since. */
export function inputsUnchanged(store: ObjectStore, key: string, deps: ReconcileInputs | undefined): boolean {
  if (!deps || store.modRevision(key) !== deps.xr) return false;
  if (deps.secrets !== undefined && store.kindRevision('/Secret') !== deps.secrets) return false;
  const uid = store.get(key)?.metadata?.uid;
  const children = uid ? store.childKeys(uid) : [];
  if (children.length !== deps.children.size) return false;
  for (const k of children) {
    if (!deps.children.has(k) || deps.children.get(k) !== store.modRevision(k)) return false;
  }
  for (const read of deps.reads) {
    // Nothing of the kind changed since the read: the same objects match, at the same revisions.
    if (store.kindRevision(read.groupKind) <= read.at) continue;
    const now = store.resolve(read.sel);
    if (now.length !== read.matched.length) return false;
    for (let i = 0; i < now.length; i++) if (now[i] !== read.matched[i]) return false;
    read.at = store.revision;
  }
  return true;
}

/** What one reconcile did. */
export interface ReconcileOutcome {
  /** Whether anything in the store changed. */
  changed: boolean;
  /** Fatal result or harness error, when the reconcile failed. */
  error?: string;
  /** What it read (absent when the render itself failed). */
  inputs?: ReconcileInputs;
}

/** Whether any pipeline step of `composition` takes credentials (Secrets read by name). */
function takesCredentials(composition: KubeObject): boolean {
  const steps = ((composition['spec'] as JsonObject | undefined)?.['pipeline'] ?? []) as JsonObject[];
  return steps.some((s) => Array.isArray(s['credentials']) && s['credentials'].length > 0);
}

function withoutStatus(obj: KubeObject): KubeObject {
  const { status: _status, ...rest } = obj;
  return rest as KubeObject;
}

/**
 * Reconciles the stored XR `key` once through `composition`.
 * @returns whether anything in the store changed, and the error if it failed.
 */
export async function reconcileXR(
  store: ObjectStore,
  key: string,
  composition: KubeObject,
  runtime: FunctionRuntime,
  now?: string,
): Promise<ReconcileOutcome> {
  const xr = store.get(key);
  if (!xr) return { changed: false };
  const uid = xr.metadata!.uid!;
  const observed = store.controlledBy(uid);
  const inputs: ReconcileInputs = {
    xr: store.modRevision(key),
    children: new Map(observed.map((o) => [keyOf(o), store.modRevision(keyOf(o))])),
    reads: [],
  };
  const credentials = takesCredentials(composition);
  if (credentials) inputs.secrets = store.kindRevision('/Secret');
  const resolve = (sel: ResourceSelector): KubeObject[] => {
    const matched = store.resolve(sel);
    const id = JSON.stringify(sel);
    inputs.reads = inputs.reads.filter((r) => r.id !== id);
    inputs.reads.push({
      id,
      sel,
      groupKind: `${groupOf(sel.apiVersion)}/${sel.kind}`,
      at: store.revision,
      matched,
    });
    return matched;
  };
  let out: Awaited<ReturnType<typeof render>>;
  try {
    out = await render(
      {
        xr,
        composition,
        observed,
        required: [],
        resolve,
        credentials: credentials ? store.ofKind('', 'Secret') : [],
        // The time durations are measured against (cluster health): render's fixed time unless the plan moves it.
        context: now === undefined ? {} : { [NOW_CONTEXT_KEY]: now },
        computeTag: false,
      },
      runtime,
    );
  } catch (err) {
    return { changed: false, error: (err as Error).message };
  }
  if (out.fatal !== undefined) {
    // A failed reconcile only flips Synced; everything else stays as it was.
    const status = { ...((xr['status'] ?? {}) as JsonObject) };
    const synced = ((out.xr['status'] as JsonObject)['conditions'] as JsonObject[]).find((c) => c['type'] === 'Synced');
    const others = ((status['conditions'] ?? []) as JsonObject[]).filter((c) => c['type'] !== 'Synced');
    status['conditions'] = synced ? [...others, synced] : others;
    return { changed: setStatus(store, xr, status), error: out.fatal, inputs };
  }
  let changed = false;
  const stale = new Set(observed.map(keyOf));
  for (const desired of out.composed) {
    const k = keyOf(desired);
    stale.delete(k);
    const existing = store.get(k);
    const next = withoutStatus(desired);
    // Server-side apply keeps fields other managers own: a nested XR's own
    // Crossplane machinery (spec.crossplane) and everyone's status.
    const machinery = (existing?.['spec'] as JsonObject | undefined)?.['crossplane'];
    if (machinery !== undefined && next['spec'] && typeof next['spec'] === 'object') {
      next['spec'] = { ...(next['spec'] as JsonObject), crossplane: machinery };
    }
    if (existing?.['status'] !== undefined) next['status'] = existing['status'];
    if (existing?.metadata?.uid) next.metadata = { ...next.metadata, uid: existing.metadata.uid };
    if (!existing || !jsonEqual(existing, next)) {
      store.put(next);
      changed = true;
    }
  }
  for (const k of [...stale].sort()) {
    if (store.delete(k).length > 0) changed = true;
  }
  const refs = out.composed.map((o) => ({ apiVersion: o.apiVersion, kind: o.kind, name: o.metadata?.name ?? '' }));
  const current = store.get(key)!;
  const spec = { ...((current['spec'] ?? {}) as JsonObject) };
  const machinery: JsonObject = { ...((spec['crossplane'] ?? {}) as JsonObject), compositionRef: { name: composition.metadata?.name ?? '' } };
  if (refs.length > 0) machinery['resourceRefs'] = refs;
  else delete machinery['resourceRefs'];
  spec['crossplane'] = machinery;
  if (!jsonEqual(current['spec'], spec)) {
    store.put({ ...current, spec });
    changed = true;
  }
  if (setStatus(store, store.get(key)!, out.xr['status'] as JsonObject)) changed = true;
  return { changed, inputs };
}

function setStatus(store: ObjectStore, xr: KubeObject, status: JsonObject | undefined): boolean {
  if (status === undefined || jsonEqual(xr['status'], status)) return false;
  store.put({ ...xr, status });
  return true;
}
