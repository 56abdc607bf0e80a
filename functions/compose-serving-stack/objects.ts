/**
 * The provider-kubernetes Objects of the serving stack
 * (docs/kinds/servingstack.md#objects): the Gateway API Inference Extension CRDs, the DRA driver's
 * critical-pods quota, and the inference Gateway with its namespace,
 * EnvoyProxy and GatewayClass.
 *
 * Guarantees: manifests are exactly the reference's; only the Gateway Object
 * carries a readiness policy (a CEL query that waits for an address, so the
 * ServingStack is not Ready before the gateway can be reached); labels only on
 * the three objects the ordering Usages select.
 */
import type { KubeObject } from '../lib/function.js';
import { certificateManifest, httpsListener } from '../lib/gateway-tls.js';
import { kubernetesObject, type ProviderConfigRef } from '../lib/objects.js';
import { deepFrozen } from '../lib/json.js';
import gaieBundle from './gaie-crds.json' with { type: 'json' };
import { DRA_DRIVER_NAMESPACE, RESOURCE_LABEL } from './releases.js';
import { FEDERATE_PATH, MONITORING_NAMESPACE } from '../lib/serving-stack.js';
import type { ServingStack } from './spec.js';

/** Namespace of the inference Gateway on the workload cluster. */
export const GATEWAY_NAMESPACE = 'modelplane-system';
/** Name of the Gateway and of its EnvoyProxy. */
export const GATEWAY_NAME = 'inference-gateway';
/** Readiness of the Gateway Object: ready once the Gateway has an address. */
export const GATEWAY_READY_CEL = 'has(object.status.addresses) && object.status.addresses.size() > 0';

/**
 * The vendored Gateway API Inference Extension v1.0.1 CRDs
 * (`inferenceobjectives.inference.networking.x-k8s.io`,
 * `inferencepools.inference.networking.k8s.io`,
 * `inferencepools.inference.networking.x-k8s.io`), server-owned `status` and
 * `creationTimestamp` stripped. Regenerated from `shared/crds/` by
 * `test/platform/vendored-crds.test.ts`. Deep-frozen: every ServingStack's
 * CRD Objects share these objects.
 */
export const GAIE_CRDS: readonly KubeObject[] = deepFrozen(
  (gaieBundle as KubeObject[]).filter((d) => d.kind === 'CustomResourceDefinition'),
);

/** Desired-resource key of a GAIE CRD Object: `gaie-crd-<crd name>`. */
export function gaieKey(crd: KubeObject): string {
  return `gaie-crd-${crd.metadata?.name ?? ''}`;
}

/** An Object wrapping one vendored GAIE CRD, verbatim (a copy: kubernetesObject copies what it is given). */
export function gaieCrdObject(crd: KubeObject, pc: ProviderConfigRef): KubeObject {
  return kubernetesObject({ manifest: crd, providerConfigRef: pc }); // frozen: shared, never copied
}

/**
 * ResourceQuota `allow-critical-pods` in the DRA driver namespace: lets the
 * driver's system-node/cluster-critical pods run outside kube-system (GKE
 * requires it; harmless elsewhere, so composed on every cloud).
 */
export function draQuotaObject(pc: ProviderConfigRef): KubeObject {
  return kubernetesObject({
    providerConfigRef: pc,
    manifest: {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'allow-critical-pods', namespace: DRA_DRIVER_NAMESPACE },
      spec: {
        hard: { pods: '1000' },
        scopeSelector: {
          matchExpressions: [
            { operator: 'In', scopeName: 'PriorityClass', values: ['system-node-critical', 'system-cluster-critical'] },
          ],
        },
      },
    },
  });
}

/** Namespace `modelplane-system` on the workload cluster. */
export function gatewayNamespaceObject(pc: ProviderConfigRef): KubeObject {
  return kubernetesObject({
    providerConfigRef: pc,
    manifest: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: GATEWAY_NAMESPACE } },
  });
}

/** EnvoyProxy `inference-gateway`: a Kubernetes-provider proxy with externalTrafficPolicy Cluster. */
export function gatewayProxyObject(pc: ProviderConfigRef): KubeObject {
  return kubernetesObject({
    providerConfigRef: pc,
    labels: { [RESOURCE_LABEL]: 'gateway-proxy' },
    manifest: {
      apiVersion: 'gateway.envoyproxy.io/v1alpha1',
      kind: 'EnvoyProxy',
      metadata: { name: GATEWAY_NAME, namespace: GATEWAY_NAMESPACE },
      spec: { provider: { type: 'Kubernetes', kubernetes: { envoyService: { externalTrafficPolicy: 'Cluster' } } } },
    },
  });
}

/** GatewayClass `<className>` handled by Envoy Gateway, parameterised by the EnvoyProxy. */
export function gatewayClassObject(stack: ServingStack, pc: ProviderConfigRef): KubeObject {
  return kubernetesObject({
    providerConfigRef: pc,
    labels: { [RESOURCE_LABEL]: 'gateway-class' },
    manifest: {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'GatewayClass',
      metadata: { name: stack.className },
      spec: {
        controllerName: 'gateway.envoyproxy.io/gatewayclass-controller',
        parametersRef: {
          group: 'gateway.envoyproxy.io',
          kind: 'EnvoyProxy',
          name: GATEWAY_NAME,
          namespace: GATEWAY_NAMESPACE,
        },
      },
    },
  });
}

/**
 * Gateway `inference-gateway`: one listener per configured listener, routes
 * from all namespaces; with `spec.gateway.tls` also listener `https` (443,
 * the hostname, Terminate) — docs/front-door.md.
 */
export function gatewayObject(stack: ServingStack, pc: ProviderConfigRef): KubeObject {
  return kubernetesObject({
    providerConfigRef: pc,
    labels: { [RESOURCE_LABEL]: 'gateway' },
    readiness: { policy: 'DeriveFromCelQuery', celQuery: GATEWAY_READY_CEL },
    manifest: {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'Gateway',
      metadata: { name: GATEWAY_NAME, namespace: GATEWAY_NAMESPACE },
      spec: {
        gatewayClassName: stack.className,
        listeners: [
          ...stack.listeners.map((l) => ({
            name: l.name,
            protocol: l.protocol,
            port: l.port,
            allowedRoutes: { namespaces: { from: 'All' } },
          })),
          ...(stack.https ? [httpsListener(HTTPS_LISTENER, 443, stack.https.hostname, { name: stack.https.tls.secretRef?.name ?? GATEWAY_TLS_SECRET })] : []),
        ],
      },
    },
  });
}

/**
 * HTTPRoute `modelplane-federate` in the monitoring namespace on the inference
 * Gateway: `GET /modelplane/federate?match[]=…` is the stack's Prometheus
 * `/federate` (Service `prometheus-prometheus:9090`), which the control
 * plane's fleet view scrapes for the engines' series
 * (docs/autoscaling.md#the-fleet-signal).
 */
export function federateRouteObject(pc: ProviderConfigRef): KubeObject {
  return kubernetesObject({
    providerConfigRef: pc,
    manifest: {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'modelplane-federate', namespace: MONITORING_NAMESPACE },
      spec: {
        parentRefs: [{ name: GATEWAY_NAME, namespace: GATEWAY_NAMESPACE }],
        rules: [
          {
            matches: [{ path: { type: 'Exact', value: FEDERATE_PATH } }],
            filters: [{ type: 'URLRewrite', urlRewrite: { path: { type: 'ReplaceFullPath', replaceFullPath: '/federate' } } }],
            backendRefs: [{ name: 'prometheus-prometheus', port: 9090 }],
          },
        ],
      },
    },
  });
}

/** Listener name of the workload gateway's HTTPS listener. */
export const HTTPS_LISTENER = 'https';
/** The Secret the stack's cert-manager issues the gateway certificate into (`spec.gateway.tls.issuerRef`). */
export const GATEWAY_TLS_SECRET = 'inference-gateway-tls';

/**
 * Certificate `inference-gateway` (cert-manager.io/v1) in modelplane-system
 * on the workload cluster: the hostname, from `spec.gateway.tls.issuerRef`,
 * into Secret `inference-gateway-tls`; undefined without an issuerRef.
 */
export function gatewayCertificateObject(stack: ServingStack, pc: ProviderConfigRef): KubeObject | undefined {
  const issuer = stack.https?.tls.issuerRef;
  if (stack.https === undefined || issuer === undefined) return undefined;
  return kubernetesObject({
    providerConfigRef: pc,
    readiness: { policy: 'DeriveFromObject' },
    manifest: certificateManifest(GATEWAY_NAME, GATEWAY_NAMESPACE, stack.https.hostname, GATEWAY_TLS_SECRET, issuer),
  });
}
