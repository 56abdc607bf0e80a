/**
 * functions/lib/objects.ts: the provider-helm Release builder, whole objects,
 * each valid against provider-helm's real Release CRD.
 */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../functions/lib/function.js';
import { helmRelease, type ReleaseOptions } from '../../functions/lib/objects.js';
import { expectValidAgainstCrd } from '../helpers/crd.js';

const base = (): ReleaseOptions => ({
  namespace: 'team-a',
  chart: { name: 'cluster-autoscaler', repository: 'https://kubernetes.github.io/autoscaler', version: '9.57.0' },
  targetNamespace: 'kube-system',
  providerConfigRef: { kind: 'ProviderConfig', name: 'kubeconfig' },
});

const release = (
  spec: Record<string, unknown>,
  annotations?: Record<string, string>,
  forProvider: Record<string, unknown> = {},
): KubeObject => ({
  apiVersion: 'helm.m.crossplane.io/v1beta1',
  kind: 'Release',
  metadata: { namespace: 'team-a', ...(annotations ? { annotations } : {}) },
  spec: {
    providerConfigRef: { kind: 'ProviderConfig', name: 'kubeconfig' },
    forProvider: {
      chart: { name: 'cluster-autoscaler', repository: 'https://kubernetes.github.io/autoscaler', version: '9.57.0' },
      namespace: 'kube-system',
      ...forProvider,
    },
    ...spec,
  },
});

const cases: { name: string; reason: string; opts: () => ReleaseOptions; want: KubeObject }[] = [
  {
    name: 'defaults',
    reason: 'no values, no release name, no management policies: all omitted (provider-helm defaults apply)',
    opts: base,
    want: release({}),
  },
  {
    name: 'management policies',
    reason: 'Observe/Create/Update orphans the release on deletion; written as given',
    opts: () => ({ ...base(), managementPolicies: ['Observe', 'Create', 'Update'] }),
    want: release({ managementPolicies: ['Observe', 'Create', 'Update'] }),
  },
  {
    name: 'values and release name',
    reason: 'values under forProvider; the release name is the external name',
    opts: () => ({ ...base(), values: { replicaCount: 1 }, releaseName: 'autoscaler' }),
    want: release({}, { 'crossplane.io/external-name': 'autoscaler' }, { values: { replicaCount: 1 } }),
  },
];

describe('helmRelease', () => {
  it.each(cases)('$name', ({ opts, want }) => {
    const got = helmRelease(opts());
    expect(got).toStrictEqual(want);
    expectValidAgainstCrd(got);
  });

  it('copies the policies (no shared arrays)', () => {
    const policies: ReleaseOptions['managementPolicies'] = ['Observe'];
    const got = helmRelease({ ...base(), managementPolicies: policies });
    policies.push('Delete');
    expect((got['spec'] as { managementPolicies: string[] }).managementPolicies).toEqual(['Observe']);
  });
});
