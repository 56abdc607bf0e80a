/**
 * compose-model-replica: a placed ModelReplica becomes a running engine on
 * its cluster, reachable through the cluster's inference gateway
 * (docs/kinds/modelreplica.md).
 *
 * Guarantees:
 * - Every remote object is a provider-kubernetes `Object` (no metadata; its
 *   name is Crossplane's) on the cluster's `ClusterProviderConfig`
 *   (`status.providerConfigRef.name` of the replica's InferenceCluster), in
 *   the remote namespace `default`. Workloads (and the EPP Deployment) are
 *   ready by CEL on `Available`; everything else once created. The
 *   PodMonitor `pod-monitor` scrapes the engines, and the cluster's
 *   `spec.observability.otlpEndpoint` reaches them as trace flags and env
 *   (metrics.ts, docs/observability.md).
 * - Requirement `cluster` (the InferenceCluster named `spec.clusterName`) is
 *   declared on every call.
 * - Nothing already composed is deleted because an input is missing or bad
 *   (docs/design.md#keep-what-exists): while the cluster is not fetched, absent or has
 *   no providerConfigRef, or a decode `--port` is malformed, the observed
 *   children are passed through and the reason is a condition (and, for user
 *   errors, a Warning naming the field).
 * - `status.startup` is the measured cold start of the workloads
 *   (startup.ts), written once a workload has been created.
 * - `status.phase` Pending → Starting → Serving → Degraded and
 *   `status.phaseSince`, from observed workloads and timestamps (phase.ts).
 * - Conditions: `ModelAccepted` (True `Accepted` once every workload Object
 *   reports its applied manifest) then `ModelReady` (True `Serving` once
 *   every workload is Ready; `ModelStarting` once accepted; else
 *   `WaitingForModel`).
 *
 * Divergences from the reference, each a section of docs/design.md:
 * - the error paths above keep children instead of returning none
 *   (docs/design.md#keep-what-exists);
 * - an InferenceCluster fetched and absent is a Warning, not the
 *   "waiting" Normal event of a requirement not yet fetched
 *   (docs/design.md#not-fetched-yet-is-not-absent);
 * - a bad decode `--port` is a Warning and a False condition, not a crash
 *   (docs/design.md#bad-engine-flags-are-input-errors); so is `--port 8000`,
 *   which collides with the pd-sidecar;
 * - the EPP Deployment is marked ready when it is Ready, not merely observed.
 */
import {
  type ComposeRequest,
  type ComposeResult,
  type Condition,
  condition,
  type DesiredResource,
  emptyResult,
  getPath,
  isReady,
  keepObserved,
  normal,
  readRequired,
  warning,
} from '../lib/function.js';
import { keepAndWarn } from '../lib/keep.js';
import { kubernetesObject } from '../lib/objects.js';
import { markReady, readyOnlyIfServing } from '../lib/ready.js';
import { assemble, type RemoteObject } from './assemble.js';
import { workloadKey } from './native.js';
import { observedStartup } from './startup.js';
import { keptPhaseStatus, phaseStatus } from './phase.js';
import { AVAILABLE_QUERY, type Replica, readReplica } from './types.js';

/** Condition types and reasons (docs/kinds/modelreplica.md#status-and-conditions). */
export const ModelAccepted = 'ModelAccepted';
export const ModelReady = 'ModelReady';
export const Reason = {
  WaitingForCluster: 'WaitingForCluster',
  WaitingForModel: 'WaitingForModel',
  Deploying: 'Deploying',
  Accepted: 'Accepted',
  ModelStarting: 'ModelStarting',
  Serving: 'Serving',
  InvalidSpec: 'InvalidSpec',
} as const;

/** Event and message texts. */
export const msgWaitingForCluster = 'Waiting for cluster to be resolved';
export const msgWaitingForProviderConfig = 'Waiting for cluster providerConfigRef';
export const msgClusterNotFound = (name: string): string =>
  `spec.clusterName: InferenceCluster ${name} not found; keeping the composed workload until it exists again`;
export const msgComposing = (image: string, cluster: string): string => `Composing ${image} on ${cluster}`;

/** Composes a ModelReplica. */
export function compose(req: ComposeRequest): ComposeResult {
  const result = emptyResult();
  const parsed = readReplica(req.composite);
  if ('error' in parsed) {
    keepAndWarn(result, req.observed, { type: ModelAccepted, reason: Reason.InvalidSpec, message: parsed.error });
    result.conditions.push(condition(ModelReady, false, Reason.WaitingForModel));
    result.status = { ...result.status, ...keptPhaseStatus(req) };
    readyOnlyIfServing(result, false);
    return result;
  }
  const replica = parsed.replica;
  const keys = replica.spec.engines.map(workloadKey);
  const clusterName = replica.spec.clusterName;
  result.requirements['cluster'] = { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceCluster', matchName: clusterName };

  const cluster = readRequired(req, 'cluster');
  const waiting = (): ComposeResult => {
    result.resources = keepObserved(req.observed);
    result.conditions.push(condition(ModelAccepted, false, Reason.WaitingForCluster));
    result.conditions.push(condition(ModelReady, false, Reason.WaitingForModel));
    result.status = { ...result.status, ...phaseStatus(req, keys) };
    readyOnlyIfServing(result, false);
    return result;
  };
  if (cluster.state === 'pending') {
    result.results.push(normal(msgWaitingForCluster));
    return waiting();
  }
  if (cluster.state === 'absent') {
    result.results.push(warning(msgClusterNotFound(clusterName)));
    return waiting();
  }
  const pc = getPath(cluster.items[0], 'status', 'providerConfigRef', 'name');
  if (typeof pc !== 'string' || pc === '') {
    result.results.push(normal(msgWaitingForProviderConfig));
    return waiting();
  }

  const otlp = getPath(cluster.items[0], 'spec', 'observability', 'otlpEndpoint');
  const built = assemble(replica, typeof otlp === 'string' && otlp !== '' ? otlp : undefined);
  if ('error' in built) {
    keepAndWarn(result, req.observed, { type: ModelAccepted, reason: Reason.InvalidSpec, message: built.error });
    result.conditions.push(readiness(req, keys));
    result.status = { ...result.status, ...phaseStatus(req, keys) };
    readyOnlyIfServing(result, false);
    return result;
  }

  result.resources = wrap(req, built.objects, pc);
  const startup = observedStartup(req, keys);
  if (startup !== undefined) result.status = { ...(result.status ?? {}), startup: { ...startup } };
  if (!keys.some((k) => k in req.observed)) {
    result.results.push(normal(msgComposing(firstImage(replica), clusterName)));
  }
  const accepted = keys.every((k) => hasManifest(req, k));
  result.conditions.push(condition(ModelAccepted, accepted, accepted ? Reason.Accepted : Reason.Deploying));
  const ready = readiness(req, keys);
  result.conditions.push(ready);
  result.status = { ...result.status, ...phaseStatus(req, keys) };
  // Ready means serving: every workload applied and available (and every other object created).
  readyOnlyIfServing(result, ready.status === 'True');
  return result;
}

function wrap(req: ComposeRequest, objects: RemoteObject[], pc: string): Record<string, DesiredResource> {
  const out: Record<string, DesiredResource> = {};
  for (const o of objects) {
    const resource = kubernetesObject({
      manifest: o.manifest,
      providerConfigRef: { kind: 'ClusterProviderConfig', name: pc },
      readiness:
        o.readiness === 'workload'
          ? { policy: 'DeriveFromCelQuery', celQuery: AVAILABLE_QUERY }
          : { policy: 'SuccessfulCreate' },
    });
    const observed = req.observed[o.key]?.resource;
    const ready = observed !== undefined && (o.readiness === 'created' || isReady(observed));
    out[o.key] = markReady(resource, ready);
  }
  return out;
}

function hasManifest(req: ComposeRequest, key: string): boolean {
  const m = getPath(req.observed[key]?.resource, 'status', 'atProvider', 'manifest');
  return typeof m === 'object' && m !== null && Object.keys(m).length > 0;
}

/**
 * `ModelReady` from the observed workloads: Serving when all are applied
 * (`ModelAccepted`) and Ready, ModelStarting once all are applied, else
 * WaitingForModel. Never True while `ModelAccepted` is False.
 */
function readiness(req: ComposeRequest, keys: string[]): Condition {
  const applied = keys.every((k) => hasManifest(req, k));
  if (!applied) return condition(ModelReady, false, Reason.WaitingForModel);
  if (keys.every((k) => isReady(req.observed[k]?.resource))) return condition(ModelReady, true, Reason.Serving);
  return condition(ModelReady, false, Reason.ModelStarting);
}

function firstImage(replica: Replica): string {
  return replica.spec.engines[0]!.members[0]!.template.spec!.containers[0]!.image;
}
