/**
 * Scoped keys and rate limits in compose-model-service (docs/ai-gateway.md):
 * the key Secrets split into allowed and denied by their scope annotations,
 * the validator address that carries the split, status.apiKeys, the
 * Authenticated condition, and Traefik's rateLimit/inFlightReq Middlewares
 * after the key check.
 */
import { describe, expect, it } from 'vitest';
import { compose } from '../../functions/compose-model-service/compose.js';
import type { ComposeResult, JsonObject, KubeObject } from '../../functions/lib/function.js';
import { inferenceGateway, modelEndpoint, modelService, NS, observed, request } from '../builders/serving.js';

const B64 = Buffer.from('sk-x').toString('base64');
const VALIDATOR = 'http://modelplane-key-validator.modelplane-system.svc.cluster.local:8080';

function keySecret(name: string, annotations?: Record<string, string>, namespace = 'keys'): KubeObject {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace, labels: { 'modelplane.ai/api-keys': 'true' }, ...(annotations ? { annotations } : {}) }, data: { k: B64 } };
}

function svc(spec: JsonObject = {}, labels?: Record<string, string>): KubeObject {
  const s = modelService('chat');
  Object.assign(s['spec'] as JsonObject, spec);
  if (labels) s.metadata = { ...s.metadata, labels };
  return s;
}

const selectorGateway = (extra: JsonObject = {}): KubeObject => {
  const g = inferenceGateway();
  Object.assign(g['spec'] as JsonObject, {
    auth: { type: 'APIKey', apiKeys: { secretSelector: { namespace: 'keys', matchLabels: { 'modelplane.ai/api-keys': 'true' } } } },
    ...extra,
  });
  return g;
};

const run = (xr: KubeObject, gw: KubeObject, keys: KubeObject[]): ComposeResult =>
  compose(
    request(xr, {
      required: { 'inference-gateway': [gw], 'endpoints-0': [modelEndpoint('ep', { backendName: 'ep-svc' })], 'api-keys': keys },
      observed: { httproute: observed({ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: { name: 'r', namespace: NS } }) },
    }),
  );
const authCondition = (r: ComposeResult) => r.conditions.find((c) => c.type === 'Authenticated');
const address = (r: ComposeResult) => ((r.resources['api-key-middleware']!.resource['spec'] as JsonObject)['forwardAuth'] as JsonObject)['address'];
const filters = (r: ComposeResult) => (((r.resources['httproute']!.resource['spec'] as JsonObject)['rules'] as JsonObject[])[0]!['filters'] as JsonObject[]);

describe('scoped keys', () => {
  const teams = [
    keySecret('team-a', { 'modelplane.ai/services': `${NS}/*` }),
    keySecret('team-b', { 'modelplane.ai/services': 'other/chat' }),
    keySecret('platform'),
  ];
  it('a selector over key Secrets: required by labels; allowed and denied split by scope; the address and status carry it', () => {
    const r = run(svc(), selectorGateway(), teams);
    expect(r.requirements['api-keys']).toStrictEqual({ apiVersion: 'v1', kind: 'Secret', matchLabels: { 'modelplane.ai/api-keys': 'true' }, namespace: 'keys' });
    expect(address(r)).toBe(`${VALIDATOR}/keys/platform,team-a?denied=team-b`);
    expect(r.status?.['apiKeys']).toStrictEqual({ namespace: 'keys', allowed: ['platform', 'team-a'], denied: ['team-b'] });
    expect(authCondition(r)).toStrictEqual({
      type: 'Authenticated',
      status: 'True',
      reason: 'APIKey',
      message:
        'requests need Authorization: Bearer <key> with a key from Secret keys/platform, keys/team-a (the InferenceGateway default spec.auth); keys of keys/team-b get 403 (their modelplane.ai/services or modelplane.ai/service-selector does not name this service)',
    });
    // The gateway's Secrets: the gateway grants the validator; the service composes no Role.
    expect('api-key-role' in r.resources).toBe(false);
  });
  it('a label selector annotation opens the services whose labels match', () => {
    const sel = [keySecret('team-a', { 'modelplane.ai/service-selector': 'team in (a,shared),tier!=batch' })];
    expect(run(svc({}, { team: 'a' }), selectorGateway(), sel).status?.['apiKeys']).toStrictEqual({ namespace: 'keys', allowed: ['team-a'], denied: [] });
    expect(run(svc({}, { team: 'a', tier: 'batch' }), selectorGateway(), sel).status?.['apiKeys']).toStrictEqual({ namespace: 'keys', allowed: [], denied: ['team-a'] });
  });
  it('every Secret scoped away: Authenticated False KeyScopeExcludes, a Warning, not Ready, and the door answers 403', () => {
    const r = run(svc(), selectorGateway(), [teams[1]!]);
    const message =
      'no key of the Secrets in keys labelled modelplane.ai/api-keys=true opens this service: keys/team-b name other services in modelplane.ai/services or modelplane.ai/service-selector, so every key gets 403; add this service to one of them';
    expect(authCondition(r)).toStrictEqual({ type: 'Authenticated', status: 'False', reason: 'KeyScopeExcludes', message });
    expect(r.results).toContainEqual({ severity: 'Warning', message });
    expect(address(r)).toBe(`${VALIDATOR}/keys/?denied=team-b`);
  });
  it('a malformed scope annotation opens nothing and names the annotation', () => {
    const r = run(svc(), selectorGateway(), [keySecret('bad', { 'modelplane.ai/service-selector': 'team in a' }), keySecret('platform')]);
    expect(r.status?.['apiKeys']).toStrictEqual({ namespace: 'keys', allowed: ['platform'], denied: ['bad'] });
    expect(r.results).toContainEqual({
      severity: 'Warning',
      message:
        'key Secret keys/bad: annotation modelplane.ai/service-selector: "team in a" is not a requirement (key, !key, key=value, key!=value, key in (a,b), key notin (a,b)); its keys are refused here (403) until the annotation is fixed',
    });
  });
  it('no Secret matches the selector: KeySecretNotFound, 401 for everyone', () => {
    const r = run(svc(), selectorGateway(), []);
    expect(authCondition(r)?.reason).toBe('KeySecretNotFound');
    expect(address(r)).toBe(`${VALIDATOR}/keys/`);
  });
  it('the service’s own selector: Secrets of its namespace, and a Role naming each', () => {
    const own = { auth: { type: 'APIKey', apiKeys: { secretSelector: { matchLabels: { 'modelplane.ai/api-keys': 'true' } } } } };
    const r = run(svc(own), inferenceGateway(), [keySecret('b', undefined, NS), keySecret('a', { 'modelplane.ai/services': 'x/y' }, NS)]);
    expect(r.requirements['api-keys']).toStrictEqual({ apiVersion: 'v1', kind: 'Secret', matchLabels: { 'modelplane.ai/api-keys': 'true' }, namespace: NS });
    expect((r.resources['api-key-role']!.resource['rules'] as JsonObject[])[0]!['resourceNames']).toStrictEqual(['a', 'b']);
  });
});

describe('rate limits', () => {
  it('per caller on an APIKey service: rateLimit and inFlightReq by X-Modelplane-Caller, after the key check', () => {
    const r = run(svc({ rateLimit: { requestsPerSecond: 2, maxInFlight: 4 } }), selectorGateway(), [keySecret('platform')]);
    expect(r.resources['rate-limit-middleware']!.resource).toStrictEqual({
      apiVersion: 'traefik.io/v1alpha1',
      kind: 'Middleware',
      metadata: { name: 'chat-rate-limit-f1f56', namespace: NS },
      spec: { rateLimit: { average: 2, period: '1s', burst: 2, sourceCriterion: { requestHeaderName: 'X-Modelplane-Caller' } } },
    });
    expect(r.resources['in-flight-middleware']!.resource['spec']).toStrictEqual({
      inFlightReq: { amount: 4, sourceCriterion: { requestHeaderName: 'X-Modelplane-Caller' } },
    });
    expect(filters(r).map((f) => (f['extensionRef'] as JsonObject | undefined)?.['name'] ?? f['type'])).toStrictEqual([
      'chat-api-key-4408e',
      'chat-rate-limit-f1f56',
      'chat-in-flight-8d337',
      'RequestHeaderModifier',
    ]);
  });
  it('the gateway default per minute with a burst, by client address on an anonymous service', () => {
    const gw = inferenceGateway();
    (gw['spec'] as JsonObject)['rateLimit'] = { requestsPerMinute: 60, burst: 10 };
    const r = run(svc(), gw, []);
    expect(r.resources['rate-limit-middleware']!.resource['spec']).toStrictEqual({ rateLimit: { average: 60, period: '1m', burst: 10 } });
    expect('in-flight-middleware' in r.resources).toBe(false);
  });
});
