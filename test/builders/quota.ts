/**
 * Builders for InferenceQuota tests: the quota XR and InferenceClusters
 * publishing capacity ledgers (`status.gpuPools[].used.holders[]`, the shape
 * lib/fleet/ledger.ts writes). Short and immutable: every
 * call returns a fresh object.
 */
import type { JsonObject, KubeObject } from '../../functions/lib/function.js';

export const QUOTA_NS = 'ml-team';
export const QUOTA_NAME = 'team-quota';

/** An InferenceQuota `ml-team/team-quota` with these limits (and a status, when given). */
export function quota(limits: unknown[], status?: JsonObject, meta: JsonObject = { name: QUOTA_NAME, namespace: QUOTA_NS }): KubeObject {
  const xr: KubeObject = { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceQuota', metadata: { ...meta }, spec: { limits: structuredClone(limits) } };
  if (status !== undefined) xr['status'] = structuredClone(status);
  return xr;
}

/** A run of `count` identical pods of `replica`, each claiming `devices` (`[name, count]`), or a whole node. */
export function run(replica: string, count: number, devices: [string, number][] = [['gpu', 1]], o: { wholeNode?: boolean; overCapacity?: boolean } = {}): JsonObject {
  const r: JsonObject = { replica, count, devices: devices.map(([name, n]) => ({ name, count: n })) };
  if (o.wholeNode) r['wholeNode'] = true;
  if (o.overCapacity) r['overCapacity'] = true;
  return r;
}

/** One ledger holder: a deployment of a namespace and its runs. */
export function holder(namespace: string, deployment: string, ...pods: JsonObject[]): JsonObject {
  return { namespace, deployment, pods };
}

/** A published pool with `perNode` DRA devices named gpu per node, an optional className, and its holders. */
export function ledgerPool(name: string, o: { className?: string; perNode?: number; holders?: JsonObject[]; synthetic?: number } = {}): JsonObject {
  const devices: JsonObject[] = [{ name: 'gpu', driver: 'gpu.nvidia.com', claim: 'DRA', count: o.perNode ?? 8 }];
  if (o.synthetic) devices.push({ name: 'nic', driver: 'example.com', claim: 'Synthetic', count: o.synthetic });
  const pool: JsonObject = { name, nodes: 4, devices, used: { nodes: 0, devices: [], holders: o.holders ?? [] } };
  if (o.className !== undefined) pool['className'] = o.className;
  return pool;
}

/** An InferenceCluster publishing these pools. */
export function ledgerCluster(name: string, ...pools: JsonObject[]): KubeObject {
  return { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceCluster', metadata: { name }, spec: {}, status: { gpuPools: pools } };
}

/** An InferenceClass with these labels. */
export function labelledClass(name: string, labels: Record<string, string>): KubeObject {
  return { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceClass', metadata: { name, labels: { ...labels } }, spec: { devices: [{ name: 'gpu' }] } };
}
