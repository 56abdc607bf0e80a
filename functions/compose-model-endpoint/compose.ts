/**
 * compose-model-endpoint: the backend a control-plane gateway route uses to
 * reach one replica's cluster gateway or an external provider
 * (spec/model-side.md §9).
 *
 * Guarantees:
 * - A selector-less `Service` in the endpoint's namespace with the URL's
 *   port, and, once that Service has a name, an `EndpointSlice` for it
 *   holding the URL's host (IPv4, IPv6 or FQDN) marked ready explicitly
 *   (Traefik ignores a nil ready). No ExternalName Service (Traefik rejects
 *   them).
 * - `status.routing.backendName` is the Service's name once both objects
 *   exist; condition `RoutingReady` True `BackendConfigured` then, else False
 *   `WaitingForBackend`.
 * - A URL that cannot be routed to is condition `RoutingReady` False
 *   `InvalidURL` and a Warning, both "Invalid spec.url: <url>"; the objects
 *   already composed are kept, so traffic keeps flowing to the last good
 *   backend. Divergence: the reference composed nothing, so Crossplane
 *   deleted the backend (spec/README.md item 2). The XR is not Ready then
 *   (lib/ready.ts readyOnlyIfServing): it does not serve the URL asked for.
 * - `spec.rewritePath` is not read here (ModelService reads it).
 */
import {
  type ComposeRequest,
  type ComposeResult,
  condition,
  emptyResult,
  getPath,
  type JsonObject,
  type KubeObject,
} from '../lib/function.js';
import { keepAndWarn } from '../lib/keep.js';
import { markReady, readyOnlyIfServing } from '../lib/ready.js';
import { type EndpointUrl, parseEndpointUrl } from '../lib/url.js';

/** Condition type and reasons. */
export const RoutingReady = 'RoutingReady';
export const Reason = {
  InvalidURL: 'InvalidURL',
  WaitingForBackend: 'WaitingForBackend',
  BackendConfigured: 'BackendConfigured',
} as const;

/** The message of an invalid URL. */
export const msgInvalidUrl = (url: string): string => `Invalid spec.url: ${url}`;

/** The label tying an EndpointSlice to its Service. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

/** Composes a ModelEndpoint. */
export function compose(req: ComposeRequest): ComposeResult {
  const result = emptyResult();
  const namespace = req.composite.metadata?.namespace ?? '';
  const raw = getPath(req.composite, 'spec', 'url');
  const url = typeof raw === 'string' ? raw : '';
  const svcName = observedName(req.observed['service']?.resource);
  const both = svcName !== undefined && req.observed['endpointslice'] !== undefined;
  result.status = both ? { routing: { backendName: svcName } } : {};

  const parsed = parseEndpointUrl(url);
  if (parsed === undefined) {
    const kept = keepAndWarn(result, req.observed, { type: RoutingReady, reason: Reason.InvalidURL, message: msgInvalidUrl(url) });
    // The kept objects route to the last good URL, not to the one asked for: not Ready.
    readyOnlyIfServing(kept, false);
    return kept;
  }

  const service: KubeObject = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { namespace },
    spec: { ports: [{ port: parsed.port, protocol: 'TCP' }] },
  };
  result.resources['service'] = markReady(service, req.observed['service'] !== undefined);
  if (svcName !== undefined) {
    const slice = endpointSlice(namespace, svcName, parsed);
    result.resources['endpointslice'] = markReady(slice, both);
  }
  result.conditions.push(
    both
      ? condition(RoutingReady, true, Reason.BackendConfigured)
      : condition(RoutingReady, false, Reason.WaitingForBackend),
  );
  return result;
}

function observedName(obj: KubeObject | undefined): string | undefined {
  const name = obj?.metadata?.name;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/** The EndpointSlice backing Service `service` with the URL's host and port. */
export function endpointSlice(namespace: string, service: string, url: EndpointUrl): KubeObject {
  const endpoint: JsonObject = { addresses: [url.host], conditions: { ready: true } };
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { namespace, labels: { [SERVICE_NAME_LABEL]: service } },
    addressType: url.addressType,
    ports: [{ name: '', port: url.port, protocol: 'TCP' }],
    endpoints: [endpoint],
  };
}
