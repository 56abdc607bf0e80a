/**
 * compose-usages: docs/kinds/servingstack.md#providerconfig-protection (cases
 * US-1 … US-3) plus the key collision warning, as whole-response tables.
 */
import { describe, expect, it } from 'vitest';
import { compose } from '../../functions/compose-usages/compose.js';
import type { ComposeRequest, ComposeResult, DesiredResource, KubeObject } from '../../functions/lib/function.js';
import { request, withFirstHealth } from '../builders/platform.js';

interface Case {
  name: string;
  reason: string;
  req: () => ComposeRequest;
  want: ComposeResult;
}

const HELM = 'helm.m.crossplane.io/v1beta1';
const K8S = 'kubernetes.m.crossplane.io/v1alpha1';
const xr = (namespace?: string): KubeObject => ({
  apiVersion: 'infrastructure.modelplane.ai/v1alpha1',
  kind: 'ServingStack',
  metadata: { name: 'test', ...(namespace ? { namespace } : {}) },
  spec: {},
});
const releaseObj = (labels?: Record<string, string>): KubeObject => ({
  apiVersion: HELM,
  kind: 'Release',
  ...(labels ? { metadata: { labels } } : {}),
  spec: { providerConfigRef: { kind: 'ProviderConfig', name: 'test-cluster' }, forProvider: { chart: { name: 'x' } } },
});
const namespaceObj = (labels?: Record<string, string>): KubeObject => ({
  apiVersion: K8S,
  kind: 'Object',
  ...(labels ? { metadata: { labels } } : {}),
  spec: {
    providerConfigRef: { kind: 'ProviderConfig', name: 'test-cluster' },
    forProvider: { manifest: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' } } },
  },
});
const configMap: KubeObject = {
  apiVersion: K8S,
  kind: 'Object',
  spec: { forProvider: { manifest: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } } },
};
const pcHelm: KubeObject = {
  apiVersion: HELM,
  kind: 'ProviderConfig',
  metadata: { name: 'test-cluster' },
  spec: { credentials: { source: 'InjectedIdentity' } },
};
const usageFor = (key: string, apiVersion: string, kind: string): DesiredResource => ({
  resource: {
    apiVersion: 'protection.crossplane.io/v1beta1',
    kind: 'Usage',
    metadata: { namespace: 'test-ns' },
    spec: {
      of: { apiVersion, kind: 'ProviderConfig', resourceRef: { name: 'test-cluster' } },
      by: {
        apiVersion,
        kind,
        resourceSelector: { matchControllerRef: true, matchLabels: { 'modelplane.ai/usage-consumer': key } },
      },
      replayDeletion: true,
    },
  },
  ready: true,
});
const us1Desired = (): Record<string, DesiredResource> => ({
  'cert-manager': { resource: releaseObj() },
  'gateway-namespace': { resource: namespaceObj(), ready: true },
  prometheus: { resource: releaseObj({ existing: 'keep' }) },
  'config-map': { resource: configMap },
  'provider-config-helm': { resource: pcHelm, ready: true },
});

const cases: Case[] = [
  {
    name: 'US-1 consumers get a Usage each',
    reason: 'Releases and Objects with a providerConfigRef are labelled and protected; others untouched',
    req: () => request(xr('test-ns'), { desired: us1Desired() }),
    want: {
      resources: {
        'cert-manager': { resource: releaseObj({ 'modelplane.ai/usage-consumer': 'cert-manager' }) },
        'gateway-namespace': {
          resource: namespaceObj({ 'modelplane.ai/usage-consumer': 'gateway-namespace' }),
          ready: true,
        },
        prometheus: { resource: releaseObj({ existing: 'keep', 'modelplane.ai/usage-consumer': 'prometheus' }) },
        'usage-pc-cert-manager': usageFor('cert-manager', HELM, 'Release'),
        'usage-pc-gateway-namespace': usageFor('gateway-namespace', K8S, 'Object'),
        'usage-pc-prometheus': usageFor('prometheus', HELM, 'Release'),
      },
      conditions: [],
      results: [],
      requirements: {},
    },
  },
  {
    name: 'US-2 no namespace',
    reason: 'without an XR namespace the desired state passes through unchanged',
    req: () => request(xr(), { desired: { 'cert-manager': { resource: releaseObj() } } }),
    want: { resources: {}, conditions: [], results: [], requirements: {} },
  },
  {
    name: 'US-3 only a ProviderConfig',
    reason: 'a ProviderConfig is not a consumer',
    req: () => request(xr('test-ns'), { desired: { 'provider-config-helm': { resource: pcHelm, ready: true } } }),
    want: { resources: {}, conditions: [], results: [], requirements: {} },
  },
  {
    name: 'Usage key already taken',
    reason: 'an existing usage-pc-<key> is never overwritten and its consumer is left unlabelled',
    req: () =>
      request(xr('test-ns'), {
        desired: { 'cert-manager': { resource: releaseObj() }, 'usage-pc-cert-manager': { resource: pcHelm } },
      }),
    want: {
      resources: {},
      conditions: [],
      results: [{ severity: 'Warning', message: "cannot compose Usage: desired resource 'usage-pc-cert-manager' already exists" }],
      requirements: {},
    },
  },
  {
    name: 'consumer unreadable, Usage observed',
    reason: 'a consumer still desired whose apiVersion and kind are garbage keeps its composed Usage as it is, with a Warning naming the fields, never a throw (the fuzz run)',
    req: () =>
      request(xr('test-ns'), {
        desired: { 'cert-manager': { resource: { ...releaseObj(), apiVersion: 7 as unknown as string, kind: 'Release\u0000' } } },
        observed: { 'usage-pc-cert-manager': { resource: { ...usageFor('cert-manager', HELM, 'Release').resource, status: { conditions: [] } }, connectionDetails: {} } },
      }),
    want: {
      resources: { 'usage-pc-cert-manager': usageFor('cert-manager', HELM, 'Release') },
      conditions: [],
      results: [
        {
          severity: 'Warning',
          message:
            "Usage 'usage-pc-cert-manager' is kept as it is: desired resource 'cert-manager' no longer reads as a ProviderConfig consumer (apiVersion <number>, kind \"Release\\u0000\", spec.providerConfigRef.name \"test-cluster\")",
        },
      ],
      requirements: {},
    },
  },
  {
    name: 'consumer gone, Usage observed',
    reason: 'a consumer no longer desired takes its Usage with it',
    req: () =>
      request(xr('test-ns'), {
        desired: { 'provider-config-helm': { resource: pcHelm, ready: true } },
        observed: { 'usage-pc-cert-manager': { resource: usageFor('cert-manager', HELM, 'Release').resource, connectionDetails: {} } },
      }),
    want: { resources: {}, conditions: [], results: [], requirements: {} },
  },
];

describe('compose-usages (§13.5)', () => {
  it.each(cases)('$name', ({ req, want }) => {
    expect(compose(req())).toStrictEqual(withFirstHealth(want));
  });
});
