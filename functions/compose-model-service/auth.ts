/**
 * The authenticated front door of a ModelService (issue 19).
 *
 * Mechanism (the control-plane gateway is Traefik v3, Gateway API provider
 * plus its Kubernetes CRD provider): Traefik has no native bearer-key check
 * (basicAuth and digestAuth parse `Authorization: Basic|Digest`, and plugins
 * are out), so the route carries a Traefik `forwardAuth` Middleware
 * (`traefik.io/v1alpha1`, attached by an HTTPRoute `ExtensionRef` filter)
 * that asks the key validator (cli/key-validator.ts) before the request goes
 * anywhere: the validator answers 2xx for `Authorization: Bearer <key>` with a
 * key of the referenced Secret, else 401 (`WWW-Authenticate: Bearer`), which
 * Traefik returns to the caller as is. A `RequestHeaderModifier` then removes
 * `Authorization`, so the key never reaches an engine or a third-party
 * endpoint. The validator reads only the Secrets a ModelService names: each
 * service composes a Role (get on that one Secret) bound to the validator's
 * ServiceAccount.
 *
 * Guarantees:
 * - Effective auth: the service's `spec.auth`, else the InferenceGateway's
 *   `spec.auth`, else anonymous; `status.auth` says which (APIKey, None,
 *   Anonymous) and condition `Authenticated` why.
 * - No key value is ever read into status, events, conditions or logs: the
 *   Secret is only checked for having a non-empty value.
 * - A missing or empty key Secret is `Authenticated` False naming it, and the
 *   middleware stays on the route: the validator finds no key and answers
 *   401 to everyone (fail closed, never an open door).
 */
import { getPath, type JsonObject, type KubeObject } from '../lib/function.js';
import { childName } from '../lib/names.js';

/** The key validator's ServiceAccount and default address (in-cluster Service). */
export const VALIDATOR = { name: 'modelplane-key-validator', namespace: 'modelplane-system' } as const;
export const DEFAULT_VALIDATOR_URL = 'http://modelplane-key-validator.modelplane-system.svc.cluster.local:8080';

/** Condition type and reasons. */
export const Authenticated = 'Authenticated';
export const AuthReason = {
  APIKey: 'APIKey',
  AnonymousByChoice: 'AnonymousByChoice',
  Anonymous: 'Anonymous',
  KeySecretNotFound: 'KeySecretNotFound',
  KeySecretEmpty: 'KeySecretEmpty',
} as const;

export const msgAPIKey = (ns: string, name: string, from: 'service' | 'gateway'): string =>
  `requests need Authorization: Bearer <key> with a key from Secret ${ns}/${name} (${from === 'service' ? 'spec.auth' : 'the InferenceGateway default spec.auth'})`;
export const msgNone = (from: 'service' | 'gateway'): string =>
  `anonymous by ${from === 'service' ? 'spec.auth.type None' : 'the InferenceGateway default spec.auth.type None'}`;
export const msgAnonymous =
  'anonymous: neither spec.auth nor the InferenceGateway default sets auth, so anyone who reaches the gateway is served; set spec.auth.type APIKey, or None to serve anonymously on purpose';
export const msgSecretNotFound = (ns: string, name: string): string =>
  `key Secret ${ns}/${name} not found: every request is refused with 401 until it exists with at least one non-empty key`;
export const msgSecretEmpty = (ns: string, name: string): string =>
  `key Secret ${ns}/${name} has no non-empty key: every request is refused with 401 until it has one`;

/** The effective auth of a service. */
export type EffectiveAuth =
  | { type: 'APIKey'; from: 'service' | 'gateway'; secret: { namespace: string; name: string }; validatorURL: string }
  | { type: 'None'; from: 'service' | 'gateway' }
  | { type: 'Anonymous' };

/** The effective auth: the service's, else the gateway's default, else anonymous. */
export function effectiveAuth(service: KubeObject, gateway: KubeObject | undefined): EffectiveAuth {
  const validator = getPath(gateway, 'spec', 'auth', 'validatorURL');
  const validatorURL = typeof validator === 'string' && validator !== '' ? validator : DEFAULT_VALIDATOR_URL;
  const own = getPath(service, 'spec', 'auth') as JsonObject | undefined;
  const dflt = getPath(gateway, 'spec', 'auth') as JsonObject | undefined;
  const [auth, from] = own ? [own, 'service' as const] : dflt ? [dflt, 'gateway' as const] : [undefined, undefined];
  if (!auth || !from) return { type: 'Anonymous' };
  if (auth['type'] === 'None') return { type: 'None', from };
  const ref = getPath(auth, 'apiKeys', 'secretRef') as { name?: string; namespace?: string } | undefined;
  const namespace = from === 'service' ? (service.metadata?.namespace ?? '') : (ref?.namespace ?? '');
  return { type: 'APIKey', from, secret: { namespace, name: ref?.name ?? '' }, validatorURL };
}

/** True when a Secret has at least one non-empty value (data or stringData); values are not kept. */
export function hasKey(secret: KubeObject | undefined): boolean {
  for (const field of ['data', 'stringData']) {
    const m = getPath(secret, field);
    if (typeof m === 'object' && m !== null && Object.values(m).some((v) => typeof v === 'string' && v.trim() !== '')) return true;
  }
  return false;
}

/** The Middleware's name: child_name(service, "api-key"). */
export function middlewareName(service: string): string {
  return childName(service, 'api-key');
}

/**
 * The forwardAuth Middleware: the validator at `<validatorURL>/<secret ns>/<secret name>`,
 * given the request's headers (Traefik forwards them, Authorization included).
 */
export function apiKeyMiddleware(service: string, namespace: string, auth: Extract<EffectiveAuth, { type: 'APIKey' }>): KubeObject {
  return {
    apiVersion: 'traefik.io/v1alpha1',
    kind: 'Middleware',
    metadata: { name: middlewareName(service), namespace },
    spec: { forwardAuth: { address: `${auth.validatorURL}/${auth.secret.namespace}/${auth.secret.name}` } },
  };
}

/** The HTTPRoute rule filters of an APIKey service: the middleware, then Authorization removed. */
export function apiKeyFilters(service: string): JsonObject[] {
  return [
    { type: 'ExtensionRef', extensionRef: { group: 'traefik.io', kind: 'Middleware', name: middlewareName(service) } },
    { type: 'RequestHeaderModifier', requestHeaderModifier: { remove: ['Authorization'] } },
  ];
}

/** The key validator's ServiceAccount `modelplane-key-validator` in `modelplane-system`. */
export function validatorServiceAccount(): KubeObject {
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: VALIDATOR.name, namespace: VALIDATOR.namespace } };
}

/** Role `<middleware name>` in the service's (and its Secret's) namespace: get on the one key Secret. */
export function validatorRole(service: string, secret: { namespace: string; name: string }): KubeObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: middlewareName(service), namespace: secret.namespace },
    rules: [{ apiGroups: [''], resources: ['secrets'], resourceNames: [secret.name], verbs: ['get'] }],
  };
}

/** RoleBinding of {@link validatorRole} to the validator's ServiceAccount. */
export function validatorRoleBinding(service: string, secret: { namespace: string; name: string }): KubeObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: middlewareName(service), namespace: secret.namespace },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: middlewareName(service) },
    subjects: [{ kind: 'ServiceAccount', name: VALIDATOR.name, namespace: VALIDATOR.namespace }],
  };
}
