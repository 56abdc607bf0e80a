/**
 * compose-model-service with priorities (functions/compose-model-service/failover.ts,
 * docs/ai-gateway.md#overflow-and-failover): the TraefikService failover
 * chain, the levels' weights, the rewrite Middlewares, and what a single
 * priority or no live endpoint composes.
 */
import { describe, expect, it } from 'vitest';
import { compose } from '../../functions/compose-model-service/compose.js';
import { priorityLevels } from '../../functions/compose-model-service/failover.js';
import { getPath, type KubeObject } from '../../functions/lib/function.js';
import { expectValidAgainstCrd } from '../helpers/crd.js';
import { inferenceGateway, modelEndpoint, modelService, NS, request } from '../builders/serving.js';

const PASSIVE = { failureWindow: '10s', maxFailedAttempts: 3 };
const FAILOVER_ERRORS = { status: ['429', '500-599'] };

type Opts = { saas?: boolean; fleetLive?: boolean; priorities?: [number, number, number] };

/** Service `chat` with entries `fleet` (priority 0, weight 3), `spare` (1) and, when asked, `saas` (2). */
function service(o: Opts = {}): KubeObject {
  const [p0, p1, p2] = o.priorities ?? [0, 1, 2];
  return modelService('chat', [
    { labels: { tier: 'fleet' }, weight: 3, priority: p0 },
    { labels: { tier: 'spare' }, priority: p1 },
    ...(o.saas ? [{ labels: { tier: 'saas' }, priority: p2 }] : []),
  ]);
}

/** The gateway and the endpoints each entry matches: fleet-a (with a rewrite) and fleet-b, spare, and Groq over https. */
function required(o: Opts = {}): Record<string, KubeObject[]> {
  const live = o.fleetLive ?? true;
  return {
    'inference-gateway': [inferenceGateway()],
    'endpoints-0': [
      modelEndpoint('fleet-a', { labels: { tier: 'fleet' }, ...(live ? { backendName: 'fleet-a-svc' } : {}), rewritePath: '/ml-team/fleet-a/' }),
      modelEndpoint('fleet-b', { labels: { tier: 'fleet' }, ...(live ? { backendName: 'fleet-b-svc' } : {}) }),
    ],
    'endpoints-1': [modelEndpoint('spare', { labels: { tier: 'spare' }, backendName: 'spare-svc' })],
    ...(o.saas
      ? { 'endpoints-2': [modelEndpoint('groq', { labels: { tier: 'saas' }, backendName: 'groq-svc', url: 'https://api.groq.com/openai/v1', rewritePath: '/openai/' })] }
      : {}),
  };
}

const run = (o: Opts = {}) => compose(request(service(o), { required: required(o) }));

const spec = (r: ReturnType<typeof run>, key: string) => r.resources[key]?.resource['spec'];
const names = (r: ReturnType<typeof run>) => Object.keys(r.resources).sort();

describe('ModelService priorities', () => {
  it('two priorities: the route sends to TraefikService chat-backends, a failover from priority 0 to priority 1 on 429 and 5xx', () => {
    const r = run();
    expect(names(r)).toStrictEqual(['backends', 'httproute', 'priority-0', 'priority-1', 'rewrite-fleet-a']);
    const route = r.resources['httproute']!.resource;
    expect(getPath(route, 'spec', 'rules', 0, 'backendRefs')).toStrictEqual([{ group: 'traefik.io', kind: 'TraefikService', name: 'chat-backends-95188' }]);
    expect(r.resources['backends']!.resource.metadata).toStrictEqual({ name: 'chat-backends-95188', namespace: NS });
    expect(spec(r, 'backends')).toStrictEqual({
      failover: {
        service: { name: 'chat-priority-0-3f942', kind: 'TraefikService' },
        fallback: { name: 'chat-priority-1-dd7c4', kind: 'TraefikService' },
        errors: FAILOVER_ERRORS,
      },
    });
    // Priority 0: entry weight 3 split over two live endpoints (2 and 1 after the split), each ejected after 3 failures in 10 s.
    expect(spec(r, 'priority-0')).toStrictEqual({
      weighted: {
        services: [
          { name: 'fleet-a-svc', port: 80, weight: 2, scheme: 'http', passHostHeader: false, passiveHealthCheck: PASSIVE, middlewares: [{ name: 'chat-rewrite-fleet-a-2e6b2' }] },
          { name: 'fleet-b-svc', port: 80, weight: 1, scheme: 'http', passHostHeader: false, passiveHealthCheck: PASSIVE },
        ],
      },
    });
    expect(spec(r, 'priority-1')).toStrictEqual({
      weighted: { services: [{ name: 'spare-svc', port: 80, weight: 1, scheme: 'http', passHostHeader: false, passiveHealthCheck: PASSIVE }] },
    });
    expect(spec(r, 'rewrite-fleet-a')).toStrictEqual({ replacePathRegex: { regex: '^/ml-team/chat/(.*)', replacement: '/ml-team/fleet-a/$1' } });
    expect(r.conditions.find((c) => c.type === 'RoutingReady')).toStrictEqual({ type: 'RoutingReady', status: 'False', reason: 'Configuring' });
  });

  it('three priorities chain: backends fails over to chat-failover-1, which fails over to the SaaS endpoint over https', () => {
    const r = run({ saas: true });
    expect(names(r)).toStrictEqual(['backends', 'failover-1', 'httproute', 'priority-0', 'priority-1', 'priority-2', 'rewrite-fleet-a', 'rewrite-groq']);
    expect(getPath(spec(r, 'backends'), 'failover', 'fallback')).toStrictEqual({ name: 'chat-failover-1-f75d2', kind: 'TraefikService' });
    expect(r.resources['failover-1']!.resource.metadata?.name).toBe('chat-failover-1-f75d2');
    expect(spec(r, 'failover-1')).toStrictEqual({
      failover: {
        service: { name: 'chat-priority-1-dd7c4', kind: 'TraefikService' },
        fallback: { name: 'chat-priority-2-f3de5', kind: 'TraefikService' },
        errors: FAILOVER_ERRORS,
      },
    });
    expect(spec(r, 'priority-2')).toStrictEqual({
      weighted: {
        services: [
          { name: 'groq-svc', port: 443, weight: 1, scheme: 'https', passHostHeader: false, passiveHealthCheck: PASSIVE, middlewares: [{ name: 'chat-rewrite-groq-7f6c5' }] },
        ],
      },
    });
    expect(spec(r, 'rewrite-groq')).toStrictEqual({ replacePathRegex: { regex: '^/ml-team/chat/(.*)', replacement: '/openai/$1' } });
  });

  it('once the route is accepted, RoutingReady gives the failover order', () => {
    const first = run({ saas: true });
    const observed = Object.fromEntries(
      Object.entries(first.resources).map(([k, d]) => {
        const o = structuredClone(d.resource) as KubeObject;
        if (k === 'httproute') o['status'] = { parents: [{ conditions: [{ type: 'Accepted', status: 'True' }] }] };
        return [k, { resource: o, connectionDetails: {} }];
      }),
    );
    const again = compose(request(service({ saas: true }), { observed, required: required({ saas: true }) }));
    expect(again.conditions.find((c) => c.type === 'RoutingReady')).toStrictEqual({
      type: 'RoutingReady',
      status: 'True',
      reason: 'RouteConfigured',
      message: 'Failover order: priority 0: fleet-a, fleet-b; then priority 1: spare; then priority 2: groq',
    });
    expect(Object.values(again.resources).every((d) => d.ready === true)).toBe(true);
  });

  it('a level without a live endpoint is skipped: one live level is a weighted chat-backends', () => {
    const r = run({ fleetLive: false });
    expect(names(r)).toStrictEqual(['backends', 'httproute']);
    expect(spec(r, 'backends')).toStrictEqual({
      weighted: { services: [{ name: 'spare-svc', port: 80, weight: 1, scheme: 'http', passHostHeader: false, passiveHealthCheck: PASSIVE }] },
    });
  });

  it('entries sharing one priority keep the weighted backendRefs and compose no TraefikService', () => {
    const r = run({ priorities: [1, 1, 1] });
    expect(names(r)).toStrictEqual(['httproute']);
    expect(getPath(r.resources['httproute']!.resource, 'spec', 'rules', 0, 'backendRefs')).toStrictEqual([
      { name: 'fleet-a-svc', port: 80, weight: 2, filters: [{ type: 'URLRewrite', urlRewrite: { path: { type: 'ReplacePrefixMatch', replacePrefixMatch: '/ml-team/fleet-a/' } } }] },
      { name: 'fleet-b-svc', port: 80, weight: 1 },
      { name: 'spare-svc', port: 80, weight: 1 },
    ]);
  });

  it('levels order by priority value, not by entry order, and share a level by priority', () => {
    const b = (endpoint: string) => ({ endpoint, service: `${endpoint}-svc`, port: 80, https: false });
    expect(
      priorityLevels([
        { priority: 5, weight: 1, backends: [b('late')] },
        { priority: 0, weight: 1, backends: [b('x'), b('y')] },
        { priority: 5, weight: 3, backends: [b('late2')] },
        { priority: 2, weight: 1, backends: [] },
      ]).map((l) => [l.priority, l.backends.map((x) => `${x.endpoint}:${x.weight}`)]),
    ).toStrictEqual([
      [0, ['x:1', 'y:1']],
      [5, ['late:1', 'late2:3']],
    ]);
  });

  it('every composed TraefikService and Middleware validates against Traefik v3.7.13 CRDs', () => {
    const r = run({ saas: true });
    for (const [key, d] of Object.entries(r.resources)) if (key !== 'httproute') expectValidAgainstCrd(d.resource);
  });
});
