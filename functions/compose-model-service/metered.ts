/**
 * Counted services (docs/ai-gateway.md#usage): a ModelService whose tokens
 * are counted routes through the key validator's usage tap
 * (cli/usage-tap.ts), because Traefik reads no response body.
 *
 * Guarantees:
 * - A service is counted when the InferenceGateway's `spec.usage.countTokens`
 *   is true or its effective `spec.rateLimit` (rate-limit.ts) has
 *   `tokensPerMinute`.
 * - Counted, it composes Service `<service>-usage-tap` (selectorless, the
 *   validator's port) with its EndpointSlice (the validator URL's host, as a
 *   ModelEndpoint's backend is built), and HTTPRoute `<service>-metered` on
 *   the Gateway's `metered` listener with the service's own backends and
 *   path. Once that route is accepted and the tap's Service and
 *   EndpointSlice exist, the client-facing route keeps its key
 *   check and limits, rewrites `/<namespace>/<service>` to the tap path
 *   (lib/usage-tap.ts; the token limit rides in it, so no client can send
 *   its own) and sends to the tap Service. Until then it keeps its backends
 *   and serves uncounted (make before break): condition `TokensCounted`
 *   False `WaitingForMeteredRoute` says so.
 * - A validator URL that cannot be routed to (InferenceGateway
 *   `spec.auth.validatorURL`) counts nothing: `TokensCounted` False
 *   `InvalidValidatorURL` and a Warning naming the field; the service is
 *   served uncounted.
 * - An uncounted service composes none of this and has no `TokensCounted`;
 *   switched off, it keeps the metered route and the tap as observed until
 *   its observed route has its own backends again ({@link stillTapped}).
 */
import { condition, type Condition, getPath, type JsonObject, type KubeObject } from '../lib/function.js';
import { childName } from '../lib/names.js';
import { endpointSlice, parseEndpointUrl } from '../lib/url.js';
import { METERED_LISTENER, usageTapPrefix } from '../lib/usage-tap.js';
import type { RateLimit } from './rate-limit.js';

/** Condition type of a counted service, and its reasons. */
export const TokensCounted = 'TokensCounted';
export const TokensReason = {
  UsageTap: 'UsageTap',
  WaitingForMeteredRoute: 'WaitingForMeteredRoute',
  InvalidValidatorURL: 'InvalidValidatorURL',
} as const;

/** TokensCounted True: where the counts go, and the limit. */
export const msgCounted = (tokensPerMinute: number | undefined): string =>
  `tokens counted per request by the key validator's usage tap${tokensPerMinute !== undefined ? `; each caller may spend ${tokensPerMinute} tokens per minute (429 with Retry-After beyond)` : ''}`;
/** TokensCounted False while the metered route is not accepted. */
export const msgWaitingForMetered = (service: string): string =>
  `waiting for HTTPRoute ${meteredRouteName(service)} on the gateway's ${METERED_LISTENER} listener to be accepted and for Service ${tapServiceName(service)}: requests are served uncounted, with no token limit, until then`;
/** TokensCounted False for a validator URL that cannot be routed to. */
export const msgInvalidValidatorUrl = (url: string): string =>
  `InferenceGateway spec.auth.validatorURL ${url} cannot be routed to (want http://host:port): tokens are not counted and no token limit applies; fix the URL`;

/** Name of the tap's Service (and EndpointSlice) of a service. */
export const tapServiceName = (service: string): string => childName(service, 'usage-tap');
/** Name of a service's route on the metered listener. */
export const meteredRouteName = (service: string): string => childName(service, 'metered');

/** How a service is counted, or undefined when it is not. */
export interface Counting {
  /** The per-caller token budget, when the effective rate limit has one. */
  tokensPerMinute?: number;
}

/** Whether `gateway`'s default or the effective `limit` asks to count this service's tokens. */
export function counting(gateway: KubeObject | undefined, limit: RateLimit | undefined): Counting | undefined {
  const tokensPerMinute = limit?.tokensPerMinute;
  if (tokensPerMinute !== undefined) return { tokensPerMinute };
  return getPath(gateway, 'spec', 'usage', 'countTokens') === true ? {} : undefined;
}

/** The route filter sending a counted request to the tap path (Gateway API URLRewrite, ReplacePrefixMatch). */
export function tapRewrite(namespace: string, service: string, c: Counting): JsonObject {
  return { type: 'URLRewrite', urlRewrite: { path: { type: 'ReplacePrefixMatch', replacePrefixMatch: usageTapPrefix(namespace, service, c.tokensPerMinute).replace(/\/$/, '') } } };
}

/**
 * The tap's Service and EndpointSlice (keys `usage-tap-service`,
 * `usage-tap-endpointslice`) and the backendRef to it, for validator URL
 * `validatorURL`; undefined when that URL cannot be routed to.
 */
export function tapBackend(service: string, namespace: string, validatorURL: string): { resources: [string, KubeObject][]; ref: JsonObject } | undefined {
  const url = parseEndpointUrl(validatorURL);
  if (url === undefined || url.scheme !== 'http') return undefined;
  const name = tapServiceName(service);
  const svc: KubeObject = { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace }, spec: { ports: [{ port: url.port, protocol: 'TCP' }] } };
  const slice = endpointSlice(namespace, name, url);
  slice.metadata = { ...slice.metadata, name };
  return { resources: [['usage-tap-service', svc], ['usage-tap-endpointslice', slice]], ref: { name, port: url.port } };
}

/** Desired-resource keys of what a counted service composes beside its client-facing route. */
export const TAP_KEYS = ['httproute-metered', 'usage-tap-service', 'usage-tap-endpointslice'] as const;

/**
 * True while the observed client-facing route still sends to the tap: a
 * service switched off keeps {@link TAP_KEYS} as observed until its route
 * has its own backends again (make before break).
 */
export function stillTapped(route: KubeObject | undefined, service: string): boolean {
  const rules = getPath(route, 'spec', 'rules');
  if (!Array.isArray(rules)) return false;
  return rules.some((r) => Array.isArray(r?.backendRefs) && r.backendRefs.some((b: { name?: unknown }) => b?.name === tapServiceName(service)));
}

/** HTTPRoute `<service>-metered` on the metered listener: the service's path to its own backends, no filters (the client-facing route checked the key). */
export function meteredRoute(service: string, namespace: string, gateway: { name: string; namespace: string }, path: string, refs: readonly JsonObject[]): KubeObject {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name: meteredRouteName(service), namespace },
    spec: {
      parentRefs: [{ ...gateway, sectionName: METERED_LISTENER }],
      rules: [{ matches: [{ path: { type: 'PathPrefix', value: path } }], backendRefs: [...refs] }],
    },
  };
}

/** The TokensCounted condition. */
export function countedCondition(service: string, c: Counting, state: 'counted' | 'waiting' | 'invalid', validatorURL: string): Condition {
  if (state === 'counted') return condition(TokensCounted, true, TokensReason.UsageTap, msgCounted(c.tokensPerMinute));
  if (state === 'waiting') return condition(TokensCounted, false, TokensReason.WaitingForMeteredRoute, msgWaitingForMetered(service));
  return condition(TokensCounted, false, TokensReason.InvalidValidatorURL, msgInvalidValidatorUrl(validatorURL));
}
