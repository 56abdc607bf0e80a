/**
 * The cloud XRDs and InferenceCluster as the API server applies them (our
 * schema validator: OpenAPI, defaults, CEL rules): a pool name that is not a
 * Kubernetes label value is refused everywhere; a GKE/AKS/Nebius pool may
 * omit its shape only with `className` (the InferenceCluster passes a pool
 * whose class lacks the cloud's block that way); and `status.capabilities`
 * is one block, identical in all six XRDs, whose RWX cache entry is either a
 * name or a reason.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { JsonObject, KubeObject } from '../../functions/lib/function.js';
import { formatFieldError } from '../../functions/lib/schema/index.js';
import { aksPool, aksXr, eksXr, gkePool, gkeXr, nebiusPool, nebiusXr, poolA, poolL40s, vultrXr } from '../builders/cloud.js';
import { apisDir, validateAgainstCrd } from '../helpers/crd.js';

const errors = (obj: KubeObject) => validateAgainstCrd(obj).errors.map(formatFieldError);
const LABEL_MESSAGE =
  "name must be a Kubernetes label value (letters, digits, '-', '_' or '.', beginning and ending with a letter or digit).";

const clouds: { kind: string; xr: (pools: JsonObject[]) => KubeObject; pool: () => JsonObject; shape: string[] }[] = [
  { kind: 'EKSCluster', xr: (p) => eksXr(p), pool: poolA, shape: ['instanceType'] },
  { kind: 'GKECluster', xr: (p) => gkeXr(p), pool: () => gkePool('gpu-pool', { zones: ['us-central1-a'] }), shape: ['machineType'] },
  { kind: 'NebiusCluster', xr: (p) => nebiusXr(p), pool: () => nebiusPool(), shape: ['platform', 'preset'] },
  { kind: 'VultrCluster', xr: (p) => vultrXr(p), pool: () => poolL40s(), shape: ['plan'] },
];

describe('cloud XRD pool rules', () => {
  it.each(clouds)('$kind: a valid pool passes; a name that is not a label value is refused with the rule message', ({ xr, pool }) => {
    expect(errors(xr([pool()]))).toEqual([]);
    expect(errors(xr([{ ...pool(), name: 'gpu pool' }]))).toEqual([`spec.nodePools[0].name: Invalid value: "string": ${LABEL_MESSAGE}`]);
    expect(errors(xr([{ ...pool(), name: 'gpu.l4_a-1' }]))).toEqual([]);
  });

  it.each(clouds)('$kind: without its shape, a pool needs className', ({ xr, pool, shape }) => {
    const bare = pool();
    for (const f of [...shape, 'gpu']) delete bare[f];
    expect(errors(xr([{ ...bare, className: 'some-class' }]))).toEqual([]);
    expect(errors(xr([bare])).length).toBeGreaterThan(0);
  });

  it('AKS: pool names keep the reference pattern; a pool without vmSize needs className', () => {
    expect(errors(aksXr([aksPool('gpuh100')]))).toEqual([]);
    expect(errors(aksXr([aksPool('GPU')]))).toEqual(['spec.nodePools[0].name: Invalid value: "GPU": spec.nodePools[0].name in body should match \'^[a-z][a-z0-9]{0,11}$\'']);
    const { vmSize: _v, gpu: _g, ...bare } = aksPool('gpuh100');
    expect(errors(aksXr([{ ...bare, className: 'c' }]))).toEqual([]);
    expect(errors(aksXr([bare]))).toEqual([
      'spec.nodePools[0]: Invalid value: "object": vmSize is required unless className names the InferenceClass the pool comes from.',
      'spec.nodePools[0]: Invalid value: "object": gpu is required when role is GPU, unless className names a class without an AKS VM size (the pool is then reported, not composed).',
    ]);
  });

  it('InferenceCluster: a pool name that is not a label value is refused', () => {
    const ic = (name: string): KubeObject => ({
      apiVersion: 'modelplane.ai/v1alpha1',
      kind: 'InferenceCluster',
      metadata: { name: 'c' },
      spec: { cluster: { source: 'GKE', gke: { region: 'us-central1' } }, nodePools: [{ name, className: 'k', zones: ['z'] }] },
    });
    expect(errors(ic('gpu-l4'))).toEqual([]);
    expect(errors(ic('gpu_l4!'))).toEqual([`spec.nodePools[0].name: Invalid value: "string": ${LABEL_MESSAGE}`]);
  });
});

describe('status.capabilities', () => {
  const plurals = ['eksclusters', 'gkeclusters', 'aksclusters', 'nebiusclusters', 'vultrclusters', 'inferenceclusters'];
  const schemaOf = (plural: string) => {
    const xrd = parse(readFileSync(join(apisDir, plural, 'definition.yaml'), 'utf8')) as JsonObject;
    const v = ((xrd['spec'] as JsonObject)['versions'] as JsonObject[])[0]!;
    const status = ((v['schema'] as JsonObject)['openAPIV3Schema'] as JsonObject)['properties'] as JsonObject;
    return ((status['status'] as JsonObject)['properties'] as JsonObject)['capabilities'];
  };

  it('is the same block in all six XRDs', () => {
    const first = schemaOf(plurals[0]!);
    expect(first).toBeDefined();
    for (const p of plurals.slice(1)) expect(schemaOf(p), p).toEqual(first);
  });

  it('takes a name or a reason, never both or neither', () => {
    const withCaps = (rwx: JsonObject): KubeObject => ({
      ...eksXr(),
      status: { capabilities: { rwxCacheStorageClass: rwx, multiNodeFabric: 'EFA', nodeAutoscaling: 'ClusterAutoscaler', gpuStack: 'Composed' } },
    });
    expect(errors(withCaps({ name: 'modelplane-rwx-efs' }))).toEqual([]);
    expect(errors(withCaps({ reason: 'none here' }))).toEqual([]);
    const both = 'status.capabilities.rwxCacheStorageClass: Invalid value: "object": exactly one of name and reason is set.';
    expect(errors(withCaps({ name: 'a', reason: 'b' }))).toEqual([both]);
    expect(errors(withCaps({}))).toEqual([both]);
  });

  it('lists the values of each field', () => {
    const caps = schemaOf('gkeclusters') as { properties: Record<string, { enum?: string[] }> };
    expect([caps.properties['multiNodeFabric']!.enum, caps.properties['nodeAutoscaling']!.enum, caps.properties['gpuStack']!.enum]).toEqual([
      ['EFA', 'InfiniBand', 'Ethernet', 'None'],
      ['ClusterAutoscaler', 'Provider', 'None'],
      ['Composed', 'PreinstalledAndGated'],
    ]);
  });
});

describe('kubectl get inferenceclusters -o wide', () => {
  it('shows the capabilities in priority-1 columns (only with -o wide), after SOURCE and GATEWAY', () => {
    const xrd = parse(readFileSync(join(apisDir, 'inferenceclusters', 'definition.yaml'), 'utf8')) as JsonObject;
    const v = ((xrd['spec'] as JsonObject)['versions'] as JsonObject[])[0]!;
    const columns = (v['additionalPrinterColumns'] as JsonObject[]).map((c) => [c['name'], c['jsonPath'], c['priority'] ?? 0]);
    expect(columns).toEqual([
      ['SOURCE', '.spec.cluster.source', 0],
      ['GATEWAY', '.status.gateway.address', 0],
      ['HEALTH', '.status.health.state', 0],
      ['SINCE', '.status.health.since', 0],
      ['CACHE', '.status.capabilities.rwxCacheStorageClass.name', 1],
      ['FABRIC', '.status.capabilities.multiNodeFabric', 1],
      ['AUTOSCALING', '.status.capabilities.nodeAutoscaling', 1],
      ['GPU-STACK', '.status.capabilities.gpuStack', 1],
    ]);
  });
});
