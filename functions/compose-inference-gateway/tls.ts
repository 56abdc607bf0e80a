/**
 * The front door's TLS, hostname and DNS (docs/front-door.md): what an
 * InferenceGateway with `spec.hostname` / `spec.tls` / `spec.dns` adds to, or
 * changes in, the composed Gateway.
 *
 * Guarantees:
 * - Without `spec.tls` and `spec.hostname` the Gateway is exactly the plain
 *   one (one HTTP listener `web` on 8000) and nothing else is composed.
 * - With `spec.tls`: a second listener `websecure` (HTTPS, port 8443, the
 *   port Traefik's chart gives its `websecure` entryPoint and exposes as 443,
 *   as `web` is 8000 exposed as 80), `tls.mode: Terminate`, its
 *   certificateRefs the issued Secret `modelplane-gateway-tls` (issuerRef)
 *   or the brought Secret (secretRef); an HTTPRoute
 *   `modelplane-https-redirect` on `web` answering every request with a 301
 *   to https; with issuerRef a cert-manager Certificate `modelplane-gateway`;
 *   with a secretRef in another namespace, a ReferenceGrant there.
 * - With `spec.hostname` every listener carries it; with `spec.dns.externalDNS`
 *   the Gateway carries `external-dns.alpha.kubernetes.io/hostname`.
 */
import { METERED_LISTENER, METERED_PORT } from '../lib/usage-tap.js';
import type { JsonObject, KubeObject } from '../lib/function.js';
import { certificateManifest, httpsListener } from '../lib/gateway-tls.js';
import type { InferenceGatewaySpec, InferenceGatewayTls } from '../lib/generated/inferencegateways.js';
import { GATEWAY_NAME as GATEWAY, SYSTEM_NAMESPACE as NAMESPACE } from './resources.js';
/** Traefik's internal "web" entryPoint port (its Service exposes 80). */
export const WEB_PORT = 8000;
/** Traefik's internal "websecure" entryPoint port (its Service exposes 443; chart default). */
export const WEBSECURE_PORT = 8443;
/** The plain-HTTP listener. */
export const WEB_LISTENER = 'web';
/** The HTTPS listener (with `spec.tls`); ModelService routes attach to it. */
export const WEBSECURE_LISTENER = 'websecure';
/** The Secret cert-manager issues the gateway's certificate into (`spec.tls.issuerRef`). */
export const TLS_SECRET = 'modelplane-gateway-tls';
/** The cert-manager Certificate (`spec.tls.issuerRef`). */
export const CERTIFICATE_NAME = 'modelplane-gateway';
/** The HTTPRoute that redirects plain HTTP to HTTPS (`spec.tls`). */
export const REDIRECT_ROUTE = 'modelplane-https-redirect';
/** The ReferenceGrant letting the Gateway read a brought Secret in another namespace. */
export const REFERENCE_GRANT = 'modelplane-gateway-tls';
/** The annotation external-dns reads the record's name from (`spec.dns.externalDNS`). */
export const EXTERNAL_DNS_HOSTNAME = 'external-dns.alpha.kubernetes.io/hostname';

/** What of the spec shapes the front door. */
export interface FrontDoor {
  hostname?: InferenceGatewaySpec['hostname'] | undefined;
  tls?: InferenceGatewaySpec['tls'] | undefined;
  dns?: InferenceGatewaySpec['dns'] | undefined;
}

/** The XRD's message for `spec.tls` without `spec.hostname`. */
export const ERR_TLS_NO_HOSTNAME =
  "spec.hostname is required when spec.tls is set: set it to the DNS name clients use (the certificate's name and the HTTPS listener's hostname), e.g. models.example.com.";
/** The XRD's message for `spec.tls` with both or neither of issuerRef and secretRef. */
export const ERR_TLS_ONE_OF =
  'spec.tls must set exactly one of issuerRef (cert-manager issues the certificate) or secretRef (a kubernetes.io/tls Secret you bring).';
/** The XRD's message for `spec.dns.externalDNS` without `spec.hostname`. */
export const ERR_DNS_NO_HOSTNAME = 'spec.hostname is required when spec.dns.externalDNS is true (the name external-dns publishes).';

/**
 * The XRD's CEL rules on hostname/tls/dns, checked here too (render and
 * tests bypass the API server): every broken rule's message, or [] when none.
 */
export function frontDoorProblems(fd: FrontDoor): string[] {
  const out: string[] = [];
  if (fd.tls !== undefined && fd.hostname === undefined) out.push(ERR_TLS_NO_HOSTNAME);
  if (fd.tls !== undefined && (fd.tls.issuerRef === undefined) === (fd.tls.secretRef === undefined)) out.push(ERR_TLS_ONE_OF);
  if (fd.dns?.externalDNS === true && fd.hostname === undefined) out.push(ERR_DNS_NO_HOSTNAME);
  return out;
}

/** The Secret the HTTPS listener serves: the issued one, or the brought one (its namespace defaulted). */
export function certificateSecret(tls: InferenceGatewayTls): { name: string; namespace: string } {
  if (tls.secretRef !== undefined) return { name: tls.secretRef.name, namespace: tls.secretRef.namespace ?? NAMESPACE };
  return { name: TLS_SECRET, namespace: NAMESPACE };
}

/**
 * The Gateway's listeners: `web`, and `websecure` with `spec.tls`, each
 * carrying `spec.hostname` when set; and `metered` (HTTP, port
 * {@link METERED_PORT}, no hostname: only the usage tap calls it, through
 * Service `modelplane-metered`; Traefik's Service does not expose it), where
 * counted services' second routes attach (docs/ai-gateway.md#usage).
 */
export function listeners(fd: FrontDoor): JsonObject[] {
  const host = fd.hostname !== undefined ? { hostname: fd.hostname } : {};
  const all = { allowedRoutes: { namespaces: { from: 'All' } } };
  const out: JsonObject[] = [{ name: WEB_LISTENER, protocol: 'HTTP', port: WEB_PORT, ...host, ...all }];
  if (fd.tls !== undefined) {
    const secret = certificateSecret(fd.tls);
    out.push(httpsListener(WEBSECURE_LISTENER, WEBSECURE_PORT, fd.hostname, secret.namespace !== NAMESPACE ? secret : { name: secret.name }));
  }
  out.push({ name: METERED_LISTENER, protocol: 'HTTP', port: METERED_PORT, ...all });
  return out;
}

/** The Gateway's annotations: the external-dns hostname with `spec.dns.externalDNS` and a hostname. */
export function gatewayAnnotations(fd: FrontDoor): Record<string, string> | undefined {
  if (fd.dns?.externalDNS !== true || fd.hostname === undefined) return undefined;
  return { [EXTERNAL_DNS_HOSTNAME]: fd.hostname };
}

/** Certificate `modelplane-gateway` (cert-manager.io/v1): `hostname` from `issuerRef` into Secret `modelplane-gateway-tls`. */
export function certificate(hostname: string, issuerRef: NonNullable<InferenceGatewayTls['issuerRef']>): KubeObject {
  return certificateManifest(CERTIFICATE_NAME, NAMESPACE, hostname, TLS_SECRET, issuerRef);
}

/** ReferenceGrant in `namespace`: Gateways in modelplane-system may reference the Secret `name` there. */
export function referenceGrant(secret: { name: string; namespace: string }): KubeObject {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1beta1',
    kind: 'ReferenceGrant',
    metadata: { name: REFERENCE_GRANT, namespace: secret.namespace },
    spec: {
      from: [{ group: 'gateway.networking.k8s.io', kind: 'Gateway', namespace: NAMESPACE }],
      to: [{ group: '', kind: 'Secret', name: secret.name }],
    },
  };
}

/** HTTPRoute `modelplane-https-redirect` on listener `web`: every plain-HTTP request gets a 301 to https. */
export function httpsRedirectRoute(): KubeObject {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name: REDIRECT_ROUTE, namespace: NAMESPACE },
    spec: {
      parentRefs: [{ name: GATEWAY, namespace: NAMESPACE, sectionName: WEB_LISTENER }],
      rules: [{ filters: [{ type: 'RequestRedirect', requestRedirect: { scheme: 'https', statusCode: 301 } }] }],
    },
  };
}

/** `status.url`: `https://<hostname>` with `spec.tls`, `http://<hostname>` with a hostname only, else undefined. */
export function frontDoorUrl(fd: FrontDoor): string | undefined {
  if (fd.hostname === undefined) return undefined;
  return `${fd.tls !== undefined ? 'https' : 'http'}://${fd.hostname}`;
}
