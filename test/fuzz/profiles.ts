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
  /**
   * Observed keys the spec removes when a requirement is fetched and empty
   * (`required-absent`: "absent" is an answer, docs/design.md#not-fetched-yet-is-not-absent, not a
   * transient): requirement name → the keys that may go, with why.
   */
  absentDrops?: Readonly<Record<string, { keys: readonly string[]; reason: string }>>;
}

/** The functions that differ from the default. */
export const PROFILES: Readonly<Record<string, Profile>> = {
  'compose-inference-cluster': {
    readsSpec: true,
    reason: 'reads its XR',
    absentDrops: {
      // Not a false drop: the replica guard exists only while ModelReplicas are scheduled to the
      // cluster; with `model-replicas` fetched and empty it goes, so the cluster becomes deletable
      // (docs/kinds/inferencecluster.md#the-replica-guard, acceptance ICL-G2). Keeping it would block deletion forever.
      'model-replicas': { keys: ['usage-replicas'], reason: 'the replica guard goes when no ModelReplica is scheduled to the cluster (docs/kinds/inferencecluster.md#the-replica-guard, ICL-G2)' },
    },
  },
  'compose-usages': {
    readsSpec: false,
    reason:
      'generic ProviderConfig protection (docs/kinds/servingstack.md#providerconfig-protection): it reads the desired state of the step before it and the XR namespace, never the spec; compose-serving-stack, earlier in the same pipeline, reports an invalid ServingStack',
  },
};

/** The profile of a function. */
export function profileOf(fn: string): Profile {
  return PROFILES[fn] ?? { readsSpec: true, reason: 'reads its XR' };
}
