/**
 * compose-gke-cluster: whole-response table tests for every acceptance case
 * of docs/clouds.md#gke, and our additions (a
 * class without a GKE machine type, pool names the function refuses, an
 * unparsable spec, a ProviderConfig without a project, waits that keep what
 * exists). Cases 2–5 of §8.2 are facts inside case 1's golden, checked
 * field by field in gke-golden.test.ts. Each case is a fresh request and the
 * entire response.
 */
import { describe, expect, it } from 'vitest';
import { compose } from '../../functions/compose-gke-cluster/compose.js';
import type { ComposeRequest, ComposeResult, JsonObject, KubeObject, ObservedResource } from '../../functions/lib/function.js';
import { gcpProviderConfig, gkePool, gkeXr, KUBECONFIG, NS, request, SA_KEY, seen } from '../builders/cloud.js';
import { body, forProvider, golden, ready, type Resources, withProviderConfigRef, without } from './expected.js';

const CONTAINER = 'container.gcp.m.upbound.io/v1beta1';
const COMPUTE = 'compute.gcp.m.upbound.io/v1beta1';
const CLOUDPLATFORM = 'cloudplatform.gcp.m.upbound.io/v1beta1';
const K8S = 'kubernetes.m.crossplane.io/v1alpha1';
const EMAIL = 'test-sa@my-gcp-project.iam.gserviceaccount.com';

/** §8.2 case 1: the 10 desired resources (a fresh copy). */
const g = (): Resources => golden('gke-1.yaml');
/** The nine GCP keys of case 7 (all but the two in-cluster ProviderConfigs, plus the IAM binding). */
const GCP_KEYS = [
  'network',
  'projectservice-filestore',
  'subnet',
  'cluster',
  'nodepool-system',
  'nodepool-gpu-pool',
  'service-account',
  'service-account-key',
  'iam-binding',
];

const STATUS: JsonObject = {
  secrets: [
    { type: 'Kubeconfig', name: KUBECONFIG, key: 'kubeconfig' },
    { type: 'GoogleApplicationCredentials', name: SA_KEY, key: 'private_key' },
  ],
  cache: { storageClassName: 'modelplane-rwx' },
  capabilities: {
    rwxCacheStorageClass: { name: 'modelplane-rwx' },
    multiNodeFabric: 'Ethernet',
    nodeAutoscaling: 'Provider',
    gpuStack: 'Composed',
  },
};
const REQUIREMENT = { 'gcp-provider-config': { apiVersion: 'gcp.m.upbound.io/v1beta1', kind: 'ClusterProviderConfig', matchName: 'default' } };
const withProject = () => ({ 'gcp-provider-config': [gcpProviderConfig()] });

function want(resources: Resources, extra: Partial<ComposeResult> = {}): ComposeResult {
  return { resources, status: STATUS, conditions: [], results: [], requirements: REQUIREMENT, ...extra };
}

/** §8.2 case 6: the IAM binding for the observed email. */
function iamBinding(ref: JsonObject = { kind: 'ClusterProviderConfig', name: 'default' }): KubeObject {
  return {
    apiVersion: CLOUDPLATFORM,
    kind: 'ProjectIAMMember',
    spec: { forProvider: { role: 'roles/container.admin', member: `serviceAccount:${EMAIL}` }, providerConfigRef: ref },
  };
}

/** §8.2 case 6: the Filestore StorageClass on network `network`. */
function storageClass(network: string): KubeObject {
  return {
    apiVersion: K8S,
    kind: 'Object',
    metadata: { namespace: NS },
    spec: {
      providerConfigRef: { kind: 'ProviderConfig', name: KUBECONFIG },
      forProvider: {
        manifest: {
          apiVersion: 'storage.k8s.io/v1',
          kind: 'StorageClass',
          metadata: { name: 'modelplane-rwx' },
          provisioner: 'filestore.csi.storage.gke.io',
          parameters: { tier: 'enterprise', network },
          volumeBindingMode: 'Immediate',
          allowVolumeExpansion: true,
        },
      },
      readiness: { policy: 'SuccessfulCreate' },
      managementPolicies: ['Observe', 'Create', 'Update'],
    },
  };
}

/** `resources` with the GPU pool's forProvider changed (undefined removes a field). */
function withGpuPool(resources: Resources, key: string, change: (fp: JsonObject) => void): Resources {
  const out = structuredClone(resources);
  const gpu = out['nodepool-gpu-pool']!;
  delete out['nodepool-gpu-pool'];
  change((gpu.resource['spec'] as JsonObject)['forProvider'] as JsonObject);
  out[key] = gpu;
  return out;
}

/** The observed GKE cluster whose workload pool names `project` (no conditions). */
const observedCluster = (project: string): ObservedResource => ({
  resource: {
    apiVersion: CONTAINER,
    kind: 'Cluster',
    metadata: { name: 'test-cluster-x' },
    spec: { forProvider: { location: 'us-central1', workloadIdentityConfig: { workloadPool: `${project}.svc.id.goog` } } },
  },
  connectionDetails: {},
});

const A100_NO_TYPE =
  'spec.nodePools[0] (gpu-a100): InferenceClass a100-gcp has no GKE machine type (spec.provisioning.gke.machineType); set it on the class or point the pool at a GKE class. Nothing new is composed for this pool; what exists is kept.';
const invalidPool = (message: string) => ({
  conditions: [{ type: 'SpecValid', status: 'False' as const, reason: 'InvalidNodePool', message }],
  results: [{ severity: 'Warning' as const, message, reason: 'InvalidNodePool' }],
});

const cases: { name: string; reason: string; req: () => ComposeRequest; want: ComposeResult; keys: number }[] = [
  {
    name: 'Spot pool',
    reason: 'docs/capacity-types.md#gke: the node pool runs Spot VMs (nodeConfig.spot true), nothing else changes',
    req: () => request(gkeXr([gkePool('gpu-pool', { capacityType: 'Spot' })]), {}, withProject()),
    want: want(
      withGpuPool(g(), 'nodepool-gpu-pool', (fp) => {
        (fp['nodeConfig'] as JsonObject)['spot'] = true;
      }),
    ),
    keys: 10,
  },
  {
    name: 'OnDemand pool',
    reason: 'an explicit OnDemand pool composes exactly as a pool without capacityType (no spot field)',
    req: () => request(gkeXr([gkePool('gpu-pool', { capacityType: 'OnDemand' })]), {}, withProject()),
    want: want(g()),
    keys: 10,
  },
  {
    name: '8.2-1 first pass',
    reason: '10 keys, only the ProviderConfigs ready; the requirement; no IAM binding, no StorageClass',
    req: () => request(gkeXr(), {}, withProject()),
    want: want(g()),
    keys: 10,
  },
  {
    name: '8.2-6 service account and network observed',
    reason: 'the SA email opens the IAM binding (not ready), the network name the StorageClass (ready)',
    req: () =>
      request(
        gkeXr(),
        {
          'service-account': seen(CLOUDPLATFORM, 'ServiceAccount', { ready: true, status: { atProvider: { email: EMAIL } } }),
          network: seen(COMPUTE, 'Network', { ready: true, externalName: 'test-cluster-abc12' }),
        },
        withProject(),
      ),
    want: want({
      ...ready(g(), 'network', 'service-account'),
      'iam-binding': body(iamBinding()),
      'storage-class-rwx': { resource: storageClass('test-cluster-abc12'), ready: true },
    }),
    keys: 12,
  },
  {
    name: '8.2-7 named ProviderConfig',
    reason: 'every GCP MR uses it; the requirement is namespaced; in-cluster ProviderConfigs carry no providerConfigRef',
    req: () =>
      request(
        gkeXr(undefined, { credentials: { type: 'ProviderConfig', name: 'my-gcp-account' } }),
        { 'service-account': seen(CLOUDPLATFORM, 'ServiceAccount', { status: { atProvider: { email: EMAIL } } }) },
        { 'gcp-provider-config': [gcpProviderConfig({ kind: 'ProviderConfig', name: 'my-gcp-account', namespace: NS })] },
      ),
    want: want(
      withProviderConfigRef({ ...g(), 'iam-binding': body(iamBinding()) }, { kind: 'ProviderConfig', name: 'my-gcp-account' }, GCP_KEYS),
      {
        requirements: {
          'gcp-provider-config': {
            apiVersion: 'gcp.m.upbound.io/v1beta1',
            kind: 'ProviderConfig',
            matchName: 'my-gcp-account',
            namespace: NS,
          },
        },
      },
    ),
    keys: 11,
  },
  {
    name: '8.6 no ProviderConfig, no cluster (not fetched yet)',
    reason: 'nothing composed, no status, the XR not Ready; the requirement and one Normal result',
    req: () => request(gkeXr()),
    want: {
      resources: {},
      ready: false,
      conditions: [],
      results: [{ severity: 'Normal', message: 'Waiting for GCP ClusterProviderConfig default' }],
      requirements: REQUIREMENT,
    },
    keys: 0,
  },
  {
    name: '8.6 no ProviderConfig, no cluster (absent)',
    reason: 'fetched and absent reads the same: wait, nothing composed',
    req: () => request(gkeXr(), {}, { 'gcp-provider-config': [] }),
    want: {
      resources: {},
      ready: false,
      conditions: [],
      results: [{ severity: 'Normal', message: 'Waiting for GCP ClusterProviderConfig default' }],
      requirements: REQUIREMENT,
    },
    keys: 0,
  },
  {
    name: '8.6 ProviderConfig gone, cluster observed',
    reason: "the project of the cluster's workload pool is kept, and a Normal result says so",
    req: () => request(gkeXr(), { cluster: observedCluster('p1') }, { 'gcp-provider-config': [] }),
    want: want(
      (() => {
        const r = g();
        (forProvider(r, 'cluster')['workloadIdentityConfig'] as JsonObject)['workloadPool'] = 'p1.svc.id.goog';
        return r;
      })(),
      {
        results: [
          {
            severity: 'Normal',
            message: 'GCP ClusterProviderConfig default not found; keeping the project the composed cluster already uses',
          },
        ],
      },
    ),
    keys: 10,
  },
  {
    name: 'ProviderConfig not fetched yet, cluster observed',
    reason: 'before Crossplane delivers the ProviderConfig the observed project is used quietly (not fetched yet is not absent)',
    req: () => request(gkeXr(), { cluster: observedCluster('p1') }),
    want: want(
      (() => {
        const r = g();
        (forProvider(r, 'cluster')['workloadIdentityConfig'] as JsonObject)['workloadPool'] = 'p1.svc.id.goog';
        return r;
      })(),
    ),
    keys: 10,
  },
  {
    name: '8.6 pool with zones',
    reason: 'nodeLocations equal the zones, in order',
    req: () => request(gkeXr([gkePool('gpu-pool', { zones: ['us-central1-a', 'us-central1-c'] })]), {}, withProject()),
    want: want(
      withGpuPool(g(), 'nodepool-gpu-pool', (fp) => {
        fp['nodeLocations'] = ['us-central1-a', 'us-central1-c'];
      }),
    ),
    keys: 10,
  },
  {
    name: '8.6 System-role pool',
    reason: 'labelled with its name only, no accelerators',
    req: () =>
      request(gkeXr([{ name: 'cpu', role: 'System', machineType: 'n2-standard-8', nodeCount: 2, minNodeCount: 1, maxNodeCount: 3 }]), {}, withProject()),
    want: want(
      withGpuPool(g(), 'nodepool-cpu', (fp) => {
        fp['initialNodeCount'] = 2;
        fp['autoscaling'] = { minNodeCount: 1, maxNodeCount: 3 };
        fp['nodeConfig'] = {
          machineType: 'n2-standard-8',
          diskSizeGb: 100,
          imageType: 'COS_CONTAINERD',
          oauthScopes: ['https://www.googleapis.com/auth/cloud-platform'],
          labels: { 'modelplane.ai/pool': 'cpu' },
        };
      }),
    ),
    keys: 10,
  },
  {
    name: 'class without a GKE machine type',
    reason: 'the pool is reported by pool and class; its observed node pool is kept; the rest is composed',
    req: () =>
      request(
        gkeXr([{ name: 'gpu-a100', role: 'GPU', className: 'a100-gcp', nodeCount: 1, zones: ['us-central1-a'] }, gkePool()]),
        { 'nodepool-gpu-a100': seen(CONTAINER, 'NodePool', { ready: true }) },
        withProject(),
      ),
    want: want(
      {
        ...g(),
        'nodepool-gpu-a100': { resource: { apiVersion: CONTAINER, kind: 'NodePool', metadata: { name: 'nodepool-x' } }, ready: true },
      },
      invalidPool(A100_NO_TYPE),
    ),
    keys: 11,
  },
  {
    name: 'pool names the function refuses',
    reason: 'a name that is not a label value and the reserved system name are reported, never composed',
    req: () => request(gkeXr([gkePool('-gpu'), gkePool('system')]), {}, withProject()),
    want: want(without(g(), 'nodepool-gpu-pool'), {
      conditions: [
        {
          type: 'SpecValid',
          status: 'False',
          reason: 'InvalidNodePool',
          message:
            'spec.nodePools[0].name: "-gpu" is not a Kubernetes label value (at most 63 letters, digits, \'-\', \'_\' or \'.\', beginning and ending with a letter or digit), so it cannot label the pool\'s nodes; rename the pool. Nothing new is composed for this pool; what exists is kept. spec.nodePools[1].name: "system" is reserved for the injected system node pool; rename the pool. Nothing new is composed for this pool; what exists is kept.',
        },
      ],
      results: [
        {
          severity: 'Warning',
          reason: 'InvalidNodePool',
          message:
            'spec.nodePools[0].name: "-gpu" is not a Kubernetes label value (at most 63 letters, digits, \'-\', \'_\' or \'.\', beginning and ending with a letter or digit), so it cannot label the pool\'s nodes; rename the pool. Nothing new is composed for this pool; what exists is kept.',
        },
        {
          severity: 'Warning',
          reason: 'InvalidNodePool',
          message:
            'spec.nodePools[1].name: "system" is reserved for the injected system node pool; rename the pool. Nothing new is composed for this pool; what exists is kept.',
        },
      ],
    }),
    keys: 9,
  },
  {
    name: 'gates closed again',
    reason: 'an observed IAM binding and StorageClass are kept as observed when the email and network name vanish',
    req: () =>
      request(
        gkeXr(),
        {
          'iam-binding': seen(CLOUDPLATFORM, 'ProjectIAMMember', { ready: true }),
          'storage-class-rwx': seen(K8S, 'Object'),
        },
        withProject(),
      ),
    want: want({
      ...g(),
      'iam-binding': {
        resource: { apiVersion: CLOUDPLATFORM, kind: 'ProjectIAMMember', metadata: { name: 'projectiammember-x' } },
        ready: true,
      },
      'storage-class-rwx': { resource: { apiVersion: K8S, kind: 'Object', metadata: { name: 'object-x' } }, ready: true },
    }),
    keys: 12,
  },
  {
    name: 'ProviderConfig without projectID',
    reason: 'a Warning names the field; everything observed and the status written are kept',
    req: () => {
      const xr = gkeXr();
      xr['status'] = { secrets: STATUS['secrets'] };
      return request(xr, { network: seen(COMPUTE, 'Network', { ready: true }) }, { 'gcp-provider-config': [gcpProviderConfig({ projectID: null })] });
    },
    want: {
      resources: { network: { resource: { apiVersion: COMPUTE, kind: 'Network', metadata: { name: 'network-x' } }, ready: true } },
      status: { secrets: STATUS['secrets'] },
      ready: false,
      conditions: [],
      results: [
        {
          severity: 'Warning',
          message: 'GCP ClusterProviderConfig default has no spec.projectID; set it to the project the cluster is created in',
        },
      ],
      requirements: REQUIREMENT,
    },
    keys: 1,
  },
  {
    name: 'unparsable spec',
    reason: 'every observed child and the status written before are kept; SpecValid names the field',
    req: () => {
      const xr = gkeXr([gkePool('gpu-pool', { diskSizeGb: 'big' })]);
      xr['status'] = { cache: STATUS['cache'] };
      return request(xr, { 'provider-config-helm': seen('helm.m.crossplane.io/v1beta1', 'ProviderConfig') }, withProject());
    },
    want: {
      resources: {
        'provider-config-helm': {
          resource: { apiVersion: 'helm.m.crossplane.io/v1beta1', kind: 'ProviderConfig', metadata: { name: 'providerconfig-x' } },
          ready: true,
        },
      },
      status: { cache: STATUS['cache'] },
      conditions: [
        {
          type: 'SpecValid',
          status: 'False',
          reason: 'InvalidSpec',
          message:
            'GKECluster spec is invalid: spec.nodePools[0].diskSizeGb: Invalid input: expected number, received string. Fix the fields named; nothing is changed until then.',
        },
      ],
      results: [
        {
          severity: 'Warning',
          reason: 'InvalidSpec',
          message:
            'GKECluster spec is invalid: spec.nodePools[0].diskSizeGb: Invalid input: expected number, received string. Fix the fields named; nothing is changed until then.',
        },
      ],
      requirements: {},
    },
    keys: 1,
  },
];

describe('compose-gke-cluster §8.2, §8.6', () => {
  it.each(cases)('$name ($keys keys): $reason', ({ req, want: expected, keys }) => {
    const got = compose(req());
    expect(got).toEqual(expected);
    expect(Object.keys(got.resources)).toHaveLength(keys);
  });

  it('a wait keeps every observed child and the status (nothing is torn down while the ProviderConfig is away)', () => {
    const xr = gkeXr();
    xr['status'] = { secrets: STATUS['secrets'], capabilities: STATUS['capabilities'] };
    const got = compose(request(xr, { subnet: seen(COMPUTE, 'Subnetwork'), 'provider-config-kubernetes': seen(K8S, 'ProviderConfig') }, { 'gcp-provider-config': [] }));
    expect(got).toEqual({
      resources: {
        subnet: { resource: { apiVersion: COMPUTE, kind: 'Subnetwork', metadata: { name: 'subnetwork-x' } } },
        'provider-config-kubernetes': {
          resource: { apiVersion: K8S, kind: 'ProviderConfig', metadata: { name: 'providerconfig-x' } },
          ready: true,
        },
      },
      status: { secrets: STATUS['secrets'], capabilities: STATUS['capabilities'] },
      ready: false,
      conditions: [],
      results: [{ severity: 'Normal', message: 'Waiting for GCP ClusterProviderConfig default' }],
      requirements: REQUIREMENT,
    });
  });

});
