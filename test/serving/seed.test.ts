/**
 * The Vultr seed through the model side, in process (issue #8, "done when"):
 * the seed deployment's replica on vultr-demo (examples/vultr-replica/xr.yaml,
 * the ModelReplica of docs/kinds/modeldeployment.md#the-modelreplica for the
 * seed, index 0) becomes a
 * Deployment pinned to gpu-a16 with a one-GPU ResourceClaimTemplate carrying
 * the seed's CEL; its endpoint (docs/kinds/modeldeployment.md#the-modelendpoint) gets a backend; and the seed's
 * ModelService publishes http://<gateway address>/ml-team/qwen-7b.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { compose as composeEndpoint } from '../../functions/compose-model-endpoint/compose.js';
import { compose as composeReplica } from '../../functions/compose-model-replica/compose.js';
import { compose as composeService } from '../../functions/compose-model-service/compose.js';
import { getPath, type KubeObject } from '../../functions/lib/function.js';
import { inferenceGateway, observed, observedObject, request } from '../builders/serving.js';
import { repoRoot } from '../helpers/crd.js';

const docs = (path: string): KubeObject[] =>
  parseAllDocuments(readFileSync(path, 'utf8')).map((d) => d.toJSON() as KubeObject);
const seed = docs(resolve(repoRoot, '../shared/corpus/seeds/vultr/vultr-model.yaml'));
const replica = docs(resolve(repoRoot, 'examples/vultr-replica/xr.yaml'))[0]!;
const service = seed.find((d) => d.kind === 'ModelService')!;
/** vultr-demo once Ready, as examples/vultr-replica gives it. */
const cluster = docs(resolve(repoRoot, 'examples/vultr-replica/required.yaml'))[0]!;
const SEED_CEL = 'device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("14Gi")) >= 0\n';
const manifest = (o: KubeObject | undefined) => getPath(o, 'spec', 'forProvider', 'manifest') as KubeObject;

describe('the Vultr seed, deployment to address', () => {
  it("the replica carries the seed's engine template verbatim", () => {
    const seedEngine = getPath(seed.find((d) => d.kind === 'ModelDeployment'), 'spec', 'template', 'spec', 'engines', 0);
    expect(getPath(replica, 'spec', 'engines', 0, 'members', 0, 'template')).toStrictEqual(
      getPath(seedEngine, 'members', 0, 'template'),
    );
    expect(getPath(replica, 'spec', 'engines', 0, 'members', 0, 'deviceRequests', 0, 'selectors')).toStrictEqual([{ cel: SEED_CEL }]);
  });

  it('renders the replica to a Deployment pinned to gpu-a16 claiming one GPU by the seed CEL', () => {
    const result = composeReplica(request(replica, { required: { cluster: [cluster] } }));
    const workload = result.resources['model-serving-qwen-7b']!.resource;
    expect(getPath(workload, 'spec', 'providerConfigRef')).toStrictEqual({
      kind: 'ClusterProviderConfig',
      name: 'vultr-demo-cluster-kubeconfig-e8269',
    });
    expect(manifest(workload)).toStrictEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'qwen-7b-bf743-qwen-7b-a7b89', namespace: 'default' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { 'modelplane.ai/workload': 'qwen-7b-bf743-qwen-7b-a7b89' } },
        template: {
          metadata: {
            labels: { 'modelplane.ai/serving': 'qwen-7b-bf743', 'modelplane.ai/workload': 'qwen-7b-bf743-qwen-7b-a7b89' },
          },
          spec: {
            containers: [
              {
                name: 'engine',
                image: 'vllm/vllm-openai:v0.9.2',
                args: [
                  '--model=Qwen/Qwen2.5-7B-Instruct-AWQ',
                  '--served-model-name=qwen-7b',
                  '--max-model-len=8192',
                  '--gpu-memory-utilization=0.85',
                  '--enforce-eager',
                  // The cluster's spec.observability.otlpEndpoint (docs/observability.md#traces-otlp).
                  '--otlp-traces-endpoint',
                  'http://otel-collector.monitoring.svc.cluster.local:4317',
                ],
                env: [
                  { name: 'OTEL_EXPORTER_OTLP_ENDPOINT', value: 'http://otel-collector.monitoring.svc.cluster.local:4317' },
                  { name: 'OTEL_SERVICE_NAME', value: 'qwen-7b' },
                ],
                ports: [{ containerPort: 8000 }],
                volumeMounts: [{ name: 'dshm', mountPath: '/dev/shm' }],
                readinessProbe: {
                  httpGet: { path: '/health', port: 8000 },
                  initialDelaySeconds: 30,
                  periodSeconds: 10,
                  timeoutSeconds: 5,
                },
                // The 30-minute startup budget (10 s × 180), liveness after it, and the drain wait.
                startupProbe: { httpGet: { path: '/health', port: 8000 }, periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 180 },
                livenessProbe: { httpGet: { path: '/health', port: 8000 }, periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 3 },
                lifecycle: { preStop: { sleep: { seconds: 10 } } },
                resources: { claims: [{ name: 'devices' }] },
              },
            ],
            volumes: [{ name: 'dshm', emptyDir: { medium: 'Memory' } }],
            nodeSelector: { 'modelplane.ai/pool': 'gpu-a16' },
            resourceClaims: [{ name: 'devices', resourceClaimTemplateName: 'qwen-7b-bf743-qwen-7b-standalone-devices-8376d' }],
            tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
            terminationGracePeriodSeconds: 60,
          },
        },
      },
    });
    expect(manifest(result.resources['disruption-budget-qwen-7b']!.resource)).toStrictEqual({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'qwen-7b-bf743-qwen-7b-a7b89', namespace: 'default' },
      spec: { minAvailable: 1, selector: { matchLabels: { 'modelplane.ai/workload': 'qwen-7b-bf743-qwen-7b-a7b89' } } },
    });
    const policy = manifest(result.resources['network-policy-qwen-7b']!.resource) as unknown as { spec: { podSelector: unknown; ingress: { from: unknown[] }[] } };
    expect(policy.spec.podSelector).toStrictEqual({ matchLabels: { 'modelplane.ai/workload': 'qwen-7b-bf743-qwen-7b-a7b89' } });
    expect(policy.spec.ingress.map((r) => r.from)).toStrictEqual([
      [{ podSelector: { matchLabels: { 'modelplane.ai/workload': 'qwen-7b-bf743-qwen-7b-a7b89' } } }],
      [{ podSelector: { matchLabels: { app: 'qwen-7b-bf743-epp' } } }],
      [
        {
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'envoy-gateway-system' } },
          podSelector: { matchLabels: { 'app.kubernetes.io/component': 'proxy' } },
        },
      ],
      [
        {
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } },
          podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } },
        },
      ],
    ]);
    expect(manifest(result.resources['resource-claim-qwen-7b-standalone']!.resource)).toStrictEqual({
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaimTemplate',
      metadata: { name: 'qwen-7b-bf743-qwen-7b-standalone-devices-8376d', namespace: 'default' },
      spec: {
        spec: {
          devices: {
            requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.nvidia.com', count: 1, selectors: [{ cel: { expression: SEED_CEL } }] } }],
          },
        },
      },
    });
  });

  it('publishes the service address once the replica serves', () => {
    const endpoint: KubeObject = {
      apiVersion: 'modelplane.ai/v1alpha1',
      kind: 'ModelEndpoint',
      metadata: { name: 'qwen-7b-bf743', namespace: 'ml-team', labels: { ...replica.metadata!.labels! } },
      spec: { url: 'http://45.77.100.20/ml-team/qwen-7b-bf743/v1', rewritePath: '/ml-team/qwen-7b-bf743/' },
    };

    const svc = observed({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'qwen-7b-bf743-5kq8t', namespace: 'ml-team' } });
    const routed = composeEndpoint(request(endpoint, { observed: { service: svc, endpointslice: observedObject() } }));
    expect(routed.status).toStrictEqual({ routing: { backendName: 'qwen-7b-bf743-5kq8t' } });

    const live = { ...endpoint, status: routed.status };
    const published = composeService(
      request(service, { required: { 'inference-gateway': [inferenceGateway('172.18.255.200')], 'endpoints-0': [live] } }),
    );
    expect(published.status).toStrictEqual({ address: 'http://172.18.255.200/ml-team/qwen-7b', auth: 'Anonymous' });
  });
});
