/**
 * Placing one replica on one cluster (docs/kinds/modeldeployment.md#placing-a-replica-on-one-cluster), and the reason a
 * cluster refuses it.
 *
 * Guarantees:
 * - One pool per engine: every member of an engine lands on the same pool;
 *   engines are placed greedily in deployment order, each charging the
 *   pool's capacity (capacity.ts) all-or-nothing; a replica either fits whole
 *   (charged) or not at all (every charge undone), and never overcommits a pool.
 * - A member that can claim DRA devices somewhere on the cluster is never
 *   placed on a pool where it would only match Synthetic ones; an engine no
 *   member of which can claim anything on the cluster is refused.
 * - A Leader + Worker gang is refused on a pool without a multi-node fabric
 *   (docs/design.md#multi-node-needs-a-fabric; the fabric is read from the cluster's published
 *   capabilities, fleet.ts).
 * - A refusal carries an ordered {@link Reason}: the pool closest to fitting
 *   explains it (insufficient capacity, then missing fabric, then no match);
 *   capacity refusals name the device short on one node
 *   (`pool gpu-h100: needs 2 gpu on one node, 1 free`) or, for whole-node
 *   pods, the nodes.
 * - A policy filter (`allow`, fill.ts) limits the pools tried: a replica is
 *   placed inside one placement tier (docs/placement-policy.md).
 * Units: devices per node, and nodes for whole-node pods.
 */
import { type Charge, msgNodesShort, type PodDemand, type PoolCapacity } from '../lib/fleet/capacity.js';
import type { CompiledEngine, MatchTable } from './matching.js';
import type { EnginePlacement, FleetCluster, MemberPlacement, Pool, ResolvedRequest } from '../lib/fleet/model.js';

/**
 * Why a cluster took no replica, ordered so that sorting by kind lists the
 * most fundamental refusals first.
 */
export enum ReasonKind {
  NoMatch = 0,
  NoFabric = 1,
  Insufficient = 2,
  Taint = 3,
  NotReady = 4,
  NoGateway = 5,
  /** The deployment's ModelCache is not staged there (cache.ts). */
  Cache = 6,
  /** An InferenceQuota of the namespace refuses it (quota-budget.ts, docs/quotas.md). */
  Quota = 7,
}

/** A cluster's refusal: its kind and its text for the ReplicasScheduled message. */
export interface Reason {
  kind: ReasonKind;
  text: string;
}

/** Message formats of refusals (constants; `%` fields filled by the helpers below). */
export const REASON_NOT_READY = 'not Ready';
export const REASON_NO_GATEWAY = 'no gateway address';
export const REASON_NO_POOLS = 'no GPU pools published';
export const DETAIL_SYNTHETIC_ONLY = 'only Synthetic devices match';

/** `pool <name> has no multi-node fabric` (docs/design.md#multi-node-needs-a-fabric). */
export function noFabric(pool: string): string {
  return `pool ${pool} has no multi-node fabric`;
}

/** `insufficient nodes in pool <pool> (needs <n>, <f> free)`: whole-node pods (capacity.ts). */
export const insufficient = msgNodesShort;

/** `no pool matches engine "<engine>" (<details>)`. */
export function noMatch(engine: string, details: string): string {
  return `no pool matches engine "${engine}" (${details})`;
}

/** A replica placed on a cluster: engine placements and the capacity charged for them. */
export interface ReplicaFit {
  ok: true;
  engines: EnginePlacement[];
  /** The charges made, in placement order (already applied to the cluster's capacity). */
  charges: Charge[];
}

/**
 * The demand of one pod of a member placed with `requests`: DRA requests
 * merged per device (two requests on one device need their sum on one node).
 */
export function podDemand(requests: readonly ResolvedRequest[], whole: boolean): PodDemand {
  const by = new Map<number, number>();
  for (const r of requests) by.set(r.device, (by.get(r.device) ?? 0) + r.count);
  return { devices: [...by.entries()].sort((a, b) => a[0] - b[0]), whole };
}

/**
 * Places a whole replica on `cluster`: on success the capacity `caps` (per
 * pool index) is charged; on failure it is left exactly as it was.
 */
export function placeReplica(
  engines: readonly CompiledEngine[],
  cluster: FleetCluster,
  caps: readonly PoolCapacity[],
  table: MatchTable,
  allow?: (pool: Pool) => boolean,
): ReplicaFit | { ok: false; reason: Reason } {
  const placed: EnginePlacement[] = [];
  const charges: Charge[] = [];
  for (const engine of engines) {
    const fit = placeEngine(engine, cluster, caps, table, allow);
    if (!fit.ok) {
      for (let i = charges.length - 1; i >= 0; i--) charges[i]!.pool.undo(charges[i]!);
      return fit;
    }
    charges.push(fit.charge);
    placed.push({ name: engine.spec.name, members: fit.members });
  }
  return { ok: true, engines: placed, charges };
}

type EngineFit = { ok: true; pool: number; charge: Charge; members: MemberPlacement[] } | { ok: false; reason: Reason };

/**
 * Places one engine on one pool of `cluster`, charging `caps` on success
 * (docs/kinds/modeldeployment.md#placing-a-replica-on-one-cluster). `allow`, when given, is the placement policy's pool
 * filter (fill.ts): other pools are not tried.
 */
export function placeEngine(engine: CompiledEngine, cluster: FleetCluster, caps: readonly PoolCapacity[], table: MatchTable, allow?: (pool: Pool) => boolean): EngineFit {
  const name = engine.spec.name;
  if (cluster.pools.length === 0) return { ok: false, reason: { kind: ReasonKind.NoMatch, text: noMatch(name, REASON_NO_POOLS) } };
  const multi = engine.members.length > 1;
  const claimable = engine.members.map((m) =>
    cluster.pools.some((p) => {
      const r = table.member(p, m);
      return r.ok && r.requests.length > 0;
    }),
  );
  if (!claimable.some(Boolean)) {
    const details = new Set<string>();
    for (const p of cluster.pools) {
      const failed = firstFailure(engine, p, table, multi);
      details.add(failed ?? DETAIL_SYNTHETIC_ONLY);
    }
    return { ok: false, reason: { kind: ReasonKind.NoMatch, text: noMatch(name, [...details].sort().join('; ')) } };
  }
  let best: Reason | undefined;
  const details = new Set<string>();
  for (let pi = 0; pi < cluster.pools.length; pi++) {
    const pool = cluster.pools[pi]!;
    if (allow !== undefined && !allow(pool)) continue;
    const members: MemberPlacement[] = [];
    const pods: PodDemand[] = [];
    let detail: string | undefined;
    engine.members.forEach((m, mi) => {
      if (detail !== undefined) return;
      const r = table.member(pool, m);
      if (!r.ok) detail = multi ? `${m.spec.role} ${r.detail}` : r.detail;
      else if (claimable[mi] && r.requests.length === 0) detail = `${m.spec.role}: ${DETAIL_SYNTHETIC_ONLY} on pool ${pool.name}`;
      else {
        members.push({ role: m.spec.role, pool: pool.name, requests: r.requests });
        if (r.requests.length > 0) {
          const d = podDemand(r.requests, engine.spec.gang || pool.exclusive);
          for (let k = 0; k < m.spec.nodes; k++) pods.push(d);
        }
      }
    });
    if (detail !== undefined) {
      details.add(detail);
      continue;
    }
    if (engine.spec.gang && !pool.multiNode) {
      if (best === undefined) best = { kind: ReasonKind.NoFabric, text: noFabric(pool.name) };
      continue;
    }
    const cap = caps[pi]!;
    const charge = cap.place(pods);
    if (charge === undefined) {
      if (best === undefined || best.kind !== ReasonKind.Insufficient) {
        best = { kind: ReasonKind.Insufficient, text: cap.why(pods) };
      }
      continue;
    }
    return { ok: true, pool: pi, charge, members };
  }
  return { ok: false, reason: best ?? { kind: ReasonKind.NoMatch, text: noMatch(name, [...details].sort().join('; ')) } };
}

function firstFailure(engine: CompiledEngine, pool: Pool, table: MatchTable, multi: boolean): string | undefined {
  for (const m of engine.members) {
    const r = table.member(pool, m);
    if (!r.ok) return multi ? `${m.spec.role} ${r.detail}` : r.detail;
  }
  return undefined;
}
