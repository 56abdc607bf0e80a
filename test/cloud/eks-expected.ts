/**
 * Expected outputs of compose-eks-cluster, written from docs/clouds.md#eks
 * (never built with production code): the reviewed golden of
 * XR A's first pass, the literal bodies the other cases add, and small
 * helpers that express a case as a change to the golden.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { ComposeResult, DesiredResource, JsonObject, KubeObject } from '../../functions/lib/function.js';
import { EKS_NAME, KUBECONFIG, NS } from '../builders/cloud.js';

type Resources = ComposeResult['resources'];

const GOLDEN = new URL('./golden/eks-a.yaml', import.meta.url);

/** §8.1 case 1: the 50 desired resources of XR A, nothing observed (a fresh copy). */
export function golden(): Resources {
  return parse(readFileSync(GOLDEN, 'utf8')) as Resources;
}

/** The status every pass writes (§2.5), with the provider contract; `fabric` EFA when a pool is on it, else Ethernet. */
export function eksStatus(fabric: 'Ethernet' | 'EFA' = 'Ethernet'): JsonObject {
  return {
    secrets: [{ type: 'Kubeconfig', name: KUBECONFIG, key: 'kubeconfig' }],
    cache: { storageClassName: 'modelplane-rwx-efs' },
    capabilities: {
      rwxCacheStorageClass: { name: 'modelplane-rwx-efs' },
      multiNodeFabric: fabric,
      nodeAutoscaling: 'ClusterAutoscaler',
      gpuStack: 'Composed',
    },
  };
}

/** The status of a cluster without an EFA pool. */
export const STATUS: JsonObject = eksStatus();

/** A whole response with these resources and, by default, the status and nothing else. */
export function want(resources: Resources, extra: Partial<ComposeResult> = {}): ComposeResult {
  return { resources, status: STATUS, conditions: [], results: [], requirements: {}, ...extra };
}

/** `resources` with `keys` marked ready. */
export function ready(resources: Resources, ...keys: string[]): Resources {
  const out = { ...resources };
  for (const k of keys) out[k] = { resource: out[k]!.resource, ready: true };
  return out;
}

/** `resources` without `keys`. */
export function without(resources: Resources, ...keys: string[]): Resources {
  const out = { ...resources };
  for (const k of keys) delete out[k];
  return out;
}

/** A not-ready desired resource. */
export const body = (resource: KubeObject): DesiredResource => ({ resource });

const DEFAULT_PC = { kind: 'ClusterProviderConfig', name: 'default' };
const IN_CLUSTER_PC = { kind: 'ProviderConfig', name: KUBECONFIG };

/** §8.1 case 11: `release-cluster-autoscaler`. */
export const autoscalerRelease: KubeObject = {
  apiVersion: 'helm.m.crossplane.io/v1beta1',
  kind: 'Release',
  metadata: { namespace: NS },
  spec: {
    providerConfigRef: IN_CLUSTER_PC,
    forProvider: {
      chart: { name: 'cluster-autoscaler', repository: 'https://kubernetes.github.io/autoscaler', version: '9.57.0' },
      namespace: 'kube-system',
      values: {
        cloudProvider: 'aws',
        awsRegion: 'us-west-2',
        autoDiscovery: { clusterName: EKS_NAME },
        rbac: { serviceAccount: { name: 'cluster-autoscaler' } },
        extraArgs: { 'balance-similar-node-groups': true },
      },
    },
    managementPolicies: ['Observe', 'Create', 'Update'],
  },
};

/** §8.1 case 15: `release-efa-dra-driver`. */
export const efaDraRelease: KubeObject = {
  apiVersion: 'helm.m.crossplane.io/v1beta1',
  kind: 'Release',
  metadata: { namespace: NS },
  spec: {
    providerConfigRef: IN_CLUSTER_PC,
    forProvider: {
      chart: { name: 'aws-dranet', repository: 'https://aws.github.io/eks-charts', version: '1.0.0' },
      namespace: 'kube-system',
      values: { tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }] },
    },
    managementPolicies: ['Observe', 'Create', 'Update'],
  },
};

/** §8.1 case 11: `storage-class-rwx-efs` for file system `fsId`. */
export function storageClassObject(fsId: string): KubeObject {
  return {
    apiVersion: 'kubernetes.m.crossplane.io/v1alpha1',
    kind: 'Object',
    metadata: { namespace: NS },
    spec: {
      providerConfigRef: IN_CLUSTER_PC,
      forProvider: {
        manifest: {
          apiVersion: 'storage.k8s.io/v1',
          kind: 'StorageClass',
          metadata: { name: 'modelplane-rwx-efs' },
          provisioner: 'efs.csi.aws.com',
          parameters: { provisioningMode: 'efs-ap', fileSystemId: fsId, directoryPerms: '700' },
          volumeBindingMode: 'Immediate',
        },
      },
      readiness: { policy: 'SuccessfulCreate' },
      managementPolicies: ['Observe', 'Create', 'Update'],
    },
  };
}

const LT_H200 = 'test-cluster-lt-gpu-h200-83c00';

/** `launch-template-gpu-h200` (§8.1 cases 12–14); `capacityBlock` adds the market options, `efa` the interfaces. */
export function launchTemplateH200(opts: { capacityBlock?: boolean; efa?: { cards: number; sgs?: string[] }; instanceType?: string }): KubeObject {
  const fp: JsonObject = {
    region: 'us-west-2',
    name: LT_H200,
    instanceType: opts.instanceType ?? 'p5en.48xlarge',
    blockDeviceMappings: [{ deviceName: '/dev/xvda', ebs: { volumeSize: 1024 } }],
  };
  if (opts.capacityBlock) {
    fp['instanceMarketOptions'] = { marketType: 'capacity-block' };
    fp['capacityReservationSpecification'] = {
      capacityReservationPreference: 'capacity-reservations-only',
      capacityReservationTarget: { capacityReservationId: 'cr-0123456789abcdef0' },
    };
  }
  if (opts.efa) {
    const sgs = opts.efa.sgs;
    fp['networkInterfaces'] = Array.from({ length: opts.efa.cards }, (_, c) => ({
      networkCardIndex: c,
      deviceIndex: c === 0 ? 0 : 1,
      interfaceType: c === 0 ? 'efa' : 'efa-only',
      ...(sgs ? { securityGroups: [...sgs] } : {}),
    }));
  }
  return { apiVersion: 'ec2.aws.m.upbound.io/v1beta1', kind: 'LaunchTemplate', spec: { forProvider: fp, providerConfigRef: DEFAULT_PC } };
}

/** `nodegroup-gpu-h200` through its launch template (§8.1 cases 12–13). */
export function nodeGroupH200(capacityBlock: boolean): KubeObject {
  return {
    apiVersion: 'eks.aws.m.upbound.io/v1beta1',
    kind: 'NodeGroup',
    spec: {
      managementPolicies: ['Observe', 'Create', 'Update', 'Delete'],
      initProvider: { scalingConfig: { desiredSize: 2 } },
      forProvider: {
        region: 'us-west-2',
        clusterNameSelector: { matchControllerRef: true },
        nodeRoleArnSelector: { matchControllerRef: true, matchLabels: { 'modelplane.ai/iam-role': 'node' } },
        amiType: 'AL2023_x86_64_NVIDIA',
        launchTemplate: { name: LT_H200, version: '$Latest' },
        ...(capacityBlock ? { capacityType: 'CAPACITY_BLOCK' } : {}),
        subnetIdRefs: [{ name: 'test-cluster-private-subnet-us-west-2a-6a89f' }],
        scalingConfig: { minSize: 0, maxSize: 2 },
        labels: { 'modelplane.ai/gpu': 'nvidia-h200', 'modelplane.ai/pool': 'gpu-h200' },
        taint: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NO_SCHEDULE' }],
      },
      providerConfigRef: DEFAULT_PC,
    },
  };
}

const EFA_SELECTOR = { matchControllerRef: true, matchLabels: { 'modelplane.ai/fabric': 'EFA' } };
const efaRule = (kind: string): KubeObject => ({
  apiVersion: 'ec2.aws.m.upbound.io/v1beta1',
  kind,
  spec: {
    forProvider: {
      region: 'us-west-2',
      ipProtocol: '-1',
      referencedSecurityGroupIdSelector: EFA_SELECTOR,
      securityGroupIdSelector: EFA_SELECTOR,
    },
    providerConfigRef: DEFAULT_PC,
  },
});

/** The three EFA security group keys (§8.1 case 13), not ready. */
export function efaSecurityGroup(): Resources {
  return {
    'efa-security-group': body({
      apiVersion: 'ec2.aws.m.upbound.io/v1beta1',
      kind: 'SecurityGroup',
      metadata: { name: 'test-cluster-efa-sg-602a9', labels: { 'modelplane.ai/fabric': 'EFA' } },
      spec: {
        forProvider: {
          region: 'us-west-2',
          name: 'test-cluster-efa',
          description: 'EFA OS-bypass traffic between gang nodes',
          vpcIdSelector: { matchControllerRef: true },
        },
        providerConfigRef: DEFAULT_PC,
      },
    }),
    'efa-security-group-ingress': body(efaRule('SecurityGroupIngressRule')),
    'efa-security-group-egress': body(efaRule('SecurityGroupEgressRule')),
  };
}
