/**
 * compose-inference-gateway: the control-plane front door every ModelService
 * URL goes through (docs/kinds/inferencegateway.md).
 *
 * Gating order, each step composed once the previous one is observed (and,
 * once composed and observed, never dropped again):
 *   in-cluster helm ProviderConfig and the Gateway API CRDs (always)
 *   → [MetalLB: namespace always; Release once the ProviderConfig is
 *      observed; address pool + L2 advertisement once MetalLB is Ready]
 *   → Traefik once the ProviderConfig is observed and every CRD Established
 *   → GatewayClass `traefik` and Gateway `modelplane` once Traefik is Ready.
 *
 * - The key validator every APIKey ModelService's Middleware asks
 *   (key-validator.ts): its ServiceAccount always; its Deployment, Service
 *   and PodDisruptionBudget unless `spec.auth.validatorURL` names the
 *   platform's own validator. With `spec.auth` APIKey (the default for every
 *   ModelService without its own): a Role/RoleBinding letting it get the
 *   default key Secrets by name (the one `secretRef` names, or those
 *   `secretSelector` matches, read as requirement `api-key-secrets`). Always
 *   a ClusterRole letting it list ModelServices, and, with the Gateway, the
 *   route `/v1/models` to its Service (docs/ai-gateway.md).
 *
 * Guarantees:
 * - Readiness: ProviderConfig, MetalLB namespace/pool/L2 and every Usage are
 *   always ready; the validator's Deployment when observed `Available` (until
 *   then every APIKey service refuses every request, so the gateway is not
 *   serving what was asked), its other objects once observed; a CRD when observed `Established`; the Releases when
 *   observed `Ready`; GatewayClass and Gateway when observed `Accepted` (not
 *   `Programmed`: a kind cluster may have no load balancer).
 * - `status.address` is the observed Gateway's first address; status is `{}`
 *   until then. Condition `ControllerReady` follows Traefik's readiness.
 * - TLS, hostname, DNS (tls.ts, docs/front-door.md): with `spec.tls` the
 *   Gateway's `websecure` listener, the redirect route `https-redirect`, the
 *   Certificate `certificate` (issuerRef) or the ReferenceGrant
 *   `tls-reference-grant` (secretRef elsewhere), composed with the Gateway;
 *   `status.url` (`https://<hostname>`, or `http://<hostname>` without tls)
 *   beside the address. A broken TLS rule is held like any invalid spec.
 * - `spec.traefik` missing (the XRD forbids it) is a False `ControllerReady`
 *   with the XRD's message and a Warning; every observed resource is kept.
 *   So is any other spec the XRD rejects (read through the generated parser:
 *   types, enums, bounds, CEL rules), the message naming each field.
 * - While the inputs cannot be read (an invalid spec, or an observed Gateway
 *   whose `status.addresses` is not a list of addresses), `status.address`
 *   stays what the XR published, so ModelService URLs do not flap.
 * Deliberate divergence: the reference crashes on a missing `spec.traefik`.
 */
import {
  type ComposeRequest,
  type ComposeResult,
  condition,
  conditionStatus,
  type DesiredResource,
  emptyResult,
  getPath,
  isReady,
  type KubeObject,
  normal,
  readRequired,
} from '../lib/function.js';
import {
  crdKey,
  GATEWAY_API_CRDS,
  gateway,
  gatewayClass,
  gatewayClassUsage,
  gatewayUsage,
  inClusterProviderConfig,
  meteredService,
  metallbL2,
  metallbNamespace,
  metallbPool,
  metallbRelease,
  pcUsage,
  GATEWAY_NAME,
  SYSTEM_NAMESPACE,
  traefikRelease,
} from './resources.js';
import { keepObserved } from '../lib/function.js';
import { federatedClusters, fleetPrometheusRelease, prometheusAdapterRelease } from './fleet-metrics.js';
import { FLEET_PROMETHEUS_ADDRESS } from '../lib/fleet-queries.js';
import {
  certificate,
  certificateSecret,
  type FrontDoor,
  frontDoorProblems,
  frontDoorUrl,
  gatewayAnnotations,
  httpsRedirectRoute,
  listeners,
  referenceGrant,
  WEBSECURE_LISTENER,
} from './tls.js';
import { type InferenceGateway, parseInferenceGateway } from '../lib/generated/inferencegateways.js';
import { validatorRole, validatorRoleBinding, validatorServiceAccount } from '../lib/key-validator.js';
import { modelsRoute, validatorClusterRole, validatorDeployment, validatorDisruptionBudget, validatorService } from './key-validator.js';
import { keepAndWarn } from '../lib/keep.js';
import { readComposite } from '../lib/xr.js';
import { withoutNulls } from '../lib/json.js';
import { formatIssues } from '../lib/zod-issues.js';
import { markReady } from '../lib/ready.js';

/** Event when Traefik is Ready and the Gateway is about to be composed. */
export const MSG_TRAEFIK_READY = 'Traefik ready, composing Gateway';
/** The XRD's message for a Traefik backend without its block. */
export const ERR_NO_TRAEFIK = 'spec.traefik is required when spec.backend is Traefik.';

/** Requirement: every InferenceCluster (the fleet view federates their engines). */
export const REQ_CLUSTERS = 'clusters';
/** FleetMetricsReady's message once the fleet Prometheus is Ready. */
export const MSG_FLEET_METRICS = `${FLEET_PROMETHEUS_ADDRESS.replace(/^http:\/\//, '')} serves the fleet view autoscaling reads`;

/** FleetMetricsReady's message adds this under the HPA autoscaler, once prometheus-adapter is Ready too. */
export const MSG_ADAPTER = 'fleet-prometheus-adapter serves its queries as external metrics to the HorizontalPodAutoscalers';

/** Composes an InferenceGateway. */
export function compose(req: ComposeRequest): ComposeResult {
  const result = emptyResult();
  const observed = req.observed;
  const hold = (message: string) => {
    const kept = publishedAddress(req.composite);
    const keptUrl = getPath(req.composite, 'status', 'url');
    if (kept !== undefined) result.status = typeof keptUrl === 'string' ? { address: kept, url: keptUrl } : { address: kept };
    return keepAndWarn(result, observed, { type: 'ControllerReady', reason: 'InvalidSpec', message }, keepObserved);
  };
  const raw = getPath(req.composite, 'spec', 'traefik');
  if (typeof raw !== 'object' || raw === null || typeof (raw as Record<string, unknown>)['version'] !== 'string') {
    // What else the schema rejects is said too, so one fix does not reveal the next.
    const { status: _status, ...rest } = req.composite;
    const parsed = parseInferenceGateway(withoutNulls(rest));
    const others = parsed.success ? [] : parsed.error.issues.filter((i) => !(i.path[0] === 'spec' && i.path[1] === 'traefik'));
    return hold(others.length === 0 ? ERR_NO_TRAEFIK : `${ERR_NO_TRAEFIK} ${msgInvalidSpec(formatIssues('', others))}`);
  }
  const read = readComposite<InferenceGateway>(req.composite, parseInferenceGateway);
  if (!read.ok) return hold(msgInvalidSpec(read.problem));
  const traefik = read.xr.spec.traefik as unknown as Record<string, unknown> & { version: string };
  const version = traefik.version;
  if (version === '') return hold(ERR_NO_TRAEFIK);
  const spec = read.xr.spec;
  const fd: FrontDoor = { hostname: spec.hostname, tls: spec.tls, dns: spec.dns };
  const tlsProblems = frontDoorProblems(fd);
  if (tlsProblems.length > 0) return hold(msgInvalidSpec(tlsProblems.join(' ')));
  const seen = (key: string) => key in observed;
  const obs = (key: string) => observed[key]?.resource;
  const res: Record<string, DesiredResource> = {};
  const put = (key: string, resource: KubeObject, ready: boolean) => {
    res[key] = markReady(resource, ready);
  };

  put('provider-config-helm', inClusterProviderConfig(), true);
  let crdsEstablished = true;
  for (const crd of GATEWAY_API_CRDS) {
    const key = crdKey(crd);
    const established = conditionStatus(obs(key), 'Established') === 'True';
    crdsEstablished &&= established;
    put(key, crd, established); // frozen: shared, never copied (resources.ts)
  }

  const pcObserved = seen('provider-config-helm');
  const addressPool = getPath(traefik, 'metallb', 'addressPool');
  if (traefik['loadBalancer'] === 'MetalLB' && typeof addressPool === 'string' && addressPool !== '') {
    put('namespace-metallb', metallbNamespace(), true);
    if (pcObserved || seen('metallb')) {
      put('metallb', metallbRelease(), isReady(obs('metallb')));
      put('usage-pc-by-metallb', pcUsage('metallb'), true);
    }
    const metallbReady = isReady(obs('metallb'));
    if (metallbReady || seen('metallb-pool')) put('metallb-pool', metallbPool(addressPool), true);
    if (metallbReady || seen('metallb-l2')) put('metallb-l2', metallbL2(), true);
  }

  // The fleet view (fleet-metrics.ts): federates every workload cluster's engines; while the clusters are not
  // fetched yet, the Release stays as observed.
  result.requirements[REQ_CLUSTERS] = { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceCluster' };
  const clusters = readRequired(req, REQ_CLUSTERS);
  if (pcObserved || seen('fleet-prometheus')) {
    if (clusters.state !== 'pending') put('fleet-prometheus', fleetPrometheusRelease(federatedClusters(clusters.state === 'present' ? clusters.items : [])), true);
    else if (seen('fleet-prometheus')) Object.assign(res, keepObserved({ 'fleet-prometheus': observed['fleet-prometheus']! }));
    if ('fleet-prometheus' in res) put('usage-pc-by-fleet-prometheus', pcUsage('fleet-prometheus'), true);
  }
  // The HPA autoscaler's external metrics (fleet-metrics.ts): only where the gateway declares it; always ready, as the
  // fleet view is (FleetMetricsReady says where it is).
  const hpa = spec.autoscaling?.autoscaler === 'HPA';
  if (hpa && (pcObserved || seen('prometheus-adapter'))) {
    put('prometheus-adapter', prometheusAdapterRelease(), true);
    put('usage-pc-by-prometheus-adapter', pcUsage('prometheus-adapter'), true);
  }

  const traefikReady = isReady(obs('traefik'));
  if ((pcObserved && crdsEstablished) || seen('traefik')) {
    put('traefik', traefikRelease(version), traefikReady);
    put('usage-pc-by-traefik', pcUsage('traefik'), true);
    put('usage-gateway-class-by-traefik', gatewayClassUsage(), true);
    put('usage-gateway-by-traefik', gatewayUsage(), true);
  }
  // The usage tap's way back to Traefik (docs/ai-gateway.md#usage): in Traefik's namespace, which its install creates.
  if (traefikReady || seen('metered-service')) put('metered-service', meteredService(), true);
  const accepted = (key: string) => conditionStatus(obs(key), 'Accepted') === 'True';
  if (traefikReady || seen('gateway-class')) put('gateway-class', gatewayClass(), accepted('gateway-class'));
  if (traefikReady || seen('gateway')) {
    put('gateway', gateway(listeners(fd), gatewayAnnotations(fd)), accepted('gateway'));
    // TLS (docs/front-door.md): composed with the Gateway, whose CRDs are Established by then.
    if (spec.tls !== undefined && spec.hostname !== undefined) {
      put('https-redirect', httpsRedirectRoute(), routeAccepted(obs('https-redirect')));
      if (spec.tls.issuerRef !== undefined) {
        put('certificate', certificate(spec.hostname, spec.tls.issuerRef), isReady(obs('certificate')));
      }
      const secret = certificateSecret(spec.tls);
      if (spec.tls.secretRef !== undefined && secret.namespace !== SYSTEM_NAMESPACE) {
        put('tls-reference-grant', referenceGrant(secret), seen('tls-reference-grant'));
      }
    }
  }
  if (traefikReady && !seen('gateway')) result.results.push(normal(MSG_TRAEFIK_READY));

  // The key validator: in this cluster unless spec.auth.validatorURL names the platform's own.
  put('key-validator-serviceaccount', validatorServiceAccount(), seen('key-validator-serviceaccount'));
  const validatorURL = getPath(req.composite, 'spec', 'auth', 'validatorURL');
  if (typeof validatorURL !== 'string' || validatorURL === '') {
    put('key-validator', validatorDeployment(), conditionStatus(obs('key-validator'), 'Available') === 'True');
    put('key-validator-service', validatorService(), seen('key-validator-service'));
    put('key-validator-pdb', validatorDisruptionBudget(), seen('key-validator-pdb'));
  }
  // The default key Secrets (spec.auth APIKey): the key validator may read those Secrets, by name.
  if (getPath(req.composite, 'spec', 'auth', 'type') === 'APIKey') {
    const keys = defaultKeySecrets(req, result);
    if (keys !== undefined && keys.names.length > 0) {
      put('api-key-role', validatorRole('default', keys.namespace, keys.names), seen('api-key-role'));
      put('api-key-rolebinding', validatorRoleBinding('default', keys.namespace), seen('api-key-rolebinding'));
    } else if (keys === undefined && seen('api-key-role')) {
      // The Secrets are not read yet: keep the grant as observed.
      put('api-key-role', observedObject(obs('api-key-role')!), true);
      if (seen('api-key-rolebinding')) put('api-key-rolebinding', observedObject(obs('api-key-rolebinding')!), true);
    }
  }
  // The validator answers /v1/models from every ModelService's status.apiKeys (docs/ai-gateway.md#models).
  for (const [i, o] of validatorClusterRole().entries()) {
    const key = i === 0 ? 'key-validator-clusterrole' : 'key-validator-clusterrolebinding';
    put(key, o, seen(key));
  }
  if (seen('gateway')) {
    const section = spec.tls !== undefined && spec.hostname !== undefined ? WEBSECURE_LISTENER : undefined;
    put('models-route', modelsRoute({ name: GATEWAY_NAME, namespace: SYSTEM_NAMESPACE }, section), routeAccepted(obs('models-route')));
  }

  result.resources = res;
  const address = gatewayAddress(obs('gateway'));
  const published = address === 'unreadable' ? publishedAddress(req.composite) : address;
  const url = frontDoorUrl(fd);
  result.status = published === undefined ? {} : url === undefined ? { address: published } : { address: published, url };
  result.conditions.push(
    traefikReady
      ? condition('ControllerReady', true, 'ControllerHealthy')
      : condition('ControllerReady', false, 'Installing'),
  );
  // The fleet view never holds back the gateway's Ready (routing does not need it); its own condition says where it is.
  if ('fleet-prometheus' in res) {
    const fleetReady = isReady(obs('fleet-prometheus')) && (!hpa || isReady(obs('prometheus-adapter')));
    const message = hpa ? `${MSG_FLEET_METRICS}; ${MSG_ADAPTER}` : MSG_FLEET_METRICS;
    result.conditions.push(condition('FleetMetricsReady', fleetReady, fleetReady ? 'Available' : 'Installing', fleetReady ? message : undefined));
  }
  return result;
}

/**
 * The default key Secrets' namespace and names (sorted): the one `secretRef`
 * names, or those `secretSelector` matches (declared as requirement
 * `api-key-secrets`); undefined while they are not read yet.
 */
function defaultKeySecrets(req: ComposeRequest, result: ComposeResult): { namespace: string; names: string[] } | undefined {
  const ref = getPath(req.composite, 'spec', 'auth', 'apiKeys', 'secretRef') as { name?: string; namespace?: string } | undefined;
  if (ref?.name && ref.namespace) return { namespace: ref.namespace, names: [ref.name] };
  const sel = getPath(req.composite, 'spec', 'auth', 'apiKeys', 'secretSelector') as { namespace?: string; matchLabels?: Record<string, string> } | undefined;
  if (!sel?.namespace) return { namespace: '', names: [] };
  result.requirements['api-key-secrets'] = { apiVersion: 'v1', kind: 'Secret', matchLabels: { ...(sel.matchLabels ?? {}) }, namespace: sel.namespace };
  const read = readRequired(req, 'api-key-secrets');
  if (read.state === 'pending') return undefined;
  return { namespace: sel.namespace, names: read.state === 'present' ? read.items.map((s) => s.metadata?.name ?? '').sort() : [] };
}

/** An observed object as desired again: its identity and content, without status or server-set metadata. */
function observedObject(o: KubeObject): KubeObject {
  const { status: _s, metadata, ...rest } = o;
  return { ...rest, metadata: { name: metadata?.name, ...(metadata?.namespace ? { namespace: metadata.namespace } : {}) } } as KubeObject;
}

/** The message of a spec the XRD rejects. */
export const msgInvalidSpec = (problem: string): string => `Invalid InferenceGateway: ${problem}`;

/** Whether the gateway accepted an observed HTTPRoute (any parent `Accepted` True). */
function routeAccepted(route: KubeObject | undefined): boolean {
  const parents = getPath(route, 'status', 'parents');
  if (!Array.isArray(parents)) return false;
  return parents.some((p) => {
    const conditions = getPath(p, 'conditions');
    return Array.isArray(conditions) && conditions.some((c) => getPath(c, 'type') === 'Accepted' && getPath(c, 'status') === 'True');
  });
}

/** The address the XR published (`status.address`), if any. */
function publishedAddress(xr: KubeObject): string | undefined {
  const a = getPath(xr, 'status', 'address');
  return typeof a === 'string' && a !== '' ? a : undefined;
}

/**
 * The observed Gateway's first address; undefined when it has none yet;
 * `unreadable` when `status.addresses` is there but not a list of
 * `{value: string}` (garbage: keep what was published).
 */
function gatewayAddress(gw: KubeObject | undefined): string | undefined | 'unreadable' {
  const addresses = getPath(gw, 'status', 'addresses');
  if (addresses === undefined) return undefined;
  if (!Array.isArray(addresses)) return 'unreadable';
  if (addresses.length === 0) return undefined;
  const value = getPath(addresses[0], 'value');
  if (typeof value !== 'string') return 'unreadable';
  return value === '' ? undefined : value;
}
