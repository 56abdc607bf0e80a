/**
 * The objects an InferenceGateway composes on the control plane
 * (docs/kinds/inferencegateway.md#what-is-composed): the in-cluster helm ProviderConfig, the vendored
 * Gateway API CRDs, MetalLB (Release, address pool, L2 advertisement),
 * Traefik, the GatewayClass and Gateway, and the Usages that order teardown.
 *
 * Guarantees: shapes and names exactly as the reference composes them. The
 * Gateway API CRDs are the upstream v1.5.1 standard-channel documents,
 * verbatim (top-level status stubs kept), loaded from a data file that
 * `test/platform/vendored-crds.test.ts` keeps equal to `shared/crds/`.
 */
import { CALLER_HEADER } from '../lib/key-scope.js';
import { METERED_LISTENER, METERED_PORT, METERED_SERVICE, REQUEST_ID_HEADER } from '../lib/usage-tap.js';
import type { JsonObject, KubeObject } from '../lib/function.js';
import { HELM_API_VERSION, helmRelease, providerConfig, type UsageTarget, usage } from '../lib/objects.js';
import { deepFrozen } from '../lib/json.js';
import bundle from './gateway-api-crds.json' with { type: 'json' };

/** Namespace of the control-plane gateway pieces. */
export const SYSTEM_NAMESPACE = 'modelplane-system';
/** Name of the in-cluster helm ProviderConfig (provider-helm's own identity). */
export const IN_CLUSTER_PC = 'modelplane-in-cluster';
/** Label the teardown Usages select Releases by. */
export const RELEASE_LABEL = 'modelplane.ai/release';
/** MetalLB chart version. */
export const METALLB_VERSION = '0.14.9';
/** Name of the MetalLB IPAddressPool and L2Advertisement. */
export const METALLB_POOL = 'modelplane';
/** The GatewayClass Traefik serves. */
export const GATEWAY_CLASS = 'traefik';
/** The control-plane Gateway. */
export const GATEWAY_NAME = 'modelplane';

/**
 * The eight Gateway API v1.5.1 standard-channel CRDs (backendtlspolicies,
 * gatewayclasses, gateways, grpcroutes, httproutes, listenersets,
 * referencegrants, tlsroutes), in that order. The bundle's
 * ValidatingAdmissionPolicy and binding are not part of it. Deep-frozen:
 * every InferenceGateway's composed CRDs share these objects.
 */
export const GATEWAY_API_CRDS: readonly KubeObject[] = deepFrozen(
  (bundle as KubeObject[]).filter((d) => d.kind === 'CustomResourceDefinition'),
);

/** Desired-resource key of a Gateway API CRD: `gateway-api-crd-<crd name>`. */
export function crdKey(crd: KubeObject): string {
  return `gateway-api-crd-${crd.metadata?.name ?? ''}`;
}

/** helm ProviderConfig `modelplane-in-cluster` (namespaced, so a Usage can protect it). */
export function inClusterProviderConfig(): KubeObject {
  return providerConfig('helm', { name: IN_CLUSTER_PC, namespace: SYSTEM_NAMESPACE }, {});
}

const pcRef = { kind: 'ProviderConfig', name: IN_CLUSTER_PC } as const;

/** The MetalLB Release (no values, no release name override). */
export function metallbRelease(): KubeObject {
  return helmRelease({
    namespace: SYSTEM_NAMESPACE,
    labels: { [RELEASE_LABEL]: 'metallb' },
    chart: { name: 'metallb', repository: 'https://metallb.github.io/metallb', version: METALLB_VERSION },
    targetNamespace: 'metallb-system',
    providerConfigRef: pcRef,
  });
}

/** Namespace `metallb-system`. */
export function metallbNamespace(): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'metallb-system' } };
}

/** IPAddressPool `modelplane` serving `addressPool` (e.g. `172.18.255.200-172.18.255.250`). */
export function metallbPool(addressPool: string): KubeObject {
  return {
    apiVersion: 'metallb.io/v1beta1',
    kind: 'IPAddressPool',
    metadata: { name: METALLB_POOL, namespace: 'metallb-system' },
    spec: { addresses: [addressPool] },
  };
}

/** L2Advertisement `modelplane` announcing the pool. */
export function metallbL2(): KubeObject {
  return {
    apiVersion: 'metallb.io/v1beta1',
    kind: 'L2Advertisement',
    metadata: { name: METALLB_POOL, namespace: 'metallb-system' },
    spec: { ipAddressPools: [METALLB_POOL] },
  };
}

function traefikValues(): JsonObject {
  return {
    providers: {
      kubernetesGateway: { enabled: true, statusAddress: { service: { namespace: 'traefik-system', name: 'traefik' } } },
      kubernetesIngress: { enabled: false },
    },
    service: { nameOverride: 'traefik' },
    // The entryPoint of the Gateway's `metered` listener, for the usage tap only: not on Traefik's Service.
    ports: { [METERED_LISTENER]: { port: METERED_PORT, exposedPort: METERED_PORT, protocol: 'TCP', expose: { default: false } } },
    gateway: { enabled: false },
    gatewayClass: { enabled: false },
    // The usage log (docs/ai-gateway.md#usage): one JSON line per request, with the caller the key check set; no other header.
    // The usage tap's request id is kept too: it joins a counted request's line here with the tap's (its tokens).
    logs: { access: { enabled: true, format: 'json', fields: { headers: { defaultmode: 'drop', names: { [CALLER_HEADER]: 'keep', [REQUEST_ID_HEADER]: 'keep' } } } } },
    metrics: { prometheus: { addRoutersLabels: true, addServicesLabels: true } },
    // Requests by caller (docs/ai-gateway.md#usage): traefik_service_requests_total gets a `caller` label from the header
    // the key check sets (service metrics are taken after the route's middlewares, so a client's forged header is gone).
    additionalArguments: [`--metrics.prometheus.headerlabels.caller=${CALLER_HEADER}`],
  };
}

/** The Traefik Release at chart `version`, with the Kubernetes Gateway provider on. */
export function traefikRelease(version: string): KubeObject {
  return helmRelease({
    namespace: SYSTEM_NAMESPACE,
    labels: { [RELEASE_LABEL]: 'traefik' },
    chart: { name: 'traefik', repository: 'https://traefik.github.io/charts', version },
    targetNamespace: 'traefik-system',
    providerConfigRef: pcRef,
    values: traefikValues(),
  });
}

/**
 * Service `modelplane-metered` in `traefik-system`: ClusterIP, selecting the
 * chart's Traefik pods (`app.kubernetes.io/name: traefik`), port
 * {@link METERED_PORT} to their `metered` entryPoint: where the usage tap
 * sends counted requests (docs/ai-gateway.md#usage).
 */
export function meteredService(): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: METERED_SERVICE.name, namespace: METERED_SERVICE.namespace },
    spec: {
      type: 'ClusterIP',
      selector: { 'app.kubernetes.io/name': 'traefik' },
      ports: [{ name: METERED_LISTENER, port: METERED_PORT, targetPort: METERED_LISTENER, protocol: 'TCP' }],
    },
  };
}

/** GatewayClass `traefik`. */
export function gatewayClass(): KubeObject {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'GatewayClass',
    metadata: { name: GATEWAY_CLASS },
    spec: { controllerName: 'traefik.io/gateway-controller' },
  };
}

/**
 * Gateway `modelplane`: one HTTP listener `web` on 8000, routes from every
 * namespace; with `spec.tls` a second, HTTPS listener `websecure` on 8443;
 * `spec.hostname` on every listener; the external-dns annotation with
 * `spec.dns.externalDNS`: `listeners` and `annotations` from tls.ts
 * (docs/front-door.md).
 */
export function gateway(listeners: JsonObject[], annotations?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'Gateway',
    metadata: { name: GATEWAY_NAME, namespace: SYSTEM_NAMESPACE, ...(annotations ? { annotations } : {}) },
    spec: { gatewayClassName: GATEWAY_CLASS, listeners },
  };
}

function byRelease(release: string): UsageTarget {
  return {
    apiVersion: HELM_API_VERSION,
    kind: 'Release',
    resourceSelector: { matchControllerRef: true, matchLabels: { [RELEASE_LABEL]: release } },
  };
}

/** `usage-pc-by-<release>`: the in-cluster ProviderConfig outlives the Release. */
export function pcUsage(release: string): KubeObject {
  return usage({
    namespace: SYSTEM_NAMESPACE,
    of: { apiVersion: HELM_API_VERSION, kind: 'ProviderConfig', resourceRef: { name: IN_CLUSTER_PC } },
    by: byRelease(release),
    replayDeletion: true,
  });
}

/**
 * `usage-gateway-class-by-traefik`: the GatewayClass outlives Traefik. A
 * namespaced Usage beside the Release: its `by` is namespaced, which a
 * ClusterUsage cannot select (core: "an empty namespace may not be set when
 * a resource name is provided"), and a Usage's `of` may be cluster-scoped.
 */
export function gatewayClassUsage(): KubeObject {
  return usage({
    namespace: SYSTEM_NAMESPACE,
    of: { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GatewayClass', resourceRef: { name: GATEWAY_CLASS } },
    by: byRelease('traefik'),
    replayDeletion: true,
  });
}

/** `usage-gateway-by-traefik`: the Gateway outlives Traefik. */
export function gatewayUsage(): KubeObject {
  return usage({
    namespace: SYSTEM_NAMESPACE,
    of: { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', resourceRef: { name: GATEWAY_NAME } },
    by: byRelease('traefik'),
    replayDeletion: true,
  });
}
