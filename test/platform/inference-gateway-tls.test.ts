/**
 * compose-inference-gateway: TLS, hostname and DNS at the front door
 * (docs/front-door.md): the exact HTTPS listener, Certificate,
 * ReferenceGrant, redirect route and status.url, each composed object valid
 * against its CRD (cert-manager v1.17.1's Certificate from cli/dev/crds,
 * Gateway API v1.5.1's), and the messages for a spec the XRD rejects.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { compose } from '../../functions/compose-inference-gateway/compose.js';
import { GATEWAY_API_CRDS, crdKey } from '../../functions/compose-inference-gateway/resources.js';
import type { ComposeRequest, JsonObject, KubeObject } from '../../functions/lib/function.js';
import { cond, observed, request } from '../builders/platform.js';
import { expectValidAgainstCrd, repoRoot, validateAgainstCrd } from '../helpers/crd.js';

const NS = 'modelplane-system';
const HOST = 'models.example.com';

const xr = (spec: JsonObject = {}, status?: JsonObject): KubeObject => ({
  apiVersion: 'modelplane.ai/v1alpha1',
  kind: 'InferenceGateway',
  metadata: { name: 'default' },
  spec: { backend: 'Traefik', traefik: { version: '40.2.0' }, ...spec },
  ...(status ? { status } : {}),
});

const pc: KubeObject = { apiVersion: 'helm.m.crossplane.io/v1beta1', kind: 'ProviderConfig', metadata: { name: 'modelplane-in-cluster', namespace: NS } };
const release: KubeObject = { apiVersion: 'helm.m.crossplane.io/v1beta1', kind: 'Release', metadata: { namespace: NS } };
const gw: KubeObject = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', metadata: { name: 'modelplane', namespace: NS } };

/** Traefik Ready and the Gateway observed with address 203.0.113.10: everything the gateway composes is composed. */
function serving(composite: KubeObject): ComposeRequest {
  const crds = Object.fromEntries(GATEWAY_API_CRDS.map((c) => [crdKey(c), observed(c as KubeObject, {}, [cond('Established')])]));
  return request(composite, {
    observed: {
      'provider-config-helm': observed(pc),
      ...crds,
      traefik: observed(release, {}, [cond('Ready')]),
      gateway: observed(gw, { addresses: [{ type: 'IPAddress', value: '203.0.113.10' }] }, [cond('Accepted')]),
    },
  });
}

const resource = (spec: JsonObject, key: string): KubeObject | undefined => compose(serving(xr(spec))).resources[key]?.resource;
const issuer = { issuerRef: { name: 'letsencrypt' } };

describe('InferenceGateway spec.tls issuerRef', () => {
  const spec = { hostname: HOST, tls: issuer };

  it('the Gateway gets listener websecure (HTTPS 8443, Terminate, Secret modelplane-gateway-tls); both listeners carry the hostname', () => {
    const gateway = resource(spec, 'gateway')!;
    expect(gateway['spec']).toStrictEqual({
      gatewayClassName: 'traefik',
      listeners: [
        { name: 'web', protocol: 'HTTP', port: 8000, hostname: HOST, allowedRoutes: { namespaces: { from: 'All' } } },
        {
          name: 'websecure',
          protocol: 'HTTPS',
          port: 8443,
          hostname: HOST,
          tls: { mode: 'Terminate', certificateRefs: [{ group: '', kind: 'Secret', name: 'modelplane-gateway-tls' }] },
          allowedRoutes: { namespaces: { from: 'All' } },
        },
        { name: 'metered', protocol: 'HTTP', port: 8002, allowedRoutes: { namespaces: { from: 'All' } } },
      ],
    });
    expect(gateway.metadata?.annotations).toBeUndefined();
    expectValidAgainstCrd(gateway);
  });

  it('composes Certificate modelplane-gateway (defaults ClusterIssuer, cert-manager.io), valid against cert-manager v1.17.1', () => {
    const cert = resource(spec, 'certificate')!;
    expect(cert).toStrictEqual({
      apiVersion: 'cert-manager.io/v1',
      kind: 'Certificate',
      metadata: { name: 'modelplane-gateway', namespace: NS },
      spec: {
        secretName: 'modelplane-gateway-tls',
        dnsNames: [HOST],
        issuerRef: { name: 'letsencrypt', kind: 'ClusterIssuer', group: 'cert-manager.io' },
      },
    });
    expectValidAgainstCrd(cert);
    // The CRD check can fail: a field cert-manager does not know is an error.
    const bad = structuredClone(cert);
    (bad['spec'] as JsonObject)['dnsName'] = HOST;
    expect(validateAgainstCrd(bad).errors.length).toBeGreaterThan(0);
  });

  it('an Issuer of another group is passed through', () => {
    const cert = resource({ hostname: HOST, tls: { issuerRef: { name: 'ca', kind: 'Issuer', group: 'awspca.cert-manager.io' } } }, 'certificate')!;
    expect((cert['spec'] as JsonObject)['issuerRef']).toStrictEqual({ name: 'ca', kind: 'Issuer', group: 'awspca.cert-manager.io' });
  });

  it('plain HTTP only redirects: HTTPRoute modelplane-https-redirect on listener web, 301 to https', () => {
    const route = resource(spec, 'https-redirect')!;
    expect(route).toStrictEqual({
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'modelplane-https-redirect', namespace: NS },
      spec: {
        parentRefs: [{ name: 'modelplane', namespace: NS, sectionName: 'web' }],
        rules: [{ filters: [{ type: 'RequestRedirect', requestRedirect: { scheme: 'https', statusCode: 301 } }] }],
      },
    });
    expectValidAgainstCrd(route);
  });

  it('publishes status.url https://<hostname> beside the address; no ReferenceGrant', () => {
    const result = compose(serving(xr(spec)));
    expect(result.status).toStrictEqual({ address: '203.0.113.10', url: `https://${HOST}` });
    expect(result.resources['tls-reference-grant']).toBeUndefined();
  });

  it('the Certificate is ready once cert-manager says Ready; the redirect route once Traefik accepted it', () => {
    const req = serving(xr(spec));
    expect(compose(req).resources['certificate']?.ready).toBeUndefined();
    expect(compose(req).resources['https-redirect']?.ready).toBeUndefined();
    req.observed['certificate'] = observed(resource(spec, 'certificate')!, {}, [cond('Ready')]);
    req.observed['https-redirect'] = observed(resource(spec, 'https-redirect')!, {
      parents: [{ parentRef: { name: 'modelplane' }, controllerName: 'traefik.io/gateway-controller', conditions: [cond('Accepted')] }],
    });
    expect(compose(req).resources['certificate']?.ready).toBe(true);
    expect(compose(req).resources['https-redirect']?.ready).toBe(true);
  });

  it('nothing TLS is composed before Traefik is Ready (the Gateway API CRDs and the Gateway come first)', () => {
    const req = serving(xr(spec));
    delete req.observed['gateway'];
    req.observed['traefik'] = observed(release);
    const keys = Object.keys(compose(req).resources);
    expect(keys.filter((k) => ['gateway', 'certificate', 'https-redirect'].includes(k))).toStrictEqual([]);
  });
});

describe('InferenceGateway spec.tls secretRef', () => {
  it('a Secret in another namespace: certificateRefs names it, a ReferenceGrant there lets the Gateway read it, no Certificate', () => {
    const spec = { hostname: HOST, tls: { secretRef: { name: 'front-door-cert', namespace: 'certs' } } };
    const result = compose(serving(xr(spec)));
    const listeners = getListeners(result.resources['gateway']!.resource);
    expect(listeners[1]!['tls']).toStrictEqual({
      mode: 'Terminate',
      certificateRefs: [{ group: '', kind: 'Secret', name: 'front-door-cert', namespace: 'certs' }],
    });
    const grant = result.resources['tls-reference-grant']!.resource;
    expect(grant).toStrictEqual({
      apiVersion: 'gateway.networking.k8s.io/v1beta1',
      kind: 'ReferenceGrant',
      metadata: { name: 'modelplane-gateway-tls', namespace: 'certs' },
      spec: {
        from: [{ group: 'gateway.networking.k8s.io', kind: 'Gateway', namespace: NS }],
        to: [{ group: '', kind: 'Secret', name: 'front-door-cert' }],
      },
    });
    expectValidAgainstCrd(grant);
    expectValidAgainstCrd(result.resources['gateway']!.resource);
    expect(result.resources['certificate']).toBeUndefined();
    expect(result.resources['https-redirect']).toBeDefined();
  });

  it("a Secret in the Gateway's namespace (namespace omitted): no ReferenceGrant, a same-namespace certificateRef", () => {
    const result = compose(serving(xr({ hostname: HOST, tls: { secretRef: { name: 'front-door-cert' } } })));
    expect(getListeners(result.resources['gateway']!.resource)[1]!['tls']).toStrictEqual({
      mode: 'Terminate',
      certificateRefs: [{ group: '', kind: 'Secret', name: 'front-door-cert' }],
    });
    expect(result.resources['tls-reference-grant']).toBeUndefined();
  });
});

describe('InferenceGateway spec.hostname and spec.dns without TLS', () => {
  it('hostname only: the web listener carries it, status.url is http://<hostname>, nothing else is composed', () => {
    const result = compose(serving(xr({ hostname: HOST })));
    expect(getListeners(result.resources['gateway']!.resource)).toStrictEqual([
      { name: 'web', protocol: 'HTTP', port: 8000, hostname: HOST, allowedRoutes: { namespaces: { from: 'All' } } },
      { name: 'metered', protocol: 'HTTP', port: 8002, allowedRoutes: { namespaces: { from: 'All' } } },
    ]);
    expect(result.status).toStrictEqual({ address: '203.0.113.10', url: `http://${HOST}` });
    expect(Object.keys(result.resources).filter((k) => ['certificate', 'https-redirect', 'tls-reference-grant'].includes(k))).toStrictEqual([]);
  });

  it('dns.externalDNS: the Gateway carries external-dns.alpha.kubernetes.io/hostname', () => {
    const gateway = resource({ hostname: HOST, tls: issuer, dns: { externalDNS: true } }, 'gateway')!;
    expect(gateway.metadata).toStrictEqual({
      name: 'modelplane',
      namespace: NS,
      annotations: { 'external-dns.alpha.kubernetes.io/hostname': HOST },
    });
  });

  it('no tls, no hostname: the plain Gateway, status without url', () => {
    const result = compose(serving(xr()));
    expect(getListeners(result.resources['gateway']!.resource)).toStrictEqual([
      { name: 'web', protocol: 'HTTP', port: 8000, allowedRoutes: { namespaces: { from: 'All' } } },
      { name: 'metered', protocol: 'HTTP', port: 8002, allowedRoutes: { namespaces: { from: 'All' } } },
    ]);
    expect(result.status).toStrictEqual({ address: '203.0.113.10' });
  });
});

describe('InferenceGateway TLS: a spec the XRD rejects', () => {
  const TLS_NO_HOST =
    'Invalid InferenceGateway: spec.hostname is required when spec.tls is set: set it to the DNS name clients use (the certificate\'s name and the HTTPS listener\'s hostname), e.g. models.example.com.';
  const BOTH =
    'Invalid InferenceGateway: spec.tls must set exactly one of issuerRef (cert-manager issues the certificate) or secretRef (a kubernetes.io/tls Secret you bring).';
  const cases: { name: string; spec: JsonObject; message: string }[] = [
    { name: 'tls without hostname', spec: { tls: issuer }, message: TLS_NO_HOST },
    { name: 'both issuerRef and secretRef', spec: { hostname: HOST, tls: { ...issuer, secretRef: { name: 's' } } }, message: BOTH },
    { name: 'neither issuerRef nor secretRef', spec: { hostname: HOST, tls: {} }, message: BOTH },
    {
      name: 'externalDNS without hostname',
      spec: { dns: { externalDNS: true } },
      message: 'Invalid InferenceGateway: spec.hostname is required when spec.dns.externalDNS is true (the name external-dns publishes).',
    },
  ];
  it.each(cases)('$name: ControllerReady False InvalidSpec and a Warning naming the field; observed kept, address kept', ({ spec, message }) => {
    const req = serving(xr(spec, { address: '203.0.113.10', url: `https://${HOST}` }));
    const result = compose(req);
    expect(result.conditions).toStrictEqual([{ type: 'ControllerReady', status: 'False', reason: 'InvalidSpec', message }]);
    expect(result.results).toStrictEqual([{ severity: 'Warning', message }]);
    expect(Object.keys(result.resources).sort()).toStrictEqual(Object.keys(req.observed).sort());
    expect(result.status).toStrictEqual({ address: '203.0.113.10', url: `https://${HOST}` });
  });

  it('a hostname that is not a DNS name is named with the pattern it must match', () => {
    const result = compose(serving(xr({ hostname: 'Models_Example.com', tls: issuer })));
    expect(result.results[0]?.message).toContain('spec.hostname');
    expect(result.conditions[0]?.reason).toBe('InvalidSpec');
  });
});

describe('example vultr-gateway-tls', () => {
  const docs = parseAllDocuments(readFileSync(resolve(repoRoot, 'examples/vultr-gateway-tls/expected.yaml'), 'utf8')).map((d) => d.toJS() as KubeObject);
  const one = (kind: string) => docs.filter((d) => d.kind === kind);

  it('renders the websecure listener on models.modelplane.example, the Certificate, the redirect route and an https URL', () => {
    const [gateway] = one('Gateway');
    expect(getListeners(gateway!).map((l) => [l['name'], l['protocol'], l['port'], l['hostname']])).toStrictEqual([
      ['web', 'HTTP', 8000, 'models.modelplane.example'],
      ['websecure', 'HTTPS', 8443, 'models.modelplane.example'],
      ['metered', 'HTTP', 8002, undefined],
    ]);
    expect(gateway!.metadata?.annotations?.['external-dns.alpha.kubernetes.io/hostname']).toBe('models.modelplane.example');
    expect(one('Certificate').map((c) => c['spec'])).toStrictEqual([
      { secretName: 'modelplane-gateway-tls', dnsNames: ['models.modelplane.example'], issuerRef: { name: 'letsencrypt', kind: 'ClusterIssuer', group: 'cert-manager.io' } },
    ]);
    expect(one('HTTPRoute').map((r) => r.metadata?.name)).toStrictEqual(['modelplane-https-redirect', 'modelplane-models']);
    const status = one('InferenceGateway')[0]!['status'] as JsonObject;
    expect([status['address'], status['url']]).toStrictEqual(['172.18.255.200', 'https://models.modelplane.example']);
  });
});

function getListeners(gateway: KubeObject): JsonObject[] {
  return (gateway['spec'] as { listeners: JsonObject[] }).listeners;
}
