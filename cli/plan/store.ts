/**
 * The in-memory API server of `modelplane plan`: objects keyed by
 * (group, kind, namespace, name), as the real one keys them.
 *
 * Guarantees: iteration order is sorted by key, never insertion order, so a
 * plan is deterministic; every stored object has a UID derived from its
 * identity (a version-5 UUID, the same rule render uses for XRs); a
 * cluster-scoped kind never carries a namespace (the API server drops it,
 * docs/design.md#cluster-scoped-kinds-ignore-a-namespace); deleting an object deletes, transitively, every
 * object whose controller ownerReference points at it (Kubernetes garbage
 * collection, foreground). Stored objects are deeply frozen: whoever reads one
 * (a function core, a report) cannot change the store behind its back; every
 * put stores a new object, so an object's identity is its revision (readers
 * may cache what they derive from one, by identity).
 */
import type { JsonObject, KubeObject } from '../../functions/lib/function.js';
import { deepFrozen } from '../../functions/lib/json.js';
import { controllerUid, groupOf, identityUid, keyOf } from '../objects.js';
import { inListSelector } from '../render/xr.js';

/** An object store with Kubernetes' identity, scope and garbage-collection rules. */
export class ObjectStore {
  private readonly objects = new Map<string, KubeObject>();
  private readonly byUid = new Map<string, string>();
  /** `group/kind` → keys of its objects. */
  private readonly byKind = new Map<string, Set<string>>();
  /** Controller UID → keys of the objects it controls. */
  private readonly children = new Map<string, Set<string>>();
  private sorted: string[] | undefined;
  /** Incremented by every put and delete: a round that leaves it unchanged changed nothing. */
  revision = 0;
  /** Keys put since the last {@link takeChanged}. */
  private changed = new Set<string>();
  /** `group/kind` → its keys sorted, until one is created or deleted. */
  private readonly sortedOfKind = new Map<string, string[]>();
  /** Incremented whenever an object is created or deleted (not when one is replaced). */
  membership = 0;
  /** The revision at which each object last changed. */
  private readonly modRevs = new Map<string, number>();
  /** The revision at which any object of each `group/kind` last changed (put or delete). */
  private readonly kindRevs = new Map<string, number>();

  /** @param isClusterScoped tells whether a (group, kind) is cluster-scoped. */
  constructor(private readonly isClusterScoped: (group: string, kind: string) => boolean) {}

  /**
   * Normalises scope and UID, then inserts or replaces the object whole and
   * freezes it. Returns the stored object. The caller hands the object over:
   * it must not change it (or anything under it) afterwards.
   */
  put(obj: KubeObject): KubeObject {
    const copy: KubeObject = { ...obj };
    copy.metadata = { ...(copy.metadata ?? {}) };
    if (this.isClusterScoped(groupOf(copy.apiVersion), copy.kind)) delete copy.metadata.namespace;
    const key = keyOf(copy);
    const existing = this.objects.get(key);
    this.revision++;
    this.modRevs.set(key, this.revision);
    this.kindRevs.set(`${groupOf(copy.apiVersion)}/${copy.kind}`, this.revision);
    if (existing) this.unindex(key, existing);
    else {
      this.sorted = undefined;
      this.sortedOfKind.delete(`${groupOf(copy.apiVersion)}/${copy.kind}`);
      this.membership++;
    }
    this.changed.add(key);
    copy.metadata.uid = existing?.metadata?.uid ?? copy.metadata.uid ?? identityUid(copy);
    deepFrozen(copy);
    const gk = `${groupOf(copy.apiVersion)}/${copy.kind}`;
    const kindSet = this.byKind.get(gk) ?? new Set<string>();
    kindSet.add(key);
    this.byKind.set(gk, kindSet);
    this.objects.set(key, copy);
    this.byUid.set(copy.metadata.uid, key);
    const owner = controllerUid(copy);
    if (owner) {
      const set = this.children.get(owner) ?? new Set<string>();
      set.add(key);
      this.children.set(owner, set);
    }
    return copy;
  }

  /** The revision at which `key` last changed, or undefined when absent. */
  modRevision(key: string): number | undefined {
    return this.modRevs.get(key);
  }

  /** The revision at which any object of `group/kind` last changed (0 when never). */
  kindRevision(groupKind: string): number {
    return this.kindRevs.get(groupKind) ?? 0;
  }

  get(key: string): KubeObject | undefined {
    return this.objects.get(key);
  }

  getByUid(uid: string): KubeObject | undefined {
    const key = this.byUid.get(uid);
    return key === undefined ? undefined : this.objects.get(key);
  }

  /** Deletes an object and, transitively, everything it controls. Returns the deleted keys. */
  delete(key: string): string[] {
    const obj = this.objects.get(key);
    if (!obj) return [];
    this.objects.delete(key);
    this.byKind.get(`${groupOf(obj.apiVersion)}/${obj.kind}`)?.delete(key);
    this.revision++;
    this.modRevs.delete(key);
    this.kindRevs.set(`${groupOf(obj.apiVersion)}/${obj.kind}`, this.revision);
    this.unindex(key, obj);
    this.sorted = undefined;
    this.sortedOfKind.delete(`${groupOf(obj.apiVersion)}/${obj.kind}`);
    this.membership++;
    const uid = obj.metadata?.uid;
    if (uid) this.byUid.delete(uid);
    const deleted = [key];
    if (uid) for (const child of this.controlledBy(uid)) deleted.push(...this.delete(keyOf(child)));
    return deleted;
  }

  private unindex(key: string, obj: KubeObject): void {
    const owner = controllerUid(obj);
    if (owner) this.children.get(owner)?.delete(key);
  }

  /** Objects of one `group/kind`, sorted by key. */
  ofKind(group: string, kind: string): KubeObject[] {
    const gk = `${group}/${kind}`;
    let keys = this.sortedOfKind.get(gk);
    if (keys === undefined) {
      keys = [...(this.byKind.get(gk) ?? [])].sort();
      this.sortedOfKind.set(gk, keys);
    }
    return keys.map((k) => this.objects.get(k)!);
  }

  /** Keys put (created or replaced) since the last call, in no order; deleted ones may be among them. */
  takeChanged(): Set<string> {
    const out = this.changed;
    this.changed = new Set();
    return out;
  }

  /**
   * Resolves a required-resource selector as Crossplane does against the API
   * server: by name at (namespace, name), none meaning cluster-scoped; by
   * labels (or none) across the kind, in the namespace when one is given.
   * Sorted by namespace/name.
   */
  resolve(sel: {
    apiVersion: string;
    kind: string;
    matchName?: string | undefined;
    namespace?: string | undefined;
    matchLabels?: { labels: Record<string, string> } | undefined;
  }): KubeObject[] {
    const group = groupOf(sel.apiVersion);
    if (sel.matchName !== undefined) {
      const o = this.objects.get(`${group}/${sel.kind}/${sel.namespace ?? ''}/${sel.matchName}`);
      return o && o.apiVersion === sel.apiVersion ? [o] : [];
    }
    return this.ofKind(group, sel.kind).filter((o) => inListSelector(o, sel));
  }

  /** Every object, sorted by key. */
  all(): KubeObject[] {
    this.sorted ??= [...this.objects.keys()].sort();
    return this.sorted.map((k) => this.objects.get(k)!);
  }

  /** Keys of the objects whose controller is `uid` (unsorted). */
  childKeys(uid: string): string[] {
    return [...(this.children.get(uid) ?? [])];
  }

  /** Objects whose controller is `uid`, sorted by key. */
  controlledBy(uid: string): KubeObject[] {
    return [...(this.children.get(uid) ?? [])].sort().map((k) => this.objects.get(k)!);
  }

  /** A stable fingerprint of the whole store, to detect a fixed point. */
  fingerprint(): string {
    return JSON.stringify(this.all(), (_k, v: unknown) =>
      v && typeof v === 'object' && !Array.isArray(v)
        ? Object.fromEntries(Object.keys(v as JsonObject).sort().map((k) => [k, (v as JsonObject)[k]]))
        : v,
    );
  }

  get size(): number {
    return this.objects.size;
  }
}

