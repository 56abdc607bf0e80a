/**
 * Phase 6 of the fleet scheduler (scheduling.ts; docs/kinds/modeldeployment.md#placing-new-replicas): placing
 * the missing replicas, one at a time, under the placement policy
 * (docs/placement-policy.md).
 *
 * Guarantees:
 * - Order: the best tier first (a tier takes a replica only when every
 *   better tier has no room for it: overflow), then inside the tier the
 *   cluster with the fewest replicas of this deployment (spread; ties by
 *   name), or with `optimize: Cost` the cheapest price per node hour of the
 *   tier's pools there first (unpriced last), then spread. Without tiers
 *   every pool is in one tier: spread, as before policy.
 * - A replica is placed on the pools of one tier of one cluster, whole or
 *   not at all (placement.ts), never overcommitting.
 * - The on-demand floor: while fewer than `minOnDemand` replicas run on
 *   non-Spot pools, a new replica may use only non-Spot pools; one that
 *   fits nowhere else is not put on Spot (the deployment stays short and
 *   says why).
 * - Quotas (quota-budget.ts): a replica that fits is placed only if every
 *   InferenceQuota of the namespace admits it, else its charge is undone
 *   and the cluster refuses it with the quota's message.
 * - `belowTier`: only tiers better than it take a replica (a drain-back
 *   replacement never lands where its replica already is).
 * - Lazy: a (cluster, tier) that cannot take a replica now cannot later in
 *   the same pass (its free capacity only shrinks), so each is tried
 *   O(1 + replicas placed on it) times; the heap holds clusters × tiers
 *   entries at most.
 */
import type { Capacity } from '../lib/fleet/capacity.js';
import type { DeploymentSpec } from './deployment.js';
import { unpublishedLedger } from '../lib/fleet/ledger.js';
import type { CompiledEngine, MatchTable } from './matching.js';
import type { Candidate, FleetCluster, Pool } from '../lib/fleet/model.js';
import { placeReplica, type Reason, ReasonKind, REASON_NO_GATEWAY, REASON_NOT_READY } from './placement.js';
import { msgFloorRefusal, poolTiers, REASON_NO_TIER } from './policy.js';
import { reachable } from '../lib/health.js';
import type { QuotaBudget } from './quota-budget.js';
import { formatTaint, untolerated } from './taints.js';

/**
 * `capacity of pool <pool> not published yet (status.gpuPools[].used)`: the
 * cluster has not read its replicas yet, so what others hold there is
 * unknown; it takes no new replica until it publishes (ledger.ts).
 */
export function msgNoLedger(pool: string): string {
  return `capacity of pool ${pool} not published yet (status.gpuPools[].used)`;
}

/** Why a cluster cannot take any new replica before capacity is considered, or undefined. */
export function ineligible(c: FleetCluster, d: DeploymentSpec): Reason | undefined {
  if (c.unreadable !== undefined) return { kind: ReasonKind.NotReady, text: `status unreadable (${c.unreadable})` };
  if (c.drain === true) return { kind: ReasonKind.Taint, text: 'drained (spec.drain)' };
  // A cluster the control plane cannot see takes nothing; Provisioning and Degraded are judged by Ready below.
  if (c.health !== undefined && !reachable(c.health.state)) {
    return { kind: ReasonKind.NotReady, text: `health ${c.health.state} since ${c.health.since}` };
  }
  if (!c.ready) return { kind: ReasonKind.NotReady, text: REASON_NOT_READY };
  if (c.gatewayAddress === '') return { kind: ReasonKind.NoGateway, text: REASON_NO_GATEWAY };
  const unpublished = unpublishedLedger(c);
  if (unpublished !== undefined) return { kind: ReasonKind.NotReady, text: msgNoLedger(unpublished) };
  const taint = untolerated(c.taints, d.tolerations)[0];
  if (taint !== undefined) return { kind: ReasonKind.Taint, text: `untolerated taint ${formatTaint(taint)}` };
  return undefined;
}

/** What one fill reads. */
export interface FillInput {
  engines: readonly CompiledEngine[];
  clusters: readonly FleetCluster[];
  /** Replicas that stay and count for spread (their cluster and index). */
  survivors: readonly Candidate[];
  /** Replicas kept while they are replaced: their indexes are taken, they do not count for spread. */
  retiring: readonly Candidate[];
  /** Replicas to place. */
  need: number;
  d: DeploymentSpec;
  /** Free capacity, charged by each placement. */
  capacity: Capacity;
  table: MatchTable;
  /** Filled with why each cluster took no (further) replica. */
  refusals: Map<string, Reason>;
  admits?: ((cluster: FleetCluster) => Reason | undefined) | undefined;
  /** Of `need`, how many must go on non-Spot pools (the on-demand floor), placed first. */
  nonSpot: number;
  /** Only tiers below this index take a replica; undefined: every tier. */
  belowTier?: number | undefined;
  /** The namespace's InferenceQuotas (quota-budget.ts): each new replica is admitted and charged. */
  quota?: QuotaBudget | undefined;
}

/** A (cluster, tier) in the fill queue. */
interface Entry {
  /** The cluster's index in the eligible list. */
  ci: number;
  cluster: FleetCluster;
  tier: number;
  /** Cheapest price per node hour of the tier's allowed pools there (micro-units), for `optimize: Cost`. */
  price: number;
  load: number;
}

/** Places up to `need` new replicas (see the module's guarantees); returns them in placement order. */
export function fill(input: FillInput): Candidate[] {
  const { d, clusters, refusals } = input;
  const policy = d.policy;
  const load = new Map<string, number>();
  const used = new Map<string, Set<number>>();
  for (const s of input.survivors) {
    load.set(s.cluster, (load.get(s.cluster) ?? 0) + 1);
    indexesOf(used, s.cluster).add(s.index);
  }
  for (const s of input.retiring) indexesOf(used, s.cluster).add(s.index);
  const cost = policy.optimize === 'Cost';
  const before = (a: Entry, b: Entry): boolean => {
    if (a.tier !== b.tier) return a.tier < b.tier;
    if (cost && a.price !== b.price) return a.price < b.price;
    return a.load < b.load || (a.load === b.load && a.cluster.name < b.cluster.name);
  };
  const eligible: FleetCluster[] = [];
  for (const c of clusters) {
    const why = ineligible(c, d) ?? input.admits?.(c);
    if (why !== undefined) refusals.set(c.name, why);
    else eligible.push(c);
  }
  // Each eligible cluster's pools' tiers and its tiers, once for both passes.
  const poolTiersOf = eligible.map((c) => poolTiers(policy, c));
  const tierCount = Math.max(1, policy.tiers.length);
  const tiersOf = poolTiersOf.map((pt) => {
    const tiers: number[] = [];
    for (let t = 0; t < tierCount && (input.belowTier === undefined || t < input.belowTier); t++) if (pt.includes(t)) tiers.push(t);
    return tiers;
  });
  const placed: Candidate[] = [];
  const floor = Math.min(input.need, Math.max(0, input.nonSpot));
  // When the floor pass fell short, its refusals say why; the Spot pass does not overwrite them.
  let floorShort = false;
  const refuse = (name: string, why: Reason) => {
    if (!floorShort || !refusals.has(name)) refusals.set(name, why);
  };
  for (const pass of floor > 0 ? [{ count: floor, nonSpot: true }, { count: input.need - floor, nonSpot: false }] : [{ count: input.need, nonSpot: false }]) {
    const allowed = (pool: Pool, tier: number | undefined, t: number) => tier === t && !(pass.nonSpot && pool.capacityType === 'Spot');
    const entries: Entry[] = [];
    for (const [ci, c] of eligible.entries()) {
      const tiers = tiersOf[ci]!;
      if (tiers.length === 0) {
        refuse(c.name, { kind: ReasonKind.NoMatch, text: REASON_NO_TIER });
        continue;
      }
      const pt = poolTiersOf[ci]!;
      let pushed = false;
      for (const t of tiers) {
        // The cheapest price per node hour of the tier's allowed pools (Infinity: none priced).
        let any = false;
        let price = Number.POSITIVE_INFINITY;
        for (let pi = 0; pi < c.pools.length; pi++) {
          const p = c.pools[pi]!;
          if (!allowed(p, pt[pi], t)) continue;
          any = true;
          if (p.price !== undefined && p.price.micros < price) price = p.price.micros;
        }
        if (!any && c.pools.length > 0) continue;
        entries.push({ ci, cluster: c, tier: t, price, load: load.get(c.name) ?? 0 });
        pushed = true;
      }
      if (!pushed) refuse(c.name, { kind: ReasonKind.NoMatch, text: pass.nonSpot ? msgFloorRefusal(policy.minOnDemand) : REASON_NO_TIER });
    }
    const heap = new MinHeap<Entry>(before, entries);
    let n = 0;
    while (n < pass.count) {
      const entry = heap.pop();
      if (entry === undefined) break;
      const c = entry.cluster;
      const current = load.get(c.name) ?? 0;
      if (entry.load !== current) {
        // Stale: the cluster took a replica through another of its tiers since this entry was queued.
        heap.push({ ...entry, load: current });
        continue;
      }
      const pt = poolTiersOf[entry.ci]!;
      const filter = policy.tiers.length === 0 && !pass.nonSpot ? undefined : (p: Pool) => allowed(p, pt[c.pools.indexOf(p)], entry.tier);
      const fit = placeReplica(input.engines, c, input.capacity.get(c.name)!, input.table, filter);
      const refused = fit.ok ? input.quota?.admit(c, fit.engines, d) : fit.reason;
      if (refused !== undefined) {
        // Refused by a quota after it fit: its capacity is handed back.
        if (fit.ok) for (let i = fit.charges.length - 1; i >= 0; i--) fit.charges[i]!.pool.undo(fit.charges[i]!);
        const tier = policy.tiers[entry.tier];
        refuse(c.name, tier === undefined ? refused : { kind: refused.kind, text: `tier ${tier.name}: ${refused.text}` });
        continue;
      }
      if (!fit.ok) continue;
      const u = indexesOf(used, c.name);
      let index = 0;
      while (u.has(index)) index++;
      u.add(index);
      const candidate: Candidate = { cluster: c.name, index, gatewayAddress: c.gatewayAddress, engines: fit.engines, retained: false, role: 'current', ready: false };
      if (policy.tiers.length > 0) candidate.tier = entry.tier;
      placed.push(candidate);
      n++;
      load.set(c.name, current + 1);
      heap.push({ ...entry, load: current + 1 });
    }
    if (pass.nonSpot && n < pass.count) {
      // Short of the floor: a cluster with Spot room in a tier is refused for the floor, which is why.
      floorShort = true;
      for (const [ci, c] of eligible.entries()) {
        if (c.pools.some((p, pi) => p.capacityType === 'Spot' && poolTiersOf[ci]![pi] !== undefined)) {
          refusals.set(c.name, { kind: ReasonKind.NoMatch, text: msgFloorRefusal(policy.minOnDemand) });
        }
      }
    }
  }
  return placed;
}

/** The set of indexes used on `cluster`, created empty on first use. */
function indexesOf(used: Map<string, Set<number>>, cluster: string): Set<number> {
  let u = used.get(cluster);
  if (u === undefined) {
    u = new Set();
    used.set(cluster, u);
  }
  return u;
}

/** A binary min-heap under a strict "comes before" order. */
class MinHeap<T> {
  readonly #items: T[];
  /** A heap of `items` (taken, not copied), built bottom-up in O(n). */
  constructor(
    private readonly less: (a: T, b: T) => boolean,
    items: T[] = [],
  ) {
    this.#items = items;
    for (let i = (items.length >> 1) - 1; i >= 0; i--) this.#down(i);
  }

  push(item: T): void {
    const a = this.#items;
    a.push(item);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(a[i]!, a[parent]!)) break;
      [a[i], a[parent]] = [a[parent]!, a[i]!];
      i = parent;
    }
  }

  pop(): T | undefined {
    const a = this.#items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last !== undefined) {
      a[0] = last;
      this.#down(0);
    }
    return top;
  }

  /** Sifts the item at `i` down to its place. */
  #down(i: number): void {
    const a = this.#items;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < a.length && this.less(a[l]!, a[m]!)) m = l;
      if (r < a.length && this.less(a[r]!, a[m]!)) m = r;
      if (m === i) return;
      [a[i], a[m]] = [a[m]!, a[i]!];
      i = m;
    }
  }
}
