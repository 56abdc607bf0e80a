/**
 * The key validator in the control cluster: the Deployment and Service
 * behind every APIKey ModelService's forwardAuth Middleware
 * (compose-model-service/auth.ts; the server is cli/key-validator.ts,
 * `modelplane key-validator`).
 *
 * - Image: this function's own image (`functionImage('compose-inference-gateway')`,
 *   which carries the compiled CLI), run as `node /function/dist/cli/main.js
 *   key-validator --listen 0.0.0.0:8080`, so the validator is always the
 *   version of the package that composed its Middlewares.
 * - Identity: ServiceAccount `modelplane-key-validator` (modelplane-system);
 *   it may read only the Secrets the ModelServices and the gateway default
 *   name (one Role per Secret, composed beside each Middleware).
 * - Two replicas (a validator down refuses every APIKey request: fail closed,
 *   so one pod's restart must not close the door), spread over nodes; a
 *   PodDisruptionBudget keeps one through a node drain.
 * - Hardened pod: non-root (uid 65532, the distroless `nonroot` user),
 *   read-only root filesystem, no privilege escalation, every capability
 *   dropped, RuntimeDefault seccomp; 50m CPU / 64Mi requested, 128Mi limit.
 * - Probes: readiness and liveness on `GET /healthz` (200 once listening).
 *
 * Composed unless `spec.auth.validatorURL` points at a validator of the
 * platform's own (then the Middlewares ask that one and nothing runs here).
 */
import type { KubeObject } from '../lib/function.js';
import { functionImage } from '../lib/package.js';
import { VALIDATOR } from '../lib/key-validator.js';

/** The port the validator listens on and its Service exposes (the default validatorURL's :8080). */
export const VALIDATOR_PORT = 8080;
/** Replicas of the validator Deployment. */
export const VALIDATOR_REPLICAS = 2;
/** The validator's pod labels (Deployment selector, Service selector, PDB selector). */
export const VALIDATOR_LABELS = { 'app.kubernetes.io/name': VALIDATOR.name, 'app.kubernetes.io/part-of': 'modelplane' } as const;

/** Deployment `modelplane-key-validator` in modelplane-system. */
export function validatorDeployment(): KubeObject {
  const probe = (periodSeconds: number, failureThreshold: number) => ({
    httpGet: { path: '/healthz', port: 'http' },
    periodSeconds,
    failureThreshold,
    timeoutSeconds: 2,
  });
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: VALIDATOR.name, namespace: VALIDATOR.namespace, labels: { ...VALIDATOR_LABELS } },
    spec: {
      replicas: VALIDATOR_REPLICAS,
      selector: { matchLabels: { ...VALIDATOR_LABELS } },
      template: {
        metadata: { labels: { ...VALIDATOR_LABELS } },
        spec: {
          serviceAccountName: VALIDATOR.name,
          securityContext: { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, seccompProfile: { type: 'RuntimeDefault' } },
          topologySpreadConstraints: [
            {
              maxSkew: 1,
              topologyKey: 'kubernetes.io/hostname',
              whenUnsatisfiable: 'ScheduleAnyway',
              labelSelector: { matchLabels: { ...VALIDATOR_LABELS } },
            },
          ],
          containers: [
            {
              name: 'key-validator',
              image: functionImage('compose-inference-gateway'),
              command: ['/nodejs/bin/node', '/function/dist/cli/main.js', 'key-validator'],
              args: ['--listen', `0.0.0.0:${VALIDATOR_PORT}`],
              ports: [{ name: 'http', containerPort: VALIDATOR_PORT, protocol: 'TCP' }],
              readinessProbe: probe(5, 3),
              livenessProbe: probe(10, 6),
              resources: { requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '128Mi' } },
              securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
            },
          ],
        },
      },
    },
  };
}

/** Service `modelplane-key-validator` (ClusterIP, port 8080): the host of the default validatorURL. */
export function validatorService(): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: VALIDATOR.name, namespace: VALIDATOR.namespace, labels: { ...VALIDATOR_LABELS } },
    spec: {
      type: 'ClusterIP',
      selector: { ...VALIDATOR_LABELS },
      ports: [{ name: 'http', port: VALIDATOR_PORT, targetPort: 'http', protocol: 'TCP' }],
    },
  };
}

/** PodDisruptionBudget `modelplane-key-validator`: a drain leaves at least one validator serving. */
export function validatorDisruptionBudget(): KubeObject {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: VALIDATOR.name, namespace: VALIDATOR.namespace, labels: { ...VALIDATOR_LABELS } },
    spec: { minAvailable: 1, selector: { matchLabels: { ...VALIDATOR_LABELS } } },
  };
}

/** Name of the route sending `GET /v1/models` to the validator. */
export const MODELS_ROUTE = 'modelplane-models';

/**
 * HTTPRoute `modelplane-models` (modelplane-system): `/v1/models` on the
 * gateway's listener (`websecure` with TLS) to the validator's Service,
 * which answers with the ModelServices the caller's key opens
 * (docs/ai-gateway.md#models). The validator checks the key itself.
 */
export function modelsRoute(gateway: { name: string; namespace: string }, sectionName: string | undefined): KubeObject {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name: MODELS_ROUTE, namespace: VALIDATOR.namespace },
    spec: {
      parentRefs: [{ name: gateway.name, namespace: gateway.namespace, ...(sectionName ? { sectionName } : {}) }],
      rules: [
        {
          matches: [{ path: { type: 'Exact', value: '/v1/models' } }],
          backendRefs: [{ name: VALIDATOR.name, port: VALIDATOR_PORT }],
        },
      ],
    },
  };
}

/**
 * ClusterRole and ClusterRoleBinding `modelplane-key-validator`: list and get
 * ModelServices in every namespace (the validator's `/v1/models` reads their
 * `status.apiKeys`; no Secret is granted here).
 */
export function validatorClusterRole(): KubeObject[] {
  return [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: VALIDATOR.name, labels: { ...VALIDATOR_LABELS } },
      rules: [{ apiGroups: ['modelplane.ai'], resources: ['modelservices'], verbs: ['get', 'list'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: VALIDATOR.name, labels: { ...VALIDATOR_LABELS } },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: VALIDATOR.name },
      subjects: [{ kind: 'ServiceAccount', name: VALIDATOR.name, namespace: VALIDATOR.namespace }],
    },
  ];
}
