/**
 * compose-aks-cluster: whole-response table tests for every acceptance case
 * of docs/clouds.md#aks, the case of a gated object observed
 * without the cluster is never dropped), and our additions (a class without
 * an AKS VM size, the pool names the default pool takes, a System-role pool,
 * an unparsable spec). Case 1's bodies are the reviewed golden; its literal
 * facts are checked field by field below.
 */
import { describe, expect, it } from 'vitest';
import { compose } from '../../functions/compose-aks-cluster/compose.js';
import type { ComposeRequest, ComposeResult, JsonObject, KubeObject } from '../../functions/lib/function.js';
import { AKS_NAME, aksPool, aksXr, KUBECONFIG, NS, request, seen } from '../builders/cloud.js';
import { body, forProvider, golden, ready, type Resources, withProviderConfigRef } from './expected.js';

const CS = 'containerservice.azure.m.upbound.io/v1beta1';
const NET = 'network.azure.m.upbound.io/v1beta1';
const HELM = 'helm.m.crossplane.io/v1beta1';
const AZURE_KEYS = ['resource-group', 'virtual-network', 'subnet', 'cluster', 'nodepool-gpuh100'];

/** §8.3 case 1: the 7 desired resources (a fresh copy). */
const g = (): Resources => golden('aks-1.yaml');

function status(fabric = 'Ethernet'): JsonObject {
  return {
    secrets: [{ type: 'Kubeconfig', name: KUBECONFIG, key: 'kubeconfig' }],
    cache: { storageClassName: 'modelplane-rwx-fs' },
    capabilities: {
      rwxCacheStorageClass: { name: 'modelplane-rwx-fs' },
      multiNodeFabric: fabric,
      nodeAutoscaling: 'Provider',
      gpuStack: 'Composed',
    },
  };
}

function want(resources: Resources, extra: Partial<ComposeResult> = {}): ComposeResult {
  return { resources, status: status(), conditions: [], results: [], requirements: {}, ...extra };
}

const IN_CLUSTER = { kind: 'ProviderConfig', name: KUBECONFIG };
const GPU_TOLERATION = { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' };

/** §8.3 case 3: `release-network-operator`. */
const networkOperator: KubeObject = {
  apiVersion: HELM,
  kind: 'Release',
  metadata: { namespace: NS },
  spec: {
    providerConfigRef: IN_CLUSTER,
    forProvider: {
      chart: { name: 'network-operator', repository: 'https://helm.ngc.nvidia.com/nvidia', version: '26.4.0' },
      namespace: 'network-operator',
      values: {
        deployCR: true,
        ofedDriver: { deploy: true },
        rdmaSharedDevicePlugin: { deploy: true },
        daemonsets: { tolerations: [GPU_TOLERATION] },
      },
    },
    managementPolicies: ['Observe', 'Create', 'Update'],
  },
};

/** §8.3 case 3: `storage-class-rwx-fs`. */
const storageClass: KubeObject = {
  apiVersion: 'kubernetes.m.crossplane.io/v1alpha1',
  kind: 'Object',
  metadata: { namespace: NS },
  spec: {
    providerConfigRef: IN_CLUSTER,
    forProvider: {
      manifest: {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'StorageClass',
        metadata: { name: 'modelplane-rwx-fs' },
        provisioner: 'file.csi.azure.com',
        parameters: { skuName: 'Premium_LRS' },
        mountOptions: ['dir_mode=0777', 'file_mode=0777', 'uid=0', 'gid=0', 'mfsymlinks', 'cache=strict', 'actimeo=30', 'nosharesock'],
        reclaimPolicy: 'Delete',
        allowVolumeExpansion: true,
        volumeBindingMode: 'WaitForFirstConsumer',
      },
    },
    readiness: { policy: 'SuccessfulCreate' },
    managementPolicies: ['Observe', 'Create', 'Update'],
  },
};

/** `resources` with the GPU node pool's forProvider changed. */
function withPool(resources: Resources, change: (fp: JsonObject) => void, key = 'nodepool-gpuh100'): Resources {
  const out = structuredClone(resources);
  const pool = out['nodepool-gpuh100']!;
  delete out['nodepool-gpuh100'];
  change((pool.resource['spec'] as JsonObject)['forProvider'] as JsonObject);
  out[key] = pool;
  return out;
}

const ib = () => aksXr([aksPool('gpuh100', { fabric: 'InfiniBand' })]);
const clusterReady = () => seen(CS, 'KubernetesCluster', { ready: true });

const H100_NO_SIZE =
  'spec.nodePools[0] (h100b): InferenceClass h100-azure has no AKS VM size (spec.provisioning.aks.vmSize); set it on the class or point the pool at an AKS class. Nothing new is composed for this pool; what exists is kept.';

const cases: { name: string; reason: string; req: () => ComposeRequest; want: ComposeResult; keys: number }[] = [
  {
    name: 'Spot pool',
    reason: 'docs/capacity-types.md#aks: priority Spot, evictionPolicy Delete, spotMaxPrice -1, and the label and taint AKS sets on spot nodes declared too',
    req: () => request(aksXr([aksPool('gpuh100', { capacityType: 'Spot' })])),
    want: want(
      withPool(g(), (fp) => {
        fp['priority'] = 'Spot';
        fp['evictionPolicy'] = 'Delete';
        fp['spotMaxPrice'] = -1;
        fp['nodeLabels'] = {
          'modelplane.ai/gpu': 'nvidia-h100',
          'modelplane.ai/pool': 'gpuh100',
          'kubernetes.azure.com/scalesetpriority': 'spot',
        };
        fp['nodeTaints'] = ['nvidia.com/gpu=true:NoSchedule', 'kubernetes.azure.com/scalesetpriority=spot:NoSchedule'];
      }),
    ),
    keys: 7,
  },
  {
    name: 'OnDemand pool',
    reason: 'an explicit OnDemand pool composes exactly as a pool without capacityType (Regular priority)',
    req: () => request(aksXr([aksPool('gpuh100', { capacityType: 'OnDemand' })])),
    want: want(g()),
    keys: 7,
  },
  {
    name: '8.3-1 first pass',
    reason: 'the 5 Azure MRs and 2 ready ProviderConfigs; no StorageClass before the cluster is observed',
    req: () => request(aksXr()),
    want: want(g()),
    keys: 7,
  },
  {
    name: '8.3-2 zones',
    reason: 'the node pool gains zones; nothing else changes',
    req: () => request(aksXr([aksPool('gpuh100', { zones: ['1'] })])),
    want: want(
      withPool(g(), (fp) => {
        fp['zones'] = ['1'];
      }),
    ),
    keys: 7,
  },
  {
    name: '8.3-3 InfiniBand, cluster Ready',
    reason: 'adds the network operator (not ready) and the StorageClass (ready); the node pool is unchanged by the fabric',
    req: () => request(ib(), { cluster: clusterReady() }),
    want: want(
      { ...ready(g(), 'cluster'), 'release-network-operator': body(networkOperator), 'storage-class-rwx-fs': { resource: storageClass, ready: true } },
      { status: status('InfiniBand') },
    ),
    keys: 9,
  },
  {
    name: '8.3-4 InfiniBand, nothing observed',
    reason: 'the same 7 keys as the first pass: no release, no StorageClass yet; the fabric is declared',
    req: () => request(ib()),
    want: want(g(), { status: status('InfiniBand') }),
    keys: 7,
  },
  {
    name: '8.3-5 named ProviderConfig',
    reason: 'the five Azure MRs use it; the in-cluster ProviderConfigs are unchanged',
    req: () => request(aksXr(undefined, { credentials: { type: 'ProviderConfig', name: 'my-azure-account' } })),
    want: want(withProviderConfigRef(g(), { kind: 'ProviderConfig', name: 'my-azure-account' }, AZURE_KEYS)),
    keys: 7,
  },
  {
    name: '8.3-6 everything Ready',
    reason: 'all five Azure MRs ready, the StorageClass composed and ready',
    req: () =>
      request(aksXr(), {
        'resource-group': seen('azure.m.upbound.io/v1beta1', 'ResourceGroup', { ready: true }),
        'virtual-network': seen(NET, 'VirtualNetwork', { ready: true }),
        subnet: seen(NET, 'Subnet', { ready: true }),
        cluster: clusterReady(),
        'nodepool-gpuh100': seen(CS, 'KubernetesClusterNodePool', { ready: true }),
      }),
    want: want({ ...ready(g(), ...AZURE_KEYS), 'storage-class-rwx-fs': { resource: storageClass, ready: true } }),
    keys: 8,
  },
  {
    name: '8.6 gated objects observed without the cluster',
    reason: 'a release and StorageClass composed before stay composed while the cluster is not observed',
    req: () =>
      request(ib(), {
        'release-network-operator': seen(HELM, 'Release', { ready: true }),
        'storage-class-rwx-fs': seen('kubernetes.m.crossplane.io/v1alpha1', 'Object'),
      }),
    want: want(
      { ...g(), 'release-network-operator': { resource: networkOperator, ready: true }, 'storage-class-rwx-fs': { resource: storageClass, ready: true } },
      { status: status('InfiniBand') },
    ),
    keys: 9,
  },
  {
    name: 'InfiniBand pool removed',
    reason: 'without an InfiniBand pool the spec asks for no network operator: it goes, and the fabric is None',
    req: () => request(aksXr(), { cluster: clusterReady(), 'release-network-operator': seen(HELM, 'Release', { ready: true }) }),
    want: want({ ...ready(g(), 'cluster'), 'storage-class-rwx-fs': { resource: storageClass, ready: true } }),
    keys: 8,
  },
  {
    name: 'System-role pool',
    reason: 'labelled with its name only: no GPU driver, no taint',
    req: () => request(aksXr([{ name: 'cpu', role: 'System', vmSize: 'Standard_D8s_v5', nodeCount: 2, minNodeCount: 1, maxNodeCount: 3 }])),
    want: want(
      (() => {
        const out = withPool(
          g(),
          (fp) => {
            fp['vmSize'] = 'Standard_D8s_v5';
            fp['osDiskSizeGb'] = 100;
            fp['minCount'] = 1;
            fp['maxCount'] = 3;
            delete fp['gpuDriver'];
            delete fp['nodeTaints'];
            fp['nodeLabels'] = { 'modelplane.ai/pool': 'cpu' };
          },
          'nodepool-cpu',
        );
        const spec = out['nodepool-cpu']!.resource['spec'] as JsonObject;
        spec['initProvider'] = { nodeCount: 2 };
        out['nodepool-cpu']!.resource.metadata = { annotations: { 'crossplane.io/external-name': 'cpu' } };
        return out;
      })(),
    ),
    keys: 7,
  },
  {
    name: 'class without an AKS VM size',
    reason: 'the pool is reported by pool and class; its observed node pool is kept; the rest is composed',
    req: () =>
      request(aksXr([{ name: 'h100b', role: 'GPU', className: 'h100-azure', nodeCount: 1 }, aksPool()]), {
        'nodepool-h100b': seen(CS, 'KubernetesClusterNodePool', { ready: true, externalName: 'h100b' }),
      }),
    want: want(
      {
        ...g(),
        'nodepool-h100b': {
          resource: {
            apiVersion: CS,
            kind: 'KubernetesClusterNodePool',
            metadata: { name: 'kubernetesclusternodepool-x', annotations: { 'crossplane.io/external-name': 'h100b' } },
          },
          ready: true,
        },
      },
      {
        conditions: [{ type: 'SpecValid', status: 'False', reason: 'InvalidNodePool', message: H100_NO_SIZE }],
        results: [{ severity: 'Warning', message: H100_NO_SIZE, reason: 'InvalidNodePool' }],
      },
    ),
    keys: 8,
  },
  {
    name: 'names of the default pool',
    reason: 'system and systemtmp are AKS agent pools already; such a pool is reported, never composed',
    req: () => request(aksXr([aksPool('system'), aksPool('systemtmp')])),
    want: want(
      (() => {
        const out = g();
        delete out['nodepool-gpuh100'];
        return out;
      })(),
      {
        conditions: [
          {
            type: 'SpecValid',
            status: 'False',
            reason: 'InvalidNodePool',
            message:
              'spec.nodePools[0].name: "system" is reserved for the cluster\'s default node pool; rename the pool. Nothing new is composed for this pool; what exists is kept. spec.nodePools[1].name: "systemtmp" is reserved for rotating the cluster\'s default node pool; rename the pool. Nothing new is composed for this pool; what exists is kept.',
          },
        ],
        results: [
          {
            severity: 'Warning',
            reason: 'InvalidNodePool',
            message:
              'spec.nodePools[0].name: "system" is reserved for the cluster\'s default node pool; rename the pool. Nothing new is composed for this pool; what exists is kept.',
          },
          {
            severity: 'Warning',
            reason: 'InvalidNodePool',
            message:
              'spec.nodePools[1].name: "systemtmp" is reserved for rotating the cluster\'s default node pool; rename the pool. Nothing new is composed for this pool; what exists is kept.',
          },
        ],
      },
    ),
    keys: 6,
  },
  {
    name: 'unparsable spec',
    reason: 'a pool name outside the AKS pattern fails the schema: every observed child and the status are kept',
    req: () => {
      const xr = aksXr([aksPool('GPU-H100')]);
      xr['status'] = status();
      return request(xr, { cluster: clusterReady() });
    },
    want: {
      resources: { cluster: { resource: { apiVersion: CS, kind: 'KubernetesCluster', metadata: { name: 'kubernetescluster-x' } }, ready: true } },
      status: status(),
      conditions: [
        {
          type: 'SpecValid',
          status: 'False',
          reason: 'InvalidSpec',
          message:
            'AKSCluster spec is invalid: spec.nodePools[0].name: Invalid string: must match pattern /^[a-z][a-z0-9]{0,11}$/. Fix the fields named; nothing is changed until then.',
        },
      ],
      results: [
        {
          severity: 'Warning',
          reason: 'InvalidSpec',
          message:
            'AKSCluster spec is invalid: spec.nodePools[0].name: Invalid string: must match pattern /^[a-z][a-z0-9]{0,11}$/. Fix the fields named; nothing is changed until then.',
        },
      ],
      requirements: {},
    },
    keys: 1,
  },
];

describe('compose-aks-cluster §8.3, §8.6', () => {
  it.each(cases)('$name ($keys keys): $reason', ({ req, want: expected, keys }) => {
    const got = compose(req());
    expect(got).toEqual(expected);
    expect(Object.keys(got.resources)).toHaveLength(keys);
  });

});

describe('golden of §8.3 case 1', () => {
  const r = g();
  it('the resource group and the cluster are named child_name(<ns>, <xr>, "aks")', () => {
    expect([r['resource-group']!.resource.metadata, r['cluster']!.resource.metadata]).toEqual([{ name: AKS_NAME }, { name: AKS_NAME }]);
  });

  it('the cluster: version 1.34, DNS prefix, node resource group, system default pool, overlay network, kubeconfig', () => {
    expect(forProvider(r, 'cluster')).toEqual({
      location: 'westeurope',
      kubernetesVersion: '1.34',
      dnsPrefix: AKS_NAME,
      nodeResourceGroup: `${AKS_NAME}-nodes`,
      resourceGroupNameSelector: { matchControllerRef: true },
      identity: { type: 'SystemAssigned' },
      defaultNodePool: {
        name: 'system',
        vmSize: 'Standard_D4s_v5',
        autoScalingEnabled: true,
        minCount: 1,
        maxCount: 2,
        osDiskSizeGb: 100,
        temporaryNameForRotation: 'systemtmp',
        nodeLabels: { 'modelplane.ai/pool': 'system' },
        vnetSubnetIdSelector: { matchControllerRef: true },
      },
      networkProfile: {
        networkPlugin: 'azure',
        networkPluginMode: 'overlay',
        podCidr: '10.244.0.0/16',
        serviceCidr: '10.96.0.0/16',
        dnsServiceIp: '10.96.0.10',
      },
    });
    expect((r['cluster']!.resource['spec'] as JsonObject)['writeConnectionSecretToRef']).toEqual({ name: KUBECONFIG });
  });

  it('the GPU node pool: external name, policies without LateInitialize, initial count, User mode, driver, labels, taint', () => {
    const np = r['nodepool-gpuh100']!.resource;
    expect(np.metadata).toEqual({ annotations: { 'crossplane.io/external-name': 'gpuh100' } });
    const spec = np['spec'] as JsonObject;
    expect([spec['managementPolicies'], spec['initProvider']]).toEqual([['Observe', 'Create', 'Update', 'Delete'], { nodeCount: 1 }]);
    expect(forProvider(r, 'nodepool-gpuh100')).toEqual({
      kubernetesClusterIdSelector: { matchControllerRef: true },
      vnetSubnetIdSelector: { matchControllerRef: true },
      mode: 'User',
      vmSize: 'Standard_ND96isr_H100_v5',
      osDiskSizeGb: 200,
      orchestratorVersion: '1.34',
      autoScalingEnabled: true,
      minCount: 1,
      maxCount: 4,
      gpuDriver: 'Install',
      nodeLabels: { 'modelplane.ai/gpu': 'nvidia-h100', 'modelplane.ai/pool': 'gpuh100' },
      nodeTaints: ['nvidia.com/gpu=true:NoSchedule'],
    });
  });

  it('network: VNet 10.0.0.0/16, subnet 10.0.0.0/20', () => {
    expect([forProvider(r, 'virtual-network')['addressSpace'], forProvider(r, 'subnet')['addressPrefixes']]).toEqual([
      ['10.0.0.0/16'],
      ['10.0.0.0/20'],
    ]);
  });
});
