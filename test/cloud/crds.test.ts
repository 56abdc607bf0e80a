/**
 * Every object the five cloud functions compose is valid against its real
 * CRD under ../shared/crds (provider-aws/-gcp/-azure v2.6.0, provider-nebius
 * v1.0.1, provider-vultr v1.0.0, provider-helm v1.4.0, provider-kubernetes
 * v1.3.0):
 * OpenAPI types, unknown fields, and the CRDs' CEL rules. The requests cover
 * every shape: all gates open, capacity-block + EFA, System and fixed pools,
 * named credentials.
 */
import { describe, expect, it } from 'vitest';
import { compose as composeEks } from '../../functions/compose-eks-cluster/compose.js';
import { compose as composeAks } from '../../functions/compose-aks-cluster/compose.js';
import { compose as composeNebius } from '../../functions/compose-nebius-cluster/compose.js';
import { compose as composeGke } from '../../functions/compose-gke-cluster/compose.js';
import { compose as composeVultr } from '../../functions/compose-vultr-cluster/compose.js';
import type { ComposeResult, KubeObject } from '../../functions/lib/function.js';
import {
  aksPool,
  aksXr,
  eksPool,
  eksXr,
  gcpProviderConfig,
  gkePool,
  gkeXr,
  NS,
  nebiusPool,
  nebiusProviderConfig,
  nebiusXr,
  poolA,
  poolH200,
  poolL40s,
  request,
  seen,
  vultrPool,
  vultrXr,
} from '../builders/cloud.js';
import { formatFieldError } from '../../functions/lib/schema/index.js';
import { validateAgainstCrd } from '../helpers/crd.js';

function errorsOf(obj: KubeObject): string[] {
  return validateAgainstCrd(obj).errors.map(formatFieldError);
}

const EKS = 'eks.aws.m.upbound.io/v1beta1';

function eksEverything(): ComposeResult {
  const xr = eksXr(
    [
      poolA(),
      poolH200({ fabric: 'EFA', capacityBlock: { capacityReservationId: 'cr-0123456789abcdef0' } }),
      eksPool('cpu', { role: 'System', instanceType: 'm6i.2xlarge', gpu: undefined }),
    ],
    { credentials: { type: 'ProviderConfig', name: 'my-aws-account' } },
  );
  return composeEks(
    request(xr, {
      cluster: seen(EKS, 'Cluster', { ready: true, status: { atProvider: { vpcConfig: { clusterSecurityGroupId: 'sg-0cluster' } } } }),
      'efa-security-group': seen('ec2.aws.m.upbound.io/v1beta1', 'SecurityGroup', { externalName: 'sg-0efa' }),
      'efs-filesystem': seen('efs.aws.m.upbound.io/v1beta1', 'FileSystem', { externalName: 'fs-0abc123' }),
    }),
  );
}

function vultrEverything(): ComposeResult {
  const xr = vultrXr(
    [
      poolL40s(),
      vultrPool('fixed', { plan: 'vcg-a16-6c-64g-16vram', nodeCount: 2 }),
      { name: 'workers', role: 'System', plan: 'vc2-6c-16gb', nodeCount: 2, minNodeCount: 2, maxNodeCount: 5 },
    ],
    { credentials: { type: 'ProviderConfig', name: 'my-vultr' } },
  );
  return composeVultr(request(xr, { cluster: seen('vke.vultr.m.upbound.io/v1beta1', 'Kubernetes', { ready: true }) }));
}

function gkeEverything(): ComposeResult {
  const xr = gkeXr(
    [
      gkePool('gpu-pool', { zones: ['us-central1-a', 'us-central1-c'] }),
      { name: 'cpu', role: 'System', machineType: 'n2-standard-8' },
    ],
    { credentials: { type: 'ProviderConfig', name: 'my-gcp-account' } },
  );
  return composeGke(
    request(
      xr,
      {
        'service-account': seen('cloudplatform.gcp.m.upbound.io/v1beta1', 'ServiceAccount', {
          status: { atProvider: { email: 'sa@my-gcp-project.iam.gserviceaccount.com' } },
        }),
        network: seen('compute.gcp.m.upbound.io/v1beta1', 'Network', { externalName: 'test-cluster-abc12' }),
      },
      { 'gcp-provider-config': [gcpProviderConfig({ kind: 'ProviderConfig', name: 'my-gcp-account', namespace: NS })] },
    ),
  );
}

function aksEverything(): ComposeResult {
  const xr = aksXr(
    [
      aksPool('gpuh100', { fabric: 'InfiniBand', zones: ['1', '2'] }),
      { name: 'cpu', role: 'System', vmSize: 'Standard_D8s_v5' },
    ],
    { credentials: { type: 'ProviderConfig', name: 'my-azure-account' } },
  );
  return composeAks(request(xr, { cluster: seen('containerservice.azure.m.upbound.io/v1beta1', 'KubernetesCluster', { ready: true }) }));
}

function nebiusEverything(): ComposeResult {
  const ibf = { type: 'InfiniBand', infiniband: { fabric: 'fabric-2' } };
  const xr = nebiusXr(
    [
      nebiusPool('gpu-h100', { fabric: ibf, minNodeCount: 1 }),
      nebiusPool('fixed', { nodeCount: 2, maxNodeCount: undefined, fabric: ibf }),
      { name: 'cpu', role: 'System', platform: 'cpu-d3', preset: '8vcpu-32gb' },
    ],
    { credentials: { type: 'ProviderConfig', name: 'my-nebius-account' } },
  );
  return composeNebius(
    request(
      xr,
      { cluster: seen('mk8s.nebius.m.upbound.io/v1beta1', 'Cluster', { ready: true }) },
      { 'nebius-provider-config': [nebiusProviderConfig({ kind: 'ProviderConfig', name: 'my-nebius-account', namespace: 'crossplane-system' })] },
    ),
  );
}

/** Kinds of the Kubernetes core API (no CRD under ../shared/crds). */
const isCore = (obj: KubeObject) => obj.apiVersion === 'v1';

describe('composed objects against their CRDs', () => {
  const eks = eksEverything();
  const vultr = vultrEverything();
  const gke = gkeEverything();
  const aks = aksEverything();
  const nebius = nebiusEverything();

  it('covers every key shape: EKS 59, GKE 13, AKS 10, Nebius 14, Vultr 6', () => {
    const counts = [eks, gke, aks, nebius, vultr].map((r) => Object.keys(r.resources).length);
    expect(counts).toEqual([59, 13, 10, 14, 6]);
  });

  it.each(Object.keys(nebius.resources).filter((k) => !isCore(nebius.resources[k]!.resource)).sort())('Nebius %s', (key) => {
    expect(errorsOf(nebius.resources[key]!.resource)).toEqual([]);
  });

  it('the only core kind composed is the Nebius cloud-init Secret', () => {
    const core = [eks, gke, aks, nebius, vultr].flatMap((r) => Object.entries(r.resources).filter(([, d]) => isCore(d.resource)).map(([k]) => k));
    expect(core).toEqual(['cloud-init']);
  });

  it.each(Object.keys(aks.resources).sort())('AKS %s', (key) => {
    expect(errorsOf(aks.resources[key]!.resource)).toEqual([]);
  });

  it.each(Object.keys(gke.resources).sort())('GKE %s', (key) => {
    expect(errorsOf(gke.resources[key]!.resource)).toEqual([]);
  });

  it.each(Object.keys(eks.resources).sort())('EKS %s', (key) => {
    expect(errorsOf(eks.resources[key]!.resource)).toEqual([]);
  });

  it.each(Object.keys(vultr.resources).sort())('Vultr %s', (key) => {
    expect(errorsOf(vultr.resources[key]!.resource)).toEqual([]);
  });
});
