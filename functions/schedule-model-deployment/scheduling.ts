/**
 * The fleet scheduler: decides on which (InferenceCluster, pool) each replica
 * of a ModelDeployment runs (model-side.md §3, spec/README.md items 4, 5, 7).
 *
 * One pure function, {@link schedule}, recomputed from scratch on every call
 * and run as named phases:
 *   1. compile selectors: every CEL selector, before anything else; any
 *      failure ends the call as invalid input (nothing is decided);
 *   2. retain: this deployment's existing replicas that still fit where they
 *      are keep their (cluster, index) identity and pools;
 *   3. build the capacity ledger: free nodes per pool after every replica
 *      that holds nodes (other deployments', and ours that were retained);
 *   4. fill: the missing replicas, one at a time, each on the eligible
 *      cluster with the fewest replicas of this deployment (spread; ties by
 *      cluster name) where the whole replica fits;
 *   5. scale down: surplus retained replicas go, most-loaded cluster first
 *      (ties: later cluster name, then highest index).
 * Phases 3-4 run only when fewer replicas were retained than desired, phase 5
 * only when more were.
 *
 * Invariants (checked by the property tests in test/scheduler/):
 * - Never overcommits: a new replica goes only where every pool it uses has
 *   enough free nodes after all charged replicas and earlier placements.
 * - One pool per engine, all engines of a replica on one cluster.
 * - Deterministic and order-free: clusters are sorted by name and replicas by
 *   (namespace, name) before any decision, so the same state in any input
 *   order gives the same output.
 * - Idempotent: scheduling again with the output as the existing replicas
 *   changes nothing.
 * - Stable: a retained replica keeps its cluster, index and pools; a replica
 *   moves only by being dropped (cluster gone or not selected, pool gone or
 *   no longer matching, untolerated NoExecute taint, a changed engine shape,
 *   scale-down) and re-placed by fill.
 * - Garbage is not change: a replica whose cluster publishes a status that
 *   cannot be read (the XRD's schema rejects it), or whose pool publishes a
 *   device that cannot be converted (a capacity that is no quantity, a
 *   version that is no semver), is held as it is (`held`, counted like any
 *   retained replica) instead of being dropped; such a cluster takes no new
 *   replica, refused with the reason.
 * - Ownership is (namespace, label modelplane.ai/deployment): a same-named
 *   deployment in another namespace is "another deployment" (README item 4).
 * - Costs: a member that claims devices costs pods × copies nodes, a claimless
 *   member nothing. CEL runs once per (class, request) per call.
 *
 * Deliberate divergences from the reference scheduler, all from
 * spec/README.md: ownership includes the namespace (item 4); refusals are
 * explained per cluster (item 5); gangs need a pool with a multi-node fabric,
 * both when placed and when retained (item 7). New placement picks the same
 * cluster as the reference's "try every cluster, take the minimum (load,
 * name)" but visits clusters lazily in that order: a cluster that cannot take
 * a replica now cannot later in the same call (its free nodes only shrink),
 * so each cluster is tried O(1 + replicas placed on it) times.
 */
import type { DeploymentSpec } from './deployment.js';
import type { Fleet } from './fleet.js';
import { buildLedger } from './ledger.js';
import type { DeviceMatcher } from './matcher.js';
import { type CompiledEngine, compileEngines, MatchTable, type SelectorError } from './matching.js';
import type { Candidate, EnginePlacement, FleetCluster, MemberPlacement, ObservedReplica } from './model.js';
import { toCelDevice } from '../lib/cel/index.js';
import { placeReplica, type Reason, ReasonKind, REASON_NO_GATEWAY, REASON_NOT_READY } from './placement.js';
import { formatTaint, untolerated } from './taints.js';

/** Everything one scheduling call reads. */
export interface ScheduleInput {
  deployment: DeploymentSpec;
  fleet: Fleet;
  /** ModelReplicas of every deployment in every namespace. */
  replicas: readonly ObservedReplica[];
  /** False: retain (and scale down) only; used while the ModelCache is unresolved. */
  fill: boolean;
  matcher: DeviceMatcher;
}

/** What one scheduling call decided. */
export type ScheduleOutcome =
  | { kind: 'invalid'; errors: SelectorError[] }
  | {
      kind: 'scheduled';
      /** Placed replicas, sorted by (cluster, index). */
      candidates: Candidate[];
      /** Why each cluster took no (further) replica, by cluster name; complete when fill ran short. */
      refusals: Map<string, Reason>;
    };

/** Identity key of a replica: (cluster, index). */
function identity(cluster: string, index: number): string {
  return `${cluster}\u0000${index}`;
}

/** Runs the five phases. Never throws on user input. */
export function schedule(input: ScheduleInput): ScheduleOutcome {
  const { deployment: d, fleet, replicas } = input;
  // Phase 1: compile selectors.
  const compiled = compileEngines(d.engines, input.matcher);
  if (!compiled.ok) return { kind: 'invalid', errors: compiled.errors };
  const table = new MatchTable(input.matcher);
  const owns = (r: ObservedReplica) => r.namespace === d.namespace && r.deployment === d.name;

  // Phase 2: retain.
  const byName = new Map(fleet.clusters.map((c) => [c.name, c]));
  const retained = retain(compiled.engines, byName, replicas.filter(owns), d, table);

  const refusals = new Map<string, Reason>();
  let placed: Candidate[] = [];
  if (input.fill && retained.length < d.replicas) {
    // Phase 3: the capacity ledger.
    // Charged by identity, as the reference does: a stale duplicate of a retained
    // identity still holds its nodes until it is gone (conservative).
    const kept = new Set(retained.map((s) => identity(s.candidate.cluster, s.candidate.index)));
    const ledger = buildLedger(fleet.clusters, replicas, (r) => !owns(r) || kept.has(identity(r.clusterName, r.index)));
    // Phase 4: fill.
    placed = fill(compiled.engines, fleet.clusters, retained, d, ledger, table, refusals);
  }
  // Phase 5: scale down.
  const survivors = scaleDown(retained, d.replicas);
  const candidates = [...survivors.map((s) => s.candidate), ...placed].sort((a, b) =>
    a.cluster < b.cluster ? -1 : a.cluster > b.cluster ? 1 : a.index - b.index,
  );
  return { kind: 'scheduled', candidates, refusals };
}

interface Retained {
  candidate: Candidate;
  replica: ObservedReplica;
}

/** Phase 2 (model-side.md §3.3): keeps our replicas that still fit where they are. */
function retain(
  engines: readonly CompiledEngine[],
  clusters: ReadonlyMap<string, FleetCluster>,
  ours: readonly ObservedReplica[],
  d: DeploymentSpec,
  table: MatchTable,
): Retained[] {
  const seen = new Set<string>();
  const out: Retained[] = [];
  for (const r of ours) {
    const cluster = clusters.get(r.clusterName);
    if (cluster === undefined) continue;
    const id = identity(cluster.name, r.index);
    if (seen.has(id)) continue;
    if (untolerated(cluster.taints, d.tolerations).some((t) => t.effect === 'NoExecute')) continue;
    const garbage = cluster.unreadable;
    const placements = garbage === undefined ? reResolve(engines, cluster, r, table) : undefined;
    if (placements === undefined) {
      const why = garbage ?? unconvertibleDevice(cluster, r);
      if (why !== undefined) {
        seen.add(id);
        out.push({ replica: r, candidate: heldCandidate(cluster, r, why) });
      }
      continue;
    }
    seen.add(id);
    out.push({
      replica: r,
      candidate: { cluster: cluster.name, index: r.index, gatewayAddress: cluster.gatewayAddress, engines: placements, retained: true },
    });
  }
  return out;
}

/** A replica kept as observed: its engines and pools as stamped, no requests resolved. */
function heldCandidate(cluster: FleetCluster, r: ObservedReplica, why: string): Candidate {
  return {
    cluster: cluster.name,
    index: r.index,
    gatewayAddress: cluster.gatewayAddress,
    engines: r.engines.map((e) => ({ name: e.name, members: e.members.map((m) => ({ role: m.role, pool: m.nodePoolName, requests: [] })) })),
    retained: true,
    held: why,
  };
}

/** The first device of the replica's pools that cannot be converted for CEL, as `<pool> devices[i]: <error>`. */
function unconvertibleDevice(cluster: FleetCluster, r: ObservedReplica): string | undefined {
  for (const e of r.engines) {
    for (const m of e.members) {
      const pool = cluster.pools.find((p) => p.name === m.nodePoolName);
      if (pool === undefined) continue;
      for (const [i, device] of pool.devices.entries()) {
        const d = toCelDevice(device as unknown as Parameters<typeof toCelDevice>[0]);
        if (d.kind === 'DeviceError') return `status.gpuPools ${pool.name} devices[${i}]: ${d.message}`;
      }
    }
  }
  return undefined;
}

/**
 * Re-resolves an existing replica's pinned pools with the deployment's current
 * requests; undefined when the replica no longer fits where it is.
 */
function reResolve(
  engines: readonly CompiledEngine[],
  cluster: FleetCluster,
  r: ObservedReplica,
  table: MatchTable,
): EnginePlacement[] | undefined {
  if (r.engines.length !== engines.length) return undefined;
  const out: EnginePlacement[] = [];
  for (const observed of r.engines) {
    const engine = engines.find((e) => e.spec.name === observed.name);
    if (engine === undefined || observed.members.length !== engine.members.length) return undefined;
    const members: MemberPlacement[] = [];
    let claims = false;
    for (let i = 0; i < engine.members.length; i++) {
      const want = engine.members[i]!;
      const om = observed.members[i]!;
      if (om.role !== want.spec.role || om.nodePoolName === '') return undefined;
      const pool = cluster.pools.find((p) => p.name === om.nodePoolName);
      if (pool === undefined || (engine.spec.gang && !pool.multiNode)) return undefined;
      const m = table.member(pool, want);
      if (!m.ok) return undefined;
      if (m.requests.length > 0) claims = true;
      members.push({ role: want.spec.role, pool: pool.name, requests: m.requests });
    }
    if (!claims) return undefined;
    out.push({ name: engine.spec.name, members });
  }
  return out;
}

/**
 * Phase 5 (model-side.md §3.9): while there are more than `desired`, removes
 * the replica with the largest (load of its cluster, cluster name, index).
 */
function scaleDown(retained: readonly Retained[], desired: number): Retained[] {
  const out = [...retained];
  while (out.length > desired) {
    const load = new Map<string, number>();
    for (const s of out) load.set(s.candidate.cluster, (load.get(s.candidate.cluster) ?? 0) + 1);
    let victim = 0;
    for (let i = 1; i < out.length; i++) {
      const a = out[i]!.candidate;
      const b = out[victim]!.candidate;
      const la = load.get(a.cluster)!;
      const lb = load.get(b.cluster)!;
      if (la > lb || (la === lb && (a.cluster > b.cluster || (a.cluster === b.cluster && a.index > b.index)))) victim = i;
    }
    out.splice(victim, 1);
  }
  return out;
}

/** A cluster in the fill queue, keyed by (load, name). */
interface Entry {
  cluster: FleetCluster;
  load: number;
}

function before(a: Entry, b: Entry): boolean {
  return a.load < b.load || (a.load === b.load && a.cluster.name < b.cluster.name);
}

/** Why a cluster cannot take any new replica before capacity is considered, or undefined. */
function ineligible(c: FleetCluster, d: DeploymentSpec): Reason | undefined {
  if (c.unreadable !== undefined) return { kind: ReasonKind.NotReady, text: `status unreadable (${c.unreadable})` };
  if (!c.ready) return { kind: ReasonKind.NotReady, text: REASON_NOT_READY };
  if (c.gatewayAddress === '') return { kind: ReasonKind.NoGateway, text: REASON_NO_GATEWAY };
  const taint = untolerated(c.taints, d.tolerations)[0];
  if (taint !== undefined) return { kind: ReasonKind.Taint, text: `untolerated taint ${formatTaint(taint)}` };
  return undefined;
}

/** Phase 4 (model-side.md §3.5): places the missing replicas, spreading across clusters. */
function fill(
  engines: readonly CompiledEngine[],
  clusters: readonly FleetCluster[],
  survivors: readonly Retained[],
  d: DeploymentSpec,
  ledger: Map<string, number[]>,
  table: MatchTable,
  refusals: Map<string, Reason>,
): Candidate[] {
  const load = new Map<string, number>();
  const used = new Map<string, Set<number>>();
  for (const s of survivors) {
    const c = s.candidate.cluster;
    load.set(c, (load.get(c) ?? 0) + 1);
    indexesOf(used, c).add(s.candidate.index);
  }
  const heap = new MinHeap<Entry>(before);
  for (const c of clusters) {
    const why = ineligible(c, d);
    if (why !== undefined) refusals.set(c.name, why);
    else heap.push({ cluster: c, load: load.get(c.name) ?? 0 });
  }
  const placed: Candidate[] = [];
  const need = d.replicas - survivors.length;
  while (placed.length < need) {
    const entry = heap.pop();
    if (entry === undefined) break;
    const c = entry.cluster;
    const free = ledger.get(c.name)!;
    const fit = placeReplica(engines, c, free, table);
    if (!fit.ok) {
      refusals.set(c.name, fit.reason);
      continue;
    }
    const u = indexesOf(used, c.name);
    let index = 0;
    while (u.has(index)) index++;
    u.add(index);
    for (const [pi, cost] of fit.charges) free[pi]! -= cost;
    placed.push({ cluster: c.name, index, gatewayAddress: c.gatewayAddress, engines: fit.engines, retained: false });
    heap.push({ cluster: c, load: entry.load + 1 });
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
  readonly #items: T[] = [];
  constructor(private readonly less: (a: T, b: T) => boolean) {}

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
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && this.less(a[l]!, a[m]!)) m = l;
        if (r < a.length && this.less(a[r]!, a[m]!)) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m]!, a[i]!];
        i = m;
      }
    }
    return top;
  }
}
