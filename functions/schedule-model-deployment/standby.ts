/**
 * Zero and back (docs/autoscaling.md#zero-and-back): while a deployment that
 * may scale to zero (`spec.autoscaling.minReplicas: 0`) has no Ready replica,
 * it composes a standby ModelEndpoint, so every ModelService that selects
 * the deployment's endpoints stays routable. Its backend is the key
 * validator's `/scale-from-zero/<namespace>/<deployment>/retry-after-<s>/`
 * path, which answers `503` with `Retry-After: <s>` (the wake-up plus the
 * last measured way back) and records the request as demand: the
 * series the ScaledObject's `demand` trigger reads
 * ({@link DEMAND_TIMESTAMP_SERIES}).
 *
 * Guarantees:
 * - Composed only with `minReplicas: 0`, and only while no replica counts
 *   Ready; the first Ready replica's endpoint replaces it in the same
 *   reconcile (weighted routing never splits traffic between a replica and
 *   the standby).
 * - The validator's address is the InferenceGateway `default`'s
 *   `spec.auth.validatorURL`, else the composed validator's in-cluster
 *   Service (lib/key-validator.ts). While the gateway is not fetched yet an
 *   observed standby endpoint is kept as it is; none is composed before.
 * - The standby carries the deployment's labels (a service selecting the
 *   deployment's endpoints selects it) and `modelplane.ai/standby: "true"`.
 * - The reconcile that drops the standby for a Ready replica measures the
 *   way back: `status.autoscaling.lastScaleFromZero` = `{activeAt, readyAt,
 *   seconds}`, from the ScaledObject's `Active` transition (or, as KEDA
 *   stamps none, the first replica's creation) to the earliest `Ready`
 *   transition of a Ready replica, both observed timestamps (no clock is
 *   read); later reconciles carry it forward from the XR's status.
 */
import { type ComposeRequest, type ComposeResult, type DesiredResource, getPath, isReady, type JsonObject, type KubeObject, keepObserved, readRequired } from '../lib/function.js';
import { DEFAULT_VALIDATOR_URL, scaleFromZeroPath, WAKE_SECONDS } from '../lib/key-validator.js';
import { DEPLOYMENT_LABEL } from '../lib/names.js';
import type { DeploymentSpec } from './deployment.js';
import type { Autoscaler } from './autoscaling.js';

/** Desired-resource key of the standby endpoint. */
export const STANDBY_KEY = 'standby-endpoint';
/** Label of a standby endpoint (ModelService says a route to it is scaled to zero). */
export const STANDBY_LABEL = 'modelplane.ai/standby';
/** Requirement: the InferenceGateway `default` (its `spec.auth.validatorURL` and `spec.autoscaling.autoscaler`). */
export const REQ_GATEWAY = 'inference-gateway';
/** The selector of {@link REQ_GATEWAY}. */
export const GATEWAY_SELECTOR = { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceGateway', matchName: 'default' } as const;
/**
 * The validator's gauge: when a request last arrived at zero replicas, in
 * seconds since the epoch, labelled `namespace` and `deployment`.
 */
export const DEMAND_TIMESTAMP_SERIES = 'modelplane_scale_from_zero_last_request_timestamp_seconds';

/** The standby endpoint's name: `<deployment>-standby`. */
export function standbyName(d: Pick<DeploymentSpec, 'name'>): string {
  return `${d.name}-standby`;
}

/**
 * The standby ModelEndpoint: url `<validator>/scale-from-zero/<namespace>/<deployment>/retry-after-<s>/v1`,
 * rewritePath the same less `v1` (a ModelService sends `/<ns>/<service>/v1/...`
 * there as `/scale-from-zero/<ns>/<deployment>/retry-after-<s>/v1/...`), where
 * `s` is {@link retryAfterSeconds}.
 */
export function standbyEndpoint(d: DeploymentSpec, validatorURL: string, retryAfter: number): KubeObject {
  const path = scaleFromZeroPath(d.namespace, d.name, retryAfter);
  return {
    apiVersion: 'modelplane.ai/v1alpha1',
    kind: 'ModelEndpoint',
    metadata: { name: standbyName(d), namespace: d.namespace, labels: { ...d.labels, [DEPLOYMENT_LABEL]: d.name, [STANDBY_LABEL]: 'true' } },
    spec: { rewritePath: path, url: `${validatorURL.replace(/\/+$/, '')}${path}v1` },
  };
}

/**
 * The Retry-After a request at zero is given, seconds: the wake-up
 * ({@link WAKE_SECONDS}: one scrape and one KEDA poll) plus the last measured
 * way back (`lastScaleFromZero.seconds`, {@link measureScaleFromZero}), or
 * the wake-up alone before one was measured.
 */
export function retryAfterSeconds(lastScaleFromZero: unknown): number {
  const seconds = getPath(lastScaleFromZero, 'seconds');
  return WAKE_SECONDS + (typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? seconds : 0);
}

/** A condition's `lastTransitionTime` in ms since the epoch, when the condition is True and the time parses. */
function trueSince(o: KubeObject | undefined, type: string): number | undefined {
  const conditions = getPath(o, 'status', 'conditions');
  if (!Array.isArray(conditions)) return undefined;
  const c = conditions.find((x) => getPath(x, 'type') === type && getPath(x, 'status') === 'True');
  const at = Date.parse(String(getPath(c, 'lastTransitionTime') ?? ''));
  return Number.isNaN(at) ? undefined : at;
}

/** A resource's `metadata.creationTimestamp` in ms since the epoch, when it parses. */
function createdAt(o: KubeObject | undefined): number | undefined {
  const at = Date.parse(String(getPath(o, 'metadata', 'creationTimestamp') ?? ''));
  return Number.isNaN(at) ? undefined : at;
}

/**
 * `{activeAt, readyAt, seconds}` of the way back from zero. `activeAt`: the
 * observed ScaledObject's Active transition when KEDA stamps one (KEDA
 * 2.20's conditions carry no time), else the earliest creation of the
 * observed replicas (the scheduler creates the first within a reconcile of
 * KEDA asking for it). `readyAt`: the earliest Ready transition among them.
 * Undefined when either is missing or Ready comes first (a replica that was
 * Ready before KEDA woke the deployment).
 */
export function measureScaleFromZero(req: ComposeRequest): JsonObject | undefined {
  const replicas = Object.entries(req.observed)
    .filter(([k]) => k.startsWith('replica-'))
    .map(([, o]) => o.resource);
  const earliest = (times: (number | undefined)[]) => times.filter((t): t is number => t !== undefined).sort((a, b) => a - b)[0];
  const active = trueSince(req.observed['autoscaler']?.resource, 'Active') ?? earliest(replicas.map(createdAt));
  const ready = earliest(replicas.map((r) => trueSince(r, 'Ready')));
  if (active === undefined || ready === undefined || ready < active) return undefined;
  const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return { activeAt: iso(active), readyAt: iso(ready), seconds: Math.round((ready - active) / 1000) };
}

/** The autoscaler the gateway declares (hpa.ts): `HPA` only when it says so; KEDA without a gateway or without the field. */
export function autoscalerOf(gateway: KubeObject | undefined): Autoscaler {
  return getPath(gateway, 'spec', 'autoscaling', 'autoscaler') === 'HPA' ? 'HPA' : 'KEDA';
}

/** The validator's base URL from the InferenceGateway `default`: `spec.auth.validatorURL`, else the composed validator. */
export function validatorURLOf(gateway: KubeObject | undefined): string {
  const url = getPath(gateway, 'spec', 'auth', 'validatorURL');
  return typeof url === 'string' && url !== '' ? url : DEFAULT_VALIDATOR_URL;
}

/**
 * Adds the standby endpoint to `result` when the deployment may scale to
 * zero and `readyReplicas` is 0 (see the module's guarantees); declares the
 * gateway requirement whenever `minReplicas` is 0.
 */
export function withStandby(req: ComposeRequest, result: ComposeResult, d: DeploymentSpec, readyReplicas: number): void {
  if (d.autoscaling?.minReplicas !== 0) return;
  result.requirements[REQ_GATEWAY] = { ...GATEWAY_SELECTOR };
  const observed = req.observed[STANDBY_KEY];
  const measured = readyReplicas > 0 && observed !== undefined ? measureScaleFromZero(req) : getPath(req.composite, 'status', 'autoscaling', 'lastScaleFromZero');
  const autoscaling = getPath(result.status, 'autoscaling');
  if (measured !== undefined && typeof autoscaling === 'object' && autoscaling !== null) (autoscaling as JsonObject)['lastScaleFromZero'] = measured as JsonObject;
  if (readyReplicas > 0) return;
  const gateway = readRequired(req, REQ_GATEWAY);
  if (gateway.state === 'pending') {
    if (observed !== undefined) Object.assign(result.resources, keepObserved({ [STANDBY_KEY]: observed }));
    return;
  }
  const declared = gateway.state === 'present' ? gateway.items[0] : undefined;
  // The HPA autoscaler never scales to zero (hpa.ts): nothing to stand in for.
  if (autoscalerOf(declared) === 'HPA') return;
  const validatorURL = validatorURLOf(declared);
  const endpoint: DesiredResource = { resource: standbyEndpoint(d, validatorURL, retryAfterSeconds(measured)) };
  if (isReady(observed?.resource)) endpoint.ready = true;
  result.resources[STANDBY_KEY] = endpoint;
}
