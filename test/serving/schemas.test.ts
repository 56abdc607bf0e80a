/**
 * Every object the serving functions compose is valid against its real
 * schema: the provider-kubernetes Object CRD for the wrapper; the upstream
 * CRD under ../shared/crds for LeaderWorkerSet, HTTPRoute and InferencePool
 * (unknown fields rejected, CEL rules run); the client-node OpenAPI models
 * for core kinds (core-schema.ts).
 */
import { describe, expect, it } from 'vitest';
import { compose as composeCache } from '../../functions/compose-model-cache/compose.js';
import { compose as composeEndpoint } from '../../functions/compose-model-endpoint/compose.js';
import { compose as composeReplica } from '../../functions/compose-model-replica/compose.js';
import { compose as composeService } from '../../functions/compose-model-service/compose.js';
import type { ComposeResult, KubeObject } from '../../functions/lib/function.js';
import {
  engine,
  gpu,
  inferenceCluster,
  inferenceGateway,
  member,
  modelEndpoint,
  modelService,
  observed,
  replica,
  request,
  standalone,
} from '../builders/serving.js';
import { expectValidAgainstCrd } from '../helpers/crd.js';
import { isCoreKind, validateCore } from './core-schema.js';

const cluster = { cluster: [inferenceCluster('cluster-a')] };

const replicas: [string, KubeObject][] = [
  ['native', replica('r', { engines: [standalone('main', { args: ['--port', '8000'], env: [{ name: 'A', value: 'b' }] })] })],
  [
    'gang with cache and claimless leader',
    replica('r', {
      cache: 'qwen',
      engines: [
        engine('main', [member('Leader', { pool: 'head', labels: { a: 'b' } }), member('Worker', { requests: [gpu({ count: 8 })], workerNodes: 3 })], {
          copies: 2,
        }),
      ],
    }),
  ],
  [
    'prefill/decode',
    replica('r', {
      mode: 'PrefillDecode',
      engines: [
        engine('p', [member('Standalone', { requests: [gpu()] })], { phase: 'Prefill' }),
        engine('d', [member('Leader', { requests: [gpu()], args: ['--port=8001'] }), member('Worker', { requests: [gpu()] })], {
          phase: 'Decode',
        }),
      ],
    }),
  ],
];

function manifests(result: ComposeResult): [string, KubeObject][] {
  return Object.entries(result.resources).map(([k, d]) => [k, d.resource]);
}

function expectValidManifest(m: KubeObject): void {
  if (isCoreKind(m.apiVersion, m.kind)) expect(validateCore(m), `${m.kind} ${m.metadata?.name ?? ''}`).toStrictEqual([]);
  else expectValidAgainstCrd(m);
}

describe('compose-model-replica output validates against real schemas', () => {
  it.each(replicas)('%s', (_name, xr) => {
    const result = composeReplica(request(xr, { required: cluster }));
    const all = manifests(result);
    expect(all.length).toBeGreaterThan(8);
    for (const [, o] of all) {
      expectValidAgainstCrd(o);
      expectValidManifest((o['spec'] as { forProvider: { manifest: KubeObject } }).forProvider.manifest);
    }
  });
});

describe('compose-model-cache output validates against real schemas', () => {
  it('PVC, auth Secret and hydrate Job', () => {
    const xr: KubeObject = {
      apiVersion: 'modelplane.ai/v1alpha1',
      kind: 'ModelCache',
      metadata: { name: 'qwen', namespace: 'ml-team' },
      spec: { source: 'HuggingFace', huggingFace: { repo: 'Qwen/Qwen3-0.6B', revision: 'main', sizeGiB: 20, authSecret: { name: 'hf' } } },
    };
    const c = inferenceCluster('cluster-a');
    (c['status'] as Record<string, unknown>)['cache'] = { storageClassName: 'modelplane-rwx' };
    const token: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'hf', namespace: 'ml-team' }, data: { HF_TOKEN: 'eA==' } };
    const result = composeCache(request(xr, { required: { clusters: [c], 'auth-secret': [token] } }));
    const all = manifests(result);
    expect(all.map(([k]) => k).sort()).toStrictEqual(['auth-cluster-a', 'hydrate-cluster-a', 'pvc-cluster-a']);
    for (const [, o] of all) {
      expectValidAgainstCrd(o);
      expectValidManifest((o['spec'] as { forProvider: { manifest: KubeObject } }).forProvider.manifest);
    }
  });
});

describe('compose-model-endpoint output validates against the core schema', () => {
  it.each(['http://34.55.100.10/v1', 'https://api.together.xyz/v1', 'http://[2001:db8::1]/v1'])('%s', (url) => {
    const svc = observed({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc', namespace: 'ml-team' } });
    const result = composeEndpoint(request(modelEndpoint('e', { url }), { observed: { service: svc } }));
    expect(Object.keys(result.resources)).toStrictEqual(['service', 'endpointslice']);
    for (const [, m] of manifests(result)) expectValidManifest(m);
  });
});

describe('compose-model-service output validates against the HTTPRoute CRD', () => {
  it('weighted route with rewrites', () => {
    const result = composeService(
      request(modelService('s'), {
        required: {
          'inference-gateway': [inferenceGateway()],
          'endpoints-0': [
            modelEndpoint('a', { backendName: 'svc-a', rewritePath: '/ml-team/a/' }),
            modelEndpoint('b', { backendName: 'svc-b', url: 'https://api.groq.com/openai/v1' }),
          ],
        },
      }),
    );
    const [[, route]] = manifests(result) as [[string, KubeObject]];
    expectValidAgainstCrd(route);
  });
});

describe('the core validator is not vacuous', () => {
  it('reports unknown fields and wrong types', () => {
    expect(
      validateCore({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        spec: { replicas: '2', template: { spec: { containers: [{ name: 'x', bogus: 1 }] } } },
      } as KubeObject),
    ).toStrictEqual(['spec.replicas: expected number', 'spec.template.spec.containers[0].bogus: unknown field in V1Container']);
  });
});
