/**
 * A generated fleet for the plan benchmark: `clusters` InferenceClusters
 * (every other one on EKS, the rest Existing with their kubeconfig Secrets),
 * 2–4 GPU pools each over three classes, `deployments` ModelDeployments of
 * 1–3 replicas with one of three selectors, and `services` ModelServices over
 * them, plus the gateway. Deterministic: the same sizes give the same files.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';

const CLASSES = [
  { name: 'l4-1x-g6', instanceType: 'g6.xlarge', memory: '23034Mi', type: 'nvidia-l4' },
  { name: 'l40s-1x-g6e', instanceType: 'g6e.xlarge', memory: '46068Mi', type: 'nvidia-l40s' },
  { name: 'h100-8x-p5', instanceType: 'p5.48xlarge', memory: '81559Mi', type: 'nvidia-h100', count: 8 },
];
const SELECTORS = [
  'device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("20Gi")) >= 0',
  'device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("40Gi")) >= 0',
  'device.attributes["gpu.nvidia.com"].architecture == "Hopper"',
];
const REGIONS = ['us-east-1', 'us-west-2', 'eu-central-1'];

/** Writes the fleet's manifests into `dir` (one file per kind). */
export function writeFleet(dir: string, sizes: { clusters: number; deployments: number; services: number }): void {
  mkdirSync(dir, { recursive: true });
  const docs = (objs: object[]) => objs.map((o) => `---\n${stringify(o)}`).join('');
  writeFileSync(
    join(dir, 'classes.yaml'),
    docs(
      CLASSES.map((c) => ({
        apiVersion: 'modelplane.ai/v1alpha1',
        kind: 'InferenceClass',
        metadata: { name: c.name },
        spec: {
          provisioning: { provider: 'EKS', eks: { instanceType: c.instanceType, accelerator: { type: c.type, count: c.count ?? 1 } } },
          devices: [
            {
              name: 'gpu',
              driver: 'gpu.nvidia.com',
              deviceClassName: 'gpu.nvidia.com',
              count: c.count ?? 1,
              attributes: { architecture: { string: c.type === 'nvidia-h100' ? 'Hopper' : 'Ada Lovelace' } },
              capacity: { memory: { value: c.memory } },
            },
          ],
        },
      })),
    ),
  );
  writeFileSync(
    join(dir, 'gateway.yaml'),
    docs([{ apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceGateway', metadata: { name: 'default' }, spec: { backend: 'Traefik', traefik: { version: '40.2.0' } } }]),
  );
  const clusters: object[] = [];
  for (let i = 0; i < sizes.clusters; i++) {
    const name = `c${String(i).padStart(4, '0')}`;
    const region = REGIONS[i % REGIONS.length]!;
    const pools = Array.from({ length: 2 + (i % 3) }, (_, p) => ({
      name: `gpu-${p}`,
      className: CLASSES[(i + p) % CLASSES.length]!.name,
      nodeCount: 1 + ((i + p) % 3),
      ...(i % 2 === 0 ? { zones: [`${region}a`] } : {}),
    }));
    if (i % 2 === 0) {
      clusters.push({
        apiVersion: 'modelplane.ai/v1alpha1',
        kind: 'InferenceCluster',
        metadata: { name, labels: { 'modelplane.ai/region': region } },
        spec: { cluster: { source: 'EKS', eks: { region } }, nodePools: pools },
      });
    } else {
      clusters.push(
        {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: `${name}-kubeconfig`, namespace: 'modelplane-system' },
          stringData: { kubeconfig: `apiVersion: v1\nkind: Config\nclusters: [{name: ${name}, cluster: {server: "https://${name}.example"}}]\n` },
        },
        {
          apiVersion: 'modelplane.ai/v1alpha1',
          kind: 'InferenceCluster',
          metadata: { name, labels: { 'modelplane.ai/region': region } },
          spec: { cluster: { source: 'Existing', existing: { secretRef: { name: `${name}-kubeconfig` } } }, nodePools: pools },
        },
      );
    }
  }
  writeFileSync(join(dir, 'clusters.yaml'), docs(clusters));
  const models: object[] = [];
  for (let i = 0; i < sizes.deployments; i++) {
    models.push({
      apiVersion: 'modelplane.ai/v1alpha1',
      kind: 'ModelDeployment',
      metadata: { name: `model-${i}`, namespace: `team-${i % 5}` },
      spec: {
        replicas: 1 + (i % 3),
        template: {
          spec: {
            engines: [
              {
                name: 'engine',
                members: [
                  {
                    role: 'Standalone',
                    nodeSelector: { devices: [{ name: 'gpu', count: 1, selectors: [{ cel: SELECTORS[i % SELECTORS.length]! }] }] },
                    template: { spec: { containers: [{ name: 'engine', image: 'vllm/vllm-openai:v0.23.0', args: [`--model=org/model-${i}`] }] } },
                  },
                ],
              },
            ],
          },
        },
      },
    });
  }
  for (let i = 0; i < sizes.services; i++) {
    models.push({
      apiVersion: 'modelplane.ai/v1alpha1',
      kind: 'ModelService',
      metadata: { name: `service-${i}`, namespace: `team-${i % 5}` },
      spec: { endpoints: [{ selector: { matchLabels: { 'modelplane.ai/deployment': `model-${i}` } } }] },
    });
  }
  writeFileSync(join(dir, 'models.yaml'), docs(models));
}
