/**
 * Placing one replica on one cluster (model-side.md §3.6), and the reason a
 * cluster refuses it.
 *
 * Guarantees:
 * - One pool per engine: every member of an engine lands on the same pool;
 *   engines are placed greedily in deployment order on a trial copy of the
 *   cluster's free nodes, so a replica either fits whole or not at all, and
 *   never overcommits a pool (trial free never goes below 0).
 * - A member that can claim DRA devices somewhere on the cluster is never
 *   placed on a pool where it would only match Synthetic ones; an engine no
 *   member of which can claim anything on the cluster is refused.
 * - A Leader + Worker gang is refused on a pool without a multi-node fabric
 *   (spec/README.md item 7; the fabric is read from the cluster's published
 *   capabilities, fleet.ts).
 * - A refusal carries an ordered {@link Reason}: the pool closest to fitting
 *   explains it (insufficient nodes, then missing fabric, then no match).
 * Units: costs and free counts are nodes.
 */
import type { CompiledEngine, MatchTable } from './matching.js';
import type { EnginePlacement, FleetCluster, MemberPlacement, Pool } from './model.js';

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

/** `pool <name> has no multi-node fabric` (spec/README.md item 7). */
export function noFabric(pool: string): string {
  return `pool ${pool} has no multi-node fabric`;
}

/** `insufficient nodes in pool <pool> (needs <n>, <f> free)`. */
export function insufficient(pool: string, needs: number, free: number): string {
  return `insufficient nodes in pool ${pool} (needs ${needs}, ${Math.max(0, free)} free)`;
}

/** `no pool matches engine "<engine>" (<details>)`. */
export function noMatch(engine: string, details: string): string {
  return `no pool matches engine "${engine}" (${details})`;
}

/** A replica placed on a cluster: engine placements and the nodes it takes per pool index. */
export interface ReplicaFit {
  ok: true;
  engines: EnginePlacement[];
  /** [pool index, nodes] pairs, in placement order. */
  charges: [number, number][];
}

/** Places a whole replica on `cluster` against `free` (per pool index; not modified). */
export function placeReplica(
  engines: readonly CompiledEngine[],
  cluster: FleetCluster,
  free: readonly number[],
  table: MatchTable,
): ReplicaFit | { ok: false; reason: Reason } {
  const trial = [...free];
  const placed: EnginePlacement[] = [];
  const charges: [number, number][] = [];
  for (const engine of engines) {
    const fit = placeEngine(engine, cluster, trial, table);
    if (!fit.ok) return fit;
    trial[fit.pool]! -= fit.cost;
    charges.push([fit.pool, fit.cost]);
    placed.push({ name: engine.spec.name, members: fit.members });
  }
  return { ok: true, engines: placed, charges };
}

type EngineFit = { ok: true; pool: number; cost: number; members: MemberPlacement[] } | { ok: false; reason: Reason };

/** Places one engine on one pool of `cluster` (model-side.md §3.6b). */
export function placeEngine(engine: CompiledEngine, cluster: FleetCluster, trial: readonly number[], table: MatchTable): EngineFit {
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
    const members: MemberPlacement[] = [];
    let cost = 0;
    let detail: string | undefined;
    engine.members.forEach((m, mi) => {
      if (detail !== undefined) return;
      const r = table.member(pool, m);
      if (!r.ok) detail = multi ? `${m.spec.role} ${r.detail}` : r.detail;
      else if (claimable[mi] && r.requests.length === 0) detail = `${m.spec.role}: ${DETAIL_SYNTHETIC_ONLY} on pool ${pool.name}`;
      else {
        members.push({ role: m.spec.role, pool: pool.name, requests: r.requests });
        if (r.requests.length > 0) cost += m.spec.nodes;
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
    const free = trial[pi]!;
    if (free < cost) {
      if (best === undefined || best.kind !== ReasonKind.Insufficient) {
        best = { kind: ReasonKind.Insufficient, text: insufficient(pool.name, cost, free) };
      }
      continue;
    }
    return { ok: true, pool: pi, cost, members };
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
