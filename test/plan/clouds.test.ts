/**
 * `modelplane plan` across every cloud: the bundled examples/multi-cloud/
 * (one cluster on each of EKS, GKE, AKS, Nebius, Vultr and Existing) and,
 * for GKE, AKS and Nebius, a fleet written as the reference's documentation
 * writes it (its InferenceClusters and
 * InferenceClasses, unchanged, with the provider config the getting-started
 * creates) plans to Ready with replicas placed.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../cli/functions.js';
import { plan, type PlanResult } from '../../cli/plan/planner.js';
import { buildReport, type PlanReport } from '../../cli/plan/report.js';
import { formatText } from '../../cli/plan/text.js';
import type { JsonObject } from '../../functions/lib/function.js';

describe('plan examples/multi-cloud', () => {
  let result: PlanResult;
  let report: PlanReport;
  beforeAll(async () => {
    result = await plan([join(REPO_ROOT, 'examples/multi-cloud')]);
    report = buildReport(result);
  });

  it('converges with nothing invalid, skipped or failed', () => {
    expect([report.converged, report.invalid, result.skipped, result.errors]).toEqual([true, [], [], {}]);
  });

  it('brings the six clusters up Ready, each publishing its capabilities', () => {
    const rows = report.clusters.map((c) => [c.name, c.source, c.ready, c.capabilities]);
    expect(rows).toEqual([
      ['aks-westeurope', 'AKS', true, caps('modelplane-rwx-fs', 'InfiniBand', 'Provider', 'Composed')],
      ['byo-us-east', 'Existing', true, caps('nfs-rwx', 'InfiniBand', 'None', 'Composed')],
      ['eks-us-east', 'EKS', true, caps('modelplane-rwx-efs', 'EFA', 'ClusterAutoscaler', 'Composed')],
      ['gke-us-central', 'GKE', true, caps('modelplane-rwx', 'Ethernet', 'Provider', 'Composed')],
      ['nebius-eu-north', 'Nebius', true, caps('modelplane-rwx-fs', 'InfiniBand', 'Provider', 'Composed')],
      [
        'vultr-ewr',
        'Vultr',
        true,
        {
          rwxCacheStorageClass: null,
          rwxCacheReason:
            'Vultr File System cannot be attached to VKE GPU nodes, so this cluster has no RWX StorageClass for ModelCache volumes.',
          multiNodeFabric: 'None',
          nodeAutoscaling: 'Provider',
          gpuStack: 'PreinstalledAndGated',
        },
      ],
    ]);
    expect(report.clusters.map((c) => c.pools.map((p) => [p.name, p.className, p.nodes, p.fabric]))).toEqual([
      [['gpuh100', 'h100-8x', 2, 'InfiniBand']],
      [['gpu-h100', 'h100-8x', 2, 'InfiniBand']],
      [['gpu-h100', 'h100-8x', 2, 'EFA']],
      [['gpu-l4', 'l4-1x', 4, 'Ethernet']],
      [['gpu-h100', 'h100-8x', 2, 'InfiniBand']],
      [['gpu-l40s', 'l40s-1x', 4, null]],
    ]);
  });

  it('places every replica; the gang only on pools with a fabric (RDMA or Ethernet), never on Vultr', () => {
    const byName = Object.fromEntries(report.deployments.map((d) => [d.name, d]));
    expect(report.deployments.map((d) => [d.name, d.scheduledReplicas, d.desiredReplicas, d.readyReplicas])).toEqual([
      ['llama-70b', 2, 2, 2],
      ['qwen-7b', 3, 3, 3],
    ]);
    const fabricOf = new Map(report.clusters.flatMap((c) => c.pools.map((p) => [`${c.name}/${p.name}`, p.fabric])));
    for (const r of byName['llama-70b']!.replicas) {
      expect(r.engines[0]!.members.map((m) => m.role)).toEqual(['Leader', 'Worker']);
      for (const m of r.engines[0]!.members) expect(fabricOf.get(`${r.cluster}/${m.pool}`), `${r.name} on ${r.cluster}/${m.pool}`).not.toBeNull();
      expect(r.cluster).not.toBe('vultr-ewr');
    }
  });

  it('routes the one service to every replica of both deployments', () => {
    const replicas = report.deployments.flatMap((d) => d.replicas.map((r) => r.name)).sort();
    expect(report.services.map((s) => [s.namespace, s.name, s.address])).toEqual([['ml-team', 'chat', 'http://172.18.255.200/ml-team/chat']]);
    expect(report.services[0]!.endpoints.map((e) => e.name)).toEqual(replicas);
  });

  it('composes every cloud: each cloud XR kind once, and its provider kinds', () => {
    for (const kind of ['EKSCluster', 'GKECluster', 'AKSCluster', 'NebiusCluster', 'VultrCluster']) {
      expect(report.resources[`infrastructure.modelplane.ai/v1alpha1/${kind}`], kind).toBe(1);
    }
    expect(report.resources['cloudplatform.gcp.m.upbound.io/v1beta1/ProjectIAMMember']).toBe(1);
    expect(report.resources['compute.nebius.m.upbound.io/v1beta1/GpuCluster']).toBe(1);
    expect(report.resources['helm.m.crossplane.io/v1beta1/Release']).toBeGreaterThan(0);
  });

  it('shows the capabilities in the text report', () => {
    const text = formatText(report);
    expect(text).toContain('Capabilities\n');
    expect(text).toMatch(/│ eks-us-east +│ modelplane-rwx-efs +│ EFA +│ ClusterAutoscaler +│ Composed +│/);
    expect(text).toMatch(/│ vultr-ewr +│ none +│ None +│ Provider +│ PreinstalledAndGated +│/);
    expect(text).toContain('  vultr-ewr: no RWX cache: Vultr File System cannot be attached to VKE GPU nodes');
  });
});

function caps(rwx: string, fabric: string, autoscaling: string, gpuStack: string): JsonObject {
  return { rwxCacheStorageClass: rwx, rwxCacheReason: null, multiNodeFabric: fabric, nodeAutoscaling: autoscaling, gpuStack };
}

/** A GPU device of the documentation's classes. */
function gpu(count: number, memory: string, architecture: string): JsonObject {
  return {
    name: 'gpu',
    claim: 'DRA',
    driver: 'gpu.nvidia.com',
    deviceClassName: 'gpu.nvidia.com',
    count,
    attributes: { architecture: { string: architecture } },
    capacity: { memory: { value: memory } },
  };
}

/** The reference documentation's fleets with what they need besides: a gateway, a provider config, a model. */
const docFleets: { cloud: string; manifests: JsonObject[]; cluster: string; pool: string }[] = [
  {
    cloud: 'GKE',
    cluster: 'gke-us-central',
    pool: 'gpu-l4',
    manifests: [
      {
        apiVersion: 'gcp.m.upbound.io/v1beta1',
        kind: 'ClusterProviderConfig',
        metadata: { name: 'default' },
        spec: { projectID: 'my-project', credentials: { source: 'Secret', secretRef: { namespace: 'crossplane-system', name: 'gcp-creds', key: 'creds' } } },
      },
      {
        apiVersion: 'modelplane.ai/v1alpha1',
        kind: 'InferenceClass',
        metadata: { name: 'gke-l4-1x-g2' },
        spec: {
          provisioning: { provider: 'GKE', gke: { machineType: 'g2-standard-8', diskSizeGb: 100, accelerator: { type: 'nvidia-l4', count: 1 } } },
          devices: [gpu(1, '23034Mi', 'Ada Lovelace')],
        },
      },
      {
        apiVersion: 'modelplane.ai/v1alpha1',
        kind: 'InferenceCluster',
        metadata: { name: 'gke-us-central', labels: { 'modelplane.ai/region': 'us-central' } },
        spec: {
          cluster: { source: 'GKE', gke: { region: 'us-central1' } },
          nodePools: [
            { name: 'gpu-l4', className: 'gke-l4-1x-g2', nodeCount: 1, minNodeCount: 1, maxNodeCount: 4, zones: ['us-central1-a', 'us-central1-c'] },
          ],
        },
      },
    ],
  },
  {
    cloud: 'AKS',
    cluster: 'aks-westeurope',
    pool: 'gpuh100',
    manifests: [
      {
        apiVersion: 'modelplane.ai/v1alpha1',
        kind: 'InferenceClass',
        metadata: { name: 'aks-h100-8x' },
        spec: {
          provisioning: { provider: 'AKS', aks: { vmSize: 'Standard_ND96isr_H100_v5', diskSizeGb: 200, accelerator: { type: 'nvidia-h100', count: 8 } } },
          devices: [gpu(8, '81559Mi', 'Hopper')],
        },
      },
      {
        apiVersion: 'modelplane.ai/v1alpha1',
        kind: 'InferenceCluster',
        metadata: { name: 'aks-westeurope' },
        spec: {
          cluster: { source: 'AKS', aks: { location: 'westeurope' } },
          nodePools: [{ name: 'gpuh100', className: 'aks-h100-8x', nodeCount: 1, minNodeCount: 1, maxNodeCount: 4 }],
        },
      },
    ],
  },
  {
    cloud: 'Nebius',
    cluster: 'nebius-eu-north',
    pool: 'gpu-h100',
    manifests: [
      {
        apiVersion: 'nebius.m.upbound.io/v1beta1',
        kind: 'ClusterProviderConfig',
        metadata: { name: 'default' },
        spec: {
          projectID: 'project-e00example',
          identity: { type: 'ServiceAccount' },
          credentials: { source: 'Secret', secretRef: { namespace: 'crossplane-system', name: 'nebius-credentials', key: 'credentials.json' } },
        },
      },
      {
        apiVersion: 'modelplane.ai/v1alpha1',
        kind: 'InferenceClass',
        metadata: { name: 'nebius-h100-8x' },
        spec: {
          provisioning: {
            provider: 'Nebius',
            nebius: { platform: 'gpu-h100-sxm', preset: '8gpu-128vcpu-1600gb', diskSizeGb: 200, driversPreset: 'cuda13.0', accelerator: { type: 'nvidia-h100', count: 8 } },
          },
          devices: [gpu(8, '81559Mi', 'Hopper')],
        },
      },
      {
        apiVersion: 'modelplane.ai/v1alpha1',
        kind: 'InferenceCluster',
        metadata: { name: 'nebius-eu-north' },
        spec: {
          cluster: { source: 'Nebius', nebius: {} },
          nodePools: [{ name: 'gpu-h100', className: 'nebius-h100-8x', nodeCount: 1, minNodeCount: 1, maxNodeCount: 4 }],
        },
      },
    ],
  },
];

const gateway = {
  apiVersion: 'modelplane.ai/v1alpha1',
  kind: 'InferenceGateway',
  metadata: { name: 'default' },
  spec: { backend: 'Traefik', traefik: { version: '40.2.0', loadBalancer: 'MetalLB', metallb: { addressPool: '172.18.255.200-172.18.255.250' } } },
};
const model = {
  apiVersion: 'modelplane.ai/v1alpha1',
  kind: 'ModelDeployment',
  metadata: { name: 'qwen', namespace: 'default' },
  spec: {
    replicas: 1,
    template: {
      spec: {
        engines: [
          {
            name: 'qwen',
            members: [
              {
                role: 'Standalone',
                nodeSelector: {
                  devices: [{ name: 'gpu', selectors: [{ cel: 'device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("20Gi")) >= 0' }] }],
                },
                template: { spec: { containers: [{ name: 'engine', image: 'vllm/vllm-openai:v0.23.0' }] } },
              },
            ],
          },
        ],
      },
    },
  },
};

describe("a fleet written as the reference's documentation writes it", () => {
  it.each(docFleets)('$cloud: plans to Ready with the replica placed on its pool', async ({ manifests, cluster, pool }) => {
    const dir = mkdtempSync(join(tmpdir(), 'modelplane-doc-fleet-'));
    writeFileSync(join(dir, 'fleet.yaml'), [...manifests, gateway, model].map((m) => stringify(m)).join('---\n'));
    const result = await plan([dir]);
    const report = buildReport(result);
    expect([report.converged, report.invalid, result.skipped, result.errors]).toEqual([true, [], [], {}]);
    expect(report.clusters.map((c) => [c.name, c.ready])).toEqual([[cluster, true]]);
    expect(report.deployments.map((d) => [d.scheduledReplicas, d.readyReplicas, d.replicas.map((r) => [r.cluster, r.engines[0]!.members[0]!.pool])])).toEqual([
      [1, 1, [[cluster, pool]]],
    ]);
  });
});
