/**
 * One reconcile at a time per object, as controller-runtime's work queue
 * guarantees: events for an object whose reconcile is running are coalesced
 * into one more run with the newest copy. And no reconcile of a copy older
 * than what we last wrote: the informer may still deliver the object as it
 * was before our own write, and acting on it would write the same thing
 * twice.
 *
 * Staleness compares resourceVersions as numbers, which holds for the dev
 * control plane (they are etcd revisions of its one store); Kubernetes
 * otherwise treats them as opaque.
 */
import type { KubeObject } from '../../../functions/lib/function.js';

/** `apiVersion/kind/namespace/name`. */
export function objectKey(o: KubeObject): string {
  return `${o.apiVersion}/${o.kind}/${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
}

function revision(o: KubeObject | undefined): number {
  const rv = Number(o?.metadata?.resourceVersion);
  return Number.isFinite(rv) ? rv : 0;
}

/** A per-object serial queue; see the module comment. */
export class ObjectQueue {
  private readonly running = new Set<string>();
  private readonly next = new Map<string, KubeObject>();
  /** The resourceVersion each object had after our last write. */
  private readonly written = new Map<string, number>();

  /** @param work reconciles one object; resolves with the object as written (or undefined when it wrote nothing). */
  constructor(private readonly work: (obj: KubeObject) => Promise<KubeObject | undefined>) {}

  /** Queues a reconcile of `obj` (the newest copy wins while one runs). */
  add(obj: KubeObject): void {
    const key = objectKey(obj);
    if (revision(obj) > 0 && revision(obj) < (this.written.get(key) ?? 0)) return; // older than our own write
    if (this.running.has(key)) {
      this.next.set(key, obj);
      return;
    }
    void this.run(key, obj);
  }

  /** Forgets a deleted object. */
  forget(obj: KubeObject): void {
    this.written.delete(objectKey(obj));
  }

  private async run(key: string, obj: KubeObject): Promise<void> {
    this.running.add(key);
    try {
      const after = await this.work(obj);
      if (after) this.written.set(key, revision(after));
    } catch {
      // the work logs its own errors; the next event or tick tries again
    } finally {
      this.running.delete(key);
      const again = this.next.get(key);
      this.next.delete(key);
      if (again && revision(again) >= (this.written.get(key) ?? 0)) void this.run(key, again);
    }
  }
}

/**
 * Paces the simulated providers' writes per composite, as real providers
 * pace themselves by taking seconds per resource, rather than answering 57
 * resources within the second core created them. Crossplane counts watch
 * events of an XR's composed resources and of the XR itself against a token
 * bucket per XR (a create costs 1, an update 2: controller-runtime maps it
 * as old and new object; see components.ts CIRCUIT_BREAKER_BURST). The
 * defaults (20 at once, then 1 per second) keep the largest composite, an
 * EKSCluster, below the burst dev up gives core, and make its 57 resources
 * Ready within a minute.
 */
export class Pacer {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly capacity = 20,
    private readonly perSecond = 1,
  ) {}

  /** Takes a token for `owner`: 0 when one was free, else how many ms to wait before asking again. */
  take(owner: string, now = Date.now()): number {
    const b = this.buckets.get(owner) ?? { tokens: this.capacity, at: now };
    b.tokens = Math.min(this.capacity, b.tokens + ((now - b.at) / 1000) * this.perSecond);
    b.at = now;
    this.buckets.set(owner, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - b.tokens) / this.perSecond) * 1000);
  }
}

/** The uid of an object's controller (its XR), or '' when it has none. */
export function controllerOf(o: KubeObject): string {
  const refs = ((o.metadata as { ownerReferences?: { uid?: string; controller?: boolean }[] } | undefined)?.ownerReferences ?? []);
  return refs.find((r) => r.controller)?.uid ?? '';
}
