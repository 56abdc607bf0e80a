/**
 * The fleet of the convergence bench's last scenario (bench/convergence.bench.ts),
 * as one YAML stream to `kubectl apply`: `clusters` Vultr InferenceClusters
 * (`fleet-00`…, one pool of `nodes` nodes of the Vultr seeds' class
 * `a16-1x`, one A16 each) and `deployments` one-replica ModelDeployments (`model-000`…, in
 * namespace `fleet`) of the Vultr seeds' model, one GPU each. Needs the Vultr
 * seeds applied first (the class and the provider config).
 */
import { stringify } from 'yaml';

/** The manifests, deterministic for the same arguments. */
export function fleetManifests(clusters: number, deployments: number, nodes: number): string {
  const docs: unknown[] = [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fleet' } }];
  for (let i = 0; i < clusters; i++) {
    docs.push({
      apiVersion: 'modelplane.ai/v1alpha1',
      kind: 'InferenceCluster',
      metadata: { name: `fleet-${String(i).padStart(2, '0')}`, labels: { 'modelplane.ai/fleet': 'bench' } },
      spec: {
        cluster: { source: 'Vultr', vultr: { region: 'ewr' } },
        nodePools: [{ name: 'gpu-a16', className: 'a16-1x', nodeCount: nodes, minNodeCount: nodes, maxNodeCount: nodes }],
      },
    });
  }
  for (let i = 0; i < deployments; i++) {
    docs.push({
      apiVersion: 'modelplane.ai/v1alpha1',
      kind: 'ModelDeployment',
      metadata: { name: `model-${String(i).padStart(3, '0')}`, namespace: 'fleet' },
      spec: {
        replicas: 1,
        template: {
          spec: {
            clusterSelector: { matchLabels: { 'modelplane.ai/fleet': 'bench' } },
            engines: [
              {
                name: 'qwen',
                members: [
                  {
                    role: 'Standalone',
                    nodeSelector: {
                      devices: [{ name: 'gpu', count: 1, selectors: [{ cel: 'device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("14Gi")) >= 0' }] }],
                    },
                    template: { spec: { containers: [{ name: 'engine', image: 'vllm/vllm-openai:v0.9.2', args: ['--model=Qwen/Qwen2.5-7B-Instruct-AWQ'] }] } },
                  },
                ],
              },
            ],
          },
        },
      },
    });
  }
  return docs.map((d) => `---\n${stringify(d)}`).join('');
}
