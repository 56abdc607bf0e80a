import { describe, expect, it } from 'vitest';
import { formatFieldError } from '../../functions/lib/schema/index.js';
import { crdRegistry, expectValidAgainstCrd, validateAgainstCrd } from '../helpers/crd.js';

const route = {
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'HTTPRoute',
  metadata: { name: 'qwen', namespace: 'default' },
  spec: {
    parentRefs: [{ name: 'inference-gateway', namespace: 'modelplane-system' }],
    rules: [
      {
        matches: [{ path: { type: 'PathPrefix', value: '/default/qwen' } }],
        backendRefs: [{ name: 'qwen', port: 8000 }],
      },
    ],
  },
};

describe('CRD registry over ../shared/crds and apis/', () => {
  it('finds upstream kinds and our XRs', () => {
    const r = crdRegistry();
    expect(r.lookup('eks.aws.m.upbound.io/v1beta1', 'Cluster')?.scope).toBe('Namespaced');
    expect(r.lookup('gcp.m.upbound.io/v1beta1', 'ClusterProviderConfig')?.scope).toBe('Cluster');
    expect(r.lookup('modelplane.ai/v1alpha1', 'InferenceClass')?.plural).toBe('inferenceclasses');
    expect(r.lookup('apps/v1', 'Deployment')).toBeUndefined();
    expect(() => validateAgainstCrd({ apiVersion: 'apps/v1', kind: 'Deployment' })).toThrow('no CRD or XRD for apps/v1 Deployment');
  });

  it('validates a composed HTTPRoute, with its CEL rules and defaults', () => {
    expectValidAgainstCrd(route);
    const r = validateAgainstCrd(route);
    expect(r.skippedRules).toEqual([]);
    const rule = (r.value as typeof route).spec.rules[0] as Record<string, unknown>;
    expect(rule['matches']).toEqual([{ path: { type: 'PathPrefix', value: '/default/qwen' } }]);
    expect((r.value as typeof route).spec.parentRefs[0]).toEqual({
      name: 'inference-gateway',
      namespace: 'modelplane-system',
      group: 'gateway.networking.k8s.io',
      kind: 'Gateway',
    });
  });

  it('rejects unknown fields and broken rules in a composed resource', () => {
    const bad = structuredClone(route) as unknown as { spec: Record<string, unknown> & { rules: Array<Record<string, unknown>> } };
    bad.spec['hostname'] = 'x';
    bad.spec.rules[0]!['matches'] = [{ path: { type: 'PathPrefix', value: 'no-slash' } }];
    expect(validateAgainstCrd(bad).errors.map(formatFieldError)).toEqual([
      'spec.rules[0].matches[0].path: Invalid value: "object": value must be an absolute path and start with \'/\' when type one of [\'Exact\', \'PathPrefix\']',
      'spec.hostname: field not declared in schema',
    ]);
  });

  it('accepts metadata.namespace on a cluster-scoped provider config and drops it', () => {
    const pc = {
      apiVersion: 'helm.m.crossplane.io/v1beta1',
      kind: 'ClusterProviderConfig',
      metadata: { name: 'workload', namespace: 'crossplane-system' },
      spec: { credentials: { source: 'Secret', secretRef: { namespace: 'modelplane-system', name: 'kc', key: 'kubeconfig' } } },
    };
    const r = validateAgainstCrd(pc);
    expect(r.errors).toEqual([]);
    expect((r.value as typeof pc).metadata).toEqual({ name: 'workload' });
  });
});
