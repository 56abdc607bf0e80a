/**
 * `modelplane plan --state PATH... [--diff]`: plan against the current fleet.
 *
 * State is what an earlier `plan --write DIR` wrote, the `state` key of an
 * earlier `plan -o json` or `-o yaml` ({@link PlanState}), or live objects
 * from `kubectl get -o yaml` (a `List`'s items are expanded). A document that
 * is none of these is an error naming the file, never silently skipped.
 * Guarantees:
 * - {@link observedReplicas}: every ModelReplica of the state whose
 *   `modelplane.ai/deployment` label names a ModelDeployment of the inputs is
 *   applied as that deployment's observed composed replica (controller
 *   ownerReference to it, as Crossplane sets), so the scheduler keeps it
 *   where it is (observed replicas stay:
 *   docs/kinds/modeldeployment.md#keeping-existing-replicas) and its
 *   address, derived from its name and cluster, stays too. Others are not applied
 *   (they show as deleted in `--diff`).
 * - {@link diffState}: the plan's composed objects against the state, both
 *   compared as `--write` writes them (no status, uid, resourceVersion,
 *   ownerReferences, and none of the API server's metadata: creationTimestamp,
 *   generation, managedFields): created, changed and deleted, sorted.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../functions/lib/function.js';
import { type LoadError, loadManifestsReporting } from '../load.js';
import { stateAddresses } from '../simulated/providers.js';
import { groupOf, identityUid, keyOf } from '../objects.js';

/** The `state` key of `plan -o json|yaml`: the composed objects as `--write` writes them, and the simulated addresses as `[owner, address]`. */
export interface PlanState {
  addresses: [string, string][];
  objects: KubeObject[];
}

function isPlanState(v: unknown): v is PlanState {
  if (!v || typeof v !== 'object') return false;
  const s = v as Partial<PlanState>;
  return (
    Array.isArray(s.objects) &&
    s.objects.every((o) => o && typeof o === 'object' && typeof o.kind === 'string') &&
    Array.isArray(s.addresses) &&
    s.addresses.every((a) => Array.isArray(a) && typeof a[0] === 'string' && typeof a[1] === 'string')
  );
}

/** File `--write` adds beside the objects: the simulated addresses, which the written objects (no status) do not carry. */
export const STATE_FILE = '.modelplane-state';

/**
 * The state objects under `paths` (`List` items expanded), the files that
 * could not be parsed, and the addresses of the fleet by owner: from the
 * objects' status, and from the {@link STATE_FILE} of a `--write` directory.
 */
export function loadState(paths: readonly string[]): { objects: KubeObject[]; errors: LoadError[]; addresses: [string, string][] } {
  const { docs, errors } = loadManifestsReporting(...paths);
  const objects: KubeObject[] = [];
  const saved: [string, string][] = [];
  for (const { object, file, line } of docs) {
    const state = (object as { state?: unknown }).state;
    if (object.kind === 'List' && Array.isArray(object['items'])) objects.push(...(object['items'] as KubeObject[]));
    else if (typeof object.kind === 'string') objects.push(object);
    else if (isPlanState(state)) {
      objects.push(...state.objects);
      saved.push(...state.addresses);
    } else {
      errors.push({ file, line, error: 'neither a Kubernetes object (no kind) nor the output of modelplane plan -o json|yaml (no state); give the plan output, a --write directory or kubectl get -o yaml output' });
    }
  }
  const addresses = [...stateAddresses(objects), ...saved];
  for (const p of paths) {
    const file = join(p, STATE_FILE);
    if (!statSync(p).isDirectory() || !existsSync(file)) continue;
    try {
      const saved = JSON.parse(readFileSync(file, 'utf8')) as { addresses?: [string, string][] };
      addresses.push(...(saved.addresses ?? []).filter((a) => Array.isArray(a) && typeof a[0] === 'string' && typeof a[1] === 'string'));
    } catch {
      errors.push({ file, line: 0, error: 'not the JSON modelplane plan --write writes; remove it or write the directory again' });
    }
  }
  return { objects, errors, addresses };
}

/** The state's ModelReplicas of the input deployments, owned by them as Crossplane would own them. */
export function observedReplicas(state: readonly KubeObject[], deployments: readonly KubeObject[]): KubeObject[] {
  const byName = new Map(deployments.map((d) => [`${d.metadata?.namespace ?? 'default'}/${d.metadata?.name ?? ''}`, d]));
  const out: KubeObject[] = [];
  for (const r of state) {
    if (r.kind !== 'ModelReplica' || groupOf(r.apiVersion) !== 'modelplane.ai') continue;
    const ns = r.metadata?.namespace ?? 'default';
    const d = byName.get(`${ns}/${r.metadata?.labels?.['modelplane.ai/deployment'] ?? ''}`);
    if (!d) continue;
    const owner = { apiVersion: d.apiVersion, kind: d.kind, metadata: { namespace: ns, name: d.metadata?.name ?? '' } } as KubeObject;
    const meta = { ...(r.metadata ?? {}) };
    for (const k of ['uid', 'resourceVersion', 'creationTimestamp', 'generation', 'managedFields']) delete meta[k];
    meta.namespace = ns;
    meta['ownerReferences'] = [
      { apiVersion: d.apiVersion, blockOwnerDeletion: true, controller: true, kind: d.kind, name: d.metadata?.name ?? '', uid: identityUid(owner) },
    ];
    out.push({ ...r, metadata: meta });
  }
  return out;
}

/** An object as `--write` writes it, for comparison. */
export function comparable(o: KubeObject): string {
  const { status: _s, ...rest } = o;
  const meta = { ...(o.metadata ?? {}) };
  for (const k of ['uid', 'resourceVersion', 'ownerReferences', 'creationTimestamp', 'generation', 'managedFields']) delete meta[k];
  return canonical({ ...rest, metadata: meta });
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** What a plan would create, change and delete relative to the state, as `+ kind namespace/name` lines (`~` changed, `-` deleted). */
export interface StateDiff {
  created: string[];
  changed: string[];
  deleted: string[];
}

const label = (o: KubeObject) => `${o.apiVersion} ${o.kind} ${o.metadata?.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata?.name ?? ''}`;

/** Compares the plan's composed objects with the state's objects, by apiVersion, kind, namespace and name. */
export function diffState(composed: readonly KubeObject[], state: readonly KubeObject[]): StateDiff {
  const before = new Map(state.map((o) => [keyOf(o), o]));
  const after = new Map(composed.map((o) => [keyOf(o), o]));
  const sort = (xs: string[]) => xs.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const created: string[] = [];
  const changed: string[] = [];
  for (const [k, o] of after) {
    const old = before.get(k);
    if (!old) created.push(label(o));
    else if (comparable(old) !== comparable(o)) changed.push(label(o));
  }
  const deleted = [...before].filter(([k]) => !after.has(k)).map(([, o]) => label(o));
  return { created: sort(created), changed: sort(changed), deleted: sort(deleted) };
}

/** The `--diff` text: one line per object, then the counts. */
export function formatDiff(d: StateDiff): string {
  const lines = [...d.created.map((l) => `+ ${l}`), ...d.changed.map((l) => `~ ${l}`), ...d.deleted.map((l) => `- ${l}`)];
  lines.push(`${d.created.length} to create, ${d.changed.length} to change, ${d.deleted.length} to delete`);
  return `${lines.join('\n')}\n`;
}
