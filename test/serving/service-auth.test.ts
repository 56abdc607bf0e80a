/**
 * The authenticated front door of compose-model-service
 * (docs/design.md#an-authenticated-front-door, auth.ts):
 * exact composed Middleware, validator Role/RoleBinding and route filters,
 * the effective auth (service, gateway default, None, anonymous), the key
 * Secret checks, and that no key value ever leaves the function.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compose } from '../../functions/compose-model-service/compose.js';
import type { ComposeResult, JsonObject, KubeObject } from '../../functions/lib/function.js';
import { formatFieldError, loadCrds } from '../../functions/lib/schema/index.js';
import { inferenceGateway, modelEndpoint, modelService, NS, observed, request } from '../builders/serving.js';
import { repoRoot } from '../helpers/crd.js';

const KEY = 'sk-modelplane-0123456789abcdef';
const B64 = Buffer.from(KEY).toString('base64');

function secret(name: string, data: Record<string, string> | undefined, namespace = NS): KubeObject {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace }, ...(data ? { data } : {}) };
}

function svc(auth?: JsonObject): KubeObject {
  const s = modelService('test-service');
  if (auth) (s['spec'] as JsonObject)['auth'] = auth;
  return s;
}

function gateway(auth?: JsonObject): KubeObject {
  const g = inferenceGateway();
  if (auth) (g['spec'] as JsonObject)['auth'] = auth;
  return g;
}

const endpoint = modelEndpoint('ep', { backendName: 'ep-svc' });
const run = (xr: KubeObject, gw: KubeObject, keys?: KubeObject[]): ComposeResult =>
  compose(
    request(xr, {
      required: { 'inference-gateway': [gw], 'endpoints-0': [endpoint], ...(keys ? { 'api-keys': keys } : {}) },
      observed: { httproute: observed({ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: { name: 'r', namespace: NS } }) },
    }),
  );
const own = { type: 'APIKey', apiKeys: { secretRef: { name: 'keys' } } };
const auth = (r: ComposeResult) => r.conditions.find((c) => c.type === 'Authenticated');
const rule = (r: ComposeResult) => ((r.resources['httproute']!.resource['spec'] as JsonObject)['rules'] as JsonObject[])[0]!;

describe('ModelService auth', () => {
  it('APIKey from the service: the forwardAuth Middleware, the validator Role/RoleBinding, the key check first on the route', () => {
    const r = run(svc(own), gateway(), [secret('keys', { a: B64 })]);
    expect(r.requirements['api-keys']).toStrictEqual({ apiVersion: 'v1', kind: 'Secret', matchName: 'keys', namespace: NS });
    expect(r.resources['api-key-middleware']!.resource).toStrictEqual({
      apiVersion: 'traefik.io/v1alpha1',
      kind: 'Middleware',
      metadata: { name: 'test-service-api-key-02184', namespace: NS },
      spec: { forwardAuth: { address: `http://modelplane-key-validator.modelplane-system.svc.cluster.local:8080/${NS}/keys`, authResponseHeaders: ['X-Modelplane-Caller'] } },
    });
    expect(r.resources['api-key-role']!.resource).toStrictEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'test-service-api-key-02184', namespace: NS },
      rules: [{ apiGroups: [''], resources: ['secrets'], resourceNames: ['keys'], verbs: ['get'] }],
    });
    expect(r.resources['api-key-rolebinding']!.resource).toStrictEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'test-service-api-key-02184', namespace: NS },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'test-service-api-key-02184' },
      subjects: [{ kind: 'ServiceAccount', name: 'modelplane-key-validator', namespace: 'modelplane-system' }],
    });
    expect(rule(r)['filters']).toStrictEqual([
      { type: 'ExtensionRef', extensionRef: { group: 'traefik.io', kind: 'Middleware', name: 'test-service-api-key-02184' } },
      { type: 'RequestHeaderModifier', requestHeaderModifier: { remove: ['Authorization'] } },
    ]);
    expect(r.status?.['auth']).toBe('APIKey');
    expect(auth(r)).toStrictEqual({
      type: 'Authenticated',
      status: 'True',
      reason: 'APIKey',
      message: `requests need Authorization: Bearer <key> with a key from Secret ${NS}/keys (spec.auth)`,
    });
  });

  it('the gateway default applies without spec.auth: its Secret, its validator URL, no Role of the service', () => {
    const gw = gateway({
      type: 'APIKey',
      apiKeys: { secretRef: { name: 'fleet-keys', namespace: 'modelplane-system' } },
      validatorURL: 'http://127.0.0.1:9999',
    });
    const r = run(svc(), gw, [secret('fleet-keys', { k: B64 }, 'modelplane-system')]);
    expect(r.requirements['api-keys']).toStrictEqual({ apiVersion: 'v1', kind: 'Secret', matchName: 'fleet-keys', namespace: 'modelplane-system' });
    expect((r.resources['api-key-middleware']!.resource['spec'] as JsonObject)['forwardAuth']).toStrictEqual({
      address: 'http://127.0.0.1:9999/modelplane-system/fleet-keys',
      authResponseHeaders: ['X-Modelplane-Caller'],
    });
    expect(Object.keys(r.resources).sort()).toStrictEqual(['api-key-middleware', 'httproute']);
    expect(auth(r)?.message).toBe(
      'requests need Authorization: Bearer <key> with a key from Secret modelplane-system/fleet-keys (the InferenceGateway default spec.auth)',
    );
  });

  it('spec.auth None overrides an APIKey default: anonymous by choice, no middleware', () => {
    const gw = gateway({ type: 'APIKey', apiKeys: { secretRef: { name: 'k', namespace: 'modelplane-system' } } });
    const r = run(svc({ type: 'None' }), gw);
    expect(r.status?.['auth']).toBe('None');
    expect('api-key-middleware' in r.resources).toBe(false);
    expect(rule(r)['filters']).toStrictEqual([{ type: 'RequestHeaderModifier', requestHeaderModifier: { remove: ['X-Modelplane-Caller'] } }]);
    expect(auth(r)).toStrictEqual({ type: 'Authenticated', status: 'False', reason: 'AnonymousByChoice', message: 'anonymous by spec.auth.type None' });
  });

  it('a missing key Secret is a False condition naming it, a Warning, not Ready, and the door stays shut', () => {
    const r = run(svc(own), gateway(), []);
    const msg = `key Secret ${NS}/keys not found: every request is refused with 401 until it exists with at least one non-empty key`;
    expect(auth(r)).toStrictEqual({ type: 'Authenticated', status: 'False', reason: 'KeySecretNotFound', message: msg });
    expect(r.results).toContainEqual({ severity: 'Warning', message: msg });
    expect(r.ready).not.toBe(true);
    expect(rule(r)['filters']).toHaveLength(2);
    expect('api-key-middleware' in r.resources).toBe(true);
  });

  it('an empty key Secret (no data, or only empty values) is KeySecretEmpty', () => {
    for (const s of [secret('keys', undefined), secret('keys', { a: '' })]) {
      const r = run(svc(own), gateway(), [s]);
      expect(auth(r)?.reason).toBe('KeySecretEmpty');
      expect(auth(r)?.message).toBe(`key Secret ${NS}/keys has no non-empty key: every request is refused with 401 until it has one`);
    }
  });

  it('no key value, encoded or not, appears anywhere in the result', () => {
    const text = JSON.stringify(run(svc(own), gateway(), [secret('keys', { a: B64 })]));
    expect(text.includes(KEY)).toBe(false);
    expect(text.includes(B64)).toBe(false);
  });

  it('the Middleware validates against Traefik v3.7.13’s own CRD', () => {
    const reg = loadCrds(join(repoRoot, 'cli/dev/crds'));
    const m = run(svc(own), gateway(), [secret('keys', { a: B64 })]).resources['api-key-middleware']!.resource;
    const v = reg.validate(m);
    expect(v).toBeDefined();
    expect(v!.errors.map(formatFieldError)).toStrictEqual([]);
  });
});
