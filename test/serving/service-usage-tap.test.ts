/**
 * compose-model-service for counted services (functions/compose-model-service/metered.ts,
 * docs/ai-gateway.md#usage): the metered route, the tap's backend, the
 * client-facing route's rewrite once the metered route is accepted, and the
 * TokensCounted condition.
 */
import { describe, expect, it } from 'vitest';
import { compose } from '../../functions/compose-model-service/compose.js';
import { msgInvalidValidatorUrl } from '../../functions/compose-model-service/metered.js';
import { getPath, type KubeObject } from '../../functions/lib/function.js';
import type { ObservedResource } from '../../functions/lib/function.js';
import { expectValidAgainstCrd } from '../helpers/crd.js';
import { inferenceGateway, modelEndpoint, modelService, NS, request } from '../builders/serving.js';

const ACCEPTED = { parents: [{ conditions: [{ type: 'Accepted', status: 'True' }] }] };

function run(o: { tokensPerMinute?: number; countTokens?: boolean; meteredAccepted?: boolean; tapObserved?: boolean; validatorURL?: string } = {}) {
  const svc = modelService('chat');
  if (o.tokensPerMinute !== undefined) (svc['spec'] as Record<string, unknown>)['rateLimit'] = { tokensPerMinute: o.tokensPerMinute };
  const gw = inferenceGateway();
  gw['spec'] = {
    ...(o.countTokens !== undefined ? { usage: { countTokens: o.countTokens } } : {}),
    ...(o.validatorURL !== undefined ? { auth: { type: 'None', validatorURL: o.validatorURL } } : {}),
  };
  const observed: Record<string, ObservedResource> = {
    httproute: { resource: { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: { name: 'chat-x', namespace: NS }, status: ACCEPTED }, connectionDetails: {} },
  };
  if (o.tapObserved ?? o.meteredAccepted) {
    for (const [key, kind] of [['usage-tap-service', 'Service'], ['usage-tap-endpointslice', 'EndpointSlice']] as const) {
      observed[key] = { resource: { apiVersion: 'v1', kind, metadata: { name: 'chat-usage-tap-4b268', namespace: NS } }, connectionDetails: {} };
    }
  }
  if (o.meteredAccepted) {
    observed['httproute-metered'] = { resource: { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: { name: 'chat-metered', namespace: NS }, status: ACCEPTED }, connectionDetails: {} };
  }
  return compose(request(svc, { observed, required: { 'inference-gateway': [gw], 'endpoints-0': [modelEndpoint('e1', { backendName: 'e1-svc' })] } }));
}

const rule = (r: ReturnType<typeof run>, key = 'httproute') => getPath(r.resources[key]!.resource, 'spec', 'rules', 0) as Record<string, unknown>;
const tokens = (r: ReturnType<typeof run>) => r.conditions.find((c) => c.type === 'TokensCounted');
const BACKENDS = [{ name: 'e1-svc', port: 80, weight: 1 }];

describe('ModelService token counting', () => {
  it('uncounted (no gateway countTokens, no token limit): nothing of the tap, no TokensCounted', () => {
    const r = run();
    expect(Object.keys(r.resources).sort()).toStrictEqual(['httproute']);
    expect(rule(r)['backendRefs']).toStrictEqual(BACKENDS);
    expect(tokens(r)).toBeUndefined();
  });

  it('a token limit, metered route not yet accepted: the metered route and the tap backend are composed, the client-facing route keeps its backends (make before break)', () => {
    const r = run({ tokensPerMinute: 500 });
    expect(Object.keys(r.resources).sort()).toStrictEqual(['httproute', 'httproute-metered', 'usage-tap-endpointslice', 'usage-tap-service']);
    expect(rule(r)['backendRefs']).toStrictEqual(BACKENDS);
    const metered = r.resources['httproute-metered']!;
    expect([metered.ready, metered.resource.metadata]).toStrictEqual([undefined, { name: 'chat-metered-acda2', namespace: NS }]);
    expect(metered.resource['spec']).toStrictEqual({
      parentRefs: [{ name: 'modelplane', namespace: 'modelplane-system', sectionName: 'metered' }],
      rules: [{ matches: [{ path: { type: 'PathPrefix', value: `/${NS}/chat/` } }], backendRefs: BACKENDS }],
    });
    expect(r.resources['usage-tap-service']!.resource).toStrictEqual({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'chat-usage-tap-4b268', namespace: NS },
      spec: { ports: [{ port: 8080, protocol: 'TCP' }] },
    });
    expect(r.resources['usage-tap-endpointslice']!.resource).toStrictEqual({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'chat-usage-tap-4b268', namespace: NS, labels: { 'kubernetes.io/service-name': 'chat-usage-tap-4b268' } },
      addressType: 'FQDN',
      ports: [{ name: '', port: 8080, protocol: 'TCP' }],
      endpoints: [{ addresses: ['modelplane-key-validator.modelplane-system.svc.cluster.local'], conditions: { ready: true } }],
    });
    expect(tokens(r)).toStrictEqual({
      type: 'TokensCounted',
      status: 'False',
      reason: 'WaitingForMeteredRoute',
      message:
        "waiting for HTTPRoute chat-metered-acda2 on the gateway's metered listener to be accepted and for Service chat-usage-tap-4b268: requests are served uncounted, with no token limit, until then",
    });
    expectValidAgainstCrd(r.resources['httproute-metered']!.resource);
  });

  it('the metered route accepted: the client-facing route rewrites to the tap path with the limit and sends to the tap', () => {
    const r = run({ tokensPerMinute: 500, meteredAccepted: true });
    expect(rule(r)['filters']).toStrictEqual([
      { type: 'RequestHeaderModifier', requestHeaderModifier: { remove: ['X-Modelplane-Caller'] } },
      { type: 'URLRewrite', urlRewrite: { path: { type: 'ReplacePrefixMatch', replacePrefixMatch: `/usage-tap/${NS}/chat/tokens-per-minute-500` } } },
    ]);
    expect(rule(r)['backendRefs']).toStrictEqual([{ name: 'chat-usage-tap-4b268', port: 8080 }]);
    expect(r.resources['httproute-metered']!.ready).toBe(true);
    expect(r.ready).not.toBe(false);
    expect(tokens(r)).toStrictEqual({
      type: 'TokensCounted',
      status: 'True',
      reason: 'UsageTap',
      message: "tokens counted per request by the key validator's usage tap; each caller may spend 500 tokens per minute (429 with Retry-After beyond)",
    });
    expectValidAgainstCrd(r.resources['httproute']!.resource as KubeObject);
  });

  it('the metered route accepted but the tap\'s Service not observed yet: still waiting, the backends kept', () => {
    const r = run({ tokensPerMinute: 500, meteredAccepted: true, tapObserved: false });
    expect(rule(r)['backendRefs']).toStrictEqual(BACKENDS);
    expect(tokens(r)?.reason).toBe('WaitingForMeteredRoute');
  });

  it('switched off while the observed route still sends to the tap: the route gets its backends back, the tap and the metered route stay as observed (make before break)', () => {
    const svc = modelService('chat');
    const tapped = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: { name: 'chat-x', namespace: NS }, spec: { rules: [{ backendRefs: [{ name: 'chat-usage-tap-4b268', port: 8080 }] }] }, status: ACCEPTED };
    const kept = (kind: string) => ({ resource: { apiVersion: 'v1', kind, metadata: { name: 'chat-usage-tap-4b268', namespace: NS } }, connectionDetails: {} });
    const observed: Record<string, ObservedResource> = {
      httproute: { resource: tapped, connectionDetails: {} },
      'httproute-metered': { resource: { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: { name: 'chat-metered-acda2', namespace: NS }, status: ACCEPTED }, connectionDetails: {} },
      'usage-tap-service': kept('Service'),
      'usage-tap-endpointslice': kept('EndpointSlice'),
    };
    const required = { 'inference-gateway': [inferenceGateway()], 'endpoints-0': [modelEndpoint('e1', { backendName: 'e1-svc' })] };
    const r = compose(request(svc, { observed, required }));
    expect(Object.keys(r.resources).sort()).toStrictEqual(['httproute', 'httproute-metered', 'usage-tap-endpointslice', 'usage-tap-service']);
    expect(rule(r)['backendRefs']).toStrictEqual(BACKENDS);
    expect(tokens(r)).toBeUndefined();
    // Next pass: the observed route has its own backends again, so the tap goes.
    observed['httproute'] = { resource: { ...tapped, spec: { rules: [{ backendRefs: BACKENDS }] } }, connectionDetails: {} };
    expect(Object.keys(compose(request(svc, { observed, required })).resources)).toStrictEqual(['httproute']);
  });

  it('the client-facing route names its listener (web), so it never also attaches to the metered one', () => {
    const r = run({ tokensPerMinute: 500, meteredAccepted: true });
    expect(getPath(r.resources['httproute']!.resource, 'spec', 'parentRefs')).toStrictEqual([{ name: 'modelplane', namespace: 'modelplane-system', sectionName: 'web' }]);
  });

  it('the gateway counts every service: no limit in the tap path', () => {
    const r = run({ countTokens: true, meteredAccepted: true });
    expect((rule(r)['filters'] as unknown[]).at(-1)).toStrictEqual({
      type: 'URLRewrite',
      urlRewrite: { path: { type: 'ReplacePrefixMatch', replacePrefixMatch: `/usage-tap/${NS}/chat/unlimited` } },
    });
    expect(tokens(r)?.message).toBe("tokens counted per request by the key validator's usage tap");
  });

  it('a validator URL the tap cannot be reached at: served uncounted, TokensCounted False and a Warning naming the field', () => {
    const r = run({ countTokens: true, validatorURL: 'https://validator.example.com' });
    expect(Object.keys(r.resources).sort()).toStrictEqual(['httproute']);
    expect(rule(r)['backendRefs']).toStrictEqual(BACKENDS);
    // Every composed object is ready, but the budget asked for is not in force: the XR is not Ready.
    expect([r.resources['httproute']!.ready, r.ready]).toStrictEqual([true, false]);
    const message = msgInvalidValidatorUrl('https://validator.example.com');
    expect(message).toBe(
      'InferenceGateway spec.auth.validatorURL https://validator.example.com cannot be routed to (want http://host:port): tokens are not counted and no token limit applies; fix the URL',
    );
    expect(tokens(r)).toStrictEqual({ type: 'TokensCounted', status: 'False', reason: 'InvalidValidatorURL', message });
    expect(r.results).toContainEqual({ severity: 'Warning', message });
  });
});
