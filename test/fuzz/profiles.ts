/**
 * What the fuzzer should expect of each function beyond the invariants every
 * function holds. A function absent here reads its own XR's spec and must
 * report an XR its XRD rejects (invariant 3).
 */

/** Per-function exceptions, each with its reason. */
export interface Profile {
  /** False: the function reads no spec of its XR, so an invalid spec is not its to report. */
  readsSpec: boolean;
  reason: string;
}

/** The functions that differ from the default. */
export const PROFILES: Readonly<Record<string, Profile>> = {
  'compose-usages': {
    readsSpec: false,
    reason:
      'generic ProviderConfig protection (platform-side.md §9): it reads the desired state of the step before it and the XR namespace, never the spec; compose-serving-stack, earlier in the same pipeline, reports an invalid ServingStack',
  },
};

/** The profile of a function. */
export function profileOf(fn: string): Profile {
  return PROFILES[fn] ?? { readsSpec: true, reason: 'reads its XR' };
}
