/**
 * Every object the platform functions compose validates against its real
 * schema: upstream CRDs under ../shared/crds (provider-helm Release and
 * ProviderConfig, provider-kubernetes Object, ProviderConfig and
 * ClusterProviderConfig, Crossplane Usage/ClusterUsage, Gateway API,
 * MetalLB), the manifests wrapped inside provider-kubernetes Objects
 * (EnvoyProxy, GatewayClass, Gateway, the GAIE CRDs' own kind is core), and
 * our XRDs for the nested XRs and the ServingStack. Each function is driven
 * to its fullest state (every gate open) so every kind it can emit is seen.
 */
import { describe, expect, it } from 'vitest';
import { compose as composeCluster } from '../../functions/compose-inference-cluster/compose.js';
import { compose as composeGateway } from '../../functions/compose-inference-gateway/compose.js';
import { compose as composeStack } from '../../functions/compose-serving-stack/compose.js';
import { compose as composeUsages } from '../../functions/compose-usages/compose.js';
import type { ComposeResult, JsonObject, KubeObject } from '../../functions/lib/function.js';
import { classes, cond, inferenceCluster, observed, pool, replica, request, requiredClasses } from '../builders/platform.js';
import { expectValidAgainstCrd } from '../helpers/crd.js';

/** Core Kubernetes kinds have no CRD under ../shared/crds (CustomResourceDefinition, Namespace, ResourceQuota). */
// Kubernetes' own kinds have no CRD here; the real API server validates them in the e2e suite (test/e2e).
const CORE = new Set([
  'v1/Namespace',
  'v1/ResourceQuota',
  'rbac.authorization.k8s.io/v1/ClusterRole',
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding',
  'v1/Service',
  'v1/ServiceAccount',
  'apps/v1/Deployment',
  'policy/v1/PodDisruptionBudget',
  'apiextensions.k8s.io/v1/CustomResourceDefinition',
]);

function check(objects: KubeObject[]): string[] {
  const kinds: string[] = [];
  for (const obj of objects) {
    const gvk = `${obj.apiVersion}/${obj.kind}`;
    kinds.push(gvk);
    if (CORE.has(gvk)) continue;
    expectValidAgainstCrd(obj);
    const manifest = (obj['spec'] as JsonObject | undefined)?.['forProvider'] as JsonObject | undefined;
    const wrapped = manifest?.['manifest'] as KubeObject | undefined;
    if (wrapped && !CORE.has(`${wrapped.apiVersion}/${wrapped.kind}`)) {
      expectValidAgainstCrd(wrapped);
      kinds.push(`wrapped ${wrapped.apiVersion}/${wrapped.kind}`);
    }
  }
  return [...new Set(kinds)].sort();
}

const resources = (r: ComposeResult) => Object.values(r.resources).map((d) => d.resource);

function fullStack(): ComposeResult {
  const xr: KubeObject = {
    apiVersion: 'infrastructure.modelplane.ai/v1alpha1',
    kind: 'ServingStack',
    metadata: { name: 'test-backend', namespace: 'test-ns' },
    spec: {
      secrets: [
        { type: 'Kubeconfig', name: 'kube-secret', key: 'kubeconfig' },
        { type: 'NebiusServiceAccountCredentials', name: 'nc', key: 'credentials.json', namespace: 'crossplane-system' },
      ],
      nvidiaDriverRoot: '/home/kubernetes/bin/nvidia',
    },
  };
  const stub = (apiVersion: string): KubeObject => ({ apiVersion, kind: 'ProviderConfig', metadata: { name: 'x' } });
  const first = composeStack(
    request(xr, {
      observed: {
        'provider-config-kubernetes': observed(stub('kubernetes.m.crossplane.io/v1alpha1')),
        'provider-config-helm': observed(stub('helm.m.crossplane.io/v1beta1')),
      },
    }),
  );
  const usages = composeUsages(request(xr, { desired: first.resources }));
  return { ...first, resources: { ...first.resources, ...usages.resources } };
}

describe('composed objects validate against their real CRDs', () => {
  it('ServingStack + usages: Releases, Objects (and their manifests), ProviderConfigs, Usages', () => {
    expect(check(resources(fullStack()))).toEqual([
      'helm.m.crossplane.io/v1beta1/ProviderConfig',
      'helm.m.crossplane.io/v1beta1/Release',
      'kubernetes.m.crossplane.io/v1alpha1/Object',
      'kubernetes.m.crossplane.io/v1alpha1/ProviderConfig',
      'protection.crossplane.io/v1beta1/Usage',
      'wrapped gateway.envoyproxy.io/v1alpha1/EnvoyProxy',
      'wrapped gateway.networking.k8s.io/v1/Gateway',
      'wrapped gateway.networking.k8s.io/v1/GatewayClass',
      'wrapped gateway.networking.k8s.io/v1/HTTPRoute',
    ]);
  });

  it('InferenceGateway with MetalLB, every gate open', () => {
    const xr: KubeObject = {
      apiVersion: 'modelplane.ai/v1alpha1',
      kind: 'InferenceGateway',
      metadata: { name: 'default' },
      spec: { backend: 'Traefik', traefik: { version: '40.2.0', loadBalancer: 'MetalLB', metallb: { addressPool: '10.0.0.1-10.0.0.9' } } },
    };
    const seen = (o: KubeObject) => observed(o, {}, [cond('Ready'), cond('Established'), cond('Accepted')]);
    const first = composeGateway(request(xr));
    const all = Object.fromEntries(Object.entries(first.resources).map(([k, d]) => [k, seen(d.resource)]));
    const stub: KubeObject = { apiVersion: 'helm.m.crossplane.io/v1beta1', kind: 'Release', metadata: { name: 'x' } };
    const full = composeGateway(request(xr, { observed: { ...all, metallb: seen(stub), traefik: seen(stub) } }));
    expect(Object.keys(full.resources).length).toBe(27);
    expect(check(resources(full))).toEqual([
      'apiextensions.k8s.io/v1/CustomResourceDefinition',
      'apps/v1/Deployment',
      'gateway.networking.k8s.io/v1/Gateway',
      'gateway.networking.k8s.io/v1/GatewayClass',
      'helm.m.crossplane.io/v1beta1/ProviderConfig',
      'helm.m.crossplane.io/v1beta1/Release',
      'metallb.io/v1beta1/IPAddressPool',
      'metallb.io/v1beta1/L2Advertisement',
      'policy/v1/PodDisruptionBudget',
      'protection.crossplane.io/v1beta1/Usage',
      'rbac.authorization.k8s.io/v1/ClusterRole',
      'rbac.authorization.k8s.io/v1/ClusterRoleBinding',
      'v1/Namespace',
      'v1/Service',
      'v1/ServiceAccount',
    ]);
  });

  const ready = (kind: string, secrets: JsonObject[]) =>
    observed({ apiVersion: 'infrastructure.modelplane.ai/v1alpha1', kind, metadata: { name: 'x' } }, { secrets }, [cond('Ready')]);
  const kube = { type: 'Kubeconfig', name: 'k', key: 'kubeconfig' };
  const clusterCases: { name: string; cluster: JsonObject; pools: JsonObject[]; cls: KubeObject; key: string; secrets: JsonObject[] }[] = [
    { name: 'GKE', cluster: { source: 'GKE', gke: { region: 'r' } }, pools: [pool('p', 'gpu-l4', { zones: ['z'] })], cls: classes.gkeL4(), key: 'gke-cluster', secrets: [kube, { type: 'GoogleApplicationCredentials', name: 's', key: 'k' }] },
    { name: 'EKS', cluster: { source: 'EKS', eks: { region: 'r' } }, pools: [pool('p', 'gpu-l4-eks', { zones: ['z'], fabric: { type: 'EFA' }, capacityBlock: { capacityReservationId: 'cr-0a' } })], cls: classes.eksL4(), key: 'eks-cluster', secrets: [kube] },
    { name: 'AKS', cluster: { source: 'AKS', aks: { location: 'l' } }, pools: [pool('p', 'gpu-h100-aks', { zones: ['1'], fabric: { type: 'InfiniBand' } })], cls: classes.aksH100(), key: 'aks-cluster', secrets: [kube] },
    { name: 'Nebius', cluster: { source: 'Nebius', nebius: {} }, pools: [pool('p', 'gpu-h100-nebius', { minNodeCount: 1, fabric: { type: 'InfiniBand', infiniband: { fabric: 'fabric-2' } } })], cls: classes.nebiusH100(), key: 'nebius-cluster', secrets: [kube, { type: 'NebiusServiceAccountCredentials', name: 'n', key: 'c', namespace: 'crossplane-system' }] },
    { name: 'Vultr', cluster: { source: 'Vultr', vultr: { region: 'ewr' } }, pools: [pool('p', 'gpu-l40s-vultr')], cls: classes.vultrL40s(), key: 'vultr-cluster', secrets: [kube] },
  ];

  it.each(clusterCases)('InferenceCluster $name Ready: nested XR, ServingStack, ProviderConfig, Usages', (c) => {
    const out = composeCluster(
      request(inferenceCluster(c.cluster, c.pools), {
        required: { ...requiredClasses(c.cls), 'model-replicas': [replica('a', 'r')] },
        observed: { [c.key]: ready(c.cls.kind, c.secrets) },
      }),
    );
    expect(check(resources(out))).toEqual(
      [
        `infrastructure.modelplane.ai/v1alpha1/${c.name}Cluster`,
        'infrastructure.modelplane.ai/v1alpha1/ServingStack',
        'kubernetes.m.crossplane.io/v1alpha1/ClusterProviderConfig',
        'kubernetes.m.crossplane.io/v1alpha1/Object',
        'protection.crossplane.io/v1beta1/ClusterUsage',
        'protection.crossplane.io/v1beta1/Usage',
      ].sort(),
    );
  });

  it.each([
    { name: 'EKS', cluster: { source: 'EKS', eks: { region: 'r' } }, zones: { zones: ['z'] }, key: 'eks-cluster', cls: classes.aksH100 },
    { name: 'GKE', cluster: { source: 'GKE', gke: { region: 'r' } }, zones: { zones: ['z'] }, key: 'gke-cluster', cls: classes.aksH100 },
    {
      name: 'AKS',
      cluster: { source: 'AKS', aks: { location: 'l' } },
      zones: { zones: ['1'], fabric: { type: 'InfiniBand' } },
      key: 'aks-cluster',
      cls: classes.eksL4,
    },
    {
      name: 'Nebius',
      cluster: { source: 'Nebius', nebius: {} },
      zones: { minNodeCount: 1, fabric: { type: 'InfiniBand', infiniband: { fabric: 'f' } } },
      key: 'nebius-cluster',
      cls: classes.eksL4,
    },
    { name: 'Vultr', cluster: { source: 'Vultr', vultr: { region: 'ewr' } }, zones: {}, key: 'vultr-cluster', cls: classes.aksH100 },
  ])('InferenceCluster $name with a pool whose class lacks the cloud block: the nested XR is valid', (c) => {
    const cls = c.cls();
    const out = composeCluster(
      request(inferenceCluster(c.cluster, [pool('other', String(cls.metadata?.name), c.zones)]), { required: requiredClasses(cls) }),
    );
    expect(Object.keys(out.resources)).toEqual([c.key]);
    expect(check(resources(out))).toEqual([`infrastructure.modelplane.ai/v1alpha1/${c.name}Cluster`]);
  });
});
