/**
 * compose-model-endpoint: the backend a control-plane gateway route uses to
 * reach one replica's cluster gateway or an external provider
 * (docs/kinds/modelendpoint.md#the-backend).
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
 *   deleted the backend (docs/design.md#keep-what-exists). The XR is not Ready then
 *   (lib/ready.ts readyOnlyIfServing): it does not serve the URL asked for.
 * - `spec.rewritePath` is not read here (ModelService reads it).
 * - The endpoint is read through its generated parser: a spec the XRD
 *   rejects is `RoutingReady` False `InvalidSpec` naming each field, and
 *   everything composed is kept.
 * - An observed Service without a name (garbage: Crossplane names what it
 *   composes) keeps what was composed: Service and EndpointSlice pass
 *   through as observed and `status.routing` stays as it was, so ModelService
 *   keeps routing to it; `RoutingReady` False `WaitingForBackend` says the
 *   observed `metadata.name` is missing.
 */
import {
  type ComposeRequest,
  type ComposeResult,
  condition,
  emptyResult,
  getPath,
  type JsonObject,
  type KubeObject,
  keepObserved,
} from '../lib/function.js';
import { type ModelEndpoint, parseModelEndpoint } from '../lib/generated/modelendpoints.js';
import { keepAndWarn } from '../lib/keep.js';
import { readComposite } from '../lib/xr.js';
import { markReady, readyOnlyIfServing } from '../lib/ready.js';
import { endpointSlice, parseEndpointUrl } from '../lib/url.js';

/** Condition type and reasons. */
export const RoutingReady = 'RoutingReady';
export const Reason = {
  InvalidURL: 'InvalidURL',
  WaitingForBackend: 'WaitingForBackend',
  BackendConfigured: 'BackendConfigured',
} as const;

/** The message of an invalid URL. */
export const msgInvalidUrl = (url: string): string => `Invalid spec.url: ${url}`;
/** The message of a spec the XRD rejects. */
export const msgInvalidSpec = (problem: string): string => `Invalid ModelEndpoint: ${problem}`;
/** The message while the observed Service has no name. */
export const MSG_SERVICE_UNNAMED =
  'the observed Service has no metadata.name; keeping the Service and EndpointSlice as they are until it has one';

/** Composes a ModelEndpoint. */
export function compose(req: ComposeRequest): ComposeResult {
  const result = emptyResult();
  const read = readComposite<ModelEndpoint>(req.composite, parseModelEndpoint);
  if (!read.ok) {
    result.status = observedRouting(req.composite);
    return keepAndWarn(result, req.observed, { type: RoutingReady, reason: 'InvalidSpec', message: msgInvalidSpec(read.problem) });
  }
  const namespace = read.xr.metadata?.namespace ?? '';
  const url = read.xr.spec.url;
  const svcObserved = req.observed['service'];
  const svcName = observedName(svcObserved?.resource);
  if (svcObserved !== undefined && svcName === undefined) {
    result.status = observedRouting(req.composite);
    result.resources = keepObserved(req.observed);
    result.conditions.push(condition(RoutingReady, false, Reason.WaitingForBackend, MSG_SERVICE_UNNAMED));
    return result;
  }
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

/** The XR's published `status.routing` as it is, when it has a backend name: kept while the inputs cannot be read. */
function observedRouting(xr: KubeObject): JsonObject {
  const name = getPath(xr, 'status', 'routing', 'backendName');
  return typeof name === 'string' && name !== '' ? { routing: { backendName: name } } : {};
}

function observedName(obj: KubeObject | undefined): string | undefined {
  const name = obj?.metadata?.name;
  return typeof name === 'string' && name !== '' ? name : undefined;
}
