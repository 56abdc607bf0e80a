/**
 * compose-model-service: one OpenAI-compatible path on the control-plane
 * InferenceGateway, weighted across the ModelEndpoints the service's
 * selectors match (docs/kinds/modelservice.md).
 *
 * Guarantees:
 * - Requirements, declared on every call: `inference-gateway` (the
 *   InferenceGateway named `default`) and `endpoints-<i>` per selector entry,
 *   restricted to the service's own namespace (docs/design.md#namespaces-are-identity: a
 *   service never routes into another namespace; an endpoint from elsewhere
 *   is ignored even if delivered).
 * - An endpoint matched by several entries belongs to the first one.
 * - One HTTPRoute (key `httproute`, name generated) on gateway
 *   `modelplane-system/modelplane`, path prefix `/<namespace>/<name>/`, a
 *   backendRef per endpoint whose backend exists, weighted by
 *   {@link distribute}, with the endpoint's `rewritePath` as a URLRewrite.
 * - `status.address` = `http://<gateway address>/<namespace>/<name>` once the
 *   gateway has an address, else status is `{}`; `<gateway status.url>/<namespace>/<name>`
 *   when the gateway publishes a URL (its `spec.hostname`), and with an
 *   `https://` URL the route attaches to listener `websecure` (docs/front-door.md).
 * - Conditions: `EndpointsResolved`, then `RoutingReady` (True
 *   `RouteConfigured` when the gateway accepted the route and at least one
 *   backend is live).
 * - A route not composed yet waits for the gateway's address: the
 *   InferenceGateway publishes one only once the Gateway API CRDs it installs
 *   and its Gateway exist, so the route never fails to apply for a missing
 *   HTTPRoute kind. The gateway absent is RoutingReady False
 *   `GatewayNotFound` and a Warning naming the fix; present without an
 *   address, `WaitingForGateway`. A route already composed is kept.
 * - Ready only when serving (functions/lib/ready.ts): a route accepted,
 *   with a live backend, at an address.
 * - An endpoint whose `rewritePath` repeats the path of its `url` (Groq's
 *   `https://api.groq.com/openai/v1` with `/openai/v1/`) would send a
 *   client's `/<ns>/<svc>/v1/...` upstream as `/openai/v1/v1/...` (clients
 *   send the API version; a composed replica endpoint's rewritePath is its
 *   URL path without the version): a Warning per endpoint, and condition
 *   `RewritePathsValid` False `RewriteRepeatsPath` (absent when none does).
 *   with a live backend, at an address, and (APIKey) a key Secret with a key.
 * - Auth (auth.ts): APIKey composes the forwardAuth Middleware
 *   (`api-key-middleware`) and, for the service's own Secret, the validator's
 *   Role and RoleBinding, and puts the key check first on the route;
 *   `status.auth` and condition `Authenticated` say which auth applies.
 *   Scoped keys (key-access.ts, docs/ai-gateway.md): the accepted key
 *   Secrets split into allowed and denied by their scope annotations, in
 *   `status.apiKeys` and the validator's address. A service without keys
 *   removes any client `X-Modelplane-Caller` header.
 * - Priorities (failover.ts): entries at more than one `priority` route
 *   through a TraefikService failover chain, `<name>-backends`, instead of
 *   weighted backendRefs; RoutingReady's message then gives the order.
 * - Rate limits (rate-limit.ts): `spec.rateLimit`, else the gateway's,
 *   composes Traefik rateLimit/inFlightReq Middlewares after the key check.
 * - Token counts and budgets (metered.ts): a counted service (the gateway's
 *   `spec.usage.countTokens`, or a `tokensPerMinute` limit) also composes
 *   HTTPRoute `<service>-metered` on the gateway's `metered` listener and the
 *   usage tap's backend; once that route is accepted the client-facing route
 *   sends to the tap (docs/ai-gateway.md#tokens-the-usage-tap).
 * - While a requirement is not fetched yet, nothing is said and nothing is
 *   dropped (docs/design.md#not-fetched-yet-is-not-absent). When no endpoint
 *   matches, the route already composed is kept
 *   (docs/design.md#keep-what-exists; the reference composed
 *   nothing, so Crossplane deleted the route).
 */
import {
  type ComposeRequest,
  type ComposeResult,
  type Condition,
  condition,
  emptyResult,
  getPath,
  type JsonObject,
  keepObserved,
  type KubeObject,
  readRequired,
  type Result,
  warning,
} from '../lib/function.js';
import { keepAndWarn } from '../lib/keep.js';
import { markReady, readyOnlyIfServing } from '../lib/ready.js';
import { defaultPort, parseEndpointUrl } from '../lib/url.js';
import { type ModelServiceEndpoint, parseModelService } from '../lib/generated/modelservices.js';
import { formatZodIssues } from '../lib/zod-issues.js';
import { validatorRole, validatorRoleBinding } from '../lib/key-validator.js';
import { anonymousFilters, apiKeyFilters, apiKeyMiddleware, effectiveAuth, validatorUrlOf } from './auth.js';
import { authVerdict, validatorAddress } from './key-access.js';
import { effectiveRateLimit, rateLimitMiddlewares } from './rate-limit.js';
import { backendsName, failoverResources, type LevelBackend, msgLevels, priorityLevels, usesPriorities } from './failover.js';
import { distribute } from './weights.js';
import { countedCondition, counting, meteredRoute, msgInvalidValidatorUrl, stillTapped, TAP_KEYS, tapBackend, tapRewrite } from './metered.js';

/** Condition types, reasons and messages. */
export const EndpointsResolved = 'EndpointsResolved';
export const RoutingReady = 'RoutingReady';
export const Reason = {
  NoEndpoints: 'NoEndpoints',
  InvalidSpec: 'InvalidSpec',
  Resolved: 'Resolved',
  RouteConfigured: 'RouteConfigured',
  Configuring: 'Configuring',
  GatewayNotFound: 'GatewayNotFound',
  WaitingForGateway: 'WaitingForGateway',
  ScaledToZero: 'ScaledToZero',
} as const;
export const msgNoEndpoints = 'No ModelEndpoints matched the configured selectors';
/** RoutingReady's message when every matched endpoint is a standby (docs/autoscaling.md#zero-and-back). */
export const msgScaledToZero = (deployments: readonly string[]): string =>
  `Scaled to zero: ${deployments.join(', ')} has no Ready replica; requests get 503 with Retry-After and ask for one`;
/** The label of a scaled-to-zero deployment's standby endpoint. */
const STANDBY_LABEL = 'modelplane.ai/standby';
export const msgMatched = (n: number, waiting: number): string =>
  `Matched ${n} endpoint(s)${waiting > 0 ? `; ${waiting} waiting for Backend` : ''}`;

export const msgGatewayNotFound = (namespace: string, name: string): string =>
  `InferenceGateway default not found: ModelService ${namespace}/${name} has no address; create the InferenceGateway (it installs the Gateway API CRDs and the control-plane Gateway)`;
export const msgWaitingForGateway = 'Waiting for InferenceGateway default to publish an address (its Gateway API CRDs and Gateway are being installed)';

/** Condition type set False only when an endpoint's rewritePath repeats its URL's path. */
export const RewritePathsValid = 'RewritePathsValid';
/** The warning for an endpoint whose rewritePath repeats its URL's path; `fix` is the URL path without its last segment. */
export const msgRewriteRepeatsPath = (endpoint: string, url: string, rewrite: string, fix: string): string =>
  `ModelEndpoint ${endpoint}: spec.rewritePath ${rewrite} repeats the path of spec.url ${url}, so a request for <service>/v1/... reaches the upstream as ${rewrite.replace(/\/?$/, '/')}v1/...; set rewritePath to ${fix}`;

/** The path of a URL with one trailing slash, or undefined when it does not parse. */
function urlPath(url: string): string | undefined {
  try {
    return new URL(url).pathname.replace(/\/*$/, '/');
  } catch {
    return undefined;
  }
}

/** Warnings for endpoints whose rewritePath repeats their URL's path, sorted by endpoint name. */
export function repeatedRewrites(endpoints: readonly KubeObject[]): string[] {
  const out: { name: string; message: string }[] = [];
  for (const ep of endpoints) {
    const url = String(getPath(ep, 'spec', 'url') ?? '');
    const rewrite = getPath(ep, 'spec', 'rewritePath');
    const path = urlPath(url);
    if (typeof rewrite !== 'string' || path === undefined || path === '/' || rewrite.replace(/\/*$/, '/') !== path) continue;
    const fix = path.replace(/[^/]+\/$/, '');
    const name = ep.metadata?.name ?? '';
    out.push({ name, message: msgRewriteRepeatsPath(name, url, rewrite, fix) });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((x) => x.message);
}

/** The control-plane Gateway every service route attaches to. */
export const GATEWAY_REF = { name: 'modelplane', namespace: 'modelplane-system' } as const;

interface Entry {
  weight: number;
  priority: number;
  endpoints: KubeObject[];
}

/** The service's selector entries, each with the endpoints it owns (first match wins). */
function group(req: ComposeRequest, namespace: string, entries: ModelServiceEndpoint[]): Entry[] {
  const taken = new Set<string>();
  return entries.map((e, i) => {
    const read = readRequired(req, `endpoints-${i}`);
    const items = read.state === 'present' ? read.items : [];
    const endpoints: KubeObject[] = [];
    for (const ep of items) {
      if ((ep.metadata?.namespace ?? '') !== namespace) continue;
      const key = `${ep.metadata?.namespace ?? ''}/${ep.metadata?.name ?? ''}`;
      if (taken.has(key)) continue;
      taken.add(key);
      endpoints.push(ep);
    }
    return { weight: e.weight, priority: e.priority ?? 0, endpoints };
  });
}

function backendName(ep: KubeObject): string | undefined {
  const n = getPath(ep, 'status', 'routing', 'backendName');
  return typeof n === 'string' && n !== '' ? n : undefined;
}

/** The endpoint's `spec.url`, and whether it is https. */
function urlOf(ep: KubeObject): { url: string; https: boolean } {
  const url = String(getPath(ep, 'spec', 'url') ?? '');
  return { url, https: url.toLowerCase().startsWith('https:') };
}

function portOf(ep: KubeObject): number {
  const { url, https } = urlOf(ep);
  return parseEndpointUrl(url)?.port ?? defaultPort(https ? 'https' : 'http');
}

/** The endpoint's `spec.rewritePath`, undefined when unset or empty. */
function rewritePathOf(ep: KubeObject): string | undefined {
  const rewrite = getPath(ep, 'spec', 'rewritePath');
  return typeof rewrite === 'string' && rewrite !== '' ? rewrite : undefined;
}

/** An endpoint as a failover level's backend, or nothing while it has no backend Service. */
function levelBackend(ep: KubeObject): LevelBackend[] {
  const service = backendName(ep);
  if (service === undefined) return [];
  const rewritePath = rewritePathOf(ep);
  return [{ endpoint: ep.metadata?.name ?? '', service, port: portOf(ep), https: urlOf(ep).https, ...(rewritePath !== undefined ? { rewritePath } : {}) }];
}

function backendRefs(entries: Entry[]): JsonObject[] {
  const live = entries
    .map((e) => ({ weight: e.weight, endpoints: e.endpoints.filter((ep) => backendName(ep) !== undefined) }))
    .filter((e) => e.endpoints.length > 0);
  const weights = distribute(live.map((e) => ({ weight: e.weight, count: e.endpoints.length })));
  return live.flatMap((e, g) =>
    e.endpoints.map((ep, i) => {
      const ref: JsonObject = { name: backendName(ep), port: portOf(ep), weight: weights[g]![i]! };
      const rewrite = rewritePathOf(ep);
      if (rewrite !== undefined) {
        ref['filters'] = [
          { type: 'URLRewrite', urlRewrite: { path: { type: 'ReplacePrefixMatch', replacePrefixMatch: rewrite } } },
        ];
      }
      return ref;
    }),
  );
}

/** The HTTPS listener of the control-plane Gateway (InferenceGateway `spec.tls`; docs/front-door.md). */
export const HTTPS_LISTENER = 'websecure';
/** The plain-HTTP listener: a route names its listener, so it never also attaches to the gateway's `metered` one (docs/ai-gateway.md#tokens-the-usage-tap). */
export const HTTP_LISTENER = 'web';

/**
 * The base of the service URL from the InferenceGateway's status: `status.url`
 * (`https://<hostname>` with TLS: routes then attach to listener `websecure`),
 * else `http://<status.address>`; undefined while neither is published.
 */
function gatewayBase(gw: KubeObject | undefined): { url: string; https: boolean } | undefined {
  const address = getPath(gw, 'status', 'address');
  if (typeof address !== 'string' || address === '') return undefined;
  const url = getPath(gw, 'status', 'url');
  if (typeof url === 'string' && /^https?:\/\/[^/]+$/.test(url)) return { url, https: url.startsWith('https://') };
  return { url: `http://${address}`, https: false };
}

function accepted(route: KubeObject | undefined): boolean {
  const parents = getPath(route, 'status', 'parents');
  if (!Array.isArray(parents)) return false;
  return parents.some((p) => {
    const conditions = getPath(p, 'conditions');
    return Array.isArray(conditions) && conditions.some((c) => c?.type === 'Accepted' && c?.status === 'True');
  });
}

/** Composes a ModelService. */
export function compose(req: ComposeRequest): ComposeResult {
  const result = emptyResult();
  const name = req.composite.metadata?.name ?? '';
  const namespace = req.composite.metadata?.namespace ?? '';
  result.requirements['inference-gateway'] = {
    apiVersion: 'modelplane.ai/v1alpha1',
    kind: 'InferenceGateway',
    matchName: 'default',
  };
  const parsed = parseModelService(req.composite);
  if (!parsed.success) {
    const message = formatZodIssues('', parsed.error);
    keepAndWarn(result, req.observed, { type: EndpointsResolved, reason: Reason.InvalidSpec, message });
    readyOnlyIfServing(result, false);
    return result;
  }
  const entries = parsed.data.spec.endpoints;
  entries.forEach((e, i) => {
    result.requirements[`endpoints-${i}`] = {
      apiVersion: 'modelplane.ai/v1alpha1',
      kind: 'ModelEndpoint',
      matchLabels: { ...e.selector.matchLabels },
      namespace,
    };
  });
  const gw = readRequired(req, 'inference-gateway');
  const auth = effectiveAuth(req.composite, gw.state === 'present' ? gw.items[0] : undefined);
  if (auth.type === 'APIKey') {
    const k = auth.keys;
    result.requirements['api-keys'] =
      'name' in k
        ? { apiVersion: 'v1', kind: 'Secret', matchName: k.name, namespace: k.namespace }
        : { apiVersion: 'v1', kind: 'Secret', matchLabels: { ...k.matchLabels }, namespace: k.namespace };
  }
  const names = Object.keys(result.requirements);
  if (names.some((n) => readRequired(req, n).state === 'pending')) {
    result.resources = keepObserved(req.observed);
    readyOnlyIfServing(result, false);
    return result;
  }

  const gateway = gw;
  const base = gatewayBase(gateway.state === 'present' ? gateway.items[0] : undefined);
  result.status = base !== undefined ? { address: `${base.url}/${namespace}/${name}` } : {};
  result.status['auth'] = auth.type;
  // The auth condition (and any Warning) goes last, whichever way the call returns from here.
  const authConditions: Condition[] = [];
  const authResults: Result[] = [];
  const finish = (): ComposeResult => {
    result.conditions.push(...authConditions);
    result.results.push(...authResults);
    return result;
  };
  const keySecrets = readRequired(req, 'api-keys');
  const labels = (req.composite.metadata?.labels ?? {}) as Record<string, string>;
  const verdict = authVerdict(auth, keySecrets.state === 'present' ? keySecrets.items : undefined, { namespace, name, labels });
  const authOk = verdict.ok;
  authConditions.push(...verdict.conditions);
  authResults.push(...verdict.results);
  if (verdict.access) {
    result.status['apiKeys'] = { namespace: verdict.access.namespace, allowed: verdict.access.allowed, denied: verdict.access.denied };
  }

  const grouped = group(req, namespace, entries);
  const all = grouped.flatMap((g) => g.endpoints);
  if (all.length === 0) {
    keepAndWarn(result, req.observed, { type: EndpointsResolved, reason: Reason.NoEndpoints, message: msgNoEndpoints });
    readyOnlyIfServing(result, false);
    return finish();
  }
  const waiting = all.filter((ep) => backendName(ep) === undefined).length;
  result.conditions.push(condition(EndpointsResolved, true, Reason.Resolved, msgMatched(all.length, waiting)));
  const repeated = repeatedRewrites(all);
  if (repeated.length > 0) {
    result.conditions.push(condition(RewritePathsValid, false, 'RewriteRepeatsPath', repeated.join('; ')));
    for (const m of repeated) result.results.push(warning(m));
  }

  // The route attaches to the control-plane Gateway, whose Gateway API CRDs the InferenceGateway installs:
  // a new route waits for the gateway's address (it exists only once those CRDs and the Gateway are in place).
  const routeObserved = 'httproute' in req.observed;
  if (result.status['address'] === undefined && !routeObserved) {
    result.resources = keepObserved(req.observed);
    if (gateway.state === 'absent') {
      const message = msgGatewayNotFound(namespace, name);
      result.conditions.push(condition(RoutingReady, false, Reason.GatewayNotFound, message));
      result.results.push(warning(message));
    } else {
      result.conditions.push(condition(RoutingReady, false, Reason.WaitingForGateway, msgWaitingForGateway));
    }
    readyOnlyIfServing(result, false);
    return finish();
  }
  // Entries at several priorities route through a TraefikService failover chain (failover.ts).
  let refs: JsonObject[] = [];
  let order: string | undefined;
  if (!usesPriorities(grouped.map((g) => g.priority))) {
    refs = backendRefs(grouped);
  } else {
    const levels = priorityLevels(grouped.map((g) => ({ priority: g.priority, weight: g.weight, backends: g.endpoints.flatMap(levelBackend) })));
    if (levels.length > 0) {
      for (const [key, obj] of failoverResources(name, namespace, levels)) result.resources[key] = markReady(obj, key in req.observed);
      refs = [{ group: 'traefik.io', kind: 'TraefikService', name: backendsName(name) }];
      order = msgLevels(levels);
    }
  }
  const rule: JsonObject = { matches: [{ path: { type: 'PathPrefix', value: `/${namespace}/${name}/` } }] };
  const gatewayObject = gateway.state === 'present' ? gateway.items[0] : undefined;
  const limits = effectiveRateLimit(req.composite, gatewayObject);
  const limiters = limits ? rateLimitMiddlewares(name, namespace, limits.limit, auth.type === 'APIKey') : [];
  for (const [key, mw] of limiters) result.resources[key] = markReady(mw, key in req.observed);
  const limiterNames = limiters.map(([, mw]) => mw.metadata?.name ?? '');
  if (auth.type === 'APIKey') {
    // The key check comes before any backend: composed with the route, kept even while the Secret is bad (fail closed).
    rule['filters'] = apiKeyFilters(name, limiterNames);
    const access = verdict.access ?? { namespace: auth.keys.namespace, allowed: 'name' in auth.keys ? [auth.keys.name] : [], denied: [], invalid: [], empty: [] };
    result.resources['api-key-middleware'] = markReady(apiKeyMiddleware(name, namespace, validatorAddress(auth.validatorURL, access)), 'api-key-middleware' in req.observed);
    // The Secrets in the service's own namespace: the validator may get those (the gateway's default ones, the gateway grants).
    const readable = 'name' in auth.keys ? [auth.keys.name] : [...access.allowed, ...access.denied].sort();
    if (auth.from === 'service' && readable.length > 0) {
      result.resources['api-key-role'] = markReady(validatorRole(name, auth.keys.namespace, readable), 'api-key-role' in req.observed);
      result.resources['api-key-rolebinding'] = markReady(validatorRoleBinding(name, auth.keys.namespace), 'api-key-rolebinding' in req.observed);
    }
  } else {
    rule['filters'] = anonymousFilters(limiterNames);
  }
  if (refs.length > 0) rule['backendRefs'] = refs;
  // Counted services go through the usage tap once their metered route is accepted (metered.ts).
  const counted = counting(gatewayObject, limits?.limit);
  let countedState: Condition | undefined;
  if (counted !== undefined && refs.length > 0) {
    const validatorURL = validatorUrlOf(gatewayObject);
    const tap = tapBackend(name, namespace, validatorURL);
    if (tap === undefined) {
      result.results.push(warning(msgInvalidValidatorUrl(validatorURL)));
      countedState = countedCondition(name, counted, 'invalid', validatorURL);
    } else {
      const metered = meteredRoute(name, namespace, GATEWAY_REF, `/${namespace}/${name}/`, refs);
      const meteredAccepted = accepted(req.observed['httproute-metered']?.resource);
      result.resources['httproute-metered'] = markReady(metered, meteredAccepted);
      for (const [key, obj] of tap.resources) result.resources[key] = markReady(obj, key in req.observed);
      const tapLive = tap.resources.every(([key]) => key in req.observed);
      if (meteredAccepted && tapLive) {
        rule['filters'] = [...(rule['filters'] as JsonObject[]), tapRewrite(namespace, name, counted)];
        rule['backendRefs'] = [tap.ref];
      }
      countedState = countedCondition(name, counted, meteredAccepted && tapLive ? 'counted' : 'waiting', validatorURL);
    }
  }
  // Switching off is make before break too: while the observed route still sends to the tap, the tap and the metered route stay.
  if (!('usage-tap-service' in result.resources) && stillTapped(req.observed['httproute']?.resource, name)) {
    const kept = keepObserved(req.observed);
    for (const key of TAP_KEYS) if (kept[key] !== undefined) result.resources[key] = kept[key];
  }
  const route: KubeObject = {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { namespace },
    spec: { parentRefs: [{ ...GATEWAY_REF, sectionName: base?.https === true ? HTTPS_LISTENER : HTTP_LISTENER }], rules: [rule] },
  };
  const routed = accepted(req.observed['httproute']?.resource) && refs.length > 0;
  result.resources['httproute'] = markReady(route, routed);
  if (gateway.state === 'absent') {
    const message = msgGatewayNotFound(namespace, name);
    result.conditions.push(condition(RoutingReady, false, Reason.GatewayNotFound, message));
    result.results.push(warning(message));
  } else {
    const standby = all.filter((ep) => ep.metadata?.labels?.[STANDBY_LABEL] === 'true');
    const zero = standby.length === all.length ? standby.map((ep) => ep.metadata?.labels?.['modelplane.ai/deployment'] ?? ep.metadata?.name ?? '').sort() : [];
    result.conditions.push(
      !routed
        ? condition(RoutingReady, false, Reason.Configuring)
        : zero.length > 0
          ? condition(RoutingReady, true, Reason.ScaledToZero, msgScaledToZero(zero))
          : condition(RoutingReady, true, Reason.RouteConfigured, order),
    );
  }
  if (countedState) result.conditions.push(countedState);
  // Ready means serving: a route the gateway accepted, with a live backend, at an address.
  // A token count or budget asked for but not yet in force is not what was asked: TokensCounted False says why.
  readyOnlyIfServing(result, routed && authOk && result.status['address'] !== undefined && countedState?.status !== 'False');
  return finish();
}
