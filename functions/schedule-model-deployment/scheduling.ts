/**
 * The fleet scheduler: decides on which (InferenceCluster, pool) each replica
 * of a ModelDeployment runs (docs/kinds/modeldeployment.md#scheduling; docs/design.md#namespaces-are-identity,
 * docs/design.md#explained-placement, docs/design.md#multi-node-needs-a-fabric,
 * docs/design.md#make-before-break, docs/design.md#devices-not-nodes).
 *
 * One pure function, {@link schedule}, recomputed from scratch on every call
 * and run as named phases:
 *   1. compile selectors: every CEL selector, before anything else; any
 *      failure ends the call as invalid input (nothing is decided);
 *   2. classify: this deployment's existing replicas that still fit where
 *      they are stay `current` with their (cluster, index) identity and
 *      pools; one that must move (changed engine shape, a pool gone or no
 *      longer matching, an untolerated NoExecute taint) on a cluster that is
 *      present and Ready is `retiring` (kept at its previous spec); one whose
 *      cluster is gone (deleted or no longer selected) goes, as does one on
 *      a not-Ready cluster that publishes no health (docs/failover.md);
 *      one on an Unavailable or drained cluster is `retiring` with
 *      `failover` set (re-placed make before break), and one on a cluster
 *      the control plane cannot see (Unreachable, Unavailable) is not
 *      counted Ready (`unseen`);
 *   2b. over capacity (arrival.ts): a current replica that is not Ready and
 *      that its cluster's ledger marks over capacity (its pods are Pending:
 *      concurrent schedulers took the same devices from a stale ledger)
 *      becomes `retiring` too, so it is replaced where there is room;
 *   3. scale down: surplus current replicas go, most-loaded cluster first
 *      (ties: later cluster name, then highest index);
 *   4. retire (docs/design.md#make-before-break): retiring replicas are kept while
 *      the current spec has fewer than `replicas - maxUnavailable` Ready
 *      replicas, Ready ones first; the rest go; failover replicas are kept
 *      while fewer than `replicas` are Ready elsewhere (maxUnavailable does
 *      not apply: a replica on a lost cluster never goes first);
 *   5. build the capacity (capacity.ts, ledger.ts): free devices per node of
 *      every pool after every replica that holds some, in arrival order:
 *      other deployments' as the cluster publishes them
 *      (`status.gpuPools[].used`), ours that stay (retiring ones included)
 *      from our own replicas;
 *   5b. reserve (reservations.ts): when ours wait over capacity, room for
 *      the other deployments' replicas ahead of them in that pool's queue,
 *      so a burst that lost one pool spreads instead of moving as one;
 *   6. fill: the missing replicas, at most `replicas + maxSurge` in all, one
 *      at a time, each on the eligible cluster with the fewest current
 *      replicas of this deployment (spread; ties by cluster name) where the
 *      whole replica fits. A replacement is a new identity (the retiring one
 *      keeps its own until it goes).
 *
 * Invariants (checked by the property tests in test/scheduler/):
 * - Never overcommits: a new replica goes only where each of its pods fits on
 *   one node of its pool after all charged replicas and earlier placements.
 * - One pool per engine, all engines of a replica on one cluster.
 * - Make before break: a replica is removed only when the spec asks for
 *   fewer, when enough Ready replacements exist (within maxUnavailable;
 *   all of them for failover), or when its cluster is gone (or not Ready
 *   and publishing no health). A Ready replica is never over capacity.
 * - Failover (docs/failover.md): nothing moves on a blip (Unreachable);
 *   no new replica on a cluster whose health is not Healthy (or Draining
 *   by a taint the deployment tolerates) or that is drained.
 * - Bounded surge: a call that places a new replica leaves at most
 *   `replicas + maxSurge` placed.
 * - Deterministic and order-free: clusters are sorted by name and replicas by
 *   (namespace, name) before any decision, so the same state in any input
 *   order gives the same output.
 * - Idempotent (a fixed point): scheduling again with the output as the
 *   existing replicas, readiness unchanged, changes nothing.
 * - Stable: a current replica keeps its cluster, index and pools.
 * - Garbage is not change: a replica whose cluster publishes a status that
 *   cannot be read (the XRD's schema rejects it), or whose pool publishes a
 *   device that cannot be converted (a capacity that is no quantity, a
 *   version that is no semver), is held as it is (`held`, counted like any
 *   retained replica) instead of being dropped; such a cluster takes no new
 *   replica, refused with the reason. Missing state is not change: a replica
 *   that no longer fits on a cluster that publishes no status, no
 *   `status.gpuPools` or no readable Ready condition (`unknown`) is held
 *   too, instead of going as "pool gone" or "not Ready"; and one whose
 *   cluster is not listed while a fetched cluster has no readable name
 *   (it could be that one) is held instead of going as "cluster gone".
 * - Ownership is (namespace, label modelplane.ai/deployment): a same-named
 *   deployment in another namespace is "another deployment"
 *   (docs/design.md#namespaces-are-identity).
 * - Costs in devices (capacity.ts): each pod of a claiming member needs its
 *   requests on one node; gang pods and exclusive classes take whole nodes; a
 *   claimless member nothing. CEL runs once per (class, request) per call.
 *
 * Deliberate divergences from the reference scheduler, each a section of
 * docs/design.md: ownership includes the namespace
 * (docs/design.md#namespaces-are-identity); refusals are explained per cluster
 * (docs/design.md#explained-placement); gangs need a pool with a multi-node
 * fabric, both when placed and when retained
 * (docs/design.md#multi-node-needs-a-fabric); replicas that must move are
 * replaced before they go (docs/design.md#make-before-break; the reference
 * drops them first); capacity is counted in devices
 * (docs/design.md#devices-not-nodes; the reference charges a node per pod).
 * New placement picks the same cluster as the reference's "try every
 * cluster, take the minimum (load, name)" but visits clusters lazily in that
 * order: a cluster that cannot take a replica now cannot later in the same
 * call (its free capacity only shrinks), so each cluster is tried
 * O(1 + replicas placed on it) times.
 */
import type { DeploymentSpec } from './deployment.js';
import type { Fleet } from '../lib/fleet/fleet.js';
import { ledgerCapacity, overCapacityIn } from '../lib/fleet/ledger.js';
import type { DeviceMatcher } from '../lib/fleet/matcher.js';
import { type CompiledEngine, compileEngines, MatchTable, type SelectorError } from './matching.js';
import type { Candidate, EnginePlacement, FleetCluster, MemberPlacement, ObservedReplica } from '../lib/fleet/model.js';
import { toCelDevice } from '@modelplane/cel';
import { type HealthState, reachable } from '../lib/health.js';
import { reserveAhead } from './reservations.js';
import { fill, ineligible } from './fill.js';
import type { Reason } from './placement.js';
import { onSpot, replicaTier } from './policy.js';
import { candidatePools, policyMovers, type Retained } from './policy-movers.js';
import type { QuotaBudget } from './quota-budget.js';
import { untolerated } from './taints.js';

/** Everything one scheduling call reads. */
export interface ScheduleInput {
  deployment: DeploymentSpec;
  fleet: Fleet;
  /**
   * This deployment's ModelReplicas (those of other deployments are ignored:
   * they are charged from the clusters' published ledgers, ledger.ts).
   */
  replicas: readonly ObservedReplica[];
  /** False: retain (and scale down) only; used while the ModelCache is unresolved. */
  fill: boolean;
  matcher: DeviceMatcher;
  /**
   * Why a cluster may not take NEW replicas for a reason outside the fleet
   * (the ModelCache not staged there, cache.ts), or undefined when it may.
   * Retained replicas are not affected. Omitted: every cluster may.
   */
  admits?: (cluster: FleetCluster) => Reason | undefined;
  /** The namespace's InferenceQuotas (quota-budget.ts, docs/quotas.md); omitted: none. */
  quota?: QuotaBudget;
}

/** Where a rollout stands after one call. */
export interface RolloutState {
  /** Replicas kept while they are replaced (`retiring`): of the previous spec, or over capacity. */
  retiring: number;
  /** How many of `retiring` are over capacity (arrival.ts), not of the previous spec. */
  overCapacity: number;
  /** How many of `retiring` are re-placed from an Unavailable or drained cluster (docs/failover.md). */
  failover: number;
  /** How many of `retiring` placement policy moves (drain-back, the on-demand floor: docs/placement-policy.md). */
  policy: number;
  /** Replicas of the previous spec removed by this call (a Ready replacement exists, within maxUnavailable). */
  retired: number;
  /** New replicas fill was allowed to place (after the surge bound). */
  allowed: number;
  /** How many of `allowed` fill could not place (0 when fill did not run). */
  short: number;
  /** True when retiring replicas remain and fill placed fewer than allowed: the current spec fits nowhere. */
  blocked: boolean;
}

/** What one scheduling call decided. */
export type ScheduleOutcome =
  | { kind: 'invalid'; errors: SelectorError[] }
  | {
      kind: 'scheduled';
      /** Placed replicas (current, surge and retiring), sorted by (cluster, index). */
      candidates: Candidate[];
      /** Why each cluster took no (further) replica, by cluster name; complete when fill ran short. */
      refusals: Map<string, Reason>;
      rollout: RolloutState;
      /** Limits of the namespace's quotas held above their cap (`OverQuota`, quota-budget.ts). */
      overQuota: string[];
    };

/** Identity key of a replica: (cluster, index). */
function identity(cluster: string, index: number): string {
  return `${cluster}\u0000${index}`;
}

function byIdentity(a: Candidate, b: Candidate): number {
  return a.cluster < b.cluster ? -1 : a.cluster > b.cluster ? 1 : a.index - b.index;
}

/** Runs the phases. Never throws on user input. */
export function schedule(input: ScheduleInput): ScheduleOutcome {
  const { deployment: d, fleet, replicas } = input;
  // Phase 1: compile selectors.
  const compiled = compileEngines(d.engines, input.matcher);
  if (!compiled.ok) return { kind: 'invalid', errors: compiled.errors };
  const table = new MatchTable(input.matcher);
  const owns = (r: ObservedReplica) => r.namespace === d.namespace && r.deployment === d.name;

  // Phase 2: classify.
  const byName = new Map(fleet.clusters.map((c) => [c.name, c]));
  const unnamed = fleet.unnamed > 0 ? msgUnnamedClusters(fleet.unnamed) : undefined;
  // A replica on a cluster the control plane cannot see is not counted Ready (docs/failover.md).
  const ours = replicas.filter(owns).map((r) => (r.ready && unseenState(byName.get(r.clusterName)) !== undefined ? { ...r, ready: false } : r));
  const classified = classify(compiled.engines, byName, ours, d, table, unnamed);
  // Phase 2b: over capacity. Only when fill may place their replacements.
  const displaced = input.fill ? displaceOverCapacity(classified, byName) : classified;
  // Phase 2c: placement policy (policy-movers.ts): drain-back to a better tier, the on-demand floor.
  const ideal = () => {
    const capacity = ledgerCapacity(fleet.clusters, ours, () => false, { namespace: d.namespace, deployment: d.name });
    return fill({ engines: compiled.engines, clusters: fleet.clusters, survivors: [], retiring: [], need: d.replicas, d, capacity, table, refusals: new Map(), admits: input.admits, nonSpot: d.policy.minOnDemand });
  };
  const policy = input.fill ? policyMovers(displaced.current, d, byName, ideal) : { stay: displaced.current, movers: [] };
  const current = policy.stay;
  const moving = [...displaced.moving, ...policy.movers.map((m) => ({ replica: m.retained.replica, candidate: { ...movingCandidate(byName.get(m.retained.candidate.cluster)!, m.retained.replica), policy: m.why } }))];
  // Phase 3: scale down.
  const survivors = scaleDown(current, d.replicas);
  // Phase 4: retire.
  const readyCurrent = survivors.filter((s) => s.replica.ready).length;
  const rolling = moving.filter((s) => s.candidate.failover === undefined && s.candidate.policy === undefined);
  const keepRolling = Math.min(rolling.length, Math.max(0, d.replicas - d.rollout.maxUnavailable - readyCurrent));
  const kept = [...rolling].sort((a, b) => Number(b.replica.ready) - Number(a.replica.ready) || byIdentity(a.candidate, b.candidate)).slice(0, keepRolling);
  // Failover (docs/failover.md): a replica re-placed from an Unavailable or drained cluster goes only
  // once `replicas` Ready ones run elsewhere (maxUnavailable does not apply: it never goes first).
  // Policy movers (docs/placement-policy.md) go the same way: only once `replicas` Ready ones run without them.
  const failing = moving.filter((s) => s.candidate.failover !== undefined || s.candidate.policy !== undefined);
  const readyKept = kept.filter((s) => s.replica.ready).length;
  const keepFailover = Math.min(failing.length, Math.max(0, d.replicas - readyCurrent - readyKept));
  const retiring = [...kept, ...[...failing].sort((a, b) => Number(b.replica.ready) - Number(a.replica.ready) || byIdentity(a.candidate, b.candidate)).slice(0, keepFailover)];
  const keep = retiring.length;

  const refusals = new Map<string, Reason>();
  // What stays is charged to the namespace's quotas first (never removed for them: docs/quotas.md).
  for (const s of [...survivors, ...retiring]) input.quota?.keep(byName.get(s.candidate.cluster), s.replica);
  let placed: Candidate[] = [];
  const allowed = Math.min(d.replicas - survivors.length, Math.max(0, d.replicas + d.rollout.maxSurge - survivors.length - retiring.length));
  if (input.fill && allowed > 0) {
    // Phase 5: capacity. Charged by identity, as the reference does: a stale duplicate
    // of a kept identity still holds its devices until it is gone (conservative).
    // A replica over capacity holds nothing (arrival.ts).
    const kept = new Set([...survivors, ...retiring].filter((s) => s.candidate.overCapacity === undefined).map((s) => identity(s.candidate.cluster, s.candidate.index)));
    const capacity = ledgerCapacity(fleet.clusters, ours, (r) => kept.has(identity(r.clusterName, r.index)), { namespace: d.namespace, deployment: d.name });
    // Phase 5b: room for the replicas ahead of ours in an over-capacity queue (reservations.ts).
    const waiting = retiring.flatMap((s) => (s.candidate.overCapacity === undefined ? [] : [{ cluster: s.candidate.cluster, pool: s.candidate.overCapacity, replica: s.replica.name }]));
    if (waiting.length > 0) {
      const eligible = (c: FleetCluster) => ineligible(c, d) === undefined && input.admits?.(c) === undefined;
      reserveAhead(waiting, fleet.clusters, eligible, capacity, { namespace: d.namespace, deployment: d.name });
    }
    // Phase 6: fill (fill.ts). The floor counts the replicas that stay on non-Spot pools; when every
    // slot replaces a drain-back mover, only tiers better than the worst mover's take it.
    const nonSpot = d.policy.minOnDemand - survivors.filter((s) => !onSpot(byName.get(s.candidate.cluster), candidatePools(s.candidate))).length;
    const drainBack = policy.movers.filter((m) => m.retained.candidate.tier !== undefined && m.why.startsWith('drain-back'));
    const belowTier = drainBack.length > 0 && d.replicas - survivors.length <= policy.movers.length ? Math.max(...drainBack.map((m) => m.retained.candidate.tier!)) : undefined;
    placed = fill({
      engines: compiled.engines,
      clusters: fleet.clusters,
      survivors: survivors.map((s) => s.candidate),
      retiring: retiring.map((s) => s.candidate),
      need: allowed,
      d,
      capacity,
      table,
      refusals,
      admits: input.admits,
      nonSpot,
      belowTier,
      quota: input.quota,
    });
  }
  const inMotion = retiring.length > 0;
  for (const s of survivors) s.candidate.role = inMotion && !s.candidate.ready ? 'surge' : 'current';
  for (const p of placed) p.role = inMotion ? 'surge' : 'current';
  const candidates = [...survivors.map((s) => s.candidate), ...retiring.map((s) => s.candidate), ...placed].sort(byIdentity);
  if (d.policy.tiers.length > 0) {
    for (const c of candidates) {
      const cluster = byName.get(c.cluster);
      const tier = cluster === undefined ? undefined : replicaTier(d.policy, cluster, candidatePools(c));
      if (tier === undefined) delete c.tier;
      else c.tier = tier;
    }
  }
  const short = input.fill ? allowed - placed.length : 0;
  const overCapacity = retiring.filter((s) => s.candidate.overCapacity !== undefined).length;
  const failover = retiring.filter((s) => s.candidate.failover !== undefined).length;
  const moved = retiring.filter((s) => s.candidate.policy !== undefined).length;
  const rollout: RolloutState = { retiring: retiring.length, overCapacity, failover, policy: moved, retired: moving.length - keep, allowed, short, blocked: inMotion && short > 0 };
  return { kind: 'scheduled', candidates, refusals, rollout, overQuota: input.quota?.over() ?? [] };
}

/**
 * Phase 2 (docs/kinds/modeldeployment.md#keeping-existing-replicas): our replicas that still fit where they are
 * (`current`, first claimant of an identity that fits wins), and those that
 * must move from a present, Ready cluster (`moving`, composed at their
 * previous spec while they stay). Replicas on a gone or not-Ready cluster,
 * and later claimants of an identity already kept, are in neither.
 */
function classify(
  engines: readonly CompiledEngine[],
  clusters: ReadonlyMap<string, FleetCluster>,
  ours: readonly ObservedReplica[],
  d: DeploymentSpec,
  table: MatchTable,
  unnamed: string | undefined,
): { current: Retained[]; moving: Retained[] } {
  const seen = new Set<string>();
  const current: Retained[] = [];
  const misfits: ObservedReplica[] = [];
  const failover: Retained[] = [];
  for (const r of ours) {
    const cluster = clusters.get(r.clusterName);
    if (cluster === undefined) {
      // Gone, unless a fetched cluster without a readable name could be it: then held as it runs.
      const id = identity(r.clusterName, r.index);
      if (unnamed === undefined || r.clusterName === '' || seen.has(id)) continue;
      seen.add(id);
      const unknown: FleetCluster = { name: r.clusterName, labels: {}, ready: false, gatewayAddress: '', taints: [], pools: [] };
      current.push({ replica: r, candidate: heldCandidate(unknown, r, unnamed) });
      continue;
    }
    const id = identity(cluster.name, r.index);
    if (seen.has(id)) continue;
    const garbage = cluster.unreadable;
    const evacuated = garbage === undefined ? evacuation(cluster) : undefined;
    if (evacuated !== undefined) {
      seen.add(id);
      failover.push({ replica: r, candidate: { ...movingCandidate(cluster, r), failover: evacuated } });
      continue;
    }
    const drained = untolerated(cluster.taints, d.tolerations).some((t) => t.effect === 'NoExecute');
    const placements = drained || garbage !== undefined ? undefined : reResolve(engines, cluster, r, table);
    if (placements === undefined) {
      // Missing state (cluster.unknown) is not change either: a misfit read from it is held, not dropped.
      const why = drained ? undefined : (garbage ?? unconvertibleDevice(cluster, r) ?? cluster.unknown);
      if (why !== undefined) {
        // Garbage is not change: held as it runs, counted like a current replica.
        seen.add(id);
        current.push({ replica: r, candidate: heldCandidate(cluster, r, why) });
      } else misfits.push(r);
      continue;
    }
    seen.add(id);
    const candidate: Candidate = {
      cluster: cluster.name,
      index: r.index,
      gatewayAddress: cluster.gatewayAddress,
      engines: placements,
      retained: true,
      role: 'current',
      ready: r.ready,
    };
    if (d.policy.tiers.length > 0) {
      // A replica whose pools are in no tier must move (docs/placement-policy.md), make before break.
      const tier = replicaTier(d.policy, cluster, candidatePools(candidate));
      if (tier === undefined) {
        seen.delete(id);
        misfits.push(r);
        continue;
      }
      candidate.tier = tier;
    }
    const unseen = unseenState(cluster);
    if (unseen !== undefined) candidate.unseen = unseen;
    current.push({ replica: r, candidate });
  }
  const moving: Retained[] = [...failover];
  for (const r of misfits) {
    const cluster = clusters.get(r.clusterName)!;
    const id = identity(cluster.name, r.index);
    // Without published health, a not-Ready cluster's misfit goes, as before health existed.
    if (seen.has(id) || (!cluster.ready && cluster.health === undefined)) continue;
    seen.add(id);
    moving.push({ replica: r, candidate: movingCandidate(cluster, r) });
  }
  return { current, moving };
}

/** A replica kept exactly as it runs while it is replaced (`retiring`, its observed spec). */
function movingCandidate(cluster: FleetCluster, r: ObservedReplica): Candidate {
  const c: Candidate = {
    cluster: cluster.name,
    index: r.index,
    gatewayAddress: cluster.gatewayAddress,
    engines: stampedEngines(r),
    retained: true,
    role: 'retiring',
    ready: r.ready,
    previous: r.source,
  };
  const unseen = unseenState(cluster);
  if (unseen !== undefined) c.unseen = unseen;
  return c;
}

/**
 * Why the replicas of `cluster` are re-placed (docs/failover.md), or
 * undefined: `spec.drain`, or health Unavailable (Unreachable for its
 * `failover.after`). Unreachable for less is a blip: nothing moves.
 */
export function evacuation(cluster: FleetCluster): string | undefined {
  if (cluster.drain === true) return msgDrained(cluster.name);
  if (cluster.health?.state === 'Unavailable') return msgUnavailableCluster(cluster.name, cluster.health.since);
  return undefined;
}

/** The health state of a cluster the control plane cannot see (Unreachable, Unavailable), or undefined. */
export function unseenState(cluster: FleetCluster | undefined): HealthState | undefined {
  const state = cluster?.health?.state;
  return state !== undefined && !reachable(state) ? state : undefined;
}

/** `cluster <c> is drained (spec.drain)`. */
export function msgDrained(cluster: string): string {
  return `cluster ${cluster} is drained (spec.drain)`;
}

/** `cluster <c> is Unavailable since <t>`. */
export function msgUnavailableCluster(cluster: string, since: string): string {
  return `cluster ${cluster} is Unavailable since ${since}`;
}

/**
 * Phase 2b (arrival.ts): our current replicas that are not Ready and that
 * their cluster's ledger marks over capacity (no room after the replicas
 * charged before them: their pods are Pending) become `retiring` (kept
 * exactly as they run, `overCapacity` naming the pool) so that fill places
 * a replacement where there is room; each goes once its replacement is
 * Ready, as any replica that must move. A Ready replica is never displaced
 * (it holds its devices), nor a held one; one the cluster has not charged
 * yet is not judged. Linear in the ledgers of the clusters where ours run.
 */
function displaceOverCapacity(
  classified: { current: Retained[]; moving: Retained[] },
  clusters: ReadonlyMap<string, FleetCluster>,
): { current: Retained[]; moving: Retained[] } {
  const current: Retained[] = [];
  const moving = [...classified.moving];
  for (const s of classified.current) {
    const r = s.replica;
    const cluster = r.ready || s.candidate.held !== undefined ? undefined : clusters.get(s.candidate.cluster);
    const pool = cluster?.ready ? overCapacityIn(cluster, r) : undefined;
    if (pool === undefined) {
      current.push(s);
      continue;
    }
    moving.push({
      replica: r,
      candidate: {
        ...s.candidate,
        engines: stampedEngines(r),
        role: 'retiring',
        previous: r.source,
        overCapacity: pool,
      },
    });
  }
  return { current, moving };
}

/** `1 fetched InferenceCluster has no readable metadata.name, so this one may still exist` (why a replica on a cluster not listed is held). */
export function msgUnnamedClusters(n: number): string {
  return `${n === 1 ? '1 fetched InferenceCluster has' : `${n} fetched InferenceClusters have`} no readable metadata.name, so this one may still exist`;
}

/** A replica's engines and pools as stamped, no requests resolved (for one kept as it runs). */
function stampedEngines(r: ObservedReplica): EnginePlacement[] {
  return r.engines.map((e) => ({ name: e.name, members: e.members.map((m) => ({ role: m.role, pool: m.nodePoolName, requests: [] })) }));
}

/** A replica kept as observed: its engines and pools as stamped, no requests resolved. */
function heldCandidate(cluster: FleetCluster, r: ObservedReplica, why: string): Candidate {
  return {
    cluster: cluster.name,
    index: r.index,
    gatewayAddress: cluster.gatewayAddress,
    engines: stampedEngines(r),
    retained: true,
    role: 'current',
    ready: r.ready,
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
 * Phase 3 (docs/kinds/modeldeployment.md#scale-down): while there are more than `desired`, removes
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
      // The worst placement tier goes first (docs/placement-policy.md); without tiers all are in tier 0.
      const ta = a.tier ?? 0;
      const tb = b.tier ?? 0;
      if (ta !== tb) {
        if (ta > tb) victim = i;
        continue;
      }
      const la = load.get(a.cluster)!;
      const lb = load.get(b.cluster)!;
      if (la > lb || (la === lb && (a.cluster > b.cluster || (a.cluster === b.cluster && a.index > b.index)))) victim = i;
    }
    out.splice(victim, 1);
  }
  return out;
}
