/**
 * The Nebius service-account credentials the workload cluster's consumers
 * authenticate with, read from the Nebius (Cluster)ProviderConfig as a
 * required resource (docs/clouds.md#nebius-credentials).
 *
 * Guarantees:
 * - The requirement `nebius-provider-config` is declared on every call:
 *   `nebius.m.upbound.io/v1beta1`, kind and name from `spec.credentials`, the
 *   XR namespace only for a namespaced `ProviderConfig`.
 * - Never an exception: the credentials Secret `{namespace, name, key}`, or
 *   none, with the results to emit (messages as docs/clouds.md#nebius-credentials lists them).
 * - What the composed ProviderConfig already carries is kept when the
 *   ProviderConfig cannot be read (absent: said in a Normal result; not
 *   fetched yet: quietly, docs/design.md#not-fetched-yet-is-not-absent) or names no usable Secret (a
 *   Warning says why), so consumers are never cut off by a transient or user
 *   error (docs/design.md#keep-what-exists). With nothing to keep, credentials are none.
 *
 * Divergence (docs/design.md#keep-what-exists): the reference drops the credentials
 * (and so the ProviderConfigs, CSI driver and StorageClass) when the
 * ProviderConfig names no usable Secret; we keep the ones already composed.
 */
import { type ComposeRequest, getPath, normal, type ResourceSelector, type Result, readRequired, warning } from '../lib/function.js';
import type { ProviderConfigRef, SecretKeyRef } from '../lib/objects.js';
import { PROVIDER_CONFIG_KUBERNETES } from '../lib/workload.js';

/** Requirement name of the Nebius (Cluster)ProviderConfig. */
export const REQ_PROVIDER_CONFIG = 'nebius-provider-config';
/** provider-nebius's ProviderConfig API. */
export const NEBIUS_API_VERSION = 'nebius.m.upbound.io/v1beta1';

/** The requirement selecting the ProviderConfig every Nebius MR uses. */
export function providerConfigRequirement(ref: ProviderConfigRef, namespace: string): ResourceSelector {
  const sel: ResourceSelector = { apiVersion: NEBIUS_API_VERSION, kind: ref.kind, matchName: ref.name };
  if (ref.kind === 'ProviderConfig') sel.namespace = namespace;
  return sel;
}

/** The messages of docs/clouds.md#nebius-credentials. */
export const msgNotFromSecret = (ref: ProviderConfigRef) =>
  `Nebius ${ref.kind} ${ref.name} doesn't source credentials from a Secret; consumers can't authenticate to the cluster without one`;
export const msgNoNamespace = (ref: ProviderConfigRef) => `Nebius ${ref.kind} ${ref.name} has no namespace; cannot locate credentials Secret`;
export const msgKeeping = (ref: ProviderConfigRef) =>
  `Nebius ${ref.kind} ${ref.name} not found; keeping the credentials the composed ProviderConfig already carries`;
export const msgWaiting = (ref: ProviderConfigRef) => `Waiting for Nebius ${ref.kind} ${ref.name}`;

/** Resolved credentials (none when `creds` is undefined) and the results to emit. */
export interface Credentials {
  creds?: SecretKeyRef;
  results: Result[];
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The Secret the observed kubernetes ProviderConfig's identity names, or undefined. */
function composedCredentials(req: ComposeRequest): SecretKeyRef | undefined {
  const ref = getPath(req.observed[PROVIDER_CONFIG_KUBERNETES]?.resource, 'spec', 'identity', 'secretRef');
  const namespace = str(getPath(ref, 'namespace'));
  const name = str(getPath(ref, 'name'));
  const key = str(getPath(ref, 'key'));
  return namespace && name && key ? { namespace, name, key } : undefined;
}

/** Resolves the credentials (docs/clouds.md#nebius-credentials). */
export function resolveCredentials(req: ComposeRequest, ref: ProviderConfigRef): Credentials {
  const read = readRequired(req, REQ_PROVIDER_CONFIG);
  const kept = composedCredentials(req);
  const withKept = (results: Result[]): Credentials => (kept ? { creds: kept, results } : { results });
  if (read.state === 'present') {
    const pc = read.items[0];
    const source = getPath(pc, 'spec', 'credentials', 'source');
    const secretRef = getPath(pc, 'spec', 'credentials', 'secretRef');
    if (source !== 'Secret' || typeof secretRef !== 'object' || secretRef === null) return withKept([warning(msgNotFromSecret(ref))]);
    const namespace = str(getPath(secretRef, 'namespace')) ?? str(pc?.metadata?.namespace);
    if (!namespace) return withKept([warning(msgNoNamespace(ref))]);
    return { creds: { namespace, name: String(getPath(secretRef, 'name') ?? ''), key: String(getPath(secretRef, 'key') ?? '') }, results: [] };
  }
  if (kept) return { creds: kept, results: read.state === 'absent' ? [normal(msgKeeping(ref))] : [] };
  return { results: [normal(msgWaiting(ref))] };
}
