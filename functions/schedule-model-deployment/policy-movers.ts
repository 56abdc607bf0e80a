/**
 * Which current replicas the placement policy moves (docs/placement-policy.md),
 * phase 2c of the fleet scheduler (scheduling.ts): drain-back to a better
 * tier, and Spot replicas replaced on non-Spot pools for `minOnDemand`.
 *
 * Guarantees:
 * - Absolute, so stable across calls: drain-back compares where this
 *   deployment's replicas are with where a placement from scratch would put
 *   them (`ideal`: every replica of the deployment placed as if none of ours
 *   held anything, the others' ledgers as published); from each tier t down,
 *   the replicas at t or worse beyond the ideal's move. A replacement placed
 *   in a better tier does not change the ideal, so the replica it replaces
 *   stays a mover until it goes (make before break), and then nothing moves.
 * - The floor likewise: Spot replicas beyond `replicas - minOnDemand` move.
 * - Bounded by the rolling update: at most `maxSurge` movers at a time
 *   (with maxSurge 0 nothing drains back); worst tier first, then not Ready
 *   before Ready, then the later (cluster, index), so the same replica stays
 *   the mover from call to call.
 * - Held replicas (unreadable state) never move; `drainBack: false` turns
 *   drain-back off (the floor still holds).
 */
import type { DeploymentSpec } from './deployment.js';
import type { Candidate, FleetCluster, ObservedReplica } from '../lib/fleet/model.js';
import { msgDrainBack, msgSpotFloor, onSpot, tierName } from './policy.js';

/** A replica kept from the observed state with the candidate it becomes. */
export interface Retained {
  candidate: Candidate;
  replica: ObservedReplica;
}

/** The pools a candidate uses, by name. */
export function candidatePools(c: Candidate): string[] {
  return c.engines.flatMap((e) => e.members.map((m) => m.pool));
}

function worstFirst(a: Retained, b: Retained): number {
  const ta = a.candidate.tier ?? 0;
  const tb = b.candidate.tier ?? 0;
  if (ta !== tb) return tb - ta;
  if (a.candidate.ready !== b.candidate.ready) return Number(a.candidate.ready) - Number(b.candidate.ready);
  if (a.candidate.cluster !== b.candidate.cluster) return a.candidate.cluster < b.candidate.cluster ? 1 : -1;
  return b.candidate.index - a.candidate.index;
}

/**
 * Splits `current` into replicas that stay and movers (with why, for
 * `Candidate.policy`). `ideal` is called at most once, only when a replica
 * sits below the best tier: the tiers of a from-scratch placement.
 */
export function policyMovers(
  current: readonly Retained[],
  d: DeploymentSpec,
  clusters: ReadonlyMap<string, FleetCluster>,
  ideal: () => readonly Candidate[],
): { stay: Retained[]; movers: { retained: Retained; why: string }[] } {
  const p = d.policy;
  const movable = current.filter((s) => s.candidate.held === undefined);
  // In flight at once: maxSurge (the surge placed for a mover is not a reason to move another).
  let budget = d.rollout.maxSurge;
  const movers = new Map<Retained, string>();
  const tiers = p.tiers.length;
  if (tiers > 1 && p.drainBack && budget > 0 && movable.some((s) => (s.candidate.tier ?? 0) > 0)) {
    const want = new Array<number>(tiers).fill(0);
    const trial = ideal();
    for (const c of trial) want[c.tier ?? 0]!++;
    // What a from-scratch placement could not place stays where it is: in the worst tier.
    want[tiers - 1]! += Math.max(0, d.replicas - trial.length);
    const have = new Array<number>(tiers).fill(0);
    for (const s of movable) have[s.candidate.tier ?? 0]!++;
    let excess = 0;
    let haveBelow = 0;
    let wantBelow = 0;
    for (let t = tiers - 1; t >= 1; t--) {
      haveBelow += have[t]!;
      wantBelow += want[t]!;
      excess = Math.max(excess, haveBelow - wantBelow);
    }
    const n = Math.min(excess, budget);
    for (const s of [...movable].sort(worstFirst).slice(0, n)) movers.set(s, msgDrainBack(tierName(p, s.candidate.tier) ?? ''));
    budget -= n;
  }
  if (p.minOnDemand > 0 && budget > 0) {
    const spot = movable.filter((s) => !movers.has(s) && onSpot(clusters.get(s.candidate.cluster), candidatePools(s.candidate)));
    const n = Math.min(budget, spot.length - Math.max(0, d.replicas - p.minOnDemand));
    for (const s of spot.sort(worstFirst).slice(0, Math.max(0, n))) movers.set(s, msgSpotFloor(p.minOnDemand));
  }
  if (movers.size === 0) return { stay: [...current], movers: [] };
  return {
    stay: current.filter((s) => !movers.has(s)),
    movers: [...movers.entries()].map(([retained, why]) => ({ retained, why })),
  };
}
