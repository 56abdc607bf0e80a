/**
 * Placement policy (docs/placement-policy.md): a ModelDeployment's
 * `spec.placement` read into {@link PlacementPolicy}, which tier a pool or a
 * replica is in, and what a replica costs per hour.
 *
 * Guarantees:
 * - Tiers are ordered: a pool is in the first tier whose `clusterSelector`
 *   matches its cluster's labels and whose `capacityTypes` include the
 *   pool's `status.gpuPools[].capacityType` (an absent one reads OnDemand);
 *   a missing criterion matches everything. Without tiers every pool is in
 *   tier 0 (one unnamed tier: the scheduler as before policy).
 * - A replica is in the worst tier of its pools, and in none when one of its
 *   pools is in none (it must move, make before break).
 * - A replica is Spot when any of its pools is Spot: the on-demand floor
 *   (`minOnDemand`) counts replicas on non-Spot pools only.
 * - Money is integer micro-units (10^-6 of the currency) per hour: sums are
 *   exact and the same in any order; shown rounded half up to two places.
 */
import type { ModelDeploymentPlacement } from '../lib/generated/modeldeployments.js';
import { scaleIntOrPercent } from './deployment.js';
import type { JsonObject } from '../lib/function.js';
import type { DeploymentSpec } from './deployment.js';
import type { Candidate, CapacityType, FleetCluster, Pool } from '../lib/fleet/model.js';
import { amounts, formatHourly, type PricedMember, replicaCost } from '../lib/fleet/price.js';

/** One `spec.placement.tiers[]` entry. */
export interface Tier {
  name: string;
  /** `clusterSelector.matchLabels`; undefined matches every cluster. */
  clusterLabels?: Record<string, string>;
  /** undefined matches every capacity type. */
  capacityTypes?: CapacityType[];
}

/** `spec.placement`, defaults applied. */
export interface PlacementPolicy {
  /** Ordered; empty: no tiers (every pool in tier 0). */
  tiers: Tier[];
  /** Move replicas back to a better tier when it has room. @default true */
  drainBack: boolean;
  /** Replicas that must be on non-Spot pools, resolved against `replicas` (rounded up). @default 0 */
  minOnDemand: number;
  /** Ties inside a tier: by spread, or cheapest first. @default Spread */
  optimize: 'Spread' | 'Cost';
}

/** The policy of a deployment without `spec.placement`. */
export const DEFAULT_POLICY: PlacementPolicy = { tiers: [], drainBack: true, minOnDemand: 0, optimize: 'Spread' };

/** `spec.placement.minOnDemand: "<v>" is not an integer or a percentage like "50%"`. */
export function msgBadMinOnDemand(v: string): string {
  return `spec.placement.minOnDemand: ${JSON.stringify(v)} is not an integer or a percentage like "50%"`;
}

/** Reads `spec.placement` (already schema-checked) against `replicas`. Errors: a malformed minOnDemand. */
export function readPolicy(p: ModelDeploymentPlacement | undefined, replicas: number): { ok: true; policy: PlacementPolicy } | { ok: false; errors: string[] } {
  if (p === undefined) return { ok: true, policy: DEFAULT_POLICY };
  const floor = p.minOnDemand === undefined ? 0 : scaleIntOrPercent(p.minOnDemand, replicas, true);
  if (floor === undefined) return { ok: false, errors: [msgBadMinOnDemand(String(p.minOnDemand))] };
  const tiers = (p.tiers ?? []).map((t): Tier => {
    const tier: Tier = { name: t.name };
    const labels = t.clusterSelector?.matchLabels;
    if (labels && Object.keys(labels).length > 0) tier.clusterLabels = { ...labels };
    if (t.capacityTypes) tier.capacityTypes = [...t.capacityTypes] as CapacityType[];
    return tier;
  });
  return { ok: true, policy: { tiers, drainBack: p.drainBack !== false, minOnDemand: Math.min(floor, replicas), optimize: p.optimize === 'Cost' ? 'Cost' : 'Spread' } };
}

function labelsMatch(want: Record<string, string> | undefined, have: Record<string, string>): boolean {
  if (want === undefined) return true;
  for (const k of Object.keys(want)) if (have[k] !== want[k]) return false;
  return true;
}

/**
 * The first tier whose cluster labels `cluster` matches (`labelled[t]`, one
 * entry per tier) and whose capacity types admit `pool`, or undefined.
 */
function firstTier(policy: PlacementPolicy, labelled: readonly boolean[], pool: Pool): number | undefined {
  for (let t = 0; t < policy.tiers.length; t++) {
    const types = policy.tiers[t]!.capacityTypes;
    if (labelled[t] && (types === undefined || types.includes(pool.capacityType))) return t;
  }
  return undefined;
}

/** Whether `cluster` matches each tier's cluster labels, in tier order. */
function labelledTiers(policy: PlacementPolicy, cluster: FleetCluster): boolean[] {
  return policy.tiers.map((tier) => labelsMatch(tier.clusterLabels, cluster.labels));
}

/** The tier index `pool` of `cluster` is in, or undefined when in none. */
export function poolTier(policy: PlacementPolicy, cluster: FleetCluster, pool: Pool): number | undefined {
  if (policy.tiers.length === 0) return 0;
  return firstTier(policy, labelledTiers(policy, cluster), pool);
}

/**
 * The tier index of each of `cluster`'s pools (undefined: in none), in pool
 * order: {@link poolTier} for every pool, with each tier's cluster labels
 * matched once.
 */
export function poolTiers(policy: PlacementPolicy, cluster: FleetCluster): (number | undefined)[] {
  if (policy.tiers.length === 0) return cluster.pools.map(() => 0);
  const labelled = labelledTiers(policy, cluster);
  return cluster.pools.map((pool) => firstTier(policy, labelled, pool));
}

/** The tier of a replica on `cluster` using `pools` (names): the worst of its pools', undefined when one is in none or unknown. */
export function replicaTier(policy: PlacementPolicy, cluster: FleetCluster, pools: readonly string[]): number | undefined {
  let worst = 0;
  for (const name of pools) {
    const pool = cluster.pools.find((p) => p.name === name);
    const t = pool === undefined ? undefined : poolTier(policy, cluster, pool);
    if (t === undefined) return undefined;
    if (t > worst) worst = t;
  }
  return worst;
}

/** True when any of `pools` (names) of `cluster` is Spot. */
export function onSpot(cluster: FleetCluster | undefined, pools: readonly string[]): boolean {
  if (cluster === undefined) return false;
  return pools.some((name) => cluster.pools.find((p) => p.name === name)?.capacityType === 'Spot');
}

/** The tier's name, or undefined without tiers. */
export function tierName(policy: PlacementPolicy, tier: number | undefined): string | undefined {
  return tier === undefined ? undefined : policy.tiers[tier]?.name;
}

/** `drain-back: a tier better than <tier> has room`. */
export function msgDrainBack(tier: string): string {
  return `drain-back: a tier better than ${tier} has room`;
}

/** `minOnDemand <n>: a replica on a Spot pool is replaced on a non-Spot pool`. */
export function msgSpotFloor(floor: number): string {
  return `minOnDemand ${floor}: a replica on a Spot pool is replaced on a non-Spot pool`;
}

/** `pools of cluster <c> are in no placement tier (spec.placement.tiers)`. */
export const REASON_NO_TIER = 'no pool in any spec.placement.tiers entry';

/** `minOnDemand <n>: only <k> replicas may be on Spot pools` (why a Spot pool took no replica). */
export function msgFloorRefusal(floor: number): string {
  return `minOnDemand ${floor}: the replica must run on a non-Spot pool`;
}

/**
 * `status.cost` of a deployment: the hourly cost of `placed` (the replicas at
 * the current spec) from their pools' prices, each member's pods times its
 * share of a node ({@link replicaCost}), or undefined when none is priced.
 * Shape: `{summary: "24.58 USD/h", hourly: [{currency, amount}], unpriced?}`;
 * `perReplica` has each priced candidate's own `[{currency, amount}]`
 * (`status.placements[].hourlyCost`).
 */
export function deploymentCost(
  placed: readonly Candidate[],
  clusters: readonly FleetCluster[],
  d: DeploymentSpec,
): { status: JsonObject | undefined; perReplica: Map<Candidate, JsonObject[]> } {
  const byName = new Map(clusters.map((c) => [c.name, c]));
  const total = new Map<string, number>();
  const perReplica = new Map<Candidate, JsonObject[]>();
  let unpriced = 0;
  for (const c of placed) {
    const members: PricedMember[] = [];
    for (const e of c.engines) {
      const spec = d.engines.find((x) => x.name === e.name);
      e.members.forEach((m, i) => {
        const ms = spec?.members[i];
        members.push({ pool: m.pool, pods: ms?.nodes ?? 1, claims: m.requests.map((r) => ({ device: r.device, count: r.count })), whole: m.requests.length > 0 && spec?.gang === true });
      });
    }
    const cost = replicaCost(byName.get(c.cluster), members);
    if (cost.unpriced) unpriced++;
    if (cost.byCurrency.size > 0) perReplica.set(c, amounts(cost.byCurrency));
    for (const [cur, micros] of cost.byCurrency) total.set(cur, (total.get(cur) ?? 0) + micros);
  }
  if (total.size === 0) return { status: undefined, perReplica };
  const out: JsonObject = { summary: formatHourly(total), hourly: amounts(total) };
  if (unpriced > 0) out['unpriced'] = unpriced;
  return { status: out, perReplica };
}
