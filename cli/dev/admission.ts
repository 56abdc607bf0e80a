/**
 * A MutatingAdmissionPolicy of the dev control plane (Kubernetes 1.35 beta,
 * enabled by dev up's API server flags): a provider-kubernetes Object whose
 * ProviderConfig reaches a simulated cluster is created already paused
 * (`crossplane.io/paused: "true"`), so the real provider-kubernetes never
 * tries to connect to a cluster that does not exist (no failed status, no
 * finalizer, no ProviderConfigUsage), and the Object costs its XR one watch
 * event less each.
 *
 * Which ProviderConfigs reach simulated clusters is the dev runtime's to know
 * (runtime/targets.ts); it lists them in the parameter ConfigMap, one key per
 * config: `<namespace>.ProviderConfig.<name>` or
 * `cluster.ClusterProviderConfig.<name>`. An Object created before its
 * config is listed is paused by the runtime afterwards instead.
 */
import type { KubeObject } from '../../functions/lib/function.js';

/** The parameter ConfigMap the runtime maintains. */
export const SIMULATED_TARGETS = { namespace: 'crossplane-system', name: 'modelplane-dev-simulated-targets' } as const;

/** The ConfigMap key of a provider config. */
export function targetKey(kind: string, name: string, namespace: string | undefined): string {
  return `${kind === 'ClusterProviderConfig' ? 'cluster' : (namespace ?? '')}.${kind}.${name}`;
}

const POLICY = 'modelplane-dev-pause-simulated-objects';

/** The policy, its binding and the (empty) parameter ConfigMap. */
export function admissionObjects(): KubeObject[] {
  return [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { ...SIMULATED_TARGETS }, data: {} },
    {
      apiVersion: 'admissionregistration.k8s.io/v1beta1',
      kind: 'MutatingAdmissionPolicy',
      metadata: { name: POLICY },
      spec: {
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        matchConstraints: {
          resourceRules: [{ apiGroups: ['kubernetes.m.crossplane.io'], apiVersions: ['*'], operations: ['CREATE'], resources: ['objects'] }],
        },
        matchConditions: [
          {
            name: 'targets-a-simulated-cluster',
            expression: [
              'has(params.data) && has(object.spec.providerConfigRef) && has(object.spec.providerConfigRef.kind) &&',
              "((object.spec.providerConfigRef.kind == 'ClusterProviderConfig' ? 'cluster' : object.metadata.namespace)",
              "+ '.' + object.spec.providerConfigRef.kind + '.' + object.spec.providerConfigRef.name) in params.data",
            ].join(' '),
          },
        ],
        failurePolicy: 'Ignore',
        reinvocationPolicy: 'Never',
        mutations: [
          {
            patchType: 'ApplyConfiguration',
            applyConfiguration: {
              expression:
                'Object{metadata: Object.metadata{annotations: {"crossplane.io/paused": "true", "modelplane.ai/simulated": "simulated cluster"}}}',
            },
          },
        ],
      },
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1beta1',
      kind: 'MutatingAdmissionPolicyBinding',
      metadata: { name: POLICY },
      spec: { policyName: POLICY, paramRef: { ...SIMULATED_TARGETS, parameterNotFoundAction: 'Allow' } },
    },
  ];
}

/**
 * Crossplane core's Usage webhook, as its Helm chart installs it
 * (`crossplane-no-usages`, from core's `cluster/webhookconfigurations/usage.yaml`),
 * but reached by URL on loopback instead of through a Service: the dev
 * control plane has no Service network. It refuses to delete any object
 * labelled `crossplane.io/in-use: "true"` while a Usage holds it.
 *
 * @param port the port core's webhook server listens on (127.0.0.1)
 * @param caBundle the dev CA's certificate, PEM, which signed core's server certificate
 */
export function coreWebhookConfiguration(port: number, caBundle: string): KubeObject {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'crossplane-no-usages' },
    webhooks: [
      {
        name: 'nousages.protection.crossplane.io',
        admissionReviewVersions: ['v1'],
        clientConfig: {
          url: `https://127.0.0.1:${port}/validate-no-usages`,
          caBundle: Buffer.from(caBundle).toString('base64'),
        },
        failurePolicy: 'Fail',
        objectSelector: { matchLabels: { 'crossplane.io/in-use': 'true' } },
        rules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['DELETE'], resources: ['*'] }],
        sideEffects: 'None',
      },
    ],
  };
}
