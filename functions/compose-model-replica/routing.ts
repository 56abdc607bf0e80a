/**
 * Routing of a replica on its workload cluster (docs/kinds/modelreplica.md#routing):
 * both serving modes go through a Gateway API Inference Extension
 * InferencePool (`inference.networking.k8s.io/v1`) and the llm-d endpoint
 * picker; there is no plain Service.
 *
 * Guarantees:
 * - The HTTPRoute `<replica>` on the cluster's `inference-gateway` matches
 *   `/<namespace>/<replica>/`, rewrites it to `/`, disables the request
 *   timeout (`0s`, so token streams are not cut) and targets the pool.
 * - The pool selects every serving pod of the replica (`modelplane.ai/serving`)
 *   on port 8000 and asks the EPP on 9002, failing open.
 * - PrefillDecode: the prefill and decode serving templates (chosen by
 *   phase, not name) are labelled for llm-d; the decode engine moves to its
 *   `--port` (its probes with it) and a `pd-sidecar` (v0.9.0, with the same
 *   readiness, startup and liveness probes and preStop wait on 8000) takes
 *   port 8000 in front of it; both
 *   get the NIXL side-channel env unless the user set it. Divergence: the
 *   reference also added a `nixl-shm` volume that was never mounted (every
 *   engine already mounts `/dev/shm`); we do not add the unused volume.
 */
import type { JsonObject, KubeObject } from '../lib/function.js';
import { EPP_GRPC_PORT, eppName, poolName } from './epp.js';
import type { Workload } from './native.js';
import { type Lifecycle, withHealth } from './lifecycle.js';
import { healthProbe } from './pod.js';
import { ENGINE_PORT, REMOTE_NAMESPACE, type Replica, SERVING_LABEL } from './types.js';

/** The sidecar that fronts a decode engine in PrefillDecode serving. */
export const PD_SIDECAR_IMAGE = 'ghcr.io/llm-d/llm-d-router-disagg-sidecar:v0.9.0';
/** The Gateway on every workload cluster (installed by the ServingStack). */
export const CLUSTER_GATEWAY = { name: 'inference-gateway', namespace: 'modelplane-system' } as const;
/** NIXL side-channel port. */
export const NIXL_PORT = '5557';

/** The path prefix of a replica on its cluster gateway: `/<namespace>/<replica>/`. */
export function replicaPath(replica: Replica): string {
  return `/${replica.namespace}/${replica.name}/`;
}

/** The InferencePool over the replica's serving pods. */
export function inferencePool(replica: Replica): KubeObject {
  return {
    apiVersion: 'inference.networking.k8s.io/v1',
    kind: 'InferencePool',
    metadata: { name: poolName(replica.name), namespace: REMOTE_NAMESPACE },
    spec: {
      selector: { matchLabels: { [SERVING_LABEL]: replica.name } },
      targetPorts: [{ number: ENGINE_PORT }],
      endpointPickerRef: { name: eppName(replica.name), port: { number: EPP_GRPC_PORT }, failureMode: 'FailOpen' },
    },
  };
}

/** The HTTPRoute from the cluster gateway to the pool. */
export function modelRoute(replica: Replica): KubeObject {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name: replica.name, namespace: REMOTE_NAMESPACE },
    spec: {
      parentRefs: [{ ...CLUSTER_GATEWAY }],
      rules: [
        {
          matches: [{ path: { type: 'PathPrefix', value: replicaPath(replica) } }],
          filters: [{ type: 'URLRewrite', urlRewrite: { path: { type: 'ReplacePrefixMatch', replacePrefixMatch: '/' } } }],
          backendRefs: [{ group: 'inference.networking.k8s.io', kind: 'InferencePool', name: poolName(replica.name) }],
          timeouts: { request: '0s' },
        },
      ],
    },
  };
}

function engineOf(w: Workload): JsonObject {
  const containers = w.servingPod.spec['containers'] as JsonObject[];
  return containers[0]!;
}

/** The args of a workload's serving engine container, as composed (after the cache flag). */
export function servingArgs(w: Workload): string[] {
  const args = engineOf(w)['args'];
  return Array.isArray(args) ? (args as string[]) : [];
}

function label(w: Workload, role: 'prefill' | 'decode', replica: string): void {
  if (w.servingPod.metadata === undefined) w.servingPod.metadata = {};
  const metadata = w.servingPod.metadata;
  const labels = (metadata['labels'] ?? {}) as Record<string, string>;
  metadata['labels'] = { ...labels, 'llm-d.ai/role': role, 'llm-d.ai/inference-serving': 'true', app: replica };
}

function addNixlEnv(w: Workload): void {
  const engine = engineOf(w);
  const env = [...((engine['env'] as JsonObject[] | undefined) ?? [])];
  const has = (n: string) => env.some((e) => e['name'] === n);
  if (!has('VLLM_NIXL_SIDE_CHANNEL_HOST')) {
    env.push({ name: 'VLLM_NIXL_SIDE_CHANNEL_HOST', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } });
  }
  if (!has('VLLM_NIXL_SIDE_CHANNEL_PORT')) env.push({ name: 'VLLM_NIXL_SIDE_CHANNEL_PORT', value: NIXL_PORT });
  engine['env'] = env;
}

/**
 * Decorates the serving templates of a PrefillDecode replica in place (they
 * are this call's fresh objects): llm-d role labels, NIXL env, and on the
 * decode side the engine on `decodePort` behind the pd-sidecar.
 */
export function applyPrefillDecode(
  replica: Replica,
  prefill: Workload,
  decode: Workload,
  decodePort: number,
  lc: Lifecycle,
): void {
  label(prefill, 'prefill', replica.name);
  label(decode, 'decode', replica.name);
  addNixlEnv(prefill);
  addNixlEnv(decode);
  const engine = engineOf(decode);
  engine['ports'] = [{ containerPort: decodePort }];
  engine['readinessProbe'] = healthProbe(decodePort);
  withHealth(engine, decodePort, lc);
  const sidecar: JsonObject = {
    name: 'pd-sidecar',
    image: PD_SIDECAR_IMAGE,
    args: ['--secure-proxy=false', '--kv-connector=nixlv2', `--vllm-port=${decodePort}`],
    ports: [{ containerPort: ENGINE_PORT }],
    readinessProbe: healthProbe(ENGINE_PORT),
  };
  withHealth(sidecar, ENGINE_PORT, lc);
  (decode.servingPod.spec['containers'] as JsonObject[]).push(sidecar);
}
