/**
 * Expected remote objects of compose-model-replica, written out as literals
 * from docs/kinds/modelreplica.md (not computed by the code under test), for the
 * whole-response tables in replica*.test.ts.
 */
import { createHash } from 'node:crypto';
import type { DesiredResource, JsonObject, KubeObject } from '../../functions/lib/function.js';

export const PC = 'cluster-a-pc';
export const AVAILABLE =
  'has(object.status) && has(object.status.conditions) && object.status.conditions.exists(c, c.type == "Available" && c.status == "True")';
export const TOLERATION = { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' };
export const probe = (port: number) => ({
  httpGet: { path: '/health', port },
  initialDelaySeconds: 30,
  periodSeconds: 10,
  timeoutSeconds: 5,
});
/** The startup probe of a 30-minute budget (10 s × 180), docs/design.md#production-runtime. */
export const startup = (port: number, failureThreshold = 180) => ({
  httpGet: { path: '/health', port },
  periodSeconds: 10,
  timeoutSeconds: 5,
  failureThreshold,
});
export const liveness = (port: number) => ({ httpGet: { path: '/health', port }, periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 3 });
/** Every probe and the preStop wait of a serving container on `port` (defaults: 30m, drain 60 → wait 10). */
export const health = (port: number, o: { failureThreshold?: number; preStop?: number } = {}) => ({
  readinessProbe: probe(port),
  startupProbe: startup(port, o.failureThreshold),
  livenessProbe: liveness(port),
  ...(o.preStop === 0 ? {} : { lifecycle: { preStop: { sleep: { seconds: o.preStop ?? 10 } } } }),
});
/** The PodDisruptionBudget of a Deployment (`workload`) or LeaderWorkerSet (`lws`). */
export function budget(name: string, minAvailable: number, kind: 'workload' | 'lws' = 'workload'): KubeObject {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name, namespace: 'default' },
    spec: {
      minAvailable,
      selector: { matchLabels: kind === 'lws' ? { 'leaderworkerset.sigs.k8s.io/name': name } : { 'modelplane.ai/workload': name } },
    },
  };
}
/** The pod selector of a Deployment (`workload`) or LeaderWorkerSet (`lws`) by name. */
const pods = (name: string, kind: 'workload' | 'lws') =>
  kind === 'lws' ? { 'leaderworkerset.sigs.k8s.io/name': name } : { 'modelplane.ai/workload': name };
/** The NetworkPolicy of workload `self` of `replica` whose workloads are `peers` (docs/design.md#production-runtime). */
export function netpol(replica: string, self: [string, 'workload' | 'lws'], peers: [string, 'workload' | 'lws'][] = [self]): KubeObject {
  const port = [{ protocol: 'TCP', port: 8000 }];
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: self[0], namespace: 'default' },
    spec: {
      podSelector: { matchLabels: pods(...self) },
      policyTypes: ['Ingress'],
      ingress: [
        { from: peers.map((p) => ({ podSelector: { matchLabels: pods(...p) } })) },
        { from: [{ podSelector: { matchLabels: { app: `${replica}-epp` } } }], ports: port },
        {
          from: [
            {
              namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'envoy-gateway-system' } },
              podSelector: { matchLabels: { 'app.kubernetes.io/component': 'proxy' } },
            },
          ],
          ports: port,
        },
        {
          from: [
            {
              namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } },
              podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } },
            },
          ],
          ports: port,
        },
      ],
    },
  };
}
export const SHM_VOLUME = { name: 'dshm', emptyDir: { medium: 'Memory' } };
export const SHM_MOUNT = { name: 'dshm', mountPath: '/dev/shm' };
export const CACHE_MOUNT = { name: 'model-cache', mountPath: '/mnt/models' };
export const cacheVolume = (claimName: string) => ({ name: 'model-cache', persistentVolumeClaim: { claimName } });
export const GANG_ENV = [
  { name: 'MODELPLANE_LEADER_ADDRESS', value: '$(LWS_LEADER_ADDRESS)' },
  { name: 'MODELPLANE_RANK', value: '$(LWS_WORKER_INDEX)' },
];
export const NIXL_ENV = [
  { name: 'VLLM_NIXL_SIDE_CHANNEL_HOST', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
  { name: 'VLLM_NIXL_SIDE_CHANNEL_PORT', value: '5557' },
];
export const GPU_CEL = 'device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("80Gi")) >= 0';

/** The provider-kubernetes Object around `manifest`. */
export function obj(manifest: KubeObject, readiness: 'workload' | 'created', ready = false, pc = PC): DesiredResource {
  const resource: KubeObject = {
    apiVersion: 'kubernetes.m.crossplane.io/v1alpha1',
    kind: 'Object',
    spec: {
      providerConfigRef: { kind: 'ClusterProviderConfig', name: pc },
      forProvider: { manifest },
      readiness:
        readiness === 'workload' ? { policy: 'DeriveFromCelQuery', celQuery: AVAILABLE } : { policy: 'SuccessfulCreate' },
      // provider-kubernetes watches what a workload's readiness is read from (functions/lib/objects.ts)
      ...(readiness === 'workload' ? { watch: true } : {}),
    },
  };
  return ready ? { resource, ready: true } : { resource };
}

/** A ResourceClaimTemplate with `{name, class, count, cel[]}` requests. */
export function claimTemplate(
  name: string,
  requests: { name: string; deviceClassName?: string; count?: number; cel?: string[] }[],
): KubeObject {
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaimTemplate',
    metadata: { name, namespace: 'default' },
    spec: {
      spec: {
        devices: {
          requests: requests.map((r) => ({
            name: r.name,
            exactly: {
              deviceClassName: r.deviceClassName ?? 'gpu.nvidia.com',
              count: r.count ?? 1,
              ...((r.cel ?? [GPU_CEL]).length > 0 ? { selectors: (r.cel ?? [GPU_CEL]).map((expression) => ({ cel: { expression } })) } : {}),
            },
          })),
        },
      },
    },
  };
}

/** A pod spec: containers, volumes, pool pin, claim (when `claim`), toleration. */
export function podSpec(o: { containers: JsonObject[]; pool?: string; claim?: string; volumes?: JsonObject[]; grace?: number }): JsonObject {
  return {
    terminationGracePeriodSeconds: o.grace ?? 60,
    containers: o.containers,
    volumes: o.volumes ?? [SHM_VOLUME],
    nodeSelector: { 'modelplane.ai/pool': o.pool ?? 'frontier' },
    ...(o.claim ? { resourceClaims: [{ name: 'devices', resourceClaimTemplateName: o.claim }] } : {}),
    tolerations: [TOLERATION],
  };
}

/** The native engine container. */
export function nativeContainer(o: { image?: string; args?: string[]; claims?: boolean; mounts?: JsonObject[]; extra?: JsonObject } = {}): JsonObject {
  return {
    name: 'engine',
    image: o.image ?? 'vllm/vllm-openai:latest',
    args: o.args ?? [],
    ports: [{ containerPort: 8000 }],
    volumeMounts: o.mounts ?? [SHM_MOUNT],
    ...health(8000),
    ...(o.claims === false ? {} : { resources: { claims: [{ name: 'devices' }] } }),
    ...(o.extra ?? {}),
  };
}

/** A native Deployment of `copies` pods, labelled for `serving`. */
export function deployment(o: { name: string; serving: string; spec: JsonObject; copies?: number; meta?: JsonObject }): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: o.name, namespace: 'default' },
    spec: {
      replicas: o.copies ?? 1,
      selector: { matchLabels: { 'modelplane.ai/workload': o.name } },
      template: {
        metadata: o.meta ?? { labels: { 'modelplane.ai/serving': o.serving, 'modelplane.ai/workload': o.name } },
        spec: o.spec,
      },
    },
  };
}

/** A LeaderWorkerSet. */
export function leaderWorkerSet(o: {
  name: string;
  size: number;
  leaderMeta: JsonObject;
  leader: JsonObject;
  worker: JsonObject;
  workerMeta?: JsonObject;
  copies?: number;
}): KubeObject {
  const [leaderMeta, leader] = ownNode(o.leaderMeta, o.leader);
  const [workerMeta, worker] = ownNode(o.workerMeta, o.worker);
  return {
    apiVersion: 'leaderworkerset.x-k8s.io/v1',
    kind: 'LeaderWorkerSet',
    metadata: { name: o.name, namespace: 'default' },
    spec: {
      replicas: o.copies ?? 1,
      leaderWorkerTemplate: {
        size: o.size,
        leaderTemplate: { metadata: leaderMeta, spec: leader },
        workerTemplate: { ...(workerMeta ? { metadata: workerMeta } : {}), spec: worker },
      },
    },
  };
}

/** The anti-affinity a gang pod that claims devices gets: no other such pod of its group on its node. */
export const GANG_OWN_NODE = {
  podAntiAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: [
      {
        labelSelector: { matchLabels: { 'modelplane.ai/gang-devices': 'true' } },
        matchLabelKeys: ['leaderworkerset.sigs.k8s.io/group-key'],
        topologyKey: 'kubernetes.io/hostname',
      },
    ],
  },
};

/** A gang template as composed: a claiming one labelled `modelplane.ai/gang-devices` with {@link GANG_OWN_NODE}; a claimless one as given. */
function ownNode(meta: JsonObject | undefined, spec: JsonObject): [JsonObject | undefined, JsonObject] {
  if (!spec['resourceClaims']) return [meta, spec];
  const labels = { ...((meta?.['labels'] as JsonObject | undefined) ?? {}), 'modelplane.ai/gang-devices': 'true' };
  return [{ ...(meta ?? {}), labels }, { ...spec, affinity: GANG_OWN_NODE }];
}

const producer = (b: number) => `- type: approx-prefix-cache-producer
  parameters:
    autoTune: false
    blockSizeTokens: ${b}
    maxPrefixBlocksToMatch: 256
    lruCapacityPerServer: 31250
`;
const scorers = `  - pluginRef: max-score-picker
  - pluginRef: prefix-cache-scorer
    weight: 2
  - pluginRef: queue-scorer
    weight: 1
`;

/** The Unified EPP config with block size `b`. */
export const unifiedConfig = (b: number): string =>
  `apiVersion: llm-d.ai/v1alpha1\nkind: EndpointPickerConfig\nplugins:\n${producer(b)}- type: prefix-cache-scorer\n- type: queue-scorer\n- type: max-score-picker\nschedulingProfiles:\n- name: default\n  plugins:\n${scorers}`;

/** The PrefillDecode EPP config with block size `b`. */
export const pdConfig = (b: number): string =>
  `apiVersion: llm-d.ai/v1alpha1\nkind: EndpointPickerConfig\nplugins:\n${producer(b)}- type: prefix-cache-scorer\n- type: disagg-headers-handler\n- type: queue-scorer\n- type: prefill-filter\n- type: decode-filter\n- type: max-score-picker\n- type: prefix-based-pd-decider\n  parameters:\n    nonCachedTokens: 16\n- type: disagg-profile-handler\n  parameters:\n    deciders:\n      prefill: prefix-based-pd-decider\nschedulingProfiles:\n- name: prefill\n  plugins:\n  - pluginRef: prefill-filter\n${scorers}- name: decode\n  plugins:\n  - pluginRef: decode-filter\n${scorers}`;

/** `inference-pool`, `model-route` and the six EPP objects of replica `r` in namespace `ns`; `readyKeys` are marked ready. */
export function routing(r: string, ns: string, config: string, readyKeys: string[] = []): Record<string, DesiredResource> {
  const seen = (k: string) => readyKeys.includes(k);
  const epp = `${r}-epp`;
  const m = (name: string) => ({ name, namespace: 'default' });
  const verbs = ['get', 'watch', 'list'];
  return {
    'inference-pool': obj(
      {
        apiVersion: 'inference.networking.k8s.io/v1',
        kind: 'InferencePool',
        metadata: m(`${r}-pool`),
        spec: {
          selector: { matchLabels: { 'modelplane.ai/serving': r } },
          targetPorts: [{ number: 8000 }],
          endpointPickerRef: { name: epp, port: { number: 9002 }, failureMode: 'FailOpen' },
        },
      },
      'created',
      seen('inference-pool'),
    ),
    'model-route': obj(
      {
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: 'HTTPRoute',
        metadata: m(r),
        spec: {
          parentRefs: [{ name: 'inference-gateway', namespace: 'modelplane-system' }],
          rules: [
            {
              matches: [{ path: { type: 'PathPrefix', value: `/${ns}/${r}/` } }],
              filters: [{ type: 'URLRewrite', urlRewrite: { path: { type: 'ReplacePrefixMatch', replacePrefixMatch: '/' } } }],
              backendRefs: [{ group: 'inference.networking.k8s.io', kind: 'InferencePool', name: `${r}-pool` }],
              timeouts: { request: '0s' },
            },
          ],
        },
      },
      'created',
      seen('model-route'),
    ),
    'epp-serviceaccount': obj({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: m(epp) }, 'created', seen('epp-serviceaccount')),
    'epp-role': obj(
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: m(epp),
        rules: [
          { apiGroups: [''], resources: ['pods'], verbs },
          { apiGroups: ['inference.networking.k8s.io'], resources: ['inferencepools'], verbs },
          { apiGroups: ['inference.networking.x-k8s.io'], resources: ['inferenceobjectives'], verbs },
        ],
      },
      'created',
      seen('epp-role'),
    ),
    'epp-rolebinding': obj(
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: m(epp),
        subjects: [{ kind: 'ServiceAccount', name: epp, namespace: 'default' }],
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: epp },
      },
      'created',
      seen('epp-rolebinding'),
    ),
    'epp-config': obj(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: m(epp), data: { 'epp-config.yaml': config } },
      'created',
      seen('epp-config'),
    ),
    epp: obj(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: m(epp),
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: epp } },
          template: {
            metadata: {
              labels: { app: epp },
              annotations: { 'modelplane.ai/epp-config-checksum': createHash('sha256').update(config).digest('hex') },
            },
            spec: {
              serviceAccountName: epp,
              containers: [
                {
                  name: 'epp',
                  image: 'ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.9.0',
                  args: [
                    `--pool-name=${r}-pool`,
                    '--pool-namespace=default',
                    '--pool-group=inference.networking.k8s.io',
                    '--config-file=/config/epp-config.yaml',
                    '--grpc-port=9002',
                  ],
                  ports: [
                    { name: 'grpc', containerPort: 9002 },
                    { name: 'grpc-health', containerPort: 9003 },
                  ],
                  volumeMounts: [{ name: 'config', mountPath: '/config' }],
                },
              ],
              volumes: [{ name: 'config', configMap: { name: epp } }],
            },
          },
        },
      },
      'workload',
      seen('epp'),
    ),
    'epp-service': obj(
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: m(epp),
        spec: {
          selector: { app: epp },
          ports: [{ name: 'grpc-ext-proc', port: 9002, targetPort: 9002, appProtocol: 'http2' }],
        },
      },
      'created',
      seen('epp-service'),
    ),
  };
}

/** One engine scraped by a replica's PodMonitor: its name, workload name, backend and metrics port (8000). */
export interface Scraped {
  engine: string;
  workload: string;
  lws?: boolean;
  port?: number;
}

/**
 * `pod-monitor`: the PodMonitor `<r>-metrics` on the serving pods of replica `r`,
 * one endpoint per engine labelled replica, cluster and engine (and deployment when given).
 */
export function monitor(r: string, engines: Scraped[], o: { cluster?: string; deployment?: string; ready?: boolean } = {}): Record<string, DesiredResource> {
  const statics = [...(o.deployment ? [['deployment', o.deployment]] : []), ['replica', r], ['cluster', o.cluster ?? 'cluster-a']];
  return {
    'pod-monitor': obj(
      {
        apiVersion: 'monitoring.coreos.com/v1',
        kind: 'PodMonitor',
        metadata: { name: `${r}-metrics`, namespace: 'default' },
        spec: {
          selector: { matchLabels: { 'modelplane.ai/serving': r } },
          podMetricsEndpoints: engines.map((e) => ({
            portNumber: e.port ?? 8000,
            path: '/metrics',
            relabelings: [
              {
                action: 'keep',
                sourceLabels: [e.lws ? '__meta_kubernetes_pod_label_leaderworkerset_sigs_k8s_io_name' : '__meta_kubernetes_pod_label_modelplane_ai_workload'],
                regex: e.workload,
              },
              { action: 'keep', sourceLabels: ['__meta_kubernetes_pod_container_name'], regex: 'engine' },
              ...[...statics, ['engine', e.engine]].map(([targetLabel, replacement]) => ({ action: 'replace', targetLabel, replacement })),
            ],
          })),
        },
      },
      'created',
      o.ready ?? false,
    ),
  };
}
