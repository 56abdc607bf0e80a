/**
 * The ServingStack spec as compose-serving-stack reads it, with the XRD's
 * defaults applied (apis/servingstacks/definition.yaml; platform-side.md §5).
 *
 * Guarantees: {@link readServingStack} never throws; it returns the spec with
 * every default filled in, or the list of problems (field path + fix) that
 * make the stack impossible to compose. The API server enforces the XRD, so
 * problems only appear when an object bypassed it (render, tests).
 */
import { getPath, type JsonObject, type KubeObject } from '../lib/function.js';

/** Secret types a ServingStack accepts (`spec.secrets[].type`). */
export type StackSecretType =
  | 'Kubeconfig'
  | 'GoogleApplicationCredentials'
  | 'AWSWebIdentityCredentials'
  | 'NebiusServiceAccountCredentials';

/** One `spec.secrets[]` entry: a key of a Secret that reaches the workload cluster. */
export interface StackSecret {
  type: StackSecretType | string;
  name: string;
  key: string;
  /** Set when the Secret lives outside the ServingStack's namespace. */
  namespace?: string;
}

/** One Gateway listener (`spec.gateway.listeners[]`). */
export interface Listener {
  name: string;
  /** TCP port, 1..65535. */
  port: number;
  protocol: 'HTTP' | 'TCP' | string;
}

/** Chart versions (`spec.versions`), defaults applied. */
export interface StackVersions {
  /** @default "v1.5.1" Declared but unused: Envoy Gateway's chart installs the Gateway API CRDs. */
  gatewayApi: string;
  /** @default "v1.17.1" */
  certManager: string;
  /** @default "v1.8.1" */
  envoyGateway: string;
  /** kube-prometheus-stack. @default "72.6.2" */
  prometheus: string;
  /** @default "v0.8.0" */
  leaderWorkerSet: string;
  /** @default "0.18.3" */
  nodeFeatureDiscovery: string;
  /** @default "0.4.0" */
  nvidiaDraDriver: string;
}

/** A ServingStack, defaults applied. */
export interface ServingStack {
  name: string;
  namespace: string;
  secrets: StackSecret[];
  /** Host path of the NVIDIA driver. @default "/" */
  nvidiaDriverRoot: string;
  versions: StackVersions;
  /** GatewayClass name. @default "envoy" */
  className: string;
  /** @default [{name: http, protocol: HTTP, port: 80}] */
  listeners: Listener[];
}

/** Chart version defaults of the XRD. */
export const DEFAULT_VERSIONS: Readonly<StackVersions> = {
  gatewayApi: 'v1.5.1',
  certManager: 'v1.17.1',
  envoyGateway: 'v1.8.1',
  prometheus: '72.6.2',
  leaderWorkerSet: 'v0.8.0',
  nodeFeatureDiscovery: '0.18.3',
  nvidiaDraDriver: '0.4.0',
};

/** The listener used when `spec.gateway.listeners` is absent or empty. */
export const DEFAULT_LISTENER: Readonly<Listener> = { name: 'http', protocol: 'HTTP', port: 80 };

/** Message when the XR has no name (platform-side.md §0.4). */
export const ERR_NO_NAME = 'metadata.name is unexpectedly absent';
/** Message when the XR has no namespace (platform-side.md §0.4). */
export const ERR_NO_NAMESPACE = 'metadata.namespace is unexpectedly absent';
/** Message when no secret is a kubeconfig (the XRD's own rule message). */
export const ERR_NO_KUBECONFIG = 'spec.secrets must include a Kubeconfig entry.';

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** Result of {@link readServingStack}. */
export type ReadStack = { ok: true; stack: ServingStack } | { ok: false; problem: string };

/** Reads the observed ServingStack XR, applying the XRD's defaults. */
export function readServingStack(xr: KubeObject): ReadStack {
  const name = str(xr.metadata?.name);
  if (!name) return { ok: false, problem: ERR_NO_NAME };
  const namespace = str(xr.metadata?.namespace);
  if (!namespace) return { ok: false, problem: ERR_NO_NAMESPACE };
  const rawSecrets = getPath(xr, 'spec', 'secrets');
  const secrets: StackSecret[] = [];
  for (const s of Array.isArray(rawSecrets) ? (rawSecrets as JsonObject[]) : []) {
    const entry: StackSecret = { type: String(s['type'] ?? ''), name: String(s['name'] ?? ''), key: String(s['key'] ?? '') };
    const ns = str(s['namespace']);
    if (ns) entry.namespace = ns;
    secrets.push(entry);
  }
  if (!secrets.some((s) => s.type === 'Kubeconfig')) return { ok: false, problem: ERR_NO_KUBECONFIG };
  const versions = { ...DEFAULT_VERSIONS };
  const rawVersions = getPath(xr, 'spec', 'versions');
  if (rawVersions && typeof rawVersions === 'object') {
    for (const k of Object.keys(DEFAULT_VERSIONS) as (keyof StackVersions)[]) {
      const v = str((rawVersions as JsonObject)[k]);
      if (v) versions[k] = v;
    }
  }
  const rawListeners = getPath(xr, 'spec', 'gateway', 'listeners');
  const listeners: Listener[] =
    Array.isArray(rawListeners) && rawListeners.length > 0
      ? (rawListeners as JsonObject[]).map((l) => ({
          name: String(l['name']),
          port: Number(l['port']),
          protocol: String(l['protocol']),
        }))
      : [{ ...DEFAULT_LISTENER }];
  return {
    ok: true,
    stack: {
      name,
      namespace,
      secrets,
      nvidiaDriverRoot: str(getPath(xr, 'spec', 'nvidiaDriverRoot')) ?? '/',
      versions,
      className: str(getPath(xr, 'spec', 'gateway', 'className')) ?? 'envoy',
      listeners,
    },
  };
}
