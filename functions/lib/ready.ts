/**
 * Readiness of desired composed resources, written one way everywhere.
 *
 * Guarantees: a desired resource carries `ready: true` or no `ready` at all,
 * never `ready: false`: Crossplane counts a composed resource as ready only
 * when a step marks it `READY_TRUE` and reads `READY_UNSPECIFIED` as not
 * ready (docs/composition.md#readiness), so the two are the same to the XR, and
 * omitting it keeps goldens and whole-response tests free of a field that
 * says nothing.
 */
import { type ComposeResult, type DesiredResource, isReady, type KubeObject, type ObservedResource } from './function.js';

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

/**
 * Makes the XR's Ready tell the truth
 * (docs/design.md#ready-means-serving-what-was-asked). Crossplane
 * derives Ready from composed readiness: True when every desired composed
 * resource is ready (or there are none), else False with "Unready resources:
 * …" (docs/composition.md#readiness). When that would say True but the XR does not
 * serve what was asked (`serving` false: a partial placement, a route not
 * accepted, no address), the desired composite's readiness is set False,
 * which Crossplane reports as Ready=False `Creating` and the XR's own
 * conditions explain. Otherwise nothing is set, so the derived message stays.
 */
export function readyOnlyIfServing(result: ComposeResult, serving: boolean): void {
  if (serving) return;
  if (Object.values(result.resources).every((r) => r.ready === true)) result.ready = false;
}
