/**
 * Every XR status our golden renders hold (the first document of each
 * examples/<name>/expected.yaml), through the committed Argo CD health check
 * of its kind, run by gopher-lua: the health docs/argocd.md promises.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { ROOT } from '../../scripts/argocd/emit.js';
import { assess, SKIP_REASON } from './harness.js';

/** Example → [XR kind, Argo CD health, message]. */
const EXPECTED: Record<string, [string, string, string]> = {
  'aks-cluster-first-pass': ['AKSCluster', 'Progressing', "Unready resources: cluster, nodepool-gpuh100, resource-group, and 2 more"],
  'aks-cluster-ready': ['AKSCluster', 'Healthy', "Ready"],
  'autoscaling-hpa': ['ModelDeployment', 'Progressing', "ReplicasScheduled is False: Scheduling"],
  'demo-deployment': ['ModelDeployment', 'Progressing', "ReplicasScheduled is False: Scheduling"],
  'demo-deployment-cluster-lost': ['ModelDeployment', 'Progressing', "1 of 2 ready"],
  'demo-deployment-cluster-unavailable': ['ModelDeployment', 'Progressing', "2 of 2 replicas placed on clusters that serve; 1 on Unavailable or drained clusters go as their replacements become Ready"],
  'demo-deployment-cluster-unreachable': ['ModelDeployment', 'Progressing', "1 of 2 ready; replica qwen-demo-d88f9: cluster eks-eu-central is Unreachable: not counted Ready; its endpoint is kept until the cluster is Unavailable or the replica is replaced"],
  'eks-cluster-efa-capacity-block': ['EKSCluster', 'Progressing', "Unready resources: addon-aws-efs-csi-driver, addon-coredns, addon-eks-pod-identity-agent, and 48 more"],
  'eks-cluster-eu-central': ['EKSCluster', 'Progressing', "Unready resources: addon-aws-efs-csi-driver, addon-coredns, addon-eks-pod-identity-agent, and 45 more"],
  'eks-cluster-us-east': ['EKSCluster', 'Progressing', "Unready resources: addon-aws-efs-csi-driver, addon-coredns, addon-eks-pod-identity-agent, and 45 more"],
  'eks-cluster-us-west': ['EKSCluster', 'Progressing', "Unready resources: addon-aws-efs-csi-driver, addon-coredns, addon-eks-pod-identity-agent, and 45 more"],
  'existing-cluster': ['InferenceCluster', 'Progressing', "the reachability probe has not been observed yet"],
  'gang-replica': ['ModelReplica', 'Progressing', "ModelAccepted is False: Deploying"],
  'gke-cluster-first-pass': ['GKECluster', 'Progressing', "Unready resources: cluster, network, nodepool-gpu-l4, and 5 more"],
  'gke-cluster-ready': ['GKECluster', 'Healthy', "Ready"],
  'groq-endpoint': ['ModelEndpoint', 'Progressing', "RoutingReady is False: WaitingForBackend"],
  'inference-class': ['InferenceClass', 'Healthy', "Ready"],
  'model-cache-fleet': ['ModelCache', 'Progressing', "ArtifactReady is False: Hydrating"],
  'model-cache-staged': ['ModelCache', 'Healthy', "1 of 2 selected clusters cannot hold the cache: vultr-ewr (Vultr File System cannot be attached to VKE GPU nodes, so this cluster has no RWX StorageClass for ModelCache volumes.)"],
  'nebius-cluster-first-pass': ['NebiusCluster', 'Progressing', "Unready resources: cluster, filesystem, network, and 3 more"],
  'nebius-cluster-ready': ['NebiusCluster', 'Healthy', "Ready"],
  'overflow-service': ['ModelService', 'Progressing', 'Unready resources: backends, priority-0, priority-1, and 3 more'],
  'prefill-decode-replica': ['ModelReplica', 'Progressing', "ModelAccepted is False: Deploying"],
  'spot-pools': ['InferenceCluster', 'Progressing', "ClusterReady False: Provisioning"],
  'team-quota': ['InferenceQuota', 'Healthy', "6/8 devices, 0/2 gpu=h100 devices, 3/10 replicas"],
  'token-budget-service': ['ModelService', 'Healthy', "Matched 3 endpoint(s)"],
  'vultr-cluster': ['InferenceCluster', 'Progressing', "ClusterReady False: Provisioning"],
  'vultr-cluster-first-pass': ['VultrCluster', 'Progressing', "Unready resources: cluster"],
  'vultr-cluster-ready': ['VultrCluster', 'Progressing', "Unready resources: gpu-observer, node-pool-gpu-a16"],
  'vultr-deployment': ['ModelDeployment', 'Progressing', "ReplicasScheduled is False: Scheduling"],
  'vultr-gateway': ['InferenceGateway', 'Progressing', "ControllerReady is False: Installing"],
  'vultr-gateway-tls': ['InferenceGateway', 'Progressing', 'Unready resources: certificate, gateway-class, https-redirect, and 7 more'],
  'vultr-replica': ['ModelReplica', 'Progressing', "ModelAccepted is False: Deploying"],
  'vultr-service': ['ModelService', 'Progressing', "RoutingReady is False: Configuring"],
  'weighted-service': ['ModelService', 'Healthy', "Matched 3 endpoint(s)"],
};

const examples = readdirSync(join(ROOT, 'examples'))
  .filter((d) => existsSync(join(ROOT, 'examples', d, 'expected.yaml')))
  .sort();

function xrOf(example: string): { apiVersion: string; kind: string } {
  const docs = parseAllDocuments(readFileSync(join(ROOT, 'examples', example, 'expected.yaml'), 'utf8'));
  return docs[0]!.toJSON() as { apiVersion: string; kind: string };
}

describe.skipIf(SKIP_REASON !== undefined)(`Argo CD health of the golden XR statuses${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ''}`, () => {
  it('lists every golden render', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(examples);
  });

  it.each(examples)('%s', (example) => {
    const xr = xrOf(example);
    const [kind, status, message] = EXPECTED[example] ?? ['?', '?', '?'];
    expect(xr.kind).toBe(kind);
    expect(assess(xr.apiVersion.split('/')[0]!, xr.kind, [xr])).toEqual([{ status, message }]);
  });
});
