/**
 * Pod pieces shared by both backends (docs/kinds/modelreplica.md#pods): placement,
 * claims, the model cache and the engine container.
 *
 * Guarantees:
 * - Every pod of a member is pinned to its pool (`nodeSelector
 *   modelplane.ai/pool`) and tolerates the GPU taint, claiming or not.
 * - A claiming member's pod references its ResourceClaimTemplate as the one
 *   pod claim `devices`, and its engine container claims it whole.
 * - The user's container is copied, never rewritten: the only flag ever added
 *   is `--model=/mnt/models`, and only when a cache is mounted, the container
 *   has no `command`, and no `--model` flag is given (the vLLM-only heuristic
 *   of docs/kinds/modelreplica.md#the-model-cache). Env items keep their
 *   order with null fields dropped.
 * - Every builder returns fresh objects; inputs are never mutated.
 */
import type { JsonObject } from '../lib/function.js';
import { withoutNulls } from '../lib/json.js';
import { childName } from '../lib/names.js';
import {
  CACHE_MOUNT_PATH,
  CACHE_VOLUME,
  CLAIM_NAME,
  type Engine,
  type EngineContainer,
  type EnvVar,
  type Member,
  POOL_LABEL,
  type Replica,
  roleOf,
  type TemplateMeta,
} from './types.js';

/** The GPU toleration every model pod carries (taint `nvidia.com/gpu:NoSchedule`). */
export const GPU_TOLERATION = { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' } as const;

/** Name of the ResourceClaimTemplate of one member: child_name(replica, engine, role, "devices"). */
export function claimTemplateName(replica: string, engine: string, m: Member): string {
  return childName(replica, engine, roleOf(m).toLowerCase(), 'devices');
}

/** True when the member claims at least one device. */
export function claims(m: Member): boolean {
  return (m.deviceRequests?.length ?? 0) > 0;
}

/**
 * The placement fields of a member's pod spec: `nodeSelector`, then
 * `resourceClaims` (claiming members only), then `tolerations`.
 */
export function placement(replica: string, engine: string, m: Member): JsonObject {
  const out: JsonObject = { nodeSelector: { [POOL_LABEL]: m.nodePoolName } };
  if (claims(m)) {
    out['resourceClaims'] = [{ name: CLAIM_NAME, resourceClaimTemplateName: claimTemplateName(replica, engine, m) }];
  }
  out['tolerations'] = [{ ...GPU_TOLERATION }];
  return out;
}

/** The `/dev/shm` volume every engine pod mounts (a Memory emptyDir). */
export function shmVolume(): JsonObject {
  return { name: 'dshm', emptyDir: { medium: 'Memory' } };
}

/** The `/dev/shm` mount of the engine container. */
export function shmMount(): JsonObject {
  return { name: 'dshm', mountPath: '/dev/shm' };
}

/** The cache PVC name on the workload cluster: child_name("modelcache", namespace, cache), the ModelCache contract. */
export function cacheClaimName(replica: Replica): string | undefined {
  const cache = replica.spec.modelCacheRef?.name;
  return cache ? childName('modelcache', replica.namespace, cache) : undefined;
}

/** Pod volumes: `dshm`, then the cache volume when a cache is referenced. */
export function podVolumes(replica: Replica): JsonObject[] {
  const claim = cacheClaimName(replica);
  const volumes = [shmVolume()];
  if (claim) volumes.push({ name: CACHE_VOLUME, persistentVolumeClaim: { claimName: claim } });
  return volumes;
}

/** Engine container mounts: `dshm`, then the cache (read-write) when referenced. */
export function containerMounts(replica: Replica): JsonObject[] {
  const mounts = [shmMount()];
  if (cacheClaimName(replica)) mounts.push({ name: CACHE_VOLUME, mountPath: CACHE_MOUNT_PATH });
  return mounts;
}

/**
 * The container args after the cache flag: `--model=/mnt/models` appended
 * when `inject` and the container has no command and no `--model` flag.
 */
export function engineArgs(c: EngineContainer, inject: boolean): string[] {
  const args = [...(c.args ?? [])];
  if (!inject || c.command !== undefined) return args;
  if (args.some((a) => a === '--model' || a.startsWith('--model='))) return args;
  args.push(`--model=${CACHE_MOUNT_PATH}`);
  return args;
}

/** The user's env, copied without null fields. */
export function userEnv(c: EngineContainer): EnvVar[] {
  return (c.env ?? []).map((e) => withoutNulls(e));
}

/** Whole-pod claim reference of a claiming container: `resources.claims [{name: devices}]`. */
export function claimResources(): JsonObject {
  return { claims: [{ name: CLAIM_NAME }] };
}

/** An HTTP readiness probe on `/health` (initial delay 30 s, period 10 s, timeout 5 s). */
export function healthProbe(port: number): JsonObject {
  return { httpGet: { path: '/health', port }, initialDelaySeconds: 30, periodSeconds: 10, timeoutSeconds: 5 };
}

/**
 * Pod template metadata: the member's labels with `managed` labels winning,
 * its annotations; `undefined` when both are empty.
 */
export function podMetadata(meta: TemplateMeta | undefined, managed: Record<string, string>): JsonObject | undefined {
  const labels = { ...(meta?.labels ?? {}), ...managed };
  const out: JsonObject = {};
  if (Object.keys(labels).length > 0) out['labels'] = labels;
  if (meta?.annotations && Object.keys(meta.annotations).length > 0) out['annotations'] = { ...meta.annotations };
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * The labels Kueue reads on a workload object (Deployment, LeaderWorkerSet) to
 * admit it: its LocalQueue and its WorkloadPriorityClass (Kueue, "Run a
 * Deployment" / "Run a LeaderWorkerSet": label the workload, not only its pods).
 */
export const KUEUE_LABELS = ['kueue.x-k8s.io/queue-name', 'kueue.x-k8s.io/priority-class'] as const;

/**
 * The workload object's metadata for a member's template: `name`, `namespace`,
 * then the template's {@link KUEUE_LABELS}, when it sets any (they stay on the
 * pods too), so a queue label in the template reaches Kueue on the cluster.
 */
export function workloadMetadata(name: string, namespace: string, meta: TemplateMeta | undefined): JsonObject {
  const labels: Record<string, string> = {};
  for (const key of KUEUE_LABELS) {
    const value = meta?.labels?.[key];
    if (value !== undefined) labels[key] = value;
  }
  return Object.keys(labels).length > 0 ? { name, namespace, labels } : { name, namespace };
}

/** The member's single engine container (the XRD allows exactly one, named `engine`; readReplica checked it is there). */
export function engineContainer(m: Member): EngineContainer {
  return m.template.spec!.containers[0]!;
}

/** Pull secrets of a member's template, copied, or `undefined`. */
export function pullSecrets(m: Member): JsonObject[] | undefined {
  const s = m.template.spec?.imagePullSecrets;
  return s && s.length > 0 ? s.map((x) => ({ name: x.name })) : undefined;
}

/**
 * The pod spec of a member's pods around its engine `container`, the same on
 * both backends: `containers`, `volumes` ({@link podVolumes}), the
 * {@link placement} fields, then the template's `priorityClassName` and
 * `imagePullSecrets` when it has them.
 */
export function memberPodSpec(replica: Replica, engine: Engine, m: Member, container: JsonObject): JsonObject {
  const spec: JsonObject = {
    containers: [container],
    volumes: podVolumes(replica),
    ...placement(replica.name, engine.name, m),
  };
  if (m.template.spec?.priorityClassName) spec['priorityClassName'] = m.template.spec.priorityClassName;
  const secrets = pullSecrets(m);
  if (secrets) spec['imagePullSecrets'] = secrets;
  return spec;
}

/** A pod template: `metadata` (omitted when there is none), then `spec`. */
export interface PodTemplate {
  metadata?: JsonObject;
  spec: JsonObject;
}

/** The pod template of `spec` with `metadata` from {@link podMetadata} (`undefined` leaves it out). */
export function podTemplate(metadata: JsonObject | undefined, spec: JsonObject): PodTemplate {
  return metadata ? { metadata, spec } : { spec };
}
