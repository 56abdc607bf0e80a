/**
 * The dev workload cluster's pure parts: the Nodes, ResourceSlices and
 * DeviceClasses published for an Existing InferenceCluster from its classes
 * (exact objects, as the DRA driver would publish them), the kwok pod stages
 * (parsed as YAML, with the load time where it belongs) and the controllers
 * its kube-controller-manager runs.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { apiserverArgs, BIN, CONTROL_PLANE_CONTROLLERS, controllerManagerArgs, kwokArgs, lwsArgs, schedulerArgs, WORKLOAD_CONTROLLERS } from '../../cli/dev/components.js';
import { lwsConfig, lwsWebhookConfigurations } from '../../cli/dev/lws.js';
import { kwokConfig, podStages } from '../../cli/dev/kwok.js';
import { WORKLOAD_KINDS } from '../../cli/dev/runtime/clusters.js';
import { workloadNodes } from '../../cli/dev/runtime/nodes.js';
import { devPaths, workloadServer, workloadServers } from '../../cli/dev/state.js';
import type { JsonObject, KubeObject } from '../../functions/lib/function.js';

const a16: KubeObject = {
  apiVersion: 'modelplane.ai/v1alpha1',
  kind: 'InferenceClass',
  metadata: { name: 'a16-1x' },
  spec: {
    devices: [
      {
        name: 'gpu',
        claim: 'DRA',
        driver: 'gpu.nvidia.com',
        deviceClassName: 'gpu.nvidia.com',
        count: 2,
        attributes: { architecture: { string: 'Ampere' }, cudaComputeCapability: { version: '8.6.0' } },
        capacity: { memory: { value: '16384Mi' } },
      },
      { name: 'nic', claim: 'Synthetic', driver: 'example.com/nic', count: 1 },
    ],
  },
};

const cluster: KubeObject = {
  apiVersion: 'modelplane.ai/v1alpha1',
  kind: 'InferenceCluster',
  metadata: { name: 'dev-workload' },
  spec: {
    cluster: { source: 'Existing', existing: { secretRef: { name: 'dev-workload-kubeconfig' } } },
    nodePools: [
      { name: 'gpu-a16', className: 'a16-1x', nodeCount: 2 },
      { name: 'cpu', className: 'unknown-class', nodeCount: 1 },
    ],
  },
};

describe('workload nodes of an Existing cluster', () => {
  const w = workloadNodes(cluster, new Map([['a16-1x', a16]]));

  it('a system node, then nodeCount kwok nodes per pool, GPU pools tainted as the clouds taint them', () => {
    expect(w.nodes.map((n) => [n.metadata?.name, n.metadata?.labels?.['modelplane.ai/pool'], JSON.stringify(n['spec'])])).toEqual([
      ['dev-workload-system-0', 'system', '{}'],
      ['dev-workload-gpu-a16-0', 'gpu-a16', '{"taints":[{"key":"nvidia.com/gpu","value":"true","effect":"NoSchedule"}]}'],
      ['dev-workload-gpu-a16-1', 'gpu-a16', '{"taints":[{"key":"nvidia.com/gpu","value":"true","effect":"NoSchedule"}]}'],
      ['dev-workload-cpu-0', 'cpu', '{}'],
    ]);
    for (const n of w.nodes) {
      expect(n.metadata?.annotations).toEqual({ 'kwok.x-k8s.io/node': 'fake' });
      expect(n.metadata?.labels?.['modelplane.ai/dev-cluster']).toBe('dev-workload');
    }
    // GPU nodes carry the label the GPU Operator's feature discovery sets; the others do not.
    expect(w.nodes.map((n) => n.metadata?.labels?.['nvidia.com/gpu.present'] ?? '-')).toEqual(['-', 'true', 'true', '-']);
    // An Existing cluster's cloud pre-installs nothing.
    expect(w.preinstalled).toEqual([]);
  });

  it('a Vultr cluster given a workload API server: VKE\'s pre-installed GPU Operator validator, a DaemonSet on the GPU nodes', () => {
    const vultr = workloadNodes({ ...cluster, metadata: { name: 'vultr-demo' }, spec: { cluster: { source: 'Vultr' }, nodePools: [{ name: 'gpu-a16', className: 'a16-1x', nodeCount: 1 }] } }, new Map([['a16-1x', a16]]));
    expect(vultr.preinstalled.map((o) => `${o.kind} ${o.metadata?.namespace ?? ''}/${o.metadata?.name}`)).toEqual(['Namespace /gpu-operator', 'DaemonSet gpu-operator/nvidia-operator-validator']);
    const pod = (vultr.preinstalled[1]!['spec'] as { template: { spec: JsonObject } }).template.spec;
    expect(pod['nodeSelector']).toEqual({ 'nvidia.com/gpu.present': 'true' });
    expect(pod['tolerations']).toEqual([{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }]);
  });

  it('one ResourceSlice per GPU node: the class DRA devices count times, attributes and capacity verbatim', () => {
    expect(w.slices).toHaveLength(2);
    expect(w.slices[0]).toEqual({
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceSlice',
      metadata: { name: 'dev-workload-gpu-a16-0-gpu-nvidia-com', labels: { 'modelplane.ai/dev-cluster': 'dev-workload' } },
      spec: {
        driver: 'gpu.nvidia.com',
        nodeName: 'dev-workload-gpu-a16-0',
        pool: { name: 'dev-workload-gpu-a16-0', generation: 1, resourceSliceCount: 1 },
        devices: [0, 1].map((i) => ({
          name: `gpu-${i}`,
          attributes: { architecture: { string: 'Ampere' }, cudaComputeCapability: { version: '8.6.0' } },
          capacity: { memory: { value: '16384Mi' } },
        })),
      },
    });
  });

  it('the DeviceClass the driver chart installs: every device of its driver', () => {
    expect(w.deviceClasses).toEqual([
      {
        apiVersion: 'resource.k8s.io/v1',
        kind: 'DeviceClass',
        metadata: { name: 'gpu.nvidia.com' },
        spec: { selectors: [{ cel: { expression: 'device.driver == "gpu.nvidia.com"' } }] },
      },
    ]);
  });

  it('a class not known yet: its pool gets untainted nodes and no slice (published once the class is)', () => {
    const none = workloadNodes(cluster, new Map());
    expect(none.slices).toEqual([]);
    expect(none.nodes.map((n) => n.metadata?.name)).toEqual(['dev-workload-system-0', 'dev-workload-gpu-a16-0', 'dev-workload-gpu-a16-1', 'dev-workload-cpu-0']);
  });
});

describe('kwok stages', () => {
  type Stage = { metadata: { name: string }; spec: { selector: { matchExpressions: { key: string; operator: string }[] }; delay?: Record<string, unknown> } };
  const stages = parseAllDocuments(podStages(42.5)).map((d) => d.toJS() as Stage);

  it('start, ready (engines after the model-load time, others after 1 s), Job completion, deletion at the grace period', () => {
    expect(stages.map((s) => [s.metadata.name, JSON.stringify(s.spec.delay)])).toEqual([
      ['pod-start', '{"durationMilliseconds":1000}'],
      ['pod-ready-engine', '{"durationMilliseconds":42500}'],
      ['pod-ready', '{"durationMilliseconds":1000}'],
      ['pod-complete', '{"durationMilliseconds":2000}'],
      ['pod-delete', '{"durationMilliseconds":0,"durationFrom":{"expressionFrom":".metadata.deletionTimestamp"}}'],
    ]);
    const claims = (name: string) => stages.find((s) => s.metadata.name === name)!.spec.selector.matchExpressions.find((e) => e.key === '.spec.resourceClaims')?.operator;
    expect([claims('pod-ready-engine'), claims('pod-ready')]).toEqual(['Exists', 'DoesNotExist']);
  });

  it('the configuration puts kwok node stages before ours', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kwok-'));
    writeFileSync(join(dir, 'node-initialize.yaml'), 'kind: Stage\nmetadata: {name: node-initialize}\n');
    writeFileSync(join(dir, 'node-heartbeat-with-lease.yaml'), 'kind: Stage\nmetadata: {name: node-heartbeat-with-lease}\n');
    const names = parseAllDocuments(kwokConfig(dir, 10)).map((d) => (d.toJS() as Stage).metadata.name);
    expect(names).toEqual(['node-initialize', 'node-heartbeat-with-lease', 'pod-start', 'pod-ready-engine', 'pod-ready', 'pod-complete', 'pod-delete']);
  });
});

describe('the workload cluster runs the real controllers', () => {
  const p = devPaths('/tmp/dev');
  it('kube-controller-manager: every default controller less volumes, cloud and IPAM; the control plane keeps its four', () => {
    expect(controllerManagerArgs(p, workloadServer(p, 0))).toContain(`--controllers=${WORKLOAD_CONTROLLERS.join(',')}`);
    expect(WORKLOAD_CONTROLLERS[0]).toBe('*');
    expect(controllerManagerArgs(p)).toContain(`--controllers=${CONTROL_PLANE_CONTROLLERS.join(',')}`);
  });

  it('kube-scheduler and kwok on loopback, kwok managing only the nodes annotated fake', () => {
    expect(schedulerArgs(workloadServer(p, 0))).toEqual(expect.arrayContaining(['--bind-address=127.0.0.1', '--secure-port=10259', '--kubeconfig=/tmp/dev/workload-scheduler.kubeconfig']));
    expect(kwokArgs(p, workloadServer(p, 0))).toEqual(
      expect.arrayContaining(['--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake', '--server-address=127.0.0.1:10247', '--config=/tmp/dev/kwok.yaml']),
    );
  });

  it('workload API servers 1..N-1: their own etcd prefix, ports and kubeconfigs, the shared serving certificate', () => {
    const w = workloadServer(p, 2);
    expect(w).toMatchObject({ name: 'workload-2', apiserverPort: 7445, controllerManagerPort: 11006, schedulerPort: 11007, kwokPort: 11008, etcdPrefix: '/workload-2' });
    expect(apiserverArgs(p, w)).toEqual(
      expect.arrayContaining(['--etcd-prefix=/workload-2', '--secure-port=7445', '--tls-cert-file=/tmp/dev/pki/workload-apiserver.crt', '--audit-log-path=/tmp/dev/logs/workload-2-apiserver-audit.log']),
    );
    expect(apiserverArgs(p, workloadServer(p, 0))).toEqual(expect.arrayContaining(['--etcd-prefix=/workload', '--secure-port=7443']));
    expect(controllerManagerArgs(p, w)).toEqual(expect.arrayContaining(['--kubeconfig=/tmp/dev/workload-2-kcm.kubeconfig', '--secure-port=11006']));
    expect(kwokArgs(p, w)).toContain('--server-address=127.0.0.1:11008');
    expect(workloadServers(p, { netns: 1, components: [], startedAt: '', workloads: 3 }).map((s) => s.name)).toEqual(['workload', 'workload-1', 'workload-2']);
    expect(workloadServers(p, { netns: 1, components: [], startedAt: '', workloadSecret: { namespace: 'a', name: 'b' } }).map((s) => s.name)).toEqual(['workload']);
  });

  it('the runtime no longer writes the status of Deployments, DaemonSets, Jobs or LeaderWorkerSets there', () => {
    expect(WORKLOAD_KINDS.map(([, k]) => k)).toEqual(['PersistentVolumeClaim', 'Service', 'GatewayClass', 'Gateway', 'HTTPRoute']);
  });

  it('a LeaderWorkerSet controller per workload API server: its own ports and configuration, its webhooks by URL on loopback, the pod webhooks only for LeaderWorkerSet pods', () => {
    const w = workloadServer(p, 2);
    expect([w.lwsWebhookPort, w.lwsHealthPort, w.lwsConfig]).toEqual([12004, 12005, '/tmp/dev/workload-2-lws.yaml']);
    expect(lwsArgs(w)).toEqual([join(BIN, 'lws-controller'), '--config=/tmp/dev/workload-2-lws.yaml']);
    expect(parse(lwsConfig(w, '/tmp/dev/workload-webhook-certs'))).toEqual({
      apiVersion: 'config.lws.x-k8s.io/v1alpha1',
      kind: 'Configuration',
      leaderElection: { leaderElect: false },
      internalCertManagement: { enable: false },
      webhook: { host: '127.0.0.1', port: 12004, certDir: '/tmp/dev/workload-webhook-certs' },
      metrics: { bindAddress: '0' },
      health: { healthProbeBindAddress: '127.0.0.1:12005' },
    });
    const hooks = lwsWebhookConfigurations(w, 'PEM').flatMap((c) =>
      ((c['webhooks'] ?? []) as { name: string; clientConfig: { url: string; caBundle: string }; objectSelector?: unknown }[]).map(
        (h) => `${c.kind} ${h.name} ${h.clientConfig.url} ${h.clientConfig.caBundle} ${JSON.stringify(h.objectSelector ?? null)}`,
      ),
    );
    const lwsPods = '{"matchExpressions":[{"key":"leaderworkerset.sigs.k8s.io/name","operator":"Exists"}]}';
    expect(hooks).toEqual([
      'MutatingWebhookConfiguration mleaderworkerset.kb.io https://127.0.0.1:12004/mutate-leaderworkerset-x-k8s-io-v1-leaderworkerset UEVN null',
      `MutatingWebhookConfiguration mpod.kb.io https://127.0.0.1:12004/mutate--v1-pod UEVN ${lwsPods}`,
      'ValidatingWebhookConfiguration vleaderworkerset.kb.io https://127.0.0.1:12004/validate-leaderworkerset-x-k8s-io-v1-leaderworkerset UEVN null',
      `ValidatingWebhookConfiguration vpod.kb.io https://127.0.0.1:12004/validate--v1-pod UEVN ${lwsPods}`,
    ]);
  });
});
