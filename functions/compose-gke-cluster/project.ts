/**
 * The GCP project a GKECluster is created in, read from its GCP
 * (Cluster)ProviderConfig as a required resource (docs/clouds.md#gke-project).
 *
 * Guarantees:
 * - The requirement `gcp-provider-config` is declared on every call:
 *   `gcp.m.upbound.io/v1beta1`, kind and name from `spec.credentials`, the
 *   XR namespace only for a namespaced `ProviderConfig`.
 * - Three outcomes, never an exception: the project (from the ProviderConfig's
 *   `spec.projectID`, or else the project the observed cluster already uses);
 *   or "wait" with the message to say. "Not fetched yet" never says "not
 *   found" (docs/design.md#not-fetched-yet-is-not-absent): the first call before Crossplane delivers
 *   the ProviderConfig falls back silently, or waits.
 *
 * Divergence (docs/design.md#keep-what-exists): the reference returns silently with
 * nothing composed when the ProviderConfig has an empty projectID; we say so
 * (a Warning naming the field) and, like every wait, keep what exists.
 */
import { getPath, type ComposeRequest, type ResourceSelector, readRequired } from '../lib/function.js';
import type { ProviderConfigRef } from '../lib/objects.js';

/** Requirement name of the GCP (Cluster)ProviderConfig. */
export const REQ_PROVIDER_CONFIG = 'gcp-provider-config';
/** provider-family-gcp's ProviderConfig API. */
export const GCP_API_VERSION = 'gcp.m.upbound.io/v1beta1';
/** The suffix of a GKE workload pool: `<project>.svc.id.goog`. */
export const WORKLOAD_POOL_SUFFIX = '.svc.id.goog';

/** The requirement selecting the ProviderConfig every GCP MR uses. */
export function providerConfigRequirement(ref: ProviderConfigRef, namespace: string): ResourceSelector {
  const sel: ResourceSelector = { apiVersion: GCP_API_VERSION, kind: ref.kind, matchName: ref.name };
  if (ref.kind === 'ProviderConfig') sel.namespace = namespace;
  return sel;
}

/** Normal result while the ProviderConfig cannot be read and nothing says which project to use. */
export const msgWaiting = (ref: ProviderConfigRef) => `Waiting for GCP ${ref.kind} ${ref.name}`;
/** Normal result when the ProviderConfig is gone and the observed cluster's project is kept. */
export const msgKeepingProject = (ref: ProviderConfigRef) =>
  `GCP ${ref.kind} ${ref.name} not found; keeping the project the composed cluster already uses`;
/** Warning when the ProviderConfig names no project. */
export const msgNoProjectID = (ref: ProviderConfigRef) =>
  `GCP ${ref.kind} ${ref.name} has no spec.projectID; set it to the project the cluster is created in`;

/** Where the project comes from. */
export type Project =
  | { project: string; message?: string }
  | { wait: { severity: 'Normal' | 'Warning'; message: string } };

/** The project of the observed `cluster` MR's workload pool, or undefined. */
function observedProject(req: ComposeRequest): string | undefined {
  const pool = getPath(req.observed['cluster']?.resource, 'spec', 'forProvider', 'workloadIdentityConfig', 'workloadPool');
  if (typeof pool !== 'string' || !pool.endsWith(WORKLOAD_POOL_SUFFIX)) return undefined;
  const project = pool.slice(0, -WORKLOAD_POOL_SUFFIX.length);
  return project === '' ? undefined : project;
}

/** Resolves the project (docs/clouds.md#gke-project). */
export function resolveProject(req: ComposeRequest, ref: ProviderConfigRef): Project {
  const read = readRequired(req, REQ_PROVIDER_CONFIG);
  if (read.state === 'present') {
    const id = getPath(read.items[0], 'spec', 'projectID');
    if (typeof id === 'string' && id !== '') return { project: id };
    return { wait: { severity: 'Warning', message: msgNoProjectID(ref) } };
  }
  const kept = observedProject(req);
  if (kept !== undefined) return read.state === 'absent' ? { project: kept, message: msgKeepingProject(ref) } : { project: kept };
  return { wait: { severity: 'Normal', message: msgWaiting(ref) } };
}
