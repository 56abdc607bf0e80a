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
