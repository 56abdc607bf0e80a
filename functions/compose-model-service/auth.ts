/**
 * The authenticated front door of a ModelService (docs/front-door.md,
 * docs/ai-gateway.md).
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
import { CALLER_HEADER } from '../lib/key-scope.js';
import { DEFAULT_VALIDATOR_URL, middlewareName } from '../lib/key-validator.js';

/** Condition type and reasons. */
export const Authenticated = 'Authenticated';
export const AuthReason = {
  APIKey: 'APIKey',
  AnonymousByChoice: 'AnonymousByChoice',
  Anonymous: 'Anonymous',
  KeySecretNotFound: 'KeySecretNotFound',
  KeySecretEmpty: 'KeySecretEmpty',
  KeyScopeExcludes: 'KeyScopeExcludes',
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

/**
 * The key Secrets an APIKey service accepts: one Secret by name
 * (`apiKeys.secretRef`) or every Secret of a namespace carrying labels
 * (`apiKeys.secretSelector`, e.g. one Secret per team).
 */
export type KeySecrets = { namespace: string; name: string } | { namespace: string; matchLabels: Record<string, string> };

/** The effective auth of a service. */
export type EffectiveAuth =
  | { type: 'APIKey'; from: 'service' | 'gateway'; keys: KeySecrets; validatorURL: string }
  | { type: 'None'; from: 'service' | 'gateway' }
  | { type: 'Anonymous' };

/** The key validator's base URL: the InferenceGateway's `spec.auth.validatorURL`, else the in-cluster default. */
export function validatorUrlOf(gateway: KubeObject | undefined): string {
  const validator = getPath(gateway, 'spec', 'auth', 'validatorURL');
  return typeof validator === 'string' && validator !== '' ? validator : DEFAULT_VALIDATOR_URL;
}

/** The effective auth: the service's, else the gateway's default, else anonymous. */
export function effectiveAuth(service: KubeObject, gateway: KubeObject | undefined): EffectiveAuth {
  const validatorURL = validatorUrlOf(gateway);
  const own = getPath(service, 'spec', 'auth') as JsonObject | undefined;
  const dflt = getPath(gateway, 'spec', 'auth') as JsonObject | undefined;
  const [auth, from] = own ? [own, 'service' as const] : dflt ? [dflt, 'gateway' as const] : [undefined, undefined];
  if (!auth || !from) return { type: 'Anonymous' };
  if (auth['type'] === 'None') return { type: 'None', from };
  const ref = getPath(auth, 'apiKeys', 'secretRef') as { name?: string; namespace?: string } | undefined;
  const sel = getPath(auth, 'apiKeys', 'secretSelector') as { namespace?: string; matchLabels?: Record<string, string> } | undefined;
  const namespace = from === 'service' ? (service.metadata?.namespace ?? '') : ((ref ?? sel)?.namespace ?? '');
  const keys: KeySecrets = ref === undefined && sel !== undefined ? { namespace, matchLabels: { ...(sel.matchLabels ?? {}) } } : { namespace, name: ref?.name ?? '' };
  return { type: 'APIKey', from, keys, validatorURL };
}

/** How the key Secrets are named in messages: `Secret <ns>/<name>` or `Secrets in <ns> labelled k=v,…`. */
export function describeKeys(keys: KeySecrets): string {
  if ('name' in keys) return `Secret ${keys.namespace}/${keys.name}`;
  const labels = Object.keys(keys.matchLabels)
    .sort()
    .map((k) => `${k}=${keys.matchLabels[k]}`)
    .join(',');
  return `the Secrets in ${keys.namespace} labelled ${labels}`;
}

/** True when a Secret has at least one non-empty value (data or stringData); values are not kept. */
export function hasKey(secret: KubeObject | undefined): boolean {
  for (const field of ['data', 'stringData']) {
    const m = getPath(secret, field);
    if (typeof m === 'object' && m !== null && Object.values(m).some((v) => typeof v === 'string' && v.trim() !== '')) return true;
  }
  return false;
}

/**
 * The forwardAuth Middleware: the validator at `address` (key-access.ts's
 * validatorAddress), given the request's headers (Traefik forwards them,
 * Authorization included); the validator's `X-Modelplane-Caller` replaces
 * any the client sent (Traefik deletes each authResponseHeaders header from
 * the request before copying the validator's).
 */
export function apiKeyMiddleware(service: string, namespace: string, address: string): KubeObject {
  return {
    apiVersion: 'traefik.io/v1alpha1',
    kind: 'Middleware',
    metadata: { name: middlewareName(service), namespace },
    spec: { forwardAuth: { address, authResponseHeaders: [CALLER_HEADER] } },
  };
}

const extensionRef = (name: string): JsonObject => ({ type: 'ExtensionRef', extensionRef: { group: 'traefik.io', kind: 'Middleware', name } });

/**
 * The HTTPRoute rule filters of an APIKey service: the key check, then the
 * Middlewares in `after` (rate limits, which read the caller header the check
 * sets), then Authorization removed.
 */
export function apiKeyFilters(service: string, after: readonly string[] = []): JsonObject[] {
  return [
    extensionRef(middlewareName(service)),
    ...after.map(extensionRef),
    { type: 'RequestHeaderModifier', requestHeaderModifier: { remove: ['Authorization'] } },
  ];
}

/** The filters of a service without keys: the Middlewares in `middlewares`, then any caller header a client sent removed. */
export function anonymousFilters(middlewares: readonly string[] = []): JsonObject[] {
  return [...middlewares.map(extensionRef), { type: 'RequestHeaderModifier', requestHeaderModifier: { remove: [CALLER_HEADER] } }];
}
