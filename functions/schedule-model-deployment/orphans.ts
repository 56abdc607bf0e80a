/**
 * Replicas Crossplane lost track of: a ModelReplica this ModelDeployment
 * controls (its controller reference names the XR's uid), listed by the
 * `own-replicas` requirement, but missing from the observed composed
 * resources (the XR's `spec.crossplane.resourceRefs`). Seen on the dev
 * control plane under load: core created the replica, its update of the
 * references did not land, and a replica that the scheduler then no longer
 * wanted was never deleted, because core deletes only what it observes.
 *
 * Such a replica is composed once more, as it runs, under the key it was
 * composed with (its `crossplane.io/composition-resource-name`), so that
 * core tracks it again; the next call sees it observed and keeps or drops it
 * like any other (dropped, core deletes it). Skipped: one being deleted, one
 * without the key annotation or controller reference, and one whose key the
 * call already composes or observes.
 */
import type { KubeObject, ObservedResource } from '../lib/function.js';

/** Crossplane's annotation naming a composed resource's key in the pipeline. */
export const RESOURCE_NAME_ANNOTATION = 'crossplane.io/composition-resource-name';

/** The replicas of `own` (required) that Crossplane does not track, with the key each was composed under. */
export function untrackedReplicas(
  own: readonly KubeObject[],
  observed: Readonly<Record<string, ObservedResource>>,
  composed: ReadonlySet<string>,
  compositeUid: string | undefined,
): { key: string; replica: KubeObject }[] {
  if (compositeUid === undefined || compositeUid === '') return [];
  const tracked = new Set(Object.values(observed).map((o) => o.resource.metadata?.name));
  const out: { key: string; replica: KubeObject }[] = [];
  for (const r of own) {
    const m = r.metadata ?? {};
    if (m.deletionTimestamp !== undefined || tracked.has(m.name)) continue;
    const key = m.annotations?.[RESOURCE_NAME_ANNOTATION];
    const owners = (m['ownerReferences'] ?? []) as { uid?: string; controller?: boolean }[];
    const ours = Array.isArray(owners) && owners.some((o) => o?.controller === true && o.uid === compositeUid);
    if (typeof key !== 'string' || key === '' || !ours || composed.has(key) || observed[key] !== undefined) continue;
    out.push({ key, replica: r });
  }
  return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** `replica <name> is not in this ModelDeployment's resourceRefs (Crossplane lost track of it): composed once more under <key> so that it is tracked, and removed if not needed`. */
export function msgUntracked(name: string, key: string): string {
  return `replica ${name} is not in this ModelDeployment's resourceRefs (Crossplane lost track of it): composed once more under ${key} so that it is tracked, and removed if not needed`;
}
