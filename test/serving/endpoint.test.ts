/**
 * compose-model-endpoint: every acceptance case of the reference (docs/kinds/modelendpoint.md), and
 * the docs/design.md#keep-what-exists variant of the invalid-URL path (children kept).
 */
import { describe, expect, it } from 'vitest';
import { compose } from '../../functions/compose-model-endpoint/compose.js';
import type { ComposeRequest, ComposeResult, KubeObject } from '../../functions/lib/function.js';
import { modelEndpoint, NS, observed, request } from '../builders/serving.js';

const xr = (url: string) => modelEndpoint('test-endpoint', { url });

const service = (port: number): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { namespace: NS },
  spec: { ports: [{ port, protocol: 'TCP' }] },
});
const slice = (svc: string, addressType: string, address: string, port: number): KubeObject => ({
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: { namespace: NS, labels: { 'kubernetes.io/service-name': svc } },
  addressType,
  ports: [{ name: '', port, protocol: 'TCP' }],
  endpoints: [{ addresses: [address], conditions: { ready: true } }],
});
const observedService = (name: string, port = 80) => observed({ ...service(port), metadata: { name, namespace: NS } });
const observedSlice = (svc: string, address = '34.55.100.10') =>
  observed({ ...slice(svc, 'IPv4', address, 80), metadata: { name: `${svc}-x`, namespace: NS } });

const waiting = { type: 'RoutingReady', status: 'False', reason: 'WaitingForBackend' } as const;
const configured = { type: 'RoutingReady', status: 'True', reason: 'BackendConfigured' } as const;

interface Case {
  name: string;
  reason: string;
  req: () => ComposeRequest;
  want: ComposeResult;
}

const cases: Case[] = [
  {
    name: 'fresh http endpoint',
    reason: 'nothing observed: only the selector-less Service, on port 80',
    req: () => request(xr('http://34.55.100.10/v1')),
    want: { resources: { service: { resource: service(80) } }, status: {}, conditions: [waiting], results: [], requirements: {} },
  },
  {
    name: 'service observed',
    reason: 'the Service has a name: the EndpointSlice for it is composed; routing waits for the slice',
    req: () => request(xr('http://34.55.100.10/v1'), { observed: { service: observedService('my-service') } }),
    want: {
      resources: {
        service: { resource: service(80), ready: true },
        endpointslice: { resource: slice('my-service', 'IPv4', '34.55.100.10', 80) },
      },
      status: {},
      conditions: [waiting],
      results: [],
      requirements: {},
    },
  },
  {
    name: 'both observed',
    reason: 'Service and slice exist: backendName published, both ready, BackendConfigured',
    req: () =>
      request(xr('http://34.55.100.10/v1'), {
        observed: { service: observedService('my-service'), endpointslice: observedSlice('my-service') },
      }),
    want: {
      resources: {
        service: { resource: service(80), ready: true },
        endpointslice: { resource: slice('my-service', 'IPv4', '34.55.100.10', 80), ready: true },
      },
      status: { routing: { backendName: 'my-service' } },
      conditions: [configured],
      results: [],
      requirements: {},
    },
  },
  {
    name: 'https provider, nothing observed',
    reason: 'https defaults to port 443',
    req: () => request(xr('https://api.together.xyz/v1')),
    want: { resources: { service: { resource: service(443) } }, status: {}, conditions: [waiting], results: [], requirements: {} },
  },
  {
    name: 'https provider, both observed',
    reason: 'a hostname gives an FQDN slice holding the host on 443',
    req: () =>
      request(xr('https://api.together.xyz/v1'), {
        observed: { service: observedService('together-svc', 443), endpointslice: observedSlice('together-svc') },
      }),
    want: {
      resources: {
        service: { resource: service(443), ready: true },
        endpointslice: { resource: slice('together-svc', 'FQDN', 'api.together.xyz', 443), ready: true },
      },
      status: { routing: { backendName: 'together-svc' } },
      conditions: [configured],
      results: [],
      requirements: {},
    },
  },
  {
    name: 'IPv6 literal',
    reason: 'brackets are removed and the slice is IPv6 on port 80',
    req: () => request(xr('http://[2001:db8::1]/v1'), { observed: { service: observedService('v6-svc') } }),
    want: {
      resources: {
        service: { resource: service(80), ready: true },
        endpointslice: { resource: slice('v6-svc', 'IPv6', '2001:db8::1', 80) },
      },
      status: {},
      conditions: [waiting],
      results: [],
      requirements: {},
    },
  },
  {
    name: 'explicit port, uppercase host',
    reason: 'an explicit port wins and the host is lowercased, as urllib does',
    req: () => request(xr('HTTP://API.Example.COM:8443/v1'), { observed: { service: observedService('ex-svc') } }),
    want: {
      resources: {
        service: { resource: service(8443), ready: true },
        endpointslice: { resource: slice('ex-svc', 'FQDN', 'api.example.com', 8443) },
      },
      status: {},
      conditions: [waiting],
      results: [],
      requirements: {},
    },
  },
  ...['not-a-url', 'https://host:abc'].map(
    (url): Case => ({
      name: `invalid url ${url}`,
      reason: 'not routable: InvalidURL condition and Warning, not Ready; nothing observed, so nothing composed',
      req: () => request(xr(url)),
      want: {
        resources: {},
        status: {},
        conditions: [{ type: 'RoutingReady', status: 'False', reason: 'InvalidURL', message: `Invalid spec.url: ${url}` }],
        results: [{ severity: 'Warning', message: `Invalid spec.url: ${url}` }],
        requirements: {},
        ready: false,
      },
    }),
  ),
  {
    name: 'invalid url keeps the backend',
    reason: 'docs/design.md#keep-what-exists: an edit to a bad URL keeps the Service and slice that route today',
    req: () =>
      request(xr('http://host:99999/v1'), {
        observed: { service: observedService('my-service'), endpointslice: observedSlice('my-service') },
      }),
    want: {
      resources: {
        service: { resource: { ...service(80), metadata: { name: 'my-service', namespace: NS } } },
        endpointslice: {
          resource: { ...slice('my-service', 'IPv4', '34.55.100.10', 80), metadata: { name: 'my-service-x', namespace: NS } },
        },
      },
      status: { routing: { backendName: 'my-service' } },
      conditions: [
        { type: 'RoutingReady', status: 'False', reason: 'InvalidURL', message: 'Invalid spec.url: http://host:99999/v1' },
      ],
      results: [{ severity: 'Warning', message: 'Invalid spec.url: http://host:99999/v1' }],
      requirements: {},
    },
  },
];

describe('compose-model-endpoint (docs/kinds/modelendpoint.md)', () => {
  it.each(cases)('$name: $reason', ({ req, want }) => {
    expect(compose(req())).toStrictEqual(want);
  });
});
