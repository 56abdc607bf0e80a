/**
 * The key validator's identity, shared by the ModelService function (which
 * grants it each service's key Secrets) and the InferenceGateway function
 * (which deploys it): its ServiceAccount, address, and the Role and
 * RoleBinding a service composes for it (docs/ai-gateway.md,
 * docs/front-door.md).
 */
import type { KubeObject } from './function.js';
import { childName } from './names.js';

/** The key validator's ServiceAccount and default address (in-cluster Service). */
export const VALIDATOR = { name: 'modelplane-key-validator', namespace: 'modelplane-system' } as const;
export const DEFAULT_VALIDATOR_URL = 'http://modelplane-key-validator.modelplane-system.svc.cluster.local:8080';

/** Name of a service's API-key Middleware, and of the Role and RoleBinding that let the validator read its Secrets. */
export function middlewareName(service: string): string {
  return childName(service, 'api-key');
}

/** The key validator's ServiceAccount `modelplane-key-validator` in `modelplane-system`. */
export function validatorServiceAccount(): KubeObject {
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: VALIDATOR.name, namespace: VALIDATOR.namespace } };
}

/** Role `<middleware name>` in the Secrets' namespace: get on the named key Secrets only. */
export function validatorRole(service: string, namespace: string, secrets: readonly string[]): KubeObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: middlewareName(service), namespace },
    rules: [{ apiGroups: [''], resources: ['secrets'], resourceNames: [...secrets], verbs: ['get'] }],
  };
}

/** RoleBinding of {@link validatorRole} to the validator's ServiceAccount. */
export function validatorRoleBinding(service: string, namespace: string): KubeObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: middlewareName(service), namespace },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: middlewareName(service) },
    subjects: [{ kind: 'ServiceAccount', name: VALIDATOR.name, namespace: VALIDATOR.namespace }],
  };
}

/**
 * Zero and back (docs/autoscaling.md#zero-and-back): the validator path a
 * deployment's standby ModelEndpoint routes to,
 * `/scale-from-zero/<namespace>/<deployment>/retry-after-<seconds>/`, where
 * the validator answers 503 with `Retry-After: <seconds>`.
 */
export const SCALE_FROM_ZERO_PATH = '/scale-from-zero';
/**
 * Seconds from a request at zero to KEDA asking for a replica, at most: one
 * Prometheus scrape of the demand gauge and one KEDA poll (15 s each). The
 * Retry-After of a deployment whose way back was never measured, and what a
 * measured one adds to.
 */
export const WAKE_SECONDS = 30;
/** Retry-After bounds the validator honours in a path, seconds (a day at most). */
export const RETRY_AFTER_RANGE = { min: 1, max: 86_400 } as const;

/**
 * The standby path of `<namespace>/<deployment>`, asking clients to retry
 * after `retryAfterSeconds` (whole seconds, clamped to {@link RETRY_AFTER_RANGE}).
 */
export function scaleFromZeroPath(namespace: string, deployment: string, retryAfterSeconds: number): string {
  const s = Math.min(RETRY_AFTER_RANGE.max, Math.max(RETRY_AFTER_RANGE.min, Math.ceil(retryAfterSeconds)));
  return `${SCALE_FROM_ZERO_PATH}/${namespace}/${deployment}/retry-after-${s}/`;
}

/**
 * Reads a standby path (`/scale-from-zero/<ns>/<deployment>[/retry-after-<s>]/<rest>`,
 * its first three segments URL-decoded): the deployment and the Retry-After it asks for
 * ({@link WAKE_SECONDS} when the path names none or one out of
 * {@link RETRY_AFTER_RANGE}); undefined when the path is not under the
 * prefix, names no deployment or is not valid percent-encoding.
 */
export function parseScaleFromZeroPath(path: string): { namespace: string; deployment: string; retryAfterSeconds: number } | undefined {
  const prefix = `${SCALE_FROM_ZERO_PATH}/`;
  if (!path.startsWith(prefix)) return undefined;
  let segments: string[];
  try {
    segments = path.slice(prefix.length).split('/').slice(0, 3).map(decodeURIComponent);
  } catch {
    return undefined;
  }
  const [namespace, deployment, third] = segments;
  if (!namespace || !deployment) return undefined;
  const asked = /^retry-after-(\d{1,6})$/.exec(third ?? '');
  const n = asked ? Number(asked[1]) : Number.NaN;
  const retryAfterSeconds = n >= RETRY_AFTER_RANGE.min && n <= RETRY_AFTER_RANGE.max ? n : WAKE_SECONDS;
  return { namespace, deployment, retryAfterSeconds };
}
