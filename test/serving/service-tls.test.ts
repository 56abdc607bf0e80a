/**
 * compose-model-service behind a TLS front door (docs/front-door.md): the
 * service address follows the InferenceGateway's `status.url`, and with an
 * https URL the HTTPRoute attaches to the Gateway's `websecure` listener.
 */
import { describe, expect, it } from 'vitest';
import { compose } from '../../functions/compose-model-service/compose.js';
import type { KubeObject } from '../../functions/lib/function.js';
import { inferenceGateway, modelEndpoint, modelService, NS, request } from '../builders/serving.js';
import { expectValidAgainstCrd } from '../helpers/crd.js';

const gatewayWith = (status: Record<string, string>): KubeObject => ({ ...inferenceGateway(), status });
const run = (gw: KubeObject) =>
  compose(
    request(modelService('chat'), {
      required: { 'inference-gateway': [gw], 'endpoints-0': [modelEndpoint('a', { backendName: 'a-svc' })] },
    }),
  );
const parentRefs = (r: ReturnType<typeof run>) => (r.resources['httproute']!.resource['spec'] as { parentRefs: unknown }).parentRefs;

describe('ModelService behind the InferenceGateway with TLS', () => {
  it('status.url https://<hostname>: address https://<hostname>/<ns>/<name>, the route on listener websecure', () => {
    const r = run(gatewayWith({ address: '34.55.100.10', url: 'https://models.example.com' }));
    expect(r.status?.['address']).toBe(`https://models.example.com/${NS}/chat`);
    expect(parentRefs(r)).toStrictEqual([{ name: 'modelplane', namespace: 'modelplane-system', sectionName: 'websecure' }]);
    expectValidAgainstCrd(r.resources['httproute']!.resource);
  });

  it('status.url http://<hostname> (hostname, no TLS): address on the hostname, the route on listener web', () => {
    const r = run(gatewayWith({ address: '34.55.100.10', url: 'http://models.example.com' }));
    expect(r.status?.['address']).toBe(`http://models.example.com/${NS}/chat`);
    expect(parentRefs(r)).toStrictEqual([{ name: 'modelplane', namespace: 'modelplane-system', sectionName: 'web' }]);
  });

  it('no status.url: http://<address>/<ns>/<name> as before', () => {
    const r = run(gatewayWith({ address: '34.55.100.10' }));
    expect(r.status?.['address']).toBe(`http://34.55.100.10/${NS}/chat`);
    expect(parentRefs(r)).toStrictEqual([{ name: 'modelplane', namespace: 'modelplane-system', sectionName: 'web' }]);
  });

  it('a url without an address is not published yet (the route waits for the Gateway as before)', () => {
    const r = run(gatewayWith({ url: 'https://models.example.com' }));
    expect(r.status?.['address']).toBeUndefined();
    expect(r.resources['httproute']).toBeUndefined();
  });
});
