/**
 * Endpoint URLs, read as the reference reads them (Python `urllib.parse`
 * `urlsplit`, docs/kinds/modelendpoint.md#urls), with a stricter notion of "valid".
 * Shared by compose-model-endpoint (the route to an external endpoint) and
 * compose-model-service (the gateway path's backends).
 *
 * Guarantees: {@link parseEndpointUrl} never throws. For a valid URL it gives
 * the lowercased host (IPv6 brackets removed), the port (explicit, else 443
 * for https and 80 for http; an explicit port 0 means the default, as in the
 * reference) and the EndpointSlice address type of the host.
 *
 * Divergences (stricter than the reference, each a URL the reference
 * accepted but that could never route): the scheme must be `http` or
 * `https`; a host that is neither an IP address nor a DNS subdomain (RFC
 * 1123, what an FQDN EndpointSlice accepts) is invalid.
 */
import { isIPv4, isIPv6 } from 'node:net';
import type { JsonObject, KubeObject } from './function.js';

/** EndpointSlice `addressType` of a host. */
export type AddressType = 'IPv4' | 'IPv6' | 'FQDN';

/** A parsed endpoint URL. */
export interface EndpointUrl {
  scheme: 'http' | 'https';
  /** Lowercased hostname, without IPv6 brackets. */
  host: string;
  /** TCP port, 1-65535. */
  port: number;
  addressType: AddressType;
}

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** The default port of a scheme: 443 for https, 80 otherwise. */
export function defaultPort(scheme: string): number {
  return scheme === 'https' ? 443 : 80;
}

/** Parses an endpoint URL; `undefined` when it is not one that can be routed to. */
export function parseEndpointUrl(raw: string): EndpointUrl | undefined {
  // urlsplit strips leading C0 controls and spaces and drops tab/CR/LF anywhere.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: mirrors urllib's WHATWG C0 stripping
  const url = raw.replace(/^[\u0000-\u0020]+/, '').replace(/[\t\r\n]/g, '');
  const colon = url.indexOf(':');
  if (colon <= 0 || !SCHEME.test(url.slice(0, colon))) return undefined;
  const scheme = url.slice(0, colon).toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') return undefined;
  const rest = url.slice(colon + 1);
  if (!rest.startsWith('//')) return undefined;
  const end = rest.slice(2).search(/[/?#]/);
  const netloc = end < 0 ? rest.slice(2) : rest.slice(2, 2 + end);
  const hostinfo = netloc.slice(netloc.lastIndexOf('@') + 1);

  let host: string;
  let port: string;
  if (netloc.includes('[') !== netloc.includes(']')) return undefined;
  const open = hostinfo.indexOf('[');
  if (open >= 0) {
    if (open > 0) return undefined;
    const close = hostinfo.indexOf(']');
    host = hostinfo.slice(1, close);
    const after = hostinfo.slice(close + 1);
    if (after !== '' && !after.startsWith(':')) return undefined;
    if (!isIPv6(host)) return undefined;
    port = after.slice(1);
  } else {
    const c = hostinfo.indexOf(':');
    host = c < 0 ? hostinfo : hostinfo.slice(0, c);
    port = c < 0 ? '' : hostinfo.slice(c + 1);
  }
  host = host.toLowerCase();
  if (host === '') return undefined;
  let portNumber = defaultPort(scheme);
  if (port !== '') {
    if (!/^[0-9]+$/.test(port)) return undefined;
    const n = Number.parseInt(port, 10);
    if (n > 65535) return undefined;
    if (n !== 0) portNumber = n;
  }
  const addressType: AddressType = isIPv4(host) ? 'IPv4' : isIPv6(host) ? 'IPv6' : 'FQDN';
  if (addressType === 'FQDN' && (host.length > 253 || !DNS_SUBDOMAIN.test(host))) return undefined;
  return { scheme, host, port: portNumber, addressType };
}

/** The label tying an EndpointSlice to its Service. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

/**
 * The EndpointSlice backing selectorless Service `service` with the URL's
 * host and port, marked ready explicitly (Traefik ignores a nil ready).
 */
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
