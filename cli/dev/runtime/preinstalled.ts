/**
 * What a cloud installs on its own clusters before anyone applies anything,
 * played on a workload API server a simulated cloud cluster was given
 * (handout.ts): our compositions observe some of it rather than compose it.
 *
 * - Vultr (VKE): the NVIDIA GPU Operator comes pre-installed on GPU node
 *   pools; the VultrCluster is Ready once its validator DaemonSet
 *   (`gpu-operator/nvidia-operator-validator`) has a Ready pod on every GPU
 *   node (compose-vultr-cluster `gpuObserver`). Here it is a real DaemonSet:
 *   kube-controller-manager creates its pods, kube-scheduler binds them to
 *   the GPU nodes (label `nvidia.com/gpu.present=true`, as the operator's
 *   feature discovery labels them; the GPU taint tolerated) and kwok runs
 *   them. Its image is never pulled (no container runtime).
 *
 * Every other cloud's GPU stack is composed by us (gpuStack `Composed`), so
 * nothing is pre-installed for it.
 */
import type { KubeObject } from '../../../functions/lib/function.js';
import { GPU_TOLERATION } from '../../../functions/lib/workload.js';

/** The label the GPU Operator's feature discovery puts on every node with an NVIDIA GPU. */
export const GPU_PRESENT_LABEL = 'nvidia.com/gpu.present';

/** The objects the cloud of InferenceCluster `cluster` (`spec.cluster.source`) pre-installs; none for most. */
export function cloudPreinstalled(cluster: KubeObject): KubeObject[] {
  const source = ((cluster['spec'] as { cluster?: { source?: string } } | undefined)?.cluster?.source ?? '') as string;
  if (source !== 'Vultr') return [];
  const labels = { 'app.kubernetes.io/name': 'nvidia-operator-validator' };
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'gpu-operator' } },
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'nvidia-operator-validator', namespace: 'gpu-operator', labels },
      spec: {
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            nodeSelector: { [GPU_PRESENT_LABEL]: 'true' },
            tolerations: [{ ...GPU_TOLERATION }],
            containers: [{ name: 'nvidia-operator-validator', image: 'nvcr.io/nvidia/cloud-native/gpu-operator-validator:v25.3.0' }],
          },
        },
      },
    },
  ];
}
