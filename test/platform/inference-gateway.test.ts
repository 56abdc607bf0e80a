/**
 * compose-inference-gateway: docs/kinds/inferencegateway.md (cases IG-1 … IG-3) and the
 * MetalLB path (what the Vultr and demo seeds use), as whole-response
 * tables. Expected CRDs are the upstream Gateway API v1.5.1 files under
 * ../shared/crds, verbatim.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { compose } from '../../functions/compose-inference-gateway/compose.js';
import { modelsRoute, validatorDeployment, validatorClusterRole, validatorDisruptionBudget, validatorService } from '../../functions/compose-inference-gateway/key-validator.js';
import { validatorServiceAccount } from '../../functions/lib/key-validator.js';
import type { ComposeRequest, ComposeResult, Condition, DesiredResource, JsonObject, KubeObject } from '../../functions/lib/function.js';
import { cond, observed, request } from '../builders/platform.js';
import { sharedCrdsDir } from '../helpers/crd.js';

interface Case {
  name: string;
  reason: string;
  req: () => ComposeRequest;
  want: ComposeResult;
}

const HELM = 'helm.m.crossplane.io/v1beta1';
const NS = 'modelplane-system';
const crdFiles = ['backendtlspolicies', 'gatewayclasses', 'gateways', 'grpcroutes', 'httproutes', 'listenersets', 'referencegrants', 'tlsroutes'];
const upstreamCrds: Record<string, KubeObject> = Object.fromEntries(
  crdFiles.map((f) => {
    const crd = parse(readFileSync(resolve(sharedCrdsDir, 'gateway.networking.k8s.io', `${f}.yaml`), 'utf8')) as KubeObject;
    return [`gateway-api-crd-${f}.gateway.networking.k8s.io`, crd];
  }),
);
const crds = (): Record<string, KubeObject> => structuredClone(upstreamCrds);
const crdsDesired = (ready: boolean) =>
  Object.fromEntries(Object.entries(crds()).map(([k, r]) => [k, ready ? { resource: r, ready: true } : { resource: r }]));
const crdsEstablished = () => Object.fromEntries(Object.entries(crds()).map(([k, r]) => [k, observed(r, {}, [cond('Established')])]));

const gatewayXR = (traefik: JsonObject = {}): KubeObject => ({
  apiVersion: 'modelplane.ai/v1alpha1',
  kind: 'InferenceGateway',
  metadata: { name: 'test-gateway' },
  spec: { backend: 'Traefik', traefik: { version: '40.2.0', ...traefik } },
});
const metallbXR = () => gatewayXR({ loadBalancer: 'MetalLB', metallb: { addressPool: '172.18.255.200-172.18.255.250' } });

const pc: KubeObject = {
  apiVersion: HELM,
  kind: 'ProviderConfig',
  metadata: { name: 'modelplane-in-cluster', namespace: NS },
  spec: { credentials: { source: 'InjectedIdentity' } },
};
const byRelease = (release: string) => ({
  apiVersion: HELM,
  kind: 'Release',
  resourceSelector: { matchControllerRef: true, matchLabels: { 'modelplane.ai/release': release } },
});
const pcUsage = (release: string): KubeObject => ({
  apiVersion: 'protection.crossplane.io/v1beta1',
  kind: 'Usage',
  metadata: { namespace: NS },
  spec: {
    of: { apiVersion: HELM, kind: 'ProviderConfig', resourceRef: { name: 'modelplane-in-cluster' } },
    by: byRelease(release),
    replayDeletion: true,
  },
});
const traefik: KubeObject = {
  apiVersion: HELM,
  kind: 'Release',
  metadata: { namespace: NS, labels: { 'modelplane.ai/release': 'traefik' } },
  spec: {
    providerConfigRef: { kind: 'ProviderConfig', name: 'modelplane-in-cluster' },
    forProvider: {
      chart: { name: 'traefik', repository: 'https://traefik.github.io/charts', version: '40.2.0' },
      namespace: 'traefik-system',
      values: {
        providers: {
          kubernetesGateway: { enabled: true, statusAddress: { service: { namespace: 'traefik-system', name: 'traefik' } } },
          kubernetesIngress: { enabled: false },
        },
        service: { nameOverride: 'traefik' },
        ports: { metered: { port: 8002, exposedPort: 8002, protocol: 'TCP', expose: { default: false } } },
        gateway: { enabled: false },
        gatewayClass: { enabled: false },
        logs: { access: { enabled: true, format: 'json', fields: { headers: { defaultmode: 'drop', names: { 'X-Modelplane-Caller': 'keep', 'X-Modelplane-Request-Id': 'keep' } } } } },
        metrics: { prometheus: { addRoutersLabels: true, addServicesLabels: true } },
        additionalArguments: ['--metrics.prometheus.headerlabels.caller=X-Modelplane-Caller'],
      },
    },
  },
};
const metallb: KubeObject = {
  apiVersion: HELM,
  kind: 'Release',
  metadata: { namespace: NS, labels: { 'modelplane.ai/release': 'metallb' } },
  spec: {
    providerConfigRef: { kind: 'ProviderConfig', name: 'modelplane-in-cluster' },
    forProvider: { chart: { name: 'metallb', repository: 'https://metallb.github.io/metallb', version: '0.14.9' }, namespace: 'metallb-system' },
  },
};
const traefikUsages = (): Record<string, DesiredResource> => ({
  'usage-pc-by-traefik': { resource: pcUsage('traefik'), ready: true },
  'usage-gateway-class-by-traefik': {
    resource: {
      apiVersion: 'protection.crossplane.io/v1beta1',
      kind: 'Usage',
      metadata: { namespace: NS },
      spec: {
        of: { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GatewayClass', resourceRef: { name: 'traefik' } },
        by: byRelease('traefik'),
        replayDeletion: true,
      },
    },
    ready: true,
  },
  'usage-gateway-by-traefik': {
    resource: {
      apiVersion: 'protection.crossplane.io/v1beta1',
      kind: 'Usage',
      metadata: { namespace: NS },
      spec: {
        of: { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', resourceRef: { name: 'modelplane' } },
        by: byRelease('traefik'),
        replayDeletion: true,
      },
    },
    ready: true,
  },
});
/** The usage tap's way back to Traefik (docs/ai-gateway.md#usage): composed once Traefik is ready (its namespace exists). */
const meteredService = (): DesiredResource => ({
    resource: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'modelplane-metered', namespace: 'traefik-system' },
      spec: {
        type: 'ClusterIP',
        selector: { 'app.kubernetes.io/name': 'traefik' },
        ports: [{ name: 'metered', port: 8002, targetPort: 'metered', protocol: 'TCP' }],
      },
    },
    ready: true,
  });
const gatewayClass: KubeObject = {
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'GatewayClass',
  metadata: { name: 'traefik' },
  spec: { controllerName: 'traefik.io/gateway-controller' },
};
const gateway: KubeObject = {
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'Gateway',
  metadata: { name: 'modelplane', namespace: NS },
  spec: {
    gatewayClassName: 'traefik',
    listeners: [
      { name: 'web', protocol: 'HTTP', port: 8000, allowedRoutes: { namespaces: { from: 'All' } } },
      { name: 'metered', protocol: 'HTTP', port: 8002, allowedRoutes: { namespaces: { from: 'All' } } },
    ],
  },
};
const metallbNs: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'metallb-system' } };
const pool: KubeObject = {
  apiVersion: 'metallb.io/v1beta1',
  kind: 'IPAddressPool',
  metadata: { name: 'modelplane', namespace: 'metallb-system' },
  spec: { addresses: ['172.18.255.200-172.18.255.250'] },
};
const l2: KubeObject = {
  apiVersion: 'metallb.io/v1beta1',
  kind: 'L2Advertisement',
  metadata: { name: 'modelplane', namespace: 'metallb-system' },
  spec: { ipAddressPools: ['modelplane'] },
};
/** The key validator (docs/design.md#an-authenticated-front-door), composed from the first pass; its Deployment ready once observed Available. */
const validator = (deploymentReady = false): Record<string, DesiredResource> => ({
  'key-validator-serviceaccount': { resource: validatorServiceAccount() },
  'key-validator': deploymentReady ? { resource: validatorDeployment(), ready: true } : { resource: validatorDeployment() },
  'key-validator-service': { resource: validatorService() },
  'key-validator-pdb': { resource: validatorDisruptionBudget() },
  // /v1/models reads every ModelService's status.apiKeys.
  'key-validator-clusterrole': { resource: validatorClusterRole()[0]! },
  'key-validator-clusterrolebinding': { resource: validatorClusterRole()[1]! },
});
/** Every InferenceCluster, for the fleet view (fleet-metrics.ts); not fetched in these cases, so no fleet-prometheus yet. */
const CLUSTERS = { clusters: { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceCluster' } };
const installing: Condition[] = [{ type: 'ControllerReady', status: 'False', reason: 'Installing' }];
const healthy: Condition[] = [{ type: 'ControllerReady', status: 'True', reason: 'ControllerHealthy' }];
const pcObserved = () => ({ 'provider-config-helm': observed(pc) });

const NO_TRAEFIK_AND_BOGUS = 'spec.traefik is required when spec.backend is Traefik. Invalid InferenceGateway: spec: Unrecognized key: "bogus"';
const cases: Case[] = [
  {
    name: 'IG-1 nothing observed',
    reason: 'the ProviderConfig and the Gateway API CRDs first',
    req: () => request(gatewayXR()),
    want: {
      resources: { 'provider-config-helm': { resource: pc, ready: true }, ...crdsDesired(false), ...validator() },
      status: {},
      conditions: installing,
      results: [],
      requirements: CLUSTERS,
    },
  },
  {
    name: 'IG-2 CRDs Established',
    reason: 'Traefik and its three Usages once the ProviderConfig is observed and every CRD Established',
    req: () => request(gatewayXR(), { observed: { ...pcObserved(), ...crdsEstablished() } }),
    want: {
      resources: {
        'provider-config-helm': { resource: pc, ready: true },
        ...crdsDesired(true),
        ...validator(),
        traefik: { resource: traefik },
        ...traefikUsages(),
      },
      status: {},
      conditions: installing,
      results: [],
      requirements: CLUSTERS,
    },
  },
  {
    name: 'IG-3 Traefik Ready, Gateway Accepted',
    reason: 'GatewayClass and Gateway ready on Accepted; the address is published',
    req: () =>
      request(gatewayXR(), {
        observed: {
          ...pcObserved(),
          ...crdsEstablished(),
          traefik: observed(traefik, {}, [cond('Ready')]),
          'gateway-class': observed(gatewayClass, {}, [cond('Accepted')]),
          gateway: observed(gateway, { addresses: [{ type: 'IPAddress', value: '10.0.0.42' }] }, [cond('Accepted')]),
        },
      }),
    want: {
      resources: {
        'provider-config-helm': { resource: pc, ready: true },
        ...crdsDesired(true),
        ...validator(),
        traefik: { resource: traefik, ready: true },
        ...traefikUsages(),
        'metered-service': meteredService(),
        'gateway-class': { resource: gatewayClass, ready: true },
        gateway: { resource: gateway, ready: true },
        // /v1/models to the key validator, once the Gateway is there; ready when the gateway accepts it.
        'models-route': { resource: modelsRoute({ name: 'modelplane', namespace: NS }, undefined) },
      },
      status: { address: '10.0.0.42' },
      conditions: healthy,
      results: [],
      requirements: CLUSTERS,
    },
  },
  {
    name: 'Traefik Ready, Gateway not observed yet',
    reason: 'the Gateway is composed with the reference event',
    req: () => request(gatewayXR(), { observed: { ...pcObserved(), ...crdsEstablished(), traefik: observed(traefik, {}, [cond('Ready')]) } }),
    want: {
      resources: {
        'provider-config-helm': { resource: pc, ready: true },
        ...crdsDesired(true),
        ...validator(),
        traefik: { resource: traefik, ready: true },
        ...traefikUsages(),
        'metered-service': meteredService(),
        'gateway-class': { resource: gatewayClass },
        gateway: { resource: gateway },
      },
      status: {},
      conditions: healthy,
      results: [{ severity: 'Normal', message: 'Traefik ready, composing Gateway' }],
      requirements: CLUSTERS,
    },
  },
  {
    name: 'MetalLB first pass',
    reason: 'the metallb-system namespace is composed at once',
    req: () => request(metallbXR()),
    want: {
      resources: {
        'provider-config-helm': { resource: pc, ready: true },
        ...crdsDesired(false),
        ...validator(),
        'namespace-metallb': { resource: metallbNs, ready: true },
      },
      status: {},
      conditions: installing,
      results: [],
      requirements: CLUSTERS,
    },
  },
  {
    name: 'MetalLB after the ProviderConfig',
    reason: 'the MetalLB Release and its ProviderConfig Usage once the ProviderConfig is observed',
    req: () => request(metallbXR(), { observed: pcObserved() }),
    want: {
      resources: {
        'provider-config-helm': { resource: pc, ready: true },
        ...crdsDesired(false),
        ...validator(),
        'namespace-metallb': { resource: metallbNs, ready: true },
        metallb: { resource: metallb },
        'usage-pc-by-metallb': { resource: pcUsage('metallb'), ready: true },
      },
      status: {},
      conditions: installing,
      results: [],
      requirements: CLUSTERS,
    },
  },
  {
    name: 'MetalLB Ready',
    reason: 'the address pool and L2 advertisement once MetalLB is Ready',
    req: () => request(metallbXR(), { observed: { ...pcObserved(), metallb: observed(metallb, {}, [cond('Ready')]) } }),
    want: {
      resources: {
        'provider-config-helm': { resource: pc, ready: true },
        ...crdsDesired(false),
        ...validator(),
        'namespace-metallb': { resource: metallbNs, ready: true },
        metallb: { resource: metallb, ready: true },
        'usage-pc-by-metallb': { resource: pcUsage('metallb'), ready: true },
        'metallb-pool': { resource: pool, ready: true },
        'metallb-l2': { resource: l2, ready: true },
      },
      status: {},
      conditions: installing,
      results: [],
      requirements: CLUSTERS,
    },
  },
  {
    name: 'no spec.traefik',
    reason: 'the XRD forbids it; the reference crashes; we keep what exists and say so',
    req: () =>
      request({ ...gatewayXR(), spec: { backend: 'Traefik' } }, { observed: { 'provider-config-helm': observed(pc) } }),
    want: {
      resources: { 'provider-config-helm': { resource: pc } },
      conditions: [
        { type: 'ControllerReady', status: 'False', reason: 'InvalidSpec', message: 'spec.traefik is required when spec.backend is Traefik.' },
      ],
      results: [{ severity: 'Warning', message: 'spec.traefik is required when spec.backend is Traefik.' }],
      requirements: {},
    },
  },
  {
    name: 'no spec.traefik and another field the schema rejects',
    reason: 'both are named, so one fix does not reveal the next (the fuzz run)',
    req: () => request({ ...gatewayXR(), spec: { backend: 'Traefik', bogus: 1 } }, { observed: { 'provider-config-helm': observed(pc) } }),
    want: {
      resources: { 'provider-config-helm': { resource: pc } },
      conditions: [{ type: 'ControllerReady', status: 'False', reason: 'InvalidSpec', message: NO_TRAEFIK_AND_BOGUS }],
      results: [{ severity: 'Warning', message: NO_TRAEFIK_AND_BOGUS }],
      requirements: {},
    },
  },
];

describe('compose-inference-gateway (§13.3)', () => {
  it.each(cases)('$name', ({ req, want }) => {
    expect(compose(req())).toStrictEqual(want);
  });
});

describe('compose-inference-gateway: spec.auth default', () => {
  it('APIKey: the key validator ServiceAccount and a Role/RoleBinding on the one default key Secret', () => {
    const xr = gatewayXR();
    (xr['spec'] as JsonObject)['auth'] = { type: 'APIKey', apiKeys: { secretRef: { name: 'fleet-keys', namespace: NS } } };
    const r = compose(request(xr));
    const role = 'default-api-key-ced97';
    expect({
      sa: r.resources['key-validator-serviceaccount']?.resource,
      role: r.resources['api-key-role']?.resource,
      binding: r.resources['api-key-rolebinding']?.resource,
    }).toStrictEqual({
      sa: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'modelplane-key-validator', namespace: NS } },
      role: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: role, namespace: NS },
        rules: [{ apiGroups: [''], resources: ['secrets'], resourceNames: ['fleet-keys'], verbs: ['get'] }],
      },
      binding: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: role, namespace: NS },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role },
        subjects: [{ kind: 'ServiceAccount', name: 'modelplane-key-validator', namespace: NS }],
      },
    });
  });

  it('None or no auth composes no Role or RoleBinding (the validator itself is always there)', () => {
    const xr = gatewayXR();
    (xr['spec'] as JsonObject)['auth'] = { type: 'None' };
    for (const x of [xr, gatewayXR()]) {
      expect(Object.keys(compose(request(x)).resources).filter((k) => k.includes('api-key') || k.includes('validator'))).toStrictEqual([
        'key-validator-serviceaccount',
        'key-validator',
        'key-validator-service',
        'key-validator-pdb',
        'key-validator-clusterrole',
        'key-validator-clusterrolebinding',
      ]);
    }
  });
});

describe('compose-inference-gateway: the key validator in the control cluster', () => {
  const labels = { 'app.kubernetes.io/name': 'modelplane-key-validator', 'app.kubernetes.io/part-of': 'modelplane' };
  const probe = (periodSeconds: number, failureThreshold: number) => ({
    httpGet: { path: '/healthz', port: 'http' },
    periodSeconds,
    failureThreshold,
    timeoutSeconds: 2,
  });
  const deployment: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'modelplane-key-validator', namespace: NS, labels },
    spec: {
      replicas: 2,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          serviceAccountName: 'modelplane-key-validator',
          securityContext: { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, seccompProfile: { type: 'RuntimeDefault' } },
          topologySpreadConstraints: [
            { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: labels } },
          ],
          containers: [
            {
              name: 'key-validator',
              image: 'xpkg.modelplane.ai/modelplane/function-compose-inference-gateway:v0.1.0',
              command: ['/nodejs/bin/node', '/function/dist/cli/main.js', 'key-validator'],
              args: ['--listen', '0.0.0.0:8080'],
              ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
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

  it('composes the exact Deployment, Service and PodDisruptionBudget; the Deployment is ready only once Available', () => {
    const first = compose(request(gatewayXR()));
    expect({
      deployment: first.resources['key-validator'],
      service: first.resources['key-validator-service'],
      pdb: first.resources['key-validator-pdb'],
    }).toStrictEqual({
      deployment: { resource: deployment },
      service: {
        resource: {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: 'modelplane-key-validator', namespace: NS, labels },
          spec: { type: 'ClusterIP', selector: labels, ports: [{ name: 'http', port: 8080, targetPort: 'http', protocol: 'TCP' }] },
        },
      },
      pdb: {
        resource: {
          apiVersion: 'policy/v1',
          kind: 'PodDisruptionBudget',
          metadata: { name: 'modelplane-key-validator', namespace: NS, labels },
          spec: { minAvailable: 1, selector: { matchLabels: labels } },
        },
      },
    });
    const progressing = compose(request(gatewayXR(), { observed: { 'key-validator': observed(deployment, {}, [cond('Available', 'False')]) } }));
    expect(progressing.resources['key-validator']?.ready).toBeUndefined();
    const available = compose(
      request(gatewayXR(), {
        observed: {
          'key-validator': observed(deployment, {}, [cond('Available')]),
          'key-validator-service': observed(first.resources['key-validator-service']!.resource),
        },
      }),
    );
    expect([available.resources['key-validator']?.ready, available.resources['key-validator-service']?.ready]).toStrictEqual([true, true]);
  });

  it('spec.auth.validatorURL: the platform runs its own validator, so none is composed here', () => {
    const xr = gatewayXR();
    (xr['spec'] as JsonObject)['auth'] = {
      type: 'APIKey',
      apiKeys: { secretRef: { name: 'fleet-keys', namespace: NS } },
      validatorURL: 'http://keys.platform.svc:9000',
    };
    expect(Object.keys(compose(request(xr)).resources).filter((k) => k.includes('api-key') || k.includes('validator'))).toStrictEqual([
      'key-validator-serviceaccount',
      'api-key-role',
      'api-key-rolebinding',
      'key-validator-clusterrole',
      'key-validator-clusterrolebinding',
    ]);
  });
});
