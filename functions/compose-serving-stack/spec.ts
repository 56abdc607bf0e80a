/**
 * The ServingStack as compose-serving-stack reads it: its name, namespace and
 * spec parsed by the generated parser (functions/lib/generated/servingstacks.ts),
 * so every XRD default is applied (nvidiaDriverRoot "/", chart versions,
 * className "envoy"; docs/kinds/servingstack.md#the-spec).
 *
 * Guarantees: {@link readServingStack} never throws; it returns the stack, or
 * one problem message naming the field (an XR without name or namespace, a
 * spec the XRD rejects, no Kubeconfig secret). The API server enforces the
 * XRD, so problems only appear for objects that bypassed it (render, tests).
 */
import type { KubeObject } from '../lib/function.js';
import {
  parseServingStack,
  type ServingStack as ServingStackXr,
  type ServingStackGatewayListener,
  type ServingStackGatewayTls,
  type ServingStackSecret,
  type ServingStackVersions,
} from '../lib/generated/servingstacks.js';
import { readComposite } from '../lib/xr.js';

/** A ServingStack, defaults applied. */
export interface ServingStack {
  name: string;
  namespace: string;
  /** Secrets reaching the workload cluster; at least one of type Kubeconfig. */
  secrets: ServingStackSecret[];
  /** Host path of the NVIDIA driver. @default "/" */
  nvidiaDriverRoot: string;
  versions: ServingStackVersions;
  /** GatewayClass name. @default "envoy" */
  className: string;
  /** @default [{name: http, protocol: HTTP, port: 80}] */
  listeners: ServingStackGatewayListener[];
  /** `spec.gateway.hostname` + `spec.gateway.tls`: an HTTPS listener (docs/front-door.md); absent without tls. */
  https?: { hostname: string; tls: ServingStackGatewayTls };
}

/** The listener used when `spec.gateway.listeners` is absent or empty. */
export const DEFAULT_LISTENER: Readonly<ServingStackGatewayListener> = { name: 'http', protocol: 'HTTP', port: 80 };

/** Message when the XR has no name (docs/kinds/servingstack.md#errors). */
export const ERR_NO_NAME = 'metadata.name is unexpectedly absent';
/** Message when the XR has no namespace (docs/kinds/servingstack.md#errors). */
export const ERR_NO_NAMESPACE = 'metadata.namespace is unexpectedly absent';
/** Message when no secret is a kubeconfig (the XRD's own rule message). */
export const ERR_NO_KUBECONFIG = 'spec.secrets must include a Kubeconfig entry.';

/** The XRD's message for `spec.gateway.tls` without a hostname. */
export const ERR_GATEWAY_TLS_NO_HOSTNAME = 'spec.gateway.hostname is required when spec.gateway.tls is set (the name the certificate is for).';
/** The XRD's message for `spec.gateway.tls` with both or neither of issuerRef and secretRef. */
export const ERR_GATEWAY_TLS_ONE_OF =
  'spec.gateway.tls must set exactly one of issuerRef (cert-manager issues the certificate) or secretRef (a kubernetes.io/tls Secret you bring).';

/** Result of {@link readServingStack}: the stack, or why it cannot be composed. */
export type ReadStack =
  | { ok: true; stack: ServingStack }
  | { ok: false; problem: string; /** true for a missing name/namespace (a Fatal result). */ fatal: boolean };

/** Reads the observed ServingStack XR. */
export function readServingStack(xr: KubeObject): ReadStack {
  const name = xr.metadata?.name;
  const namespace = xr.metadata?.namespace;
  const noName = typeof name !== 'string' || name === '';
  if (noName || typeof namespace !== 'string' || namespace === '') {
    // The Fatal also names what is wrong in the spec, so one fix does not reveal the next.
    const spec = readComposite<ServingStackXr>({ ...xr, spec: xr['spec'] ?? {} }, parseServingStack);
    const problem = noName ? ERR_NO_NAME : ERR_NO_NAMESPACE;
    return { ok: false, problem: spec.ok ? problem : `${problem}; ${spec.problem}`, fatal: true };
  }
  // The XRD rule's own message first, as the reference reports it.
  const secrets = (xr['spec'] as { secrets?: unknown } | undefined)?.secrets;
  if (Array.isArray(secrets) && !secrets.some((s) => typeof s === 'object' && s !== null && (s as { type?: unknown }).type === 'Kubeconfig')) {
    return { ok: false, problem: ERR_NO_KUBECONFIG, fatal: false };
  }
  const parsed = readComposite<ServingStackXr>({ ...xr, spec: xr['spec'] ?? {} }, parseServingStack);
  if (!parsed.ok) return { ok: false, problem: parsed.problem, fatal: false };
  const spec = parsed.xr.spec;
  if (!spec.secrets.some((s) => s.type === 'Kubeconfig')) return { ok: false, problem: ERR_NO_KUBECONFIG, fatal: false };
  const listeners = spec.gateway.listeners ?? [];
  const { hostname, tls } = spec.gateway;
  // The XRD's rules, checked here too (render and tests bypass the API server).
  if (tls !== undefined && hostname === undefined) return { ok: false, problem: ERR_GATEWAY_TLS_NO_HOSTNAME, fatal: false };
  if (tls !== undefined && (tls.issuerRef === undefined) === (tls.secretRef === undefined)) {
    return { ok: false, problem: ERR_GATEWAY_TLS_ONE_OF, fatal: false };
  }
  return {
    ok: true,
    stack: {
      ...(tls !== undefined && hostname !== undefined ? { https: { hostname, tls } } : {}),
      name,
      namespace,
      secrets: spec.secrets as ServingStackSecret[],
      nvidiaDriverRoot: spec.nvidiaDriverRoot,
      versions: spec.versions,
      className: spec.gateway.className,
      listeners: listeners.length > 0 ? listeners : [{ ...DEFAULT_LISTENER }],
    },
  };
}
