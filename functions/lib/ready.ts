/**
 * Readiness of desired composed resources, written one way everywhere.
 *
 * Guarantees: a desired resource carries `ready: true` or no `ready` at all,
 * never `ready: false`: Crossplane counts a composed resource as ready only
 * when a step marks it `READY_TRUE` and reads `READY_UNSPECIFIED` as not
 * ready (crossplane.md §1.4), so the two are the same to the XR, and
 * omitting it keeps goldens and whole-response tests free of a field that
 * says nothing.
 */
import { type DesiredResource, isReady, type KubeObject, type ObservedResource } from './function.js';

/** `resource` as desired, marked ready exactly when `ready`. */
export function markReady(resource: KubeObject, ready: boolean): DesiredResource {
  return ready ? { resource, ready: true } : { resource };
}

/**
 * `resource` as desired, ready exactly when its observed counterpart carries
 * condition `Ready=True` (not yet observed: not ready).
 */
export function readyAsObserved(resource: KubeObject, observed: ObservedResource | undefined): DesiredResource {
  return markReady(resource, isReady(observed?.resource));
}
