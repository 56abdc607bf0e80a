/**
 * The llm-d endpoint picker (EPP) of a replica: its configuration and the six
 * objects that run it on the workload cluster (docs/kinds/modelreplica.md#the-endpoint-picker).
 *
 * Guarantees:
 * - The config is `llm-d.ai/v1alpha1` EndpointPickerConfig text with the KV
 *   block size filled in: prefix-cache and queue scoring for Unified serving;
 *   for PrefillDecode, prefill/decode filters and profiles with the
 *   prefix-based PD decider at `nonCachedTokens: 16`. Images are pinned
 *   (llm-d router v0.9.0).
 * - The EPP pod carries the SHA-256 (64 hex chars) of the config text as an
 *   annotation, so a config change rolls the pod.
 * - Objects are returned in a fixed key order: service account, role, role
 *   binding, config map, deployment, service.
 * - Names are `<replica>-epp` / `<replica>-pool`; when that would pass 63
 *   characters (a DNS label; Service names and label values must be one),
 *   child_name(replica, suffix) is used instead. Divergence: the reference
 *   always appends the suffix and produced invalid names for replica names
 *   longer than 58 characters.
 */
import { createHash } from 'node:crypto';
import type { JsonObject, KubeObject } from '../lib/function.js';
import { childName, MAX_NAME_LENGTH } from '../lib/names.js';
import { REMOTE_NAMESPACE } from './types.js';

/** The EPP image (llm-d router endpoint picker). */
export const EPP_IMAGE = 'ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.9.0';
/** The EPP's ext-proc gRPC port, which the InferencePool references. */
export const EPP_GRPC_PORT = 9002;
/** The EPP's gRPC health port. */
export const EPP_HEALTH_PORT = 9003;
/** The config file key in the ConfigMap, mounted under /config. */
export const EPP_CONFIG_FILE = 'epp-config.yaml';
/** Pod annotation carrying the SHA-256 of the config. */
export const EPP_CHECKSUM_ANNOTATION = 'modelplane.ai/epp-config-checksum';

/** `<replica>-<suffix>`, or child_name(replica, suffix) when longer than 63 characters. */
export function suffixed(replica: string, suffix: string): string {
  const plain = `${replica}-${suffix}`;
  return plain.length <= MAX_NAME_LENGTH ? plain : childName(replica, suffix);
}

/** The EPP's name (ServiceAccount, Role, RoleBinding, ConfigMap, Deployment, Service). */
export function eppName(replica: string): string {
  return suffixed(replica, 'epp');
}

/** The InferencePool's name. */
export function poolName(replica: string): string {
  return suffixed(replica, 'pool');
}

const PRODUCER = (blockSize: number) => `- type: approx-prefix-cache-producer
  parameters:
    autoTune: false
    blockSizeTokens: ${blockSize}
    maxPrefixBlocksToMatch: 256
    lruCapacityPerServer: 31250
`;

const SCORERS = `  - pluginRef: max-score-picker
  - pluginRef: prefix-cache-scorer
    weight: 2
  - pluginRef: queue-scorer
    weight: 1
`;

/** The EPP config for Unified serving, with a KV block size in tokens. */
export function unifiedConfig(blockSize: number): string {
  return `apiVersion: llm-d.ai/v1alpha1
kind: EndpointPickerConfig
plugins:
${PRODUCER(blockSize)}- type: prefix-cache-scorer
- type: queue-scorer
- type: max-score-picker
schedulingProfiles:
- name: default
  plugins:
${SCORERS}`;
}

/** The EPP config for PrefillDecode serving, with a KV block size in tokens. */
export function disaggregatedConfig(blockSize: number): string {
  return `apiVersion: llm-d.ai/v1alpha1
kind: EndpointPickerConfig
plugins:
${PRODUCER(blockSize)}- type: prefix-cache-scorer
- type: disagg-headers-handler
- type: queue-scorer
- type: prefill-filter
- type: decode-filter
- type: max-score-picker
- type: prefix-based-pd-decider
  parameters:
    nonCachedTokens: 16
- type: disagg-profile-handler
  parameters:
    deciders:
      prefill: prefix-based-pd-decider
schedulingProfiles:
- name: prefill
  plugins:
  - pluginRef: prefill-filter
${SCORERS}- name: decode
  plugins:
  - pluginRef: decode-filter
${SCORERS}`;
}

function meta(name: string): JsonObject {
  return { name, namespace: REMOTE_NAMESPACE };
}

/** The six EPP objects by desired key, in order. `config` is the rendered config text. */
export function eppObjects(replica: string, config: string): [string, KubeObject][] {
  const name = eppName(replica);
  const labels = { app: name };
  const verbs = ['get', 'watch', 'list'];
  return [
    ['epp-serviceaccount', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta(name) }],
    [
      'epp-role',
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: meta(name),
        rules: [
          { apiGroups: [''], resources: ['pods'], verbs: [...verbs] },
          { apiGroups: ['inference.networking.k8s.io'], resources: ['inferencepools'], verbs: [...verbs] },
          { apiGroups: ['inference.networking.x-k8s.io'], resources: ['inferenceobjectives'], verbs: [...verbs] },
        ],
      },
    ],
    [
      'epp-rolebinding',
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: meta(name),
        subjects: [{ kind: 'ServiceAccount', name, namespace: REMOTE_NAMESPACE }],
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      },
    ],
    ['epp-config', { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(name), data: { [EPP_CONFIG_FILE]: config } }],
    [
      'epp',
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: meta(name),
        spec: {
          replicas: 1,
          selector: { matchLabels: { ...labels } },
          template: {
            metadata: {
              labels: { ...labels },
              annotations: { [EPP_CHECKSUM_ANNOTATION]: createHash('sha256').update(config, 'utf8').digest('hex') },
            },
            spec: {
              serviceAccountName: name,
              containers: [
                {
                  name: 'epp',
                  image: EPP_IMAGE,
                  args: [
                    `--pool-name=${poolName(replica)}`,
                    `--pool-namespace=${REMOTE_NAMESPACE}`,
                    '--pool-group=inference.networking.k8s.io',
                    `--config-file=/config/${EPP_CONFIG_FILE}`,
                    `--grpc-port=${EPP_GRPC_PORT}`,
                  ],
                  ports: [
                    { name: 'grpc', containerPort: EPP_GRPC_PORT },
                    { name: 'grpc-health', containerPort: EPP_HEALTH_PORT },
                  ],
                  volumeMounts: [{ name: 'config', mountPath: '/config' }],
                },
              ],
              volumes: [{ name: 'config', configMap: { name } }],
            },
          },
        },
      },
    ],
    [
      'epp-service',
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: meta(name),
        spec: {
          selector: { ...labels },
          ports: [{ name: 'grpc-ext-proc', port: EPP_GRPC_PORT, targetPort: EPP_GRPC_PORT, appProtocol: 'http2' }],
        },
      },
    ],
  ];
}
