/**
 * Reads the fleet the scheduler places onto: InferenceClusters (the
 * `clusters` requirement, with their capacity ledgers) and this deployment's
 * ModelReplicas (the `own-replicas` requirement), into the domain types of `model.ts`.
 *
 * Guarantees:
 * - Lenient and total: a field that is missing or mistyped reads as "nothing
 *   published" (a pool with 0 nodes, a cluster without gateway), never an
 *   exception; these objects are written by other functions and by users.
 * - Output sorted by name (clusters) and by (namespace, name) (replicas), so
 *   no decision depends on the order Crossplane delivered them in.
 * - A published `status.gpuPools` or `status.gateway` the XRD's status
 *   schema rejects (or a status that is not an object) marks the cluster
 *   `unreadable` (the field and the problem), so the scheduler holds what
 *   runs there instead of reading garbage as "no pools" (scheduling.ts).
 * - A cluster without a readable `metadata.name` is left out and counted
 *   (`unnamed`): it takes no replica, and cannot make ours look "gone".
 * - A cluster that publishes no status, no `status.gpuPools`, or no
 *   readable Ready condition is marked `unknown` (why): the scheduler holds
 *   ours there that no longer fit rather than drop them on missing state.
 * - Multi-node is read from the provider contract, never from the cloud's
 *   name: a pool can take a Leader + Worker gang only when it publishes a
 *   `fabric` and its cluster's `status.capabilities.multiNodeFabric` is not
 *   None (EFA, InfiniBand or Ethernet; docs/design.md#multi-node-needs-a-fabric,
 *   docs/design.md#declared-capabilities). A cluster
 *   that publishes no capabilities offers no fabric.
 * - Policy (docs/placement-policy.md): the cluster's labels, each pool's
 *   `capacityType` (OnDemand when absent) and `price` (dropped when malformed).
 * - Health (docs/failover.md): `status.health` as published and
 *   `spec.drain`; a cluster without health is judged by its Ready condition.
 * - Cheap: the only walk of a pool's devices is that schema check;
 *   matching.ts groups pools into classes lazily, only for the pools
 *   placement actually looks at.
 * Units: pool `nodes` are nodes; member `pods` are pods.
 */
import * as z from 'zod';
import { getPath, isReady, type JsonObject, type KubeObject, readCondition } from '../function.js';
import { deepFrozen } from '../json.js';
import { readHealth } from '../health.js';
import { InferenceClusterStatusGatewaySchema, InferenceClusterStatusGpuPoolSchema } from '../generated/inferenceclusters.js';
import { DEPLOYMENT_LABEL, isObjectName } from '../names.js';
import { isMultiNodeFabric } from '../workload.js';
import { formatZodIssues } from '../zod-issues.js';
import { ledgerProblem, readLedger } from './ledger.js';
import { parsePrice } from './price.js';
import { surelyReadable } from './readable-status.js';
import type { FleetCluster, ObservedEngine, ObservedMember, ObservedReplica, Pool, PoolDevice, Role, Taint } from './model.js';

/** Label naming the owning ModelDeployment on a ModelReplica. */
/** Label naming the InferenceCluster a ModelReplica is pinned to. */
export const LABEL_CLUSTER = 'modelplane.ai/cluster';
/** Label carrying a ModelReplica's per-cluster index. */
export const LABEL_INDEX = 'modelplane.ai/replica-index';

/** The clusters the scheduler may use. */
export interface Fleet {
  /** Sorted by name; only those with a readable name. */
  clusters: FleetCluster[];
  /**
   * Fetched InferenceClusters whose `metadata.name` is no object name
   * (lib/names.ts `isObjectName`): which cluster each is cannot be known, so it takes no replica,
   * and ours on a cluster not listed are held rather than dropped as "gone".
   */
  unnamed: number;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function arr(v: unknown): JsonObject[] {
  // a loop, not filter(): Array.prototype.filter takes a slow path on frozen arrays (plan's store objects)
  const out: JsonObject[] = [];
  if (!Array.isArray(v)) return out;
  for (let i = 0; i < v.length; i++) {
    const x: unknown = v[i];
    if (typeof x === 'object' && x !== null) out.push(x as JsonObject);
  }
  return out;
}

function byName<T extends { name: string }>(a: T, b: T): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * Reads InferenceClusters into the fleet. A frozen cluster object (what a
 * plan's store hands every reconcile) cannot change, so it is read once and
 * its reading, frozen too, is shared by every later call; a decoded gRPC
 * request is never frozen and always read afresh.
 */
export function readFleet(items: readonly KubeObject[]): Fleet {
  const named = items.map((obj) => ({ obj, name: getPath(obj, 'metadata', 'name') })).filter((c): c is { obj: KubeObject; name: string } => isObjectName(c.name));
  const clusters = named.sort(byName).map(({ obj, name }) => {
    if (!Object.isFrozen(obj)) return readCluster(obj, name);
    let cluster = READ_CLUSTERS.get(obj);
    if (cluster === undefined) {
      cluster = deepFrozen(readCluster(obj, name));
      READ_CLUSTERS.set(obj, cluster);
    }
    return cluster;
  });
  return { clusters, unnamed: items.length - named.length };
}

/** {@link readCluster} of frozen cluster objects, by identity. */
const READ_CLUSTERS = new WeakMap<KubeObject, FleetCluster>();


/** One InferenceCluster as the scheduler reads it. */
function readCluster(obj: KubeObject, name: string): FleetCluster {
  const fabric = getPath(obj, 'status', 'capabilities', 'multiNodeFabric');
  const clusterFabric = isMultiNodeFabric(fabric);
  const pools = arr(getPath(obj, 'status', 'gpuPools')).map((p) => readPool(p, clusterFabric));
  const taints = arr(getPath(obj, 'spec', 'taints'))
    .filter((t) => t['effect'] === 'NoSchedule' || t['effect'] === 'NoExecute')
    .map((t): Taint => {
      const taint: Taint = { key: str(t['key']), effect: t['effect'] as Taint['effect'] };
      if (typeof t['value'] === 'string') taint.value = t['value'];
      return taint;
    });
  const labels: Record<string, string> = {};
  const rawLabels = getPath(obj, 'metadata', 'labels');
  if (typeof rawLabels === 'object' && rawLabels !== null) {
    for (const [k, v] of Object.entries(rawLabels)) if (typeof v === 'string') labels[k] = v;
  }
  const cluster: FleetCluster = { name, labels, ready: isReady(obj), gatewayAddress: str(getPath(obj, 'status', 'gateway', 'address')), taints, pools };
  const unreadable = unreadableStatus(obj['status']);
  if (unreadable !== undefined) cluster.unreadable = unreadable;
  const unknown = unknownState(obj);
  if (unknown !== undefined) cluster.unknown = unknown;
  const health = readHealth(obj);
  if (health !== undefined) cluster.health = { state: health.state, since: health.since, message: health.message };
  if (getPath(obj, 'spec', 'drain') === true) cluster.drain = true;
  return cluster;
}

/**
 * Reads one published pool (`status.gpuPools[]`), leniently; `clusterFabric`
 * is whether the cluster's capabilities offer a multi-node fabric. Its
 * capacity ledger (`used`, ledger.ts) is read when published.
 */
export function readPool(p: JsonObject, clusterFabric: boolean): Pool {
  const devices = arr(p['devices']) as unknown as PoolDevice[];
  const nodes = typeof p['nodes'] === 'number' && p['nodes'] > 0 ? Math.floor(p['nodes']) : 0;
  const capacityType = p['capacityType'] === 'Spot' || p['capacityType'] === 'Reserved' ? p['capacityType'] : 'OnDemand';
  const pool: Pool = { name: str(p['name']), capacityType, nodes, multiNode: clusterFabric && isMultiNodeFabric(p['fabric']), devices, exclusive: p['exclusive'] === true };
  if (typeof p['className'] === 'string' && p['className'] !== '') pool.className = p['className'];
  const price = p['price'];
  if (typeof price === 'object' && price !== null && !Array.isArray(price)) {
    const micros = parsePrice((price as JsonObject)['perNodeHour']);
    const currency = (price as JsonObject)['currency'];
    if (micros !== undefined && typeof currency === 'string' && currency !== '') pool.price = { currency, micros };
  }
  const used = readLedger(p['used'], devices);
  if (used !== undefined) pool.used = used;
  return pool;
}

/** The zod schema of the status fields the scheduler reads (exported for test/scheduler/readable-status.test.ts). */
export const READ_STATUS = z.looseObject({
  // The ledger (`used`) is checked by ledgerProblem: the same shape, several times cheaper than zod's walk.
  gpuPools: z.array(InferenceClusterStatusGpuPoolSchema.extend({ used: z.unknown().optional() })).optional(),
  gateway: InferenceClusterStatusGatewaySchema.optional(),
});

/**
 * Why the published status cannot be read, or undefined: the fields the
 * scheduler reads (`status.gpuPools` with their ledgers, `status.gateway`)
 * checked against the XRD's schema of them; no status yet is readable (it
 * publishes nothing).
 */
function unreadableStatus(status: unknown): string | undefined {
  if (status === undefined) return undefined;
  // A frozen status cannot change, so its answer is kept while it lives (a
  // plan's store freezes what it stores and hands the same object to every
  // reconcile; a decoded gRPC request is never frozen and always checked).
  const frozen = typeof status === 'object' && status !== null && Object.isFrozen(status);
  if (frozen && STATUS_PROBLEMS.has(status)) return STATUS_PROBLEMS.get(status);
  const problem = checkStatus(status);
  if (frozen) STATUS_PROBLEMS.set(status, problem);
  return problem;
}

/** {@link unreadableStatus} of frozen statuses, by identity. */
const STATUS_PROBLEMS = new WeakMap<object, string | undefined>();

function checkStatus(status: unknown): string | undefined {
  if (surelyReadable(status)) {
    // what zod would accept (readable-status.ts): only the ledgers are left to check
    const pools = (status as JsonObject)['gpuPools'];
    if (!Array.isArray(pools)) return undefined;
    for (let i = 0; i < pools.length; i++) {
      const used = (pools[i] as JsonObject)['used'];
      if (used === undefined) continue;
      const problem = ledgerProblem(used);
      if (problem !== undefined) return `status.gpuPools[${i}].used${problem}`;
    }
    return undefined;
  }
  const parsed = READ_STATUS.safeParse(status);
  if (!parsed.success) return formatZodIssues('status', parsed.error);
  for (const [i, p] of (parsed.data.gpuPools ?? []).entries()) {
    if (p.used === undefined) continue;
    const problem = ledgerProblem(p.used);
    if (problem !== undefined) return `status.gpuPools[${i}].used${problem}`;
  }
  return undefined;
}

/**
 * Why the state our replicas' fate hangs on is not published, or undefined:
 * `status is not published`, `status.gpuPools is not published`, or the
 * Ready condition absent, Unknown or unreadable (lib/function.ts readCondition).
 */
function unknownState(obj: KubeObject): string | undefined {
  const status = obj['status'];
  if (status === undefined) return 'status is not published';
  if (typeof status !== 'object' || status === null || Array.isArray(status)) return undefined; // unreadable, said there
  if ((status as JsonObject)['gpuPools'] === undefined) return 'status.gpuPools is not published';
  const ready = readCondition(obj, 'Ready');
  if (ready.state === 'unreadable') return `${ready.field} ${ready.problem}`;
  if (ready.state === 'absent') return 'status.conditions has no Ready condition';
  if (ready.state === 'Unknown') return 'status.conditions says Ready Unknown';
  return undefined;
}

/** Parses a replica-index label like Python's int(): surrounding spaces and a sign allowed; otherwise 0. */
export function parseIndex(label: unknown): number {
  if (typeof label !== 'string' || !/^\s*[+-]?\d+\s*$/.test(label)) return 0;
  const n = Number.parseInt(label.trim(), 10);
  return Number.isSafeInteger(n) ? n : 0;
}

function role(v: unknown): Role {
  return v === 'Leader' || v === 'Worker' ? v : 'Standalone';
}

/**
 * Reads one ModelReplica. A member runs pods × copies pods (pods =
 * worker.nodes for a Worker with a worker block, else 1; copies default 1),
 * each claiming its stamped deviceRequests (count default 1):
 * docs/kinds/modeldeployment.md#capacity, charged in devices by capacity.ts.
 */
export function readReplica(obj: KubeObject): ObservedReplica {
  const rawLabels = getPath(obj, 'metadata', 'labels');
  const labels = (typeof rawLabels === 'object' && rawLabels !== null ? rawLabels : {}) as Record<string, unknown>;
  const engines = arr(getPath(obj, 'spec', 'engines')).map((e): ObservedEngine => {
    const copies = typeof e['copies'] === 'number' ? e['copies'] : 1;
    const members = arr(e['members']).map((m): ObservedMember => {
      const r = role(m['role']);
      const workerNodes = getPath(m, 'worker', 'nodes');
      const pods = r === 'Worker' && typeof workerNodes === 'number' ? workerNodes : 1;
      const claims = arr(m['deviceRequests']).map((q) => ({
        deviceClassName: str(q['deviceClassName']),
        count: typeof q['count'] === 'number' && q['count'] > 0 ? q['count'] : 1,
      }));
      return { role: r, nodePoolName: str(m['nodePoolName']), pods: pods * copies, claims };
    });
    return { name: str(e['name']), members };
  });
  return {
    name: str(getPath(obj, 'metadata', 'name')),
    namespace: str(getPath(obj, 'metadata', 'namespace')),
    deployment: str(labels[DEPLOYMENT_LABEL]),
    clusterName: str(getPath(obj, 'spec', 'clusterName')),
    ready: isReady(obj),
    source: obj,
    index: parseIndex(labels[LABEL_INDEX]),
    created: str(getPath(obj, 'metadata', 'creationTimestamp')),
    engines,
  };
}

/** Reads ModelReplicas, sorted by (namespace, name). */
export function readReplicas(items: readonly KubeObject[]): ObservedReplica[] {
  return items.map(readReplica).sort((a, b) => {
    const ka = `${a.namespace}/${a.name}`;
    const kb = `${b.namespace}/${b.name}`;
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
}
