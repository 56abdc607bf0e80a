/**
 * compose-nebius-cluster: whole-response table tests for every acceptance
 * case of docs/clouds.md#nebius, and our
 * additions (credentials kept through a transient or user error, a class
 * without a Nebius platform, an unparsable spec). Case 1's bodies are the
 * reviewed golden; its literal facts are checked in nebius-golden.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { compose } from '../../functions/compose-nebius-cluster/compose.js';
import type { ComposeRequest, ComposeResult, JsonObject, KubeObject, ObservedResource } from '../../functions/lib/function.js';
import { KUBECONFIG, NS, nebiusPool, nebiusProviderConfig, nebiusXr, request, seen } from '../builders/cloud.js';
import { body, golden, ready, type Resources, withProviderConfigRef, without } from './expected.js';

const MK8S = 'mk8s.nebius.m.upbound.io/v1beta1';
const VPC = 'vpc.nebius.m.upbound.io/v1beta1';
const COMPUTE = 'compute.nebius.m.upbound.io/v1beta1';
const HELM = 'helm.m.crossplane.io/v1beta1';
const K8S = 'kubernetes.m.crossplane.io/v1alpha1';
const NEBIUS_KEYS = ['network', 'subnet', 'cluster', 'filesystem', 'nodegroup-system', 'nodegroup-gpu-h100'];
const PC_KEYS = ['provider-config-kubernetes', 'provider-config-helm'];

/** §8.4 case 1: the 9 desired resources (a fresh copy). */
const g = (): Resources => golden('nebius-1.yaml');
const infra = (): Resources => without(g(), ...PC_KEYS);

const KUBECONFIG_ENTRY = { type: 'Kubeconfig', name: KUBECONFIG, key: 'kubeconfig' };
const CREDS_ENTRY = { type: 'NebiusServiceAccountCredentials', name: 'nebius-credentials', key: 'credentials.json', namespace: 'crossplane-system' };

function status(opts: { creds?: JsonObject | null; fabric?: string; autoscaling?: string } = {}): JsonObject {
  const creds = opts.creds === undefined ? CREDS_ENTRY : opts.creds;
  return {
    secrets: creds ? [KUBECONFIG_ENTRY, creds] : [KUBECONFIG_ENTRY],
    cache: { storageClassName: 'modelplane-rwx-fs' },
    capabilities: {
      rwxCacheStorageClass: { name: 'modelplane-rwx-fs' },
      multiNodeFabric: opts.fabric ?? 'Ethernet',
      nodeAutoscaling: opts.autoscaling ?? 'Provider',
      gpuStack: 'Composed',
    },
  };
}
const REQUIREMENT = {
  'nebius-provider-config': { apiVersion: 'nebius.m.upbound.io/v1beta1', kind: 'ClusterProviderConfig', matchName: 'default' },
};
const withPC = (pc: KubeObject = nebiusProviderConfig()) => ({ 'nebius-provider-config': [pc] });

function want(resources: Resources, extra: Partial<ComposeResult> = {}): ComposeResult {
  return { resources, status: status(), conditions: [], results: [], requirements: REQUIREMENT, ...extra };
}

const IN_CLUSTER = { kind: 'ProviderConfig', name: KUBECONFIG };
/** §8.4 case 5: the CSI driver release. */
const csiRelease: KubeObject = {
  apiVersion: HELM,
  kind: 'Release',
  metadata: { namespace: NS },
  spec: {
    providerConfigRef: IN_CLUSTER,
    forProvider: {
      chart: { name: 'csi-mounted-fs-path', repository: 'oci://cr.eu-north1.nebius.cloud/mk8s/helm', version: '0.1.6' },
      namespace: 'kube-system',
      values: {
        dataDir: '/mnt/data/csi-mounted-fs-path-data/',
        tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
      },
    },
    managementPolicies: ['Observe', 'Create', 'Update'],
  },
};
/** §8.4 case 5: the StorageClass Object. */
const storageClass: KubeObject = {
  apiVersion: K8S,
  kind: 'Object',
  metadata: { namespace: NS },
  spec: {
    providerConfigRef: IN_CLUSTER,
    forProvider: {
      manifest: {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'StorageClass',
        metadata: { name: 'modelplane-rwx-fs' },
        provisioner: 'mounted-fs-path.csi.nebius.ai',
        volumeBindingMode: 'WaitForFirstConsumer',
      },
    },
    readiness: { policy: 'SuccessfulCreate' },
    managementPolicies: ['Observe', 'Create', 'Update'],
  },
};

/** §8.4 case 4: the GpuCluster of fabric `fabric`. */
function gpuCluster(fabric: string): KubeObject {
  return {
    apiVersion: COMPUTE,
    kind: 'GpuCluster',
    metadata: { labels: { 'modelplane.ai/fabric': fabric } },
    spec: {
      forProvider: { name: `test-cluster-${fabric}`, infinibandFabric: fabric },
      providerConfigRef: { kind: 'ClusterProviderConfig', name: 'default' },
    },
  };
}

/** `resources` with node group `key`'s forProvider changed (the GPU group's body, renamed to `as`). */
function withGroup(resources: Resources, change: (fp: JsonObject) => void, as = 'nodegroup-gpu-h100'): Resources {
  const out = structuredClone(resources);
  const group = structuredClone(g()['nodegroup-gpu-h100']!);
  delete out['nodegroup-gpu-h100'];
  change((group.resource['spec'] as JsonObject)['forProvider'] as JsonObject);
  out[as] = group;
  return out;
}
const template = (fp: JsonObject) => fp['template'] as JsonObject;

/** The observed kubernetes ProviderConfig as composed in case 1 (with its identity). */
const observedPC = (): ObservedResource => ({ resource: structuredClone(g()['provider-config-kubernetes']!.resource), connectionDetails: {} });

const H100_NO_SHAPE =
  'spec.nodePools[0] (h100b): InferenceClass h100-neb has no Nebius platform and preset (spec.provisioning.nebius.platform, spec.provisioning.nebius.preset); set them on the class or point the pool at a Nebius class. Nothing new is composed for this pool; what exists is kept.';

const cases: { name: string; reason: string; req: () => ComposeRequest; want: ComposeResult; keys: number }[] = [
  {
    name: '8.4-1 first pass',
    reason: 'infrastructure, ready cloud-init and ProviderConfigs with the Nebius identity; no release or StorageClass yet',
    req: () => request(nebiusXr(), {}, withPC()),
    want: want(g()),
    keys: 9,
  },
  {
    name: '8.4-2 no ProviderConfig, nothing observed',
    reason: 'the infrastructure (7 keys) is composed anyway; no ProviderConfigs, no credential entry; a Normal wait',
    req: () => request(nebiusXr()),
    want: want(infra(), {
      status: status({ creds: null }),
      ready: false,
      results: [{ severity: 'Normal', message: 'Waiting for Nebius ClusterProviderConfig default' }],
    }),
    keys: 7,
  },
  {
    name: '8.4-3 ProviderConfig gone, composed one observed',
    reason: 'the credentials the composed ProviderConfig carries are kept, and a Normal result says so',
    req: () => request(nebiusXr(), { 'provider-config-kubernetes': observedPC() }, { 'nebius-provider-config': [] }),
    want: want(g(), {
      results: [
        {
          severity: 'Normal',
          message: 'Nebius ClusterProviderConfig default not found; keeping the credentials the composed ProviderConfig already carries',
        },
      ],
    }),
    keys: 9,
  },
  {
    name: '8.4-4 fixed-size InfiniBand pool',
    reason: "one GpuCluster for the fabric; the group is fixed at 2 nodes and joins it; the fabric is declared, no autoscaler",
    req: () =>
      request(
        nebiusXr([nebiusPool('gpu-h100', { nodeCount: 2, maxNodeCount: undefined, fabric: { type: 'InfiniBand', infiniband: { fabric: 'fabric-2' } } })]),
        {},
        withPC(),
      ),
    want: want(
      {
        ...withGroup(g(), (fp) => {
          delete fp['autoscaling'];
          fp['fixedNodeCount'] = 2;
          fp['template'] = {
            ...template(fp),
            gpuCluster: { idSelector: { matchControllerRef: true, matchLabels: { 'modelplane.ai/fabric': 'fabric-2' } } },
          };
        }),
        'gpu-cluster-fabric-2': body(gpuCluster('fabric-2')),
      },
      { status: status({ fabric: 'InfiniBand', autoscaling: 'None' }) },
    ),
    keys: 10,
  },
  {
    name: '8.4-5 everything observed Ready',
    reason: 'every Nebius MR ready; the CSI driver (ready) and StorageClass (ready) composed: 11 keys',
    req: () =>
      request(
        nebiusXr(),
        {
          network: seen(VPC, 'Network', { ready: true }),
          subnet: seen(VPC, 'Subnet', { ready: true }),
          cluster: seen(MK8S, 'Cluster', { ready: true }),
          filesystem: seen(COMPUTE, 'Filesystem', { ready: true }),
          'release-csi-mounted-fs-path': seen(HELM, 'Release', { ready: true }),
          'nodegroup-system': seen(MK8S, 'NodeGroup', { ready: true }),
          'nodegroup-gpu-h100': seen(MK8S, 'NodeGroup', { ready: true }),
        },
        withPC(),
      ),
    want: want({
      ...ready(g(), ...NEBIUS_KEYS),
      'release-csi-mounted-fs-path': { resource: csiRelease, ready: true },
      'storage-class-rwx-fs': { resource: storageClass, ready: true },
    }),
    keys: 11,
  },
  {
    name: '8.4-6 named, namespaced ProviderConfig',
    reason: 'the six Nebius MRs use it; cloud-init and ProviderConfigs unchanged; the requirement is namespaced',
    req: () =>
      request(
        nebiusXr(undefined, { credentials: { type: 'ProviderConfig', name: 'my-nebius-account' } }),
        {},
        withPC(nebiusProviderConfig({ kind: 'ProviderConfig', name: 'my-nebius-account', namespace: 'crossplane-system' })),
      ),
    want: want(withProviderConfigRef(g(), { kind: 'ProviderConfig', name: 'my-nebius-account' }, NEBIUS_KEYS), {
      requirements: {
        'nebius-provider-config': {
          apiVersion: 'nebius.m.upbound.io/v1beta1',
          kind: 'ProviderConfig',
          matchName: 'my-nebius-account',
          namespace: NS,
        },
      },
    }),
    keys: 9,
  },
  {
    name: '8.6 credentials not from a Secret',
    reason: 'a Warning says consumers cannot authenticate; no ProviderConfigs and no credential entry',
    req: () =>
      request(nebiusXr(), { cluster: seen(MK8S, 'Cluster') }, withPC(nebiusProviderConfig({ credentials: { source: 'InjectedIdentity' } }))),
    want: want(infra(), {
      status: status({ creds: null }),
      ready: false,
      results: [
        {
          severity: 'Warning',
          message:
            "Nebius ClusterProviderConfig default doesn't source credentials from a Secret; consumers can't authenticate to the cluster without one",
        },
      ],
    }),
    keys: 7,
  },
  {
    name: '8.6 secretRef without namespace',
    reason: 'a ClusterProviderConfig has no namespace to fall back to: a Warning, no credentials',
    req: () =>
      request(
        nebiusXr(),
        {},
        withPC(nebiusProviderConfig({ credentials: { source: 'Secret', secretRef: { name: 'nebius-credentials', key: 'credentials.json' } } })),
      ),
    want: want(infra(), {
      status: status({ creds: null }),
      ready: false,
      results: [{ severity: 'Warning', message: 'Nebius ClusterProviderConfig default has no namespace; cannot locate credentials Secret' }],
    }),
    keys: 7,
  },
  {
    name: 'secretRef namespace from the ProviderConfig',
    reason: "a namespaced ProviderConfig's own namespace locates a secretRef without one",
    req: () =>
      request(
        nebiusXr(undefined, { credentials: { type: 'ProviderConfig', name: 'p' } }),
        {},
        withPC(
          nebiusProviderConfig({
            kind: 'ProviderConfig',
            name: 'p',
            namespace: 'crossplane-system',
            credentials: { source: 'Secret', secretRef: { name: 'nebius-credentials', key: 'credentials.json' } },
          }),
        ),
      ),
    want: want(withProviderConfigRef(g(), { kind: 'ProviderConfig', name: 'p' }, NEBIUS_KEYS), {
      requirements: { 'nebius-provider-config': { apiVersion: 'nebius.m.upbound.io/v1beta1', kind: 'ProviderConfig', matchName: 'p', namespace: NS } },
    }),
    keys: 9,
  },
  {
    name: "8.6 credentials in the XR's namespace",
    reason: 'the status credential entry has no namespace',
    req: () =>
      request(
        nebiusXr(),
        {},
        withPC(nebiusProviderConfig({ credentials: { source: 'Secret', secretRef: { namespace: NS, name: 'nebius-credentials', key: 'credentials.json' } } })),
      ),
    want: want(
      (() => {
        const r = g();
        for (const k of PC_KEYS) {
          (((r[k]!.resource['spec'] as JsonObject)['identity'] as JsonObject)['secretRef'] as JsonObject)['namespace'] = NS;
        }
        return r;
      })(),
      { status: status({ creds: { type: 'NebiusServiceAccountCredentials', name: 'nebius-credentials', key: 'credentials.json' } }) },
    ),
    keys: 9,
  },
  {
    name: '8.6 two pools on one fabric, minNodeCount',
    reason: 'one GpuCluster for the shared fabric; an explicit minNodeCount is the autoscaler minimum',
    req: () => {
      const ibf = { type: 'InfiniBand', infiniband: { fabric: 'fabric-3' } };
      return request(nebiusXr([nebiusPool('gpu-h100', { fabric: ibf, minNodeCount: 2 }), nebiusPool('gpu-h100b', { fabric: ibf })]), {}, withPC());
    },
    want: want(
      (() => {
        const joined = (fp: JsonObject) => {
          fp['template'] = {
            ...template(fp),
            gpuCluster: { idSelector: { matchControllerRef: true, matchLabels: { 'modelplane.ai/fabric': 'fabric-3' } } },
          };
        };
        const a = withGroup(g(), (fp) => {
          fp['autoscaling'] = { minNodeCount: 2, maxNodeCount: 4 };
          joined(fp);
        });
        const b = withGroup({}, (fp) => {
          fp['name'] = 'test-cluster-gpu-h100b';
          joined(fp);
          ((template(fp)['metadata'] as JsonObject)['labels'] as JsonObject)['modelplane.ai/pool'] = 'gpu-h100b';
        }, 'nodegroup-gpu-h100b');
        return { ...a, ...b, 'gpu-cluster-fabric-3': body(gpuCluster('fabric-3')) };
      })(),
      { status: status({ fabric: 'InfiniBand' }) },
    ),
    keys: 11,
  },
  {
    name: '8.6 release observed without the cluster',
    reason: 'a CSI driver composed before stays composed while the cluster is not observed',
    req: () => request(nebiusXr(), { 'release-csi-mounted-fs-path': seen(HELM, 'Release') }, withPC()),
    want: want({ ...g(), 'release-csi-mounted-fs-path': body(csiRelease) }),
    keys: 10,
  },
  {
    name: 'user error keeps the composed credentials',
    reason: 'a ProviderConfig edited to a non-Secret source warns, but the ProviderConfigs already composed keep their credentials',
    req: () =>
      request(nebiusXr(), { 'provider-config-kubernetes': observedPC() }, withPC(nebiusProviderConfig({ credentials: { source: 'InjectedIdentity' } }))),
    want: want(g(), {
      results: [
        {
          severity: 'Warning',
          message:
            "Nebius ClusterProviderConfig default doesn't source credentials from a Secret; consumers can't authenticate to the cluster without one",
        },
      ],
    }),
    keys: 9,
  },
  {
    name: 'not fetched yet, composed ProviderConfig observed',
    reason: 'before Crossplane delivers the ProviderConfig the composed credentials are kept quietly',
    req: () => request(nebiusXr(), { 'provider-config-kubernetes': observedPC() }),
    want: want(g()),
    keys: 9,
  },
  {
    name: 'no credentials, consumers observed',
    reason: 'observed ProviderConfigs without an identity and a StorageClass are kept as observed, never deleted',
    req: () => request(nebiusXr(), { 'provider-config-helm': seen(HELM, 'ProviderConfig'), 'storage-class-rwx-fs': seen(K8S, 'Object') }),
    want: want(
      {
        ...infra(),
        'provider-config-helm': { resource: { apiVersion: HELM, kind: 'ProviderConfig', metadata: { name: 'providerconfig-x' } }, ready: true },
        'storage-class-rwx-fs': { resource: { apiVersion: K8S, kind: 'Object', metadata: { name: 'object-x' } }, ready: true },
      },
      { status: status({ creds: null }),
      ready: false, results: [{ severity: 'Normal', message: 'Waiting for Nebius ClusterProviderConfig default' }] },
    ),
    keys: 9,
  },
  {
    name: 'class without a Nebius platform',
    reason: 'the pool is reported by pool and class; its observed node group is kept; the rest is composed',
    req: () =>
      request(
        nebiusXr([{ name: 'h100b', role: 'GPU', className: 'h100-neb', nodeCount: 1 }, nebiusPool()]),
        { 'nodegroup-h100b': seen(MK8S, 'NodeGroup', { ready: true }) },
        withPC(),
      ),
    want: want(
      { ...g(), 'nodegroup-h100b': { resource: { apiVersion: MK8S, kind: 'NodeGroup', metadata: { name: 'nodegroup-x' } }, ready: true } },
      {
        conditions: [{ type: 'SpecValid', status: 'False', reason: 'InvalidNodePool', message: H100_NO_SHAPE }],
        results: [{ severity: 'Warning', message: H100_NO_SHAPE, reason: 'InvalidNodePool' }],
      },
    ),
    keys: 10,
  },
  {
    name: 'unparsable spec',
    reason: 'every observed child and the status are kept; SpecValid names the field',
    req: () => {
      const xr = nebiusXr([nebiusPool('gpu-h100', { fabric: { type: 'Ethernet' } })]);
      xr['status'] = status();
      return request(xr, { cloud: seen('v1', 'Secret') }, withPC());
    },
    want: {
      resources: { cloud: { resource: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'secret-x' } } } },
      status: status(),
      conditions: [
        {
          type: 'SpecValid',
          status: 'False',
          reason: 'InvalidSpec',
          message:
            'NebiusCluster spec is invalid: spec.nodePools[0].fabric.type: Invalid option: expected one of "None"|"InfiniBand". Fix the fields named; nothing is changed until then.',
        },
      ],
      results: [
        {
          severity: 'Warning',
          reason: 'InvalidSpec',
          message:
            'NebiusCluster spec is invalid: spec.nodePools[0].fabric.type: Invalid option: expected one of "None"|"InfiniBand". Fix the fields named; nothing is changed until then.',
        },
      ],
      requirements: {},
    },
    keys: 1,
  },
];

describe('compose-nebius-cluster §8.4, §8.6', () => {
  it.each(cases)('$name ($keys keys): $reason', ({ req, want: expected, keys }) => {
    const got = compose(req());
    expect(got).toEqual(expected);
    expect(Object.keys(got.resources)).toHaveLength(keys);
  });

});
