/**
 * What an InferenceCluster publishes for the fleet scheduler
 * (platform-side.md §3.2, §7.8, §7.9, §11; spec/README.md item 7).
 *
 * Guarantees:
 * - `gpuPools`: one entry per spec pool (spec order) whose class resolved and
 *   has devices: `{name, nodes, devices, multiNode?}` where `nodes` is
 *   `maxNodeCount` when set (non-zero) else `nodeCount` (a node budget, in
 *   nodes), `devices` are the class's devices with XRD defaults applied, and
 *   `multiNode: false` is set only when the class cannot serve multi-node
 *   gangs (provisioned on Vultr) — derived from the class spec, so it does not
 *   wait for the class to reconcile.
 * - `providerConfigRef.name` and `namespace` are always published, even
 *   before the ClusterProviderConfig exists.
 * - Conditions: exactly one `ClusterReady` and one `BackendReady`.
 */
import { type Condition, condition, getPath, type JsonObject, type KubeObject } from '../lib/function.js';
import { SYSTEM_NAMESPACE } from './cloud.js';
import type { InferenceClass, NodePool } from './spec.js';

/** Status fields this function owns, echoed unchanged on hold paths. */
export const OWNED_STATUS_FIELDS = ['providerConfigRef', 'namespace', 'gpuPools', 'cache', 'gateway'] as const;

/** True when pools of this class can take multi-node (Leader + Worker) gangs (spec/README.md item 7). */
export function classSupportsMultiNode(cls: InferenceClass): boolean {
  return cls.provider !== 'Vultr';
}

/** The published pools. */
export function gpuPools(pools: readonly NodePool[], classes: ReadonlyMap<string, InferenceClass>): JsonObject[] {
  const out: JsonObject[] = [];
  for (const pool of pools) {
    const cls = classes.get(pool.className);
    if (!cls || cls.devices.length === 0) continue;
    const entry: JsonObject = {
      name: pool.name,
      nodes: pool.maxNodeCount ? pool.maxNodeCount : pool.nodeCount,
      devices: cls.devices.map((d) => structuredClone(d) as unknown as JsonObject),
    };
    if (!classSupportsMultiNode(cls)) entry['multiNode'] = false;
    out.push(entry);
  }
  return out;
}

/** Inputs of {@link clusterStatus}. */
export interface StatusInputs {
  providerConfigName: string;
  pools: JsonObject[];
  storageClassName?: string | undefined;
  gatewayAddress?: string | undefined;
}

/** The whole status this function writes. */
export function clusterStatus(s: StatusInputs): JsonObject {
  const status: JsonObject = {
    providerConfigRef: { name: s.providerConfigName },
    namespace: SYSTEM_NAMESPACE,
    gpuPools: s.pools,
  };
  if (s.storageClassName) status['cache'] = { storageClassName: s.storageClassName };
  if (s.gatewayAddress) status['gateway'] = { address: s.gatewayAddress };
  return status;
}

/** The observed ServingStack's gateway address, read generically. */
export function observedGatewayAddress(servingStack: KubeObject | undefined): string | undefined {
  const a = getPath(servingStack, 'status', 'gateway', 'address');
  return typeof a === 'string' && a !== '' ? a : undefined;
}

/** The status fields this function owns, as currently observed; `undefined` when there are none. */
export function echoStatus(xr: KubeObject): JsonObject | undefined {
  const status = xr['status'];
  if (!status || typeof status !== 'object') return undefined;
  const out: JsonObject = {};
  for (const k of OWNED_STATUS_FIELDS) {
    const v = (status as JsonObject)[k];
    if (v !== undefined && v !== null) out[k] = structuredClone(v);
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** A reason and message that override the derived `ClusterReady`. */
export interface ClusterProblem {
  reason: string;
  message: string;
}

/**
 * `ClusterReady` then `BackendReady` (platform-side.md §7.9). The first
 * problem's reason (all messages joined with "; ") overrides a derived
 * ClusterReady; BackendReady is True iff the ServingStack is Ready, with
 * reason WaitingForCluster while the cluster is not ready.
 */
export function clusterConditions(clusterReady: boolean, backendReady: boolean, problems: ClusterProblem[]): Condition[] {
  const first = problems[0];
  const cluster = first
    ? condition('ClusterReady', false, first.reason, problems.map((p) => p.message).join('; '))
    : clusterReady
      ? condition('ClusterReady', true, 'ClusterRunning')
      : condition('ClusterReady', false, 'Provisioning');
  const reason = !clusterReady ? 'WaitingForCluster' : backendReady ? 'BackendHealthy' : 'Installing';
  return [cluster, condition('BackendReady', backendReady, reason)];
}
