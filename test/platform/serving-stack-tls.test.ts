/**
 * The workload cluster's gateway with TLS (docs/front-door.md): an
 * InferenceCluster's `spec.gateway` {hostname, tls} flows into its
 * ServingStack, whose Gateway gets an HTTPS listener `https` on 443 and, with
 * an issuerRef, a cert-manager Certificate inside a provider-kubernetes Object.
 */
import { describe, expect, it } from 'vitest';
import { servingStack } from '../../functions/compose-inference-cluster/backend.js';
import { readInferenceCluster } from '../../functions/compose-inference-cluster/spec.js';
import { compose } from '../../functions/compose-serving-stack/compose.js';
import type { ComposeResult, JsonObject, KubeObject } from '../../functions/lib/function.js';
import { observed, request } from '../builders/platform.js';
import { expectValidAgainstCrd } from '../helpers/crd.js';

const HOST = 'gpu-east.models.example.com';
const secrets = [{ type: 'Kubeconfig', name: 'kube-secret', key: 'kubeconfig' }];
const stackXR = (gateway?: JsonObject): KubeObject => ({
  apiVersion: 'infrastructure.modelplane.ai/v1alpha1',
  kind: 'ServingStack',
  metadata: { name: 'test-backend', namespace: 'test-ns' },
  spec: { secrets, ...(gateway ? { gateway } : {}) },
});
/** Both ProviderConfigs observed: every remote resource is composed. */
function run(gateway?: JsonObject): ComposeResult {
  const pc = (kind: string): KubeObject => ({ apiVersion: `${kind}.m.crossplane.io/v1alpha1`, kind: 'ProviderConfig', metadata: { name: 'x' } });
  return compose(request(stackXR(gateway), { observed: { 'provider-config-kubernetes': observed(pc('kubernetes')), 'provider-config-helm': observed(pc('helm')) } }));
}
const manifest = (r: ComposeResult, key: string) => (r.resources[key]!.resource['spec'] as { forProvider: { manifest: KubeObject } }).forProvider.manifest;
const http = { name: 'http', protocol: 'HTTP', port: 80, allowedRoutes: { namespaces: { from: 'All' } } };

describe('ServingStack spec.gateway tls', () => {
  it('issuerRef: listener https (443, the hostname, Terminate, Secret inference-gateway-tls) beside http; the Certificate Object', () => {
    const r = run({ hostname: HOST, tls: { issuerRef: { name: 'letsencrypt' } } });
    const gw = manifest(r, 'gateway');
    expect((gw['spec'] as JsonObject)['listeners']).toStrictEqual([
      http,
      {
        name: 'https',
        protocol: 'HTTPS',
        port: 443,
        hostname: HOST,
        tls: { mode: 'Terminate', certificateRefs: [{ group: '', kind: 'Secret', name: 'inference-gateway-tls' }] },
        allowedRoutes: { namespaces: { from: 'All' } },
      },
    ]);
    expectValidAgainstCrd(gw);
    const cert = manifest(r, 'gateway-certificate');
    expect(cert).toStrictEqual({
      apiVersion: 'cert-manager.io/v1',
      kind: 'Certificate',
      metadata: { name: 'inference-gateway', namespace: 'modelplane-system' },
      spec: {
        secretName: 'inference-gateway-tls',
        dnsNames: [HOST],
        issuerRef: { name: 'letsencrypt', kind: 'ClusterIssuer', group: 'cert-manager.io' },
      },
    });
    expectValidAgainstCrd(cert);
    expectValidAgainstCrd(r.resources['gateway-certificate']!.resource);
  });

  it('secretRef: the listener names the brought Secret; no Certificate', () => {
    const r = run({ hostname: HOST, tls: { secretRef: { name: 'east-cert' } } });
    const listeners = (manifest(r, 'gateway')['spec'] as { listeners: JsonObject[] }).listeners;
    expect(listeners[1]!['tls']).toStrictEqual({ mode: 'Terminate', certificateRefs: [{ group: '', kind: 'Secret', name: 'east-cert' }] });
    expect(r.resources['gateway-certificate']).toBeUndefined();
  });

  it('no tls: the one http listener, no Certificate', () => {
    const r = run();
    expect((manifest(r, 'gateway')['spec'] as JsonObject)['listeners']).toStrictEqual([http]);
    expect(r.resources['gateway-certificate']).toBeUndefined();
  });

  it.each([
    [{ tls: { issuerRef: { name: 'le' } } }, 'spec.gateway.hostname is required when spec.gateway.tls is set (the name the certificate is for).'],
    [
      { hostname: HOST, tls: { issuerRef: { name: 'le' }, secretRef: { name: 's' } } },
      'spec.gateway.tls must set exactly one of issuerRef (cert-manager issues the certificate) or secretRef (a kubernetes.io/tls Secret you bring).',
    ],
  ])('a spec the XRD rejects (%j): Accepted False InvalidSpec and a Warning with the XRD message', (gateway, message) => {
    const r = run(gateway);
    expect(r.conditions).toStrictEqual([{ type: 'Accepted', status: 'False', reason: 'InvalidSpec', message }]);
    expect(r.results).toStrictEqual([{ severity: 'Warning', message }]);
  });
});

describe('InferenceCluster spec.gateway flows to its ServingStack', () => {
  it('hostname and tls (defaults applied) become the ServingStack spec.gateway; absent, no spec.gateway', () => {
    const ic = (gateway?: JsonObject): KubeObject => ({
      apiVersion: 'modelplane.ai/v1alpha1',
      kind: 'InferenceCluster',
      metadata: { name: 'east' },
      spec: { cluster: { source: 'Existing', existing: { secretRef: { name: 'kc', key: 'kubeconfig' } } }, ...(gateway ? { gateway } : {}) },
    });
    const read = readInferenceCluster(ic({ hostname: HOST, tls: { issuerRef: { name: 'letsencrypt' } } }));
    if (!read.ok) throw new Error(read.problem);
    expect(servingStack('east', [], undefined, read.ic.gateway)['spec']).toStrictEqual({
      secrets: [],
      gateway: { hostname: HOST, tls: { issuerRef: { name: 'letsencrypt', kind: 'ClusterIssuer', group: 'cert-manager.io' } } },
    });
    const plain = readInferenceCluster(ic());
    if (!plain.ok) throw new Error(plain.problem);
    expect(plain.ic.gateway).toBeUndefined();
  });
});
