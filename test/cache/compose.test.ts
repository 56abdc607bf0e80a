/**
 * compose-model-cache: every acceptance case of the reference, docs/kinds/modelcache.md (XR
 * `qwen` in ml-team, repo Qwen/Qwen3-0.6B, sizeGiB 20), plus the declared
 * gaps of docs/design.md#declared-capabilities (Unsupported clusters) and the
 * keep-children rule of docs/design.md#keep-what-exists.
 */
import { describe, expect, it } from 'vitest';
import { compose } from '../../functions/compose-model-cache/compose.js';
import type { ComposeRequest, JsonObject, KubeObject, ObservedResource } from '../../functions/lib/function.js';
import { NS, observed, request } from '../builders/serving.js';

const SECRET = 'modelcache-ml-team-qwen-auth-ae01b';
const PVC = 'modelcache-ml-team-qwen-17db2';
const JOB = 'modelcache-ml-team-qwen-hydrate-256ec';
const SCRIPT_NO_REV =
  "set -e; if [ -f /mnt/artifact/.modelplane-hydrated ]; then echo 'already hydrated, skipping'; exit 0; fi; pip install --quiet huggingface_hub; hf download Qwen/Qwen3-0.6B --local-dir /mnt/artifact; touch /mnt/artifact/.modelplane-hydrated";
const VULTR_REASON = 'Vultr File System cannot be attached to VKE GPU nodes, so this cluster has no RWX StorageClass for ModelCache volumes.';

function cache(o: { revision?: string; auth?: boolean; status?: JsonObject; ready?: boolean; selector?: Record<string, string> } = {}): KubeObject {
  const hf: JsonObject = { repo: 'Qwen/Qwen3-0.6B', sizeGiB: 20 };
  if (o.revision) hf['revision'] = o.revision;
  if (o.auth) hf['authSecret'] = { name: 'hf-token' };
  const spec: JsonObject = { source: 'HuggingFace', huggingFace: hf };
  if (o.selector) spec['clusterSelector'] = { matchLabels: o.selector };
  const xr: KubeObject = { apiVersion: 'modelplane.ai/v1alpha1', kind: 'ModelCache', metadata: { name: 'qwen', namespace: NS }, spec };
  const status: JsonObject = { ...(o.status ?? {}) };
  if (o.ready) status['conditions'] = [{ type: 'Ready', status: 'True', reason: 'Available' }];
  if (Object.keys(status).length > 0) xr['status'] = status;
  return xr;
}

/** A cluster publishing providerConfigRef `<name>-pc` and the reference's status.cache (or a capability). */
function cluster(name: string, o: { storageClass?: string; capability?: JsonObject; pc?: boolean } = {}): KubeObject {
  const status: JsonObject = { conditions: [{ type: 'Ready', status: 'True', reason: 'Available' }] };
  if (o.pc !== false) status['providerConfigRef'] = { name: `${name}-pc` };
  if (o.storageClass) status['cache'] = { storageClassName: o.storageClass };
  if (o.capability) status['capabilities'] = { rwxCacheStorageClass: o.capability, multiNodeFabric: 'None', nodeAutoscaling: 'None', gpuStack: 'Operator' };
  return { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceCluster', metadata: { name }, spec: {}, status };
}
const gke = (name = 'cluster-a') => cluster(name, { storageClass: 'modelplane-rwx' });
const secret = (data: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'hf-token', namespace: NS }, data });

function wrapped(manifest: JsonObject, pc: string, extra: JsonObject = {}): KubeObject {
  return {
    apiVersion: 'kubernetes.m.crossplane.io/v1alpha1',
    kind: 'Object',
    spec: { providerConfigRef: { kind: 'ClusterProviderConfig', name: pc }, forProvider: { manifest }, ...extra },
  };
}
const labels = { 'modelplane.ai/modelcache': 'qwen' };
function pvc(pc = 'cluster-a-pc', storageClass = 'modelplane-rwx'): KubeObject {
  return wrapped(
    {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: PVC, namespace: 'default', labels },
      spec: { accessModes: ['ReadWriteMany'], storageClassName: storageClass, resources: { requests: { storage: '20Gi' } } },
    },
    pc,
    { readiness: { policy: 'DeriveFromCelQuery', celQuery: 'has(object.status) && has(object.status.phase) && object.status.phase == "Bound"' }, watch: true },
  );
}
function job(pc = 'cluster-a-pc', o: { script?: string; env?: JsonObject[] } = {}): KubeObject {
  return wrapped(
    {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: JOB, namespace: 'default', labels },
      spec: {
        backoffLimit: 3,
        ttlSecondsAfterFinished: 180,
        template: {
          metadata: { labels },
          spec: {
            restartPolicy: 'OnFailure',
            containers: [
              {
                name: 'hydrate',
                image: 'python:3.11-slim',
                command: ['/bin/sh', '-c', o.script ?? SCRIPT_NO_REV],
                env: o.env ?? [],
                volumeMounts: [{ name: 'artifact', mountPath: '/mnt/artifact' }],
              },
            ],
            volumes: [{ name: 'artifact', persistentVolumeClaim: { claimName: PVC } }],
          },
        },
      },
    },
    pc,
    {
      readiness: {
        policy: 'DeriveFromCelQuery',
        celQuery: 'has(object.status) && has(object.status.conditions) && object.status.conditions.exists(c, c.type == "Complete" && c.status == "True")',
      },
      watch: true,
      managementPolicies: ['Observe', 'Create', 'Update', 'LateInitialize'],
    },
  );
}
function authObject(pc = 'cluster-a-pc'): KubeObject {
  return wrapped({ apiVersion: 'v1', kind: 'Secret', metadata: { name: SECRET, namespace: 'default', labels }, data: { HF_TOKEN: 'aGYtdG9rZW4=' } }, pc);
}

/** An observed Object with the remote status given and Ready as told. */
function remote(status: JsonObject, ready: boolean): ObservedResource {
  return observed({
    apiVersion: 'kubernetes.m.crossplane.io/v1alpha1',
    kind: 'Object',
    spec: {},
    status: {
      atProvider: { manifest: { status } },
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', reason: ready ? 'Available' : 'Creating' }],
    },
  });
}
const bound = () => remote({ phase: 'Bound' }, true);
const complete = () => remote({ conditions: [{ type: 'Complete', status: 'True' }] }, true);
const running = () => remote({ active: 1 }, false);
const failedJob = () => remote({ conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' }] }, false);

const CLUSTERS_REQ = { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceCluster' };
const AUTH_REQ = { apiVersion: 'v1', kind: 'Secret', matchName: 'hf-token', namespace: NS };
const matched = { type: 'ClustersMatched', status: 'True', reason: 'Matched' };
const staged = { type: 'ArtifactReady', status: 'True', reason: 'Staged' };
const hydrating = { type: 'ArtifactReady', status: 'False', reason: 'Hydrating' };
const stagingEvent = (n: number, names: string) => ({ severity: 'Normal', message: `Staging Qwen/Qwen3-0.6B to ${n} clusters: ${names}` });

function run(xr: KubeObject, required: Record<string, KubeObject[]>, obs: Record<string, ObservedResource> = {}): ReturnType<typeof compose> {
  const req: ComposeRequest = request(xr, { required, observed: obs });
  return compose(req);
}

describe('compose-model-cache (docs/kinds/modelcache.md)', () => {
  it('GKE cluster, nothing observed: PVC + Job (env []), Pending, Hydrating, Staging event, bare clusters requirement', () => {
    expect(run(cache(), { clusters: [gke()] })).toEqual({
      resources: { 'pvc-cluster-a': { resource: pvc() }, 'hydrate-cluster-a': { resource: job() } },
      status: { summary: { ready: '0/1' }, clusters: [{ name: 'cluster-a', phase: 'Pending' }] },
      conditions: [matched, hydrating],
      results: [stagingEvent(1, 'cluster-a')],
      requirements: { clusters: CLUSTERS_REQ },
    });
  });

  it('revision main + authSecret: the Secret is copied, --revision before --local-dir, HF_TOKEN from the remote Secret', () => {
    const out = run(cache({ revision: 'main', auth: true }), { clusters: [gke()], 'auth-secret': [secret({ HF_TOKEN: 'aGYtdG9rZW4=' })] });
    expect(out.requirements).toEqual({ clusters: CLUSTERS_REQ, 'auth-secret': AUTH_REQ });
    expect(out.resources['auth-cluster-a']).toEqual({ resource: authObject() });
    expect(out.resources['hydrate-cluster-a']).toEqual({
      resource: job('cluster-a-pc', {
        script: SCRIPT_NO_REV.replace('Qwen/Qwen3-0.6B --local-dir', 'Qwen/Qwen3-0.6B --revision main --local-dir'),
        env: [{ name: 'HF_TOKEN', valueFrom: { secretKeyRef: { name: SECRET, key: 'HF_TOKEN' } } }],
      }),
    });
    expect(Object.keys(out.resources).sort()).toEqual(['auth-cluster-a', 'hydrate-cluster-a', 'pvc-cluster-a']);
  });

  it('EKS cluster with class modelplane-rwx-efs: the PVC uses that class', () => {
    const out = run(cache(), { clusters: [cluster('eks-a', { storageClass: 'modelplane-rwx-efs' })] });
    expect(out.resources['pvc-eks-a']).toEqual({ resource: pvc('eks-a-pc', 'modelplane-rwx-efs') });
  });

  it('PVC Bound + Job Complete: only the PVC (ready), 1/1 Ready, Staged, composite ready, staged event', () => {
    expect(run(cache(), { clusters: [gke()] }, { 'pvc-cluster-a': bound(), 'hydrate-cluster-a': complete() })).toEqual({
      resources: { 'pvc-cluster-a': { resource: pvc(), ready: true } },
      status: { summary: { ready: '1/1' }, clusters: [{ name: 'cluster-a', phase: 'Ready' }] },
      conditions: [matched, staged],
      results: [{ severity: 'Normal', message: 'Artifact staged on all 1 clusters' }],
      requirements: { clusters: CLUSTERS_REQ },
      ready: true,
    });
  });

  it('PVC Bound only: Hydrating, PVC ready, Job still composed unready, no events', () => {
    const out = run(cache(), { clusters: [gke()] }, { 'pvc-cluster-a': bound(), 'hydrate-cluster-a': running() });
    expect(out.resources).toEqual({ 'pvc-cluster-a': { resource: pvc(), ready: true }, 'hydrate-cluster-a': { resource: job() } });
    expect(out.status).toEqual({ summary: { ready: '0/1' }, clusters: [{ name: 'cluster-a', phase: 'Hydrating' }] });
    expect(out.conditions).toEqual([matched, hydrating]);
    expect(out.results).toEqual([]);
  });

  it('Job Failed: phase Failed with the Job message, ArtifactReady Failed, PVC ready, Job composed', () => {
    const out = run(cache(), { clusters: [gke()] }, { 'pvc-cluster-a': bound(), 'hydrate-cluster-a': failedJob() });
    expect(out.status).toEqual({
      summary: { ready: '0/1' },
      clusters: [{ name: 'cluster-a', phase: 'Failed', message: 'hydrate Job failed: Job has reached the specified backoff limit' }],
    });
    expect(out.conditions).toEqual([matched, { type: 'ArtifactReady', status: 'False', reason: 'Failed', message: 'hydrate Job failed on cluster-a' }]);
    expect(out.resources).toEqual({ 'pvc-cluster-a': { resource: pvc(), ready: true }, 'hydrate-cluster-a': { resource: job() } });
    expect(out.ready).toBeUndefined();
  });

  it('two clusters a (Ready) and b (Hydrating): pvc-a, pvc-b ready, hydrate-b only, 1/2, Partial', () => {
    const out = run(cache(), { clusters: [gke('cluster-b'), gke('cluster-a')] }, {
      'pvc-cluster-a': bound(),
      'hydrate-cluster-a': complete(),
      'pvc-cluster-b': bound(),
      'hydrate-cluster-b': running(),
    });
    expect(out.resources).toEqual({
      'pvc-cluster-a': { resource: pvc(), ready: true },
      'pvc-cluster-b': { resource: pvc('cluster-b-pc'), ready: true },
      'hydrate-cluster-b': { resource: job('cluster-b-pc') },
    });
    expect(out.status).toEqual({
      summary: { ready: '1/2' },
      clusters: [
        { name: 'cluster-a', phase: 'Ready' },
        { name: 'cluster-b', phase: 'Hydrating' },
      ],
    });
    expect(out.conditions).toEqual([matched, { type: 'ArtifactReady', status: 'False', reason: 'Partial', message: '1 of 2 clusters Ready' }]);
    expect(out.results).toEqual([]);
  });

  it('latched Ready (status says Ready, only the PVC observed): stays Ready, no Job, Staged, ready, no event', () => {
    const xr = cache({ status: { clusters: [{ name: 'cluster-a', phase: 'Ready' }] }, ready: true });
    expect(run(xr, { clusters: [gke()] }, { 'pvc-cluster-a': bound() })).toEqual({
      resources: { 'pvc-cluster-a': { resource: pvc(), ready: true } },
      status: { summary: { ready: '1/1' }, clusters: [{ name: 'cluster-a', phase: 'Ready' }] },
      conditions: [matched, staged],
      results: [],
      requirements: { clusters: CLUSTERS_REQ },
      ready: true,
    });
  });

  it('authSecret set but unresolved: only the requirements', () => {
    expect(run(cache({ auth: true }), { clusters: [gke()] })).toEqual({
      resources: {},
      conditions: [],
      results: [],
      requirements: { clusters: CLUSTERS_REQ, 'auth-secret': AUTH_REQ },
    });
  });

  it('clusters not fetched yet with children observed: the children are kept (docs/design.md#keep-what-exists)', () => {
    const out = run(cache(), {}, { 'pvc-cluster-a': bound() });
    expect(Object.keys(out.resources)).toEqual(['pvc-cluster-a']);
    expect(out.resources['pvc-cluster-a']!.ready).toBe(true);
    expect(out.status).toBeUndefined();
    expect(out.conditions).toEqual([]);
  });

  for (const [what, data] of [
    ['without key HF_TOKEN', { OTHER: 'eA==' }],
    ['with an empty value', { HF_TOKEN: '' }],
  ] as const) {
    it(`Secret resolved ${what}: only the PVC, Pending, AuthSecretMissing warning then the Staging event`, () => {
      const out = run(cache({ auth: true }), { clusters: [gke()], 'auth-secret': [secret(data)] });
      expect(out.resources).toEqual({ 'pvc-cluster-a': { resource: pvc() } });
      expect(out.status).toEqual({ summary: { ready: '0/1' }, clusters: [{ name: 'cluster-a', phase: 'Pending' }] });
      const msg = "authSecret ml-team/hf-token is missing or has no key 'HF_TOKEN'";
      expect(out.conditions).toEqual([matched, { type: 'ArtifactReady', status: 'False', reason: 'AuthSecretMissing', message: msg }]);
      expect(out.results).toEqual([{ severity: 'Warning', message: msg }, stagingEvent(1, 'cluster-a')]);
    });
  }

  it('Ready cluster with authSecret: the Secret and Job are dropped, only the PVC, Staged + event', () => {
    const out = run(cache({ auth: true }), { clusters: [gke()], 'auth-secret': [secret({ HF_TOKEN: 'aGYtdG9rZW4=' })] }, {
      'pvc-cluster-a': bound(),
      'hydrate-cluster-a': complete(),
      'auth-cluster-a': remote({}, true),
    });
    expect(out.resources).toEqual({ 'pvc-cluster-a': { resource: pvc(), ready: true } });
    expect(out.conditions).toEqual([matched, staged]);
    expect(out.results).toEqual([{ severity: 'Normal', message: 'Artifact staged on all 1 clusters' }]);
  });

  it('token rotated away after Ready (latched): PVC kept, Staged, no warning, no event', () => {
    const xr = cache({ auth: true, status: { clusters: [{ name: 'cluster-a', phase: 'Ready' }] }, ready: true });
    const out = run(xr, { clusters: [gke()], 'auth-secret': [] }, { 'pvc-cluster-a': bound() });
    expect(out.resources).toEqual({ 'pvc-cluster-a': { resource: pvc(), ready: true } });
    expect(out.conditions).toEqual([matched, staged]);
    expect(out.results).toEqual([]);
  });

  it('no clusters + missing token: 0/0, [], NoClusters twice, no warning, not Ready', () => {
    expect(run(cache({ auth: true }), { clusters: [], 'auth-secret': [] })).toEqual({
      resources: {},
      status: { summary: { ready: '0/0' }, clusters: [] },
      conditions: [
        { type: 'ClustersMatched', status: 'False', reason: 'NoClusters' },
        { type: 'ArtifactReady', status: 'False', reason: 'NoClusters' },
      ],
      results: [],
      requirements: { clusters: CLUSTERS_REQ, 'auth-secret': AUTH_REQ },
      ready: false,
    });
  });

  it('a cluster selector becomes the requirement matchLabels', () => {
    expect(run(cache({ selector: { tier: 'gpu' } }), {}).requirements).toEqual({ clusters: { ...CLUSTERS_REQ, matchLabels: { tier: 'gpu' } } });
  });
});

describe('declared gaps (docs/design.md#declared-capabilities)', () => {
  const vultr = () => cluster('vultr-demo', { capability: { reason: VULTR_REASON } });
  const eks = () => cluster('eks-a', { capability: { name: 'modelplane-rwx-efs' } });

  it('a Vultr cluster is Unsupported with its reason, gets no PVC, is not counted; the condition counts it', () => {
    const out = run(cache(), { clusters: [vultr(), eks()] }, { 'pvc-eks-a': bound(), 'hydrate-eks-a': complete() });
    expect(Object.keys(out.resources)).toEqual(['pvc-eks-a']);
    expect(out.status).toEqual({
      summary: { ready: '1/1' },
      clusters: [
        { name: 'eks-a', phase: 'Ready' },
        { name: 'vultr-demo', phase: 'Unsupported', message: VULTR_REASON },
      ],
    });
    expect(out.conditions).toEqual([
      { ...matched, message: `1 of 2 selected clusters cannot hold the cache: vultr-demo (${VULTR_REASON})` },
      staged,
    ]);
    expect(out.ready).toBe(true);
  });

  it('the capability name wins over status.cache; the PVC uses it', () => {
    const out = run(cache(), { clusters: [eks()] });
    expect(out.resources['pvc-eks-a']).toEqual({ resource: pvc('eks-a-pc', 'modelplane-rwx-efs') });
  });

  it('only Unsupported clusters: NoSupportedClusters, nothing composed, not Ready', () => {
    const out = run(cache(), { clusters: [vultr()] });
    const msg = `1 of 1 selected clusters cannot hold the cache: vultr-demo (${VULTR_REASON})`;
    expect(out.resources).toEqual({});
    expect(out.status).toEqual({ summary: { ready: '0/0' }, clusters: [{ name: 'vultr-demo', phase: 'Unsupported', message: VULTR_REASON }] });
    expect(out.conditions).toEqual([
      { type: 'ClustersMatched', status: 'False', reason: 'NoSupportedClusters', message: msg },
      { type: 'ArtifactReady', status: 'False', reason: 'NoSupportedClusters', message: msg },
    ]);
    expect(out.results).toEqual([]);
    expect(out.ready).toBe(false);
  });

  it('a cluster that has published nothing yet is Pending with what it waits for, counted, and gets nothing', () => {
    const out = run(cache(), { clusters: [cluster('new', { pc: false }), gke()] });
    expect(Object.keys(out.resources).sort()).toEqual(['hydrate-cluster-a', 'pvc-cluster-a']);
    expect(out.status).toEqual({
      summary: { ready: '0/2' },
      clusters: [
        { name: 'cluster-a', phase: 'Pending' },
        { name: 'new', phase: 'Pending', message: 'waiting for the cluster to publish status.providerConfigRef' },
      ],
    });
  });

  it('a fetched cluster without a readable name: the children of clusters not listed are kept, a Warning and ClustersMatched name the field (the fuzz run)', () => {
    const nameless = gke();
    (nameless.metadata as JsonObject)['name'] = 42;
    const note = '1 fetched InferenceCluster has no readable metadata.name; the children of clusters not listed are kept as they are until it has one';
    const out = run(cache(), { clusters: [nameless] }, { 'pvc-cluster-a': bound(), 'hydrate-cluster-a': complete() });
    const { status: _p, ...pvcSeen } = bound().resource;
    const { status: _j, ...jobSeen } = complete().resource;
    expect(out.resources).toEqual({ 'pvc-cluster-a': { resource: pvcSeen, ready: true }, 'hydrate-cluster-a': { resource: jobSeen, ready: true } });
    expect(out.results).toEqual([{ severity: 'Warning', message: note }]);
    expect(out.conditions).toEqual([
      { type: 'ClustersMatched', status: 'False', reason: 'NoClusters', message: note },
      { type: 'ArtifactReady', status: 'False', reason: 'NoClusters' },
    ]);
    expect(out.status).toEqual({ summary: { ready: '0/0' }, clusters: [] });
    // A name no API server admits (not a DNS-1123 subdomain) is no name either.
    (nameless.metadata as JsonObject)['name'] = 'cluster-a\u2713';
    const unicode = run(cache(), { clusters: [nameless] }, { 'pvc-cluster-a': bound(), 'hydrate-cluster-a': complete() });
    expect(Object.keys(unicode.resources).sort()).toEqual(['hydrate-cluster-a', 'pvc-cluster-a']);
    expect(unicode.results).toEqual([{ severity: 'Warning', message: note }]);
  });

  it('beside a listed cluster, a nameless one keeps only the children of clusters not listed; the listed one is composed as usual', () => {
    const nameless = gke('x');
    delete (nameless as JsonObject)['metadata'];
    const out = run(cache(), { clusters: [gke('cluster-b'), nameless] }, { 'pvc-cluster-a': bound() });
    expect(Object.keys(out.resources).sort()).toEqual(['hydrate-cluster-b', 'pvc-cluster-a', 'pvc-cluster-b']);
    expect(out.conditions[0]).toEqual({
      type: 'ClustersMatched',
      status: 'True',
      reason: 'Matched',
      message: '1 fetched InferenceCluster has no readable metadata.name; the children of clusters not listed are kept as they are until it has one',
    });
  });

  it('an invalid spec keeps the children and says which field', () => {
    const xr = cache();
    (xr['spec'] as JsonObject)['huggingFace'] = { repo: 'Qwen/Qwen3-0.6B', sizeGiB: 0 };
    const out = run(xr, { clusters: [gke()] }, { 'pvc-cluster-a': bound() });
    expect(Object.keys(out.resources)).toEqual(['pvc-cluster-a']);
    expect(out.conditions[0]).toMatchObject({ type: 'ArtifactReady', status: 'False', reason: 'InvalidSpec' });
    expect(out.conditions[0]!.message).toContain('spec.huggingFace.sizeGiB');
  });
});
