/**
 * compose-inference-gateway's part of the AI gateway (docs/ai-gateway.md):
 * the default key Secrets by selector (the validator's Role names each
 * matched Secret, kept while they are not read yet), and /v1/models on the
 * TLS listener.
 */
import { describe, expect, it } from 'vitest';
import { compose } from '../../functions/compose-inference-gateway/compose.js';
import type { JsonObject, KubeObject } from '../../functions/lib/function.js';
import { cond, observed, request } from '../builders/platform.js';

const xr = (spec: JsonObject = {}): KubeObject => ({
  apiVersion: 'modelplane.ai/v1alpha1',
  kind: 'InferenceGateway',
  metadata: { name: 'default' },
  spec: {
    backend: 'Traefik',
    traefik: { version: '40.2.0' },
    auth: { type: 'APIKey', apiKeys: { secretSelector: { namespace: 'keys', matchLabels: { 'modelplane.ai/api-keys': 'true' } } } },
    ...spec,
  },
});
const secret = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'keys' } });
const role = (names: string[]): KubeObject => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'Role',
  metadata: { name: 'default-api-key-ced97', namespace: 'keys' },
  rules: [{ apiGroups: [''], resources: ['secrets'], resourceNames: names, verbs: ['get'] }],
});

describe('default key Secrets by selector', () => {
  it('declares the Secrets as a requirement and grants the validator get on each, by name', () => {
    const r = compose(request(xr(), { required: { 'api-key-secrets': [secret('team-b'), secret('team-a')] } }));
    expect(r.requirements['api-key-secrets']).toStrictEqual({ apiVersion: 'v1', kind: 'Secret', matchLabels: { 'modelplane.ai/api-keys': 'true' }, namespace: 'keys' });
    expect(r.resources['api-key-role']!.resource).toStrictEqual(role(['team-a', 'team-b']));
    expect(r.resources['api-key-rolebinding']!.resource['roleRef']).toStrictEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'default-api-key-ced97' });
  });
  it('keeps the observed grant while the Secrets are not read yet; none matching grants nothing', () => {
    const kept = compose(request(xr(), { observed: { 'api-key-role': observed(role(['team-a'])) } }));
    expect(kept.resources['api-key-role']!.resource).toStrictEqual(role(['team-a']));
    const none = compose(request(xr(), { required: { 'api-key-secrets': [] } }));
    expect('api-key-role' in none.resources).toBe(false);
  });
});

describe('/v1/models route', () => {
  it('attaches to the websecure listener when the gateway serves TLS', () => {
    const tls = xr({ hostname: 'models.example.com', tls: { issuerRef: { name: 'ca', kind: 'ClusterIssuer' } } });
    const r = compose(request(tls, { required: { 'api-key-secrets': [] }, observed: { gateway: observed({ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', metadata: { name: 'modelplane', namespace: 'modelplane-system' } }, {}, [cond('Accepted')]) } }));
    expect((r.resources['models-route']!.resource['spec'] as JsonObject)['parentRefs']).toStrictEqual([
      { name: 'modelplane', namespace: 'modelplane-system', sectionName: 'websecure' },
    ]);
  });
});
