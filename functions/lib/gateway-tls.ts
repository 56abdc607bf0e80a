/**
 * TLS pieces every Gateway we compose shares (docs/front-door.md): the
 * control-plane front door (InferenceGateway `spec.tls`) and the workload
 * clusters' gateways (ServingStack `spec.gateway.tls`) build their HTTPS
 * listener and cert-manager Certificate here, so both read the same way.
 */
import type { JsonObject, KubeObject } from './function.js';

/** A Secret the HTTPS listener serves; `namespace` only when it is not the Gateway's own (a ReferenceGrant must allow it). */
export interface ListenerSecret {
  name: string;
  namespace?: string | undefined;
}

/**
 * A Gateway API HTTPS listener terminating TLS with `secret`, routes from
 * every namespace; `hostname` when set (Gateway API v1 `Listener`, key order
 * name, protocol, port, hostname, tls, allowedRoutes).
 */
export function httpsListener(name: string, port: number, hostname: string | undefined, secret: ListenerSecret): JsonObject {
  const ref: JsonObject = { group: '', kind: 'Secret', name: secret.name };
  if (secret.namespace !== undefined) ref['namespace'] = secret.namespace;
  return {
    name,
    protocol: 'HTTPS',
    port,
    ...(hostname !== undefined ? { hostname } : {}),
    tls: { mode: 'Terminate', certificateRefs: [ref] },
    allowedRoutes: { namespaces: { from: 'All' } },
  };
}

/** The cert-manager issuer a Certificate names (`issuerRef`; kind and group as the XRD defaulted them). */
export interface IssuerRef {
  name: string;
  kind?: string | undefined;
  group?: string | undefined;
}

/** A cert-manager `Certificate` (cert-manager.io/v1) `namespace/name` for `hostname`, issued by `issuerRef` into Secret `secretName`. */
export function certificateManifest(name: string, namespace: string, hostname: string, secretName: string, issuerRef: IssuerRef): KubeObject {
  return {
    apiVersion: 'cert-manager.io/v1',
    kind: 'Certificate',
    metadata: { name, namespace },
    spec: {
      secretName,
      dnsNames: [hostname],
      issuerRef: { name: issuerRef.name, kind: issuerRef.kind, group: issuerRef.group },
    },
  };
}
