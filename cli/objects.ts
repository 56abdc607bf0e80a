/**
 * The identity of a Kubernetes object as the CLI's simulated API servers
 * (`modelplane plan`'s store, `modelplane dev`'s runtime) and `render` key
 * and name it: its API group, its store key, the version-5 UUID render gives
 * an object without a UID, and the UID of its controller.
 */
import { createHash } from 'node:crypto';
import type { KubeObject } from '../functions/lib/function.js';

/** The API group of an apiVersion (`""` for the core group). */
export function groupOf(apiVersion: string): string {
  return apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.lastIndexOf('/')) : '';
}

/**
 * Version-5 (SHA-1) UUID in the nil namespace, RFC 4122 §4.3: what render
 * gives an XR without a UID, over `"<group>/<version>, Kind=<Kind>" NUL namespace NUL name`.
 */
export function uuidV5(name: string): string {
  const digest = createHash('sha1').update(Buffer.concat([Buffer.alloc(16), Buffer.from(name, 'utf8')])).digest();
  const b = digest.subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x50;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The store key of an object: `group/kind/namespace/name`. */
export function keyOf(obj: KubeObject): string {
  return `${groupOf(obj.apiVersion)}/${obj.kind}/${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
}

/** The UID a simulated API server gives an object without one. */
export function identityUid(obj: KubeObject): string {
  return uuidV5(`${obj.apiVersion}, Kind=${obj.kind}\0${obj.metadata?.namespace ?? ''}\0${obj.metadata?.name ?? ''}`);
}

/** The UID of an object's controller, if it has one. */
export function controllerUid(obj: KubeObject): string | undefined {
  const refs = obj.metadata?.['ownerReferences'] as { controller?: boolean; uid?: string }[] | undefined;
  return refs?.find((r) => r.controller)?.uid;
}
