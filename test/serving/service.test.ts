/**
 * compose-model-service: every acceptance case of the reference (docs/kinds/modelservice.md), the
 * namespace boundary of docs/design.md#namespaces-are-identity, the first-fetch
 * and no-endpoint paths of docs/design.md#keep-what-exists and
 * docs/design.md#not-fetched-yet-is-not-absent, and the weight vectors of docs/kinds/modelservice.md#weights.
 */
import { describe, expect, it } from 'vitest';
import { compose } from '../../functions/compose-model-service/compose.js';
import { distribute, roundHalfEven } from '../../functions/compose-model-service/weights.js';
import { type ComposeRequest, type ComposeResult, getPath, type JsonObject, type KubeObject } from '../../functions/lib/function.js';
import { inferenceGateway, modelEndpoint, modelService, NS, observed, request } from '../builders/serving.js';

const svc = (entries?: Parameters<typeof modelService>[1]) => modelService('test-service', entries);

const requirements = (...selectors: Record<string, string>[]) => ({
  'inference-gateway': { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceGateway', matchName: 'default' },
  ...Object.fromEntries(
    selectors.map((matchLabels, i) => [
      `endpoints-${i}`,
      { apiVersion: 'modelplane.ai/v1alpha1', kind: 'ModelEndpoint', matchLabels, namespace: NS },
    ]),
  ),
});

const ref = (name: string, weight: number, o: { port?: number; rewrite?: string } = {}): JsonObject => ({
  name,
  port: o.port ?? 80,
  weight,
  ...(o.rewrite
    ? { filters: [{ type: 'URLRewrite', urlRewrite: { path: { type: 'ReplacePrefixMatch', replacePrefixMatch: o.rewrite } } }] }
    : {}),
});

const route = (refs: JsonObject[], namespace = NS, name = 'test-service'): KubeObject => ({
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'HTTPRoute',
  metadata: { namespace },
  spec: {
    parentRefs: [{ name: 'modelplane', namespace: 'modelplane-system', sectionName: 'web' }],
    rules: [
      {
        matches: [{ path: { type: 'PathPrefix', value: `/${namespace}/${name}/` } }],
        // A service without keys: a caller header a client sent never reaches an endpoint.
        filters: [{ type: 'RequestHeaderModifier', requestHeaderModifier: { remove: ['X-Modelplane-Caller'] } }],
        ...(refs.length > 0 ? { backendRefs: refs } : {}),
      },
    ],
  },
});

const ANONYMOUS =
  'anonymous: neither spec.auth nor the InferenceGateway default sets auth, so anyone who reaches the gateway is served; set spec.auth.type APIKey, or None to serve anonymously on purpose';
const resolved = (message: string) => ({ type: 'EndpointsResolved', status: 'True', reason: 'Resolved', message }) as const;
const configuring = { type: 'RoutingReady', status: 'False', reason: 'Configuring' } as const;
const address = { address: 'http://34.55.100.10/ml-team/test-service' };
const ep = (name: string, backendName: string | undefined, o: Parameters<typeof modelEndpoint>[1] = {}) =>
  modelEndpoint(name, { ...(backendName ? { backendName } : {}), ...o });

/** Weighted groups: `n` live endpoints labelled `group=<g>`. */
const groupOf = (g: string, n: number) =>
  Array.from({ length: n }, (_, i) => ep(`${g}-${i}`, `${g}-svc-${i}`, { labels: { group: g } }));

interface Case {
  name: string;
  reason: string;
  req: () => ComposeRequest;
  want: ComposeResult;
}

const weighted = (
  name: string,
  reason: string,
  entries: { weight?: number; labels: Record<string, string> }[],
  groups: KubeObject[][],
  weights: number[],
): Case => {
  const all = groups.flat();
  return {
    name,
    reason,
    req: () =>
      request(svc(entries), {
        required: {
          'inference-gateway': [inferenceGateway()],
          ...Object.fromEntries(groups.map((g, i) => [`endpoints-${i}`, g])),
        },
      }),
    want: {
      resources: {
        httproute: { resource: route(all.map((e, i) => ref(String(getPath(e, 'status', 'routing', 'backendName')), weights[i]!))) },
      },
      status: address,
      conditions: [resolved(`Matched ${all.length} endpoint(s)`), configuring],
      results: [],
      requirements: requirements(...entries.map((e) => e.labels)),
    },
  };
};

const REPEATED =
  'ModelEndpoint groq: spec.rewritePath /openai/v1/ repeats the path of spec.url https://api.groq.com/openai/v1, so a request for <service>/v1/... reaches the upstream as /openai/v1/v1/...; set rewritePath to /openai/';

const cases: Case[] = [
  {
    name: 'one ready endpoint',
    reason: 'the backendRef carries the backend Service, the URL port, weight 1 and the rewrite',
    req: () =>
      request(svc(), {
        required: {
          'inference-gateway': [inferenceGateway()],
          'endpoints-0': [ep('ep-1', 'svc-1', { rewritePath: '/ml-team/r/' })],
        },
      }),
    want: {
      resources: { httproute: { resource: route([ref('svc-1', 1, { rewrite: '/ml-team/r/' })]) } },
      status: address,
      conditions: [resolved('Matched 1 endpoint(s)'), configuring],
      results: [],
      requirements: requirements({ app: 'test' }),
    },
  },
  {
    name: 'no endpoints',
    reason: 'fetched and empty: NoEndpoints and a Warning; nothing observed, so nothing composed',
    req: () => request(svc(), { required: { 'inference-gateway': [], 'endpoints-0': [] } }),
    want: {
      ready: false,
      resources: {},
      status: {},
      conditions: [
        {
          type: 'EndpointsResolved',
          status: 'False',
          reason: 'NoEndpoints',
          message: 'No ModelEndpoints matched the configured selectors',
        },
      ],
      results: [{ severity: 'Warning', message: 'No ModelEndpoints matched the configured selectors' }],
      requirements: requirements({ app: 'test' }),
    },
  },
  {
    name: 'no endpoints keeps the route',
    reason: 'docs/design.md#keep-what-exists: endpoints briefly gone (a replica restarting) must not delete the route',
    req: () =>
      request(svc(), {
        observed: { httproute: observed({ ...route([ref('svc-1', 1)]), metadata: { name: 'test-service-abcde', namespace: NS } }) },
        required: { 'inference-gateway': [inferenceGateway()], 'endpoints-0': [] },
      }),
    want: {
      resources: {
        httproute: { resource: { ...route([ref('svc-1', 1)]), metadata: { name: 'test-service-abcde', namespace: NS } } },
      },
      status: address,
      conditions: [
        {
          type: 'EndpointsResolved',
          status: 'False',
          reason: 'NoEndpoints',
          message: 'No ModelEndpoints matched the configured selectors',
        },
      ],
      results: [{ severity: 'Warning', message: 'No ModelEndpoints matched the configured selectors' }],
      requirements: requirements({ app: 'test' }),
    },
  },
  {
    name: 'first call',
    reason: 'docs/design.md#not-fetched-yet-is-not-absent: nothing fetched yet: ask, say nothing, drop nothing',
    req: () => request(svc()),
    want: { ready: false, resources: {}, conditions: [], results: [], requirements: requirements({ app: 'test' }) },
  },
  {
    name: 'endpoint without backend',
    reason: 'matched but its Service is not there yet: no backendRefs, counted as waiting',
    req: () =>
      request(svc(), { required: { 'inference-gateway': [inferenceGateway()], 'endpoints-0': [ep('ep-1', undefined)] } }),
    want: {
      resources: { httproute: { resource: route([]) } },
      status: address,
      conditions: [resolved('Matched 1 endpoint(s); 1 waiting for Backend'), configuring],
      results: [],
      requirements: requirements({ app: 'test' }),
    },
  },
  {
    name: 'two endpoints, same rewrite',
    reason: 'one rule, two refs, weight 1 each',
    req: () =>
      request(svc(), {
        required: {
          'inference-gateway': [inferenceGateway()],
          'endpoints-0': [ep('ep-1', 'svc-1', { rewritePath: '/ml-team/r/' }), ep('ep-2', 'svc-2', { rewritePath: '/ml-team/r/' })],
        },
      }),
    want: {
      resources: {
        httproute: { resource: route([ref('svc-1', 1, { rewrite: '/ml-team/r/' }), ref('svc-2', 1, { rewrite: '/ml-team/r/' })]) },
      },
      status: address,
      conditions: [resolved('Matched 2 endpoint(s)'), configuring],
      results: [],
      requirements: requirements({ app: 'test' }),
    },
  },
  {
    name: 'different rewrites, https provider',
    reason: 'an https URL routes on 443 and each ref carries its own rewrite',
    req: () =>
      request(svc(), {
        required: {
          'inference-gateway': [inferenceGateway()],
          'endpoints-0': [
            ep('ep-1', 'svc-1', { rewritePath: '/ml-team/r-1/' }),
            ep('groq', 'groq-svc', { url: 'https://api.groq.com/openai/v1', rewritePath: '/openai/' }),
          ],
        },
      }),
    want: {
      resources: {
        httproute: {
          resource: route([
            ref('svc-1', 1, { rewrite: '/ml-team/r-1/' }),
            ref('groq-svc', 1, { port: 443, rewrite: '/openai/' }),
          ]),
        },
      },
      status: address,
      conditions: [resolved('Matched 2 endpoint(s)'), configuring],
      results: [],
      requirements: requirements({ app: 'test' }),
    },
  },
  {
    name: 'a rewritePath repeating the URL path',
    reason: 'Groq with /openai/v1/ would send /openai/v1/v1/...: routed as asked, with a Warning and RewritePathsValid False naming the fix',
    req: () =>
      request(svc(), {
        required: {
          'inference-gateway': [inferenceGateway()],
          'endpoints-0': [
            ep('ep-1', 'svc-1', { rewritePath: '/ml-team/r-1/' }),
            ep('groq', 'groq-svc', { url: 'https://api.groq.com/openai/v1', rewritePath: '/openai/v1/' }),
          ],
        },
      }),
    want: {
      resources: {
        httproute: {
          resource: route([
            ref('svc-1', 1, { rewrite: '/ml-team/r-1/' }),
            ref('groq-svc', 1, { port: 443, rewrite: '/openai/v1/' }),
          ]),
        },
      },
      status: address,
      conditions: [
        resolved('Matched 2 endpoint(s)'),
        { type: 'RewritePathsValid', status: 'False', reason: 'RewriteRepeatsPath', message: REPEATED },
        configuring,
      ],
      results: [{ severity: 'Warning', message: REPEATED }],
      requirements: requirements({ app: 'test' }),
    },
  },
  weighted(
    '80/20 over 3 + 1',
    'per-selector weight split evenly, first endpoints take the remainder; no rewritePath, no filters',
    [
      { weight: 80, labels: { group: 'a' } },
      { weight: 20, labels: { group: 'b' } },
    ],
    [groupOf('a', 3), groupOf('b', 1)],
    [27, 27, 26, 20],
  ),
  weighted(
    'default weight over 2 + weight 3 over 1',
    'scaled so no endpoint gets 0',
    [{ labels: { group: 'a' } }, { weight: 3, labels: { group: 'b' } }],
    [groupOf('a', 2), groupOf('b', 1)],
    [1, 1, 6],
  ),
  weighted(
    '2 and 2',
    'GCD-reduced',
    [
      { weight: 2, labels: { group: 'a' } },
      { weight: 2, labels: { group: 'b' } },
    ],
    [groupOf('a', 1), groupOf('b', 1)],
    [1, 1],
  ),
  weighted(
    '1,000,000 over 1 + 1 over 2',
    'rescaled into the Gateway API cap, never below 1',
    [
      { weight: 1_000_000, labels: { group: 'a' } },
      { weight: 1, labels: { group: 'b' } },
    ],
    [groupOf('a', 1), groupOf('b', 2)],
    [1_000_000, 1, 1],
  ),
  {
    name: 'namespace boundary',
    reason: 'docs/design.md#namespaces-are-identity: an endpoint of namespace b is never routed from namespace a, even if delivered',
    req: () =>
      request(modelService('test-service', [{ labels: { app: 'test' } }], 'a'), {
        required: {
          'inference-gateway': [inferenceGateway()],
          'endpoints-0': [ep('mine', 'svc-a', { namespace: 'a' }), ep('theirs', 'svc-b', { namespace: 'b' })],
        },
      }),
    want: {
      resources: { httproute: { resource: route([ref('svc-a', 1)], 'a') } },
      status: { address: 'http://34.55.100.10/a/test-service' },
      conditions: [resolved('Matched 1 endpoint(s)'), configuring],
      results: [],
      requirements: {
        'inference-gateway': { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceGateway', matchName: 'default' },
        'endpoints-0': { apiVersion: 'modelplane.ai/v1alpha1', kind: 'ModelEndpoint', matchLabels: { app: 'test' }, namespace: 'a' },
      },
    },
  },
  {
    name: 'first selector wins, route accepted',
    reason: 'an endpoint matched twice belongs to the first entry; an Accepted route with a live backend is ready',
    req: () =>
      request(
        svc([
          { weight: 1, labels: { app: 'test' } },
          { weight: 1, labels: { tier: 'x' } },
        ]),
        {
          observed: {
            httproute: observed({
              ...route([ref('svc-1', 1)]),
              status: { parents: [{ conditions: [{ type: 'Accepted', status: 'True' }] }] },
            }),
          },
          required: {
            'inference-gateway': [inferenceGateway()],
            'endpoints-0': [ep('ep-1', 'svc-1')],
            'endpoints-1': [ep('ep-1', 'svc-1', { labels: { app: 'test', tier: 'x' } })],
          },
        },
      ),
    want: {
      resources: { httproute: { resource: route([ref('svc-1', 1)]), ready: true } },
      status: address,
      conditions: [resolved('Matched 1 endpoint(s)'), { type: 'RoutingReady', status: 'True', reason: 'RouteConfigured' }],
      results: [],
      requirements: requirements({ app: 'test' }, { tier: 'x' }),
    },
  },
  {
    name: 'gateway without address',
    reason: 'a new route waits for the gateway address (its Gateway API CRDs may not exist yet); status stays empty',
    req: () =>
      request(svc(), { required: { 'inference-gateway': [inferenceGateway(null)], 'endpoints-0': [ep('ep-1', 'svc-1')] } }),
    want: {
      ready: false,
      resources: {},
      status: {},
      conditions: [
        resolved('Matched 1 endpoint(s)'),
        {
          type: 'RoutingReady',
          status: 'False',
          reason: 'WaitingForGateway',
          message: 'Waiting for InferenceGateway default to publish an address (its Gateway API CRDs and Gateway are being installed)',
        },
      ],
      results: [],
      requirements: requirements({ app: 'test' }),
    },
  },
  {
    name: 'gateway absent',
    reason: 'no InferenceGateway: no route, no address, and a Warning that says what to create',
    req: () => request(svc(), { required: { 'inference-gateway': [], 'endpoints-0': [ep('ep-1', 'svc-1')] } }),
    want: {
      ready: false,
      resources: {},
      status: {},
      conditions: [
        resolved('Matched 1 endpoint(s)'),
        {
          type: 'RoutingReady',
          status: 'False',
          reason: 'GatewayNotFound',
          message:
            'InferenceGateway default not found: ModelService ml-team/test-service has no address; create the InferenceGateway (it installs the Gateway API CRDs and the control-plane Gateway)',
        },
      ],
      results: [
        {
          severity: 'Warning',
          message:
            'InferenceGateway default not found: ModelService ml-team/test-service has no address; create the InferenceGateway (it installs the Gateway API CRDs and the control-plane Gateway)',
        },
      ],
      requirements: requirements({ app: 'test' }),
    },
  },
  {
    name: 'gateway gone, route kept',
    reason: 'docs/design.md#keep-what-exists: the gateway briefly unreadable or deleted never deletes a route already composed',
    req: () =>
      request(svc(), {
        observed: { httproute: observed({ ...route([ref('svc-1', 1)]), metadata: { name: 'test-service-abcde', namespace: NS } }) },
        required: { 'inference-gateway': [], 'endpoints-0': [ep('ep-1', 'svc-1')] },
      }),
    want: {
      resources: { httproute: { resource: route([ref('svc-1', 1)]) } },
      status: {},
      conditions: [
        resolved('Matched 1 endpoint(s)'),
        {
          type: 'RoutingReady',
          status: 'False',
          reason: 'GatewayNotFound',
          message:
            'InferenceGateway default not found: ModelService ml-team/test-service has no address; create the InferenceGateway (it installs the Gateway API CRDs and the control-plane Gateway)',
        },
      ],
      results: [
        {
          severity: 'Warning',
          message:
            'InferenceGateway default not found: ModelService ml-team/test-service has no address; create the InferenceGateway (it installs the Gateway API CRDs and the control-plane Gateway)',
        },
      ],
      requirements: requirements({ app: 'test' }),
    },
  },
];

describe('compose-model-service (docs/kinds/modelservice.md)', () => {
  it.each(cases)('$name: $reason', ({ req, want }) => {
    // Cases without auth anywhere: once the status is written it says Anonymous, and the condition says why, last.
    const anonymous = { type: 'Authenticated', status: 'False', reason: 'Anonymous', message: ANONYMOUS };
    const expected = want.status === undefined ? want : { ...want, status: { ...want.status, auth: 'Anonymous' }, conditions: [...want.conditions, anonymous] };
    expect(compose(req())).toStrictEqual(expected);
  });
});

describe('distribute: the reference vectors of docs/kinds/modelservice.md#weights', () => {
  it.each([
    [[{ weight: 80, count: 3 }, { weight: 20, count: 1 }], [[27, 27, 26], [20]]],
    [[{ weight: 1, count: 2 }, { weight: 3, count: 1 }], [[1, 1], [6]]],
    [[{ weight: 2, count: 1 }, { weight: 2, count: 1 }], [[1], [1]]],
    [[{ weight: 1_000_000, count: 1 }, { weight: 1, count: 2 }], [[1_000_000], [1, 1]]],
    [[{ weight: 1, count: 5 }], [[1, 1, 1, 1, 1]]],
    [[], []],
  ])('%j -> %j', (groups, want) => {
    expect(distribute(groups)).toStrictEqual(want);
  });
  it('rounds half to even like Python', () => {
    expect([0.5, 1.5, 2.5, 3.5, 2.4, 2.6].map(roundHalfEven)).toStrictEqual([0, 2, 2, 4, 2, 3]);
  });
});

describe('a deployment scaled to zero (docs/autoscaling.md#zero-and-back)', () => {
  const standby = (name: string, dep: string, backendName: string) => ep(name, backendName, { labels: { app: 'test', 'modelplane.ai/deployment': dep, 'modelplane.ai/standby': 'true' } });
  const accepted = (refs: JsonObject[]) => ({ httproute: observed({ ...route(refs), status: { parents: [{ conditions: [{ type: 'Accepted', status: 'True' }] }] } }) });
  const routing = (got: ComposeResult) => got.conditions.find((c) => c.type === 'RoutingReady');

  it('routes to the standby endpoint and says RoutingReady ScaledToZero, naming the deployment', () => {
    const got = compose(request(svc(), { observed: accepted([ref('standby-svc', 1)]), required: { 'inference-gateway': [inferenceGateway()], 'endpoints-0': [standby('qwen-standby', 'qwen', 'standby-svc')] } }));
    expect(got.resources['httproute']).toStrictEqual({ resource: route([ref('standby-svc', 1)]), ready: true });
    expect(routing(got)).toStrictEqual({
      type: 'RoutingReady',
      status: 'True',
      reason: 'ScaledToZero',
      message: 'Scaled to zero: qwen has no Ready replica; requests get 503 with Retry-After and ask for one',
    });
  });

  it('a standby beside a live replica endpoint is an ordinary route', () => {
    const got = compose(
      request(svc(), {
        observed: accepted([ref('standby-svc', 1), ref('svc-1', 1)]),
        required: { 'inference-gateway': [inferenceGateway()], 'endpoints-0': [standby('qwen-standby', 'qwen', 'standby-svc'), ep('ep-1', 'svc-1')] },
      }),
    );
    expect(routing(got)?.reason).toBe('RouteConfigured');
  });
});
