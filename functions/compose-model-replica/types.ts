/**
 * The ModelReplica shapes compose-model-replica reads, and the constants of
 * the remote objects it writes (docs/kinds/modelreplica.md#the-api,
 * docs/kinds/modelreplica.md#pods).
 *
 * Guarantees: {@link readReplica} never throws; a replica that the API server
 * would not have admitted comes back as an error message naming the field,
 * which the caller turns into a condition.
 *
 * Types are the generated ones of `apis/modelreplicas/definition.yaml`.
 */
import type { KubeObject } from '../lib/function.js';
import {
  type ModelReplicaEngine,
  type ModelReplicaEngineMember,
  type ModelReplicaEngineMemberDeviceRequest,
  type ModelReplicaEngineMemberTemplateMetadata,
  type ModelReplicaEngineMemberTemplateSpecContainer,
  type ModelReplicaEngineMemberTemplateSpecContainerEnv,
  type ModelReplicaSpec,
  parseModelReplica,
} from '../lib/generated/modelreplicas.js';
import { DEPLOYMENT_LABEL } from '../lib/names.js';
import { formatZodIssues } from '../lib/zod-issues.js';

/** An env var of the engine container, passed through without null fields. */
export type EnvVar = ModelReplicaEngineMemberTemplateSpecContainerEnv;
/** The single `engine` container of a member template: name, image, command, args, env. */
export type EngineContainer = ModelReplicaEngineMemberTemplateSpecContainer;
/** Pod metadata a member template may carry. */
export type TemplateMeta = ModelReplicaEngineMemberTemplateMetadata;
/** A device request resolved by the scheduler: a DRA DeviceClass, a count of devices per pod, CEL selectors. */
export type DeviceRequest = ModelReplicaEngineMemberDeviceRequest;
/** One member of an engine, pinned by the scheduler to one node pool (role defaulted to Standalone). */
export type Member = ModelReplicaEngineMember;
/** Member roles. */
export type Role = Member['role'];
/** An engine: one Standalone member, or one Leader and one Worker (copies defaulted to 1). */
export type Engine = ModelReplicaEngine;
/** The ModelReplica `spec`, XRD defaults applied. */
export type ReplicaSpec = ModelReplicaSpec;

/** A ModelReplica as this function reads it. */
export interface Replica {
  name: string;
  namespace: string;
  /** The ModelDeployment it belongs to (label `modelplane.ai/deployment`), when labelled. */
  deployment?: string;
  spec: ReplicaSpec;
}

/** Remote namespace of every object on the workload cluster (docs/kinds/modelreplica.md#remote-objects). */
export const REMOTE_NAMESPACE = 'default';
/** The engine's HTTP port, in-pod. */
export const ENGINE_PORT = 8000;
/** Pod label carrying the replica name on serving pods only (the InferencePool selector). */
export const SERVING_LABEL = 'modelplane.ai/serving';
/** Pod label carrying the workload name (Deployment selector). */
export const WORKLOAD_LABEL = 'modelplane.ai/workload';
/** Node label every pod is pinned by (the library's, shared with the dev runtime). */
export { POOL_LABEL } from '../lib/names.js';
/** Leader template label of LeaderWorkerSets. */
export const LWS_ROLE_LABEL = 'modelplane.ai/lws-role';
/** Pod-level resource claim name. */
export const CLAIM_NAME = 'devices';
/** The model cache volume and its mount path. */
export const CACHE_VOLUME = 'model-cache';
export const CACHE_MOUNT_PATH = '/mnt/models';
/** Readiness of workloads (Deployment, LeaderWorkerSet, EPP): condition Available=True. */
export const AVAILABLE_QUERY =
  'has(object.status) && has(object.status.conditions) && object.status.conditions.exists(c, c.type == "Available" && c.status == "True")';

/** The role of a member (the XRD defaults it to Standalone). */
export function roleOf(m: Member): Role {
  return m.role ?? 'Standalone';
}

/**
 * Reads the replica from the observed XR with the XRD's defaults applied, or
 * returns every field that is wrong (`<path>: <problem>`, sorted). The API
 * server admits only valid replicas, so this is a guard, not a validator:
 * the one check beyond the schema is that every member has its container.
 */
export function readReplica(xr: KubeObject): { replica: Replica } | { error: string } {
  const parsed = parseModelReplica(xr);
  if (!parsed.success) return { error: formatZodIssues('', parsed.error) };
  const spec = parsed.data.spec;
  for (const [i, e] of spec.engines.entries()) {
    for (const [j, m] of e.members.entries()) {
      if (m.template.spec?.containers[0] === undefined) {
        return { error: `spec.engines[${i}].members[${j}].template.spec.containers: the engine container is required` };
      }
    }
  }
  const replica: Replica = { name: xr.metadata?.name ?? '', namespace: xr.metadata?.namespace ?? '', spec };
  const deployment = xr.metadata?.labels?.[DEPLOYMENT_LABEL];
  if (deployment !== undefined && deployment !== '') replica.deployment = deployment;
  return { replica };
}
