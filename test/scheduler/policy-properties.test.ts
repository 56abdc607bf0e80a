/**
 * Property tests of the placement policy (docs/placement-policy.md) over
 * seeded random fleets, CASES seeds per property. Every replica takes one
 * whole one-GPU node, so the placement from scratch can be computed
 * independently here (a greedy by tier); each pool has a random capacity
 * type and price, each cluster a random label, and the deployment a random
 * 1-3 tier policy (by capacity type, cluster label or both), minOnDemand
 * (integer or percentage), optimize and maxSurge:
 * - never overflow: from scratch, the replicas per tier are exactly the
 *   greedy's (the floor's replicas on the non-Spot pools of the tiers in
 *   order, then the rest on any pool of the tiers in order);
 * - the floor: from scratch, at most `replicas - minOnDemand` replicas are
 *   on Spot pools, and the non-Spot ones are at least min(minOnDemand, the
 *   non-Spot room of the tiers);
 * - idempotent: the output as the existing replicas, all Ready, changes
 *   nothing; mid drain-back, the surge not Ready yet, the same output again;
 * - make before break: room freed in better tiers, each call's placed
 *   replicas turning Ready before the next, the Ready replicas never drop
 *   below min(replicas, Ready before), and the deployment settles on the
 *   from-scratch tiers (drain-back on, maxSurge > 0) or stays put.
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { JsonObject, KubeObject } from '../../functions/lib/function.js';
import { composeReplica } from '../../functions/schedule-model-deployment/children.js';
import { type DeploymentSpec, readDeployment } from '../../functions/schedule-model-deployment/deployment.js';
import { readFleet, readReplicas } from '../../functions/lib/fleet/fleet.js';
import type { Candidate } from '../../functions/lib/fleet/model.js';
import { schedule } from '../../functions/schedule-model-deployment/scheduling.js';
import { celMatcher } from '../../functions/lib/fleet/cel-matcher.js';
import { cluster, deployment, pool, replica, withLedgers } from '../builders/scheduler.js';
import { Rand } from './random-fleet.js';

const CASES = 300;
const seeds = Array.from({ length: CASES }, (_, i) => 7000 + i);

type CapacityType = 'OnDemand' | 'Spot' | 'Reserved';
const TYPES: CapacityType[] = ['OnDemand', 'Spot', 'Reserved'];
const SITES = ['owned', 'cloud'];

interface RawPool {
  cluster: string;
  name: string;
  nodes: number;
  capacityType: CapacityType;
}

interface RawTier {
  name: string;
  site?: string;
  capacityTypes?: CapacityType[];
}

interface World {
  seed: number;
  dep: KubeObject;
  spec: DeploymentSpec;
  clusters: KubeObject[];
  pools: RawPool[];
  labels: Map<string, string>;
  tiers: RawTier[];
  /** minOnDemand resolved here, independently of policy.ts. */
  floor: number;
  /** Other deployments' replicas, one node each, in the better tiers (removed to free room). */
  squatters: KubeObject[];
}

function world(seed: number): World {
  const r = new Rand(seed);
  const clusters: KubeObject[] = [];
  const pools: RawPool[] = [];
  const labels = new Map<string, string>();
  const clusterCount = r.int(1, 5);
  for (let i = 0; i < clusterCount; i++) {
    const name = `c${i}`;
    const site = r.pick(SITES);
    labels.set(name, site);
    const ps: JsonObject[] = [];
    const poolCount = r.int(1, 3);
    for (let j = 0; j < poolCount; j++) {
      const p: RawPool = { cluster: name, name: `p${j}`, nodes: r.int(0, 3), capacityType: r.pick(TYPES) };
      pools.push(p);
      const json: JsonObject = { ...pool(p.name, { nodes: p.nodes }), capacityType: p.capacityType };
      if (r.chance(0.8)) json['price'] = { currency: 'USD', perNodeHour: `${r.int(1, 9)}.${String(r.int(0, 99)).padStart(2, '0')}` };
      ps.push(json);
    }
    clusters.push(cluster(name, { labels: { site }, pools: ps }));
  }
  const tiers: RawTier[] = [];
  const tierCount = r.int(1, 3);
  for (let t = 0; t < tierCount; t++) {
    const tier: RawTier = { name: `t${t}` };
    const how = r.int(0, 2);
    if (how !== 1) tier.capacityTypes = r.shuffle(TYPES).slice(0, r.int(1, 3));
    if (how !== 0) tier.site = r.pick(SITES);
    tiers.push(tier);
  }
  const replicas = r.int(0, 8);
  const placement: JsonObject = {
    tiers: tiers.map((t) => ({ name: t.name, ...(t.site ? { clusterSelector: { matchLabels: { site: t.site } } } : {}), ...(t.capacityTypes ? { capacityTypes: t.capacityTypes } : {}) })),
  };
  let floor = 0;
  const kind = r.int(0, 3);
  if (kind === 1) {
    const n = r.int(0, 9);
    placement['minOnDemand'] = n;
    floor = Math.min(n, replicas);
  } else if (kind === 2) {
    const pct = r.pick([25, 34, 50, 100]);
    placement['minOnDemand'] = `${pct}%`;
    floor = Math.min(Math.ceil((pct * replicas) / 100), replicas);
  }
  if (r.chance(0.4)) placement['optimize'] = 'Cost';
  if (r.chance(0.15)) placement['drainBack'] = false;
  const surge = r.pick([0, 1, 1, 2]);
  const dep = deployment({ replicas, rollingUpdate: { maxSurge: surge, maxUnavailable: surge === 0 ? 1 : 0 } });
  (dep['spec'] as JsonObject)['placement'] = placement;
  const read = readDeployment(dep);
  if (!read.ok) throw new Error(`seed ${seed}: ${read.errors.join('; ')}`);
  const w: World = { seed, dep, spec: read.deployment, clusters, pools, labels, tiers, floor, squatters: [] };
  // Squatters take some nodes of the pools in all but the worst tier.
  const index = new Map<string, number>();
  for (const p of pools) {
    const t = tierOf(w, p);
    if (t === undefined || t === tiers.length - 1) continue;
    for (let n = r.chance(0.7) ? p.nodes : r.int(0, p.nodes); n > 0; n--) {
      const i = index.get(p.cluster) ?? 0;
      index.set(p.cluster, i + 1);
      w.squatters.push(replica(p.cluster, i, { deployment: 'other', name: `other-${p.cluster}-${i}`, pool: p.name }));
    }
  }
  return w;
}

/** The tier of a pool, computed from the raw objects: the first whose criteria all match. */
function tierOf(w: World, p: RawPool): number | undefined {
  const t = w.tiers.findIndex((t) => (t.site === undefined || w.labels.get(p.cluster) === t.site) && (t.capacityTypes === undefined || t.capacityTypes.includes(p.capacityType)));
  return t === -1 ? undefined : t;
}

const poolOf = (w: World, c: Candidate) => w.pools.find((p) => p.cluster === c.cluster && p.name === c.engines[0]!.members[0]!.pool)!;
const isSpot = (w: World, c: Candidate) => poolOf(w, c).capacityType === 'Spot';

/**
 * The replicas per tier of a placement from scratch, the greedy written out:
 * the floor's replicas on non-Spot pools, tier by tier; then the rest on any
 * pool, tier by tier; a floor replica that found no non-Spot room is not placed.
 */
function greedy(w: World, squatted: readonly KubeObject[] = []): number[] {
  const free = new Map<RawPool, number>();
  for (const p of w.pools) {
    const taken = squatted.filter((s) => (s['spec'] as { clusterName: string }).clusterName === p.cluster && JSON.stringify(s['spec']).includes(`"nodePoolName":"${p.name}"`)).length;
    free.set(p, Math.max(0, p.nodes - taken));
  }
  const count = w.tiers.map(() => 0);
  const take = (n: number, nonSpot: boolean) => {
    let rest = n;
    for (let t = 0; t < w.tiers.length; t++) {
      for (const p of w.pools) {
        if (tierOf(w, p) !== t || (nonSpot && p.capacityType === 'Spot')) continue;
        const k = Math.min(rest, free.get(p)!);
        free.set(p, free.get(p)! - k);
        count[t]! += k;
        rest -= k;
      }
    }
  };
  take(w.floor, true);
  take(w.spec.replicas - w.floor, false);
  return count;
}

/** The non-Spot room of the tiers (nodes of non-Spot pools in some tier), squatters aside. */
function nonSpotRoom(w: World): number {
  return w.pools.filter((p) => p.capacityType !== 'Spot' && tierOf(w, p) !== undefined).reduce((n, p) => n + p.nodes, 0);
}

function run(w: World, ours: readonly KubeObject[] = [], others: readonly KubeObject[] = []) {
  const all = [...others, ...ours];
  const out = schedule({ deployment: w.spec, fleet: readFleet(withLedgers(w.clusters, all)), replicas: readReplicas(all), fill: true, matcher: celMatcher });
  if (out.kind === 'invalid') throw new Error('the deployment only uses valid selectors');
  return out;
}

/** Our replicas as the function composes them from candidates (a retiring one as it runs), Ready as `ready` says. */
function asReplicas(w: World, candidates: readonly Candidate[], ready: (c: Candidate) => boolean): KubeObject[] {
  return candidates.map((c) => {
    const base = c.previous !== undefined ? structuredClone(c.previous) : composeReplica(w.spec, c);
    const ok = ready(c);
    return { ...base, status: { conditions: [{ type: 'Ready', status: ok ? 'True' : 'False', reason: ok ? 'Available' : 'Creating' }] } };
  });
}

const perTier = (w: World, cs: readonly Candidate[]) => w.tiers.map((_, t) => cs.filter((c) => c.tier === t).length);
const strip = (cs: readonly Candidate[]) => cs.map(({ retained: _r, ...c }) => c);
const show = (cs: readonly Candidate[]) => cs.map((c) => `${c.cluster}/${c.index}@${c.engines[0]!.members[0]!.pool} t${c.tier} ${c.role}${c.ready ? ' ready' : ''}`).join(', ');

/** A deployment placed while the squatters held the better tiers, all Ready; then the squatters go. */
function settledUnderSquatters(w: World): KubeObject[] {
  let ours: KubeObject[] = [];
  for (let i = 0; i < 4 * w.spec.replicas + 4; i++) {
    const out = run(w, ours, w.squatters);
    const next = asReplicas(w, out.candidates, () => true);
    if (out.candidates.every((c) => c.retained) && next.length === ours.length) return next;
    ours = next;
  }
  throw new Error(`seed ${w.seed}: did not settle under the squatters`);
}

describe(`placement policy properties over ${CASES} seeded random fleets`, () => {
  it('never overflows: from scratch, the replicas per tier are exactly the greedy by tier', () => {
    const failures: string[] = [];
    let overflowed = 0;
    for (const seed of seeds) {
      const w = world(seed);
      const out = run(w);
      const want = greedy(w);
      const got = perTier(w, out.candidates);
      if (!isDeepStrictEqual(got, want) || out.candidates.some((c) => c.tier === undefined)) failures.push(`seed ${seed}: tiers ${JSON.stringify(got)}, greedy ${JSON.stringify(want)}: ${show(out.candidates)}`);
      // Every placed replica is on a pool of the tier it reports.
      for (const c of out.candidates) if (tierOf(w, poolOf(w, c)) !== c.tier) failures.push(`seed ${seed}: ${c.cluster}/${c.index} reports tier ${c.tier}`);
      if (want.slice(1).some((n) => n > 0)) overflowed++;
    }
    expect(failures).toEqual([]);
    expect(overflowed).toBeGreaterThan(CASES / 10);
  });

  it('keeps the floor: from scratch, at most replicas - minOnDemand on Spot, the non-Spot room used up to minOnDemand', () => {
    const failures: string[] = [];
    let short = 0;
    let floors = 0;
    for (const seed of seeds) {
      const w = world(seed);
      const out = run(w);
      const spot = out.candidates.filter((c) => isSpot(w, c)).length;
      const nonSpot = out.candidates.length - spot;
      if (spot > w.spec.replicas - w.floor) failures.push(`seed ${seed}: ${spot} on Spot with replicas ${w.spec.replicas}, minOnDemand ${w.floor}: ${show(out.candidates)}`);
      if (nonSpot < Math.min(w.floor, nonSpotRoom(w))) failures.push(`seed ${seed}: ${nonSpot} on non-Spot pools, floor ${w.floor}, room ${nonSpotRoom(w)}: ${show(out.candidates)}`);
      if (w.floor > 0) floors++;
      // Short only because of the floor (no non-Spot pool in any tier, every other replica placed): said per cluster.
      const nonSpotPools = w.pools.filter((p) => p.capacityType !== 'Spot' && tierOf(w, p) !== undefined).length;
      if (w.floor > 0 && nonSpotPools === 0 && out.candidates.length === w.spec.replicas - w.floor && out.candidates.length > 0) {
        short++;
        const texts = [...out.refusals.values()].map((r) => r.text);
        if (!texts.includes(`minOnDemand ${w.floor}: the replica must run on a non-Spot pool`)) failures.push(`seed ${seed}: short by the floor without saying so: ${JSON.stringify(texts)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(floors).toBeGreaterThan(CASES / 4);
    expect(short).toBeGreaterThan(1);
  });

  it('says the floor whenever a replica is short because of it, even when the Spot pools also run full', () => {
    const failures: string[] = [];
    for (const seed of seeds) {
      const w = world(seed);
      const out = run(w);
      const texts = [...out.refusals.values()].map((r) => r.text);
      const floorShort = w.floor > nonSpotRoom(w) && w.pools.some((p) => p.capacityType === 'Spot' && tierOf(w, p) !== undefined);
      if (floorShort && !texts.includes(`minOnDemand ${w.floor}: the replica must run on a non-Spot pool`)) failures.push(`seed ${seed}: ${JSON.stringify(texts)}`);
    }
    expect(failures).toEqual([]);
  });

  it('is idempotent: from scratch, the output as the existing replicas, all Ready, changes nothing', () => {
    const failures: string[] = [];
    let nonEmpty = 0;
    for (const seed of seeds) {
      const w = world(seed);
      const first = run(w);
      const second = run(w, asReplicas(w, first.candidates, () => true));
      const readied = first.candidates.map((c) => ({ ...c, ready: true }));
      if (!isDeepStrictEqual(strip(second.candidates), strip(readied)) || !second.candidates.every((c) => c.retained)) failures.push(`seed ${seed}: ${show(first.candidates)} -> ${show(second.candidates)}`);
      if (first.candidates.length > 0) nonEmpty++;
    }
    expect(failures).toEqual([]);
    expect(nonEmpty).toBeGreaterThan(CASES / 2);
  });

  /** Room frees in the better tiers: the first call places the movers' surge; the next, the surge not Ready yet. */
  function midMove(w: World) {
    const moving = run(w, settledUnderSquatters(w));
    const again = run(w, asReplicas(w, moving.candidates, (c) => c.retained && c.ready));
    return { moving, again };
  }

  it('is a fixed point mid-move: the surge not Ready yet, the same replicas, roles, tiers and movers again (the move message aside)', () => {
    const failures: string[] = [];
    let moves = 0;
    const unworded = (cs: readonly Candidate[]) => strip(cs).map(({ policy, ...c }) => ({ ...c, moved: policy !== undefined }));
    for (const seed of seeds) {
      const w = world(seed);
      const { moving, again } = midMove(w);
      if (moving.rollout.policy > 0) moves++;
      if (!isDeepStrictEqual(unworded(again.candidates), unworded(moving.candidates)) || again.rollout.retiring !== moving.rollout.retiring || again.rollout.policy !== moving.rollout.policy) {
        failures.push(`seed ${seed}: ${show(moving.candidates)} -> ${show(again.candidates)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(moves).toBeGreaterThan(CASES / 30);
  });

  it('is a fixed point mid-move down to the move message', () => {
    const failures: string[] = [];
    for (const seed of seeds) {
      const { moving, again } = midMove(world(seed));
      if (!isDeepStrictEqual(strip(again.candidates), strip(moving.candidates))) {
        failures.push(`seed ${seed}: ${moving.candidates.map((c) => c.policy ?? '').join('|')} -> ${again.candidates.map((c) => c.policy ?? '').join('|')}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('moves make before break and settles: Ready replicas never drop below min(replicas, Ready before), ending on the from-scratch tiers', () => {
    const failures: string[] = [];
    let drained = 0;
    for (const seed of seeds) {
      const w = world(seed);
      let ours = settledUnderSquatters(w);
      let settled = false;
      for (let step = 0; step < 4 * w.spec.replicas + 4; step++) {
        const readyBefore = ours.length;
        const out = run(w, ours);
        const ready = out.candidates.filter((c) => c.ready).length;
        if (ready < Math.min(w.spec.replicas, readyBefore)) failures.push(`seed ${seed} step ${step}: ${ready} Ready after ${readyBefore}: ${show(out.candidates)}`);
        if (out.candidates.some((c) => !c.retained)) drained++;
        const next = asReplicas(w, out.candidates, () => true);
        if (out.candidates.every((c) => c.retained) && next.length === ours.length) {
          settled = true;
          const got = perTier(w, out.candidates);
          const scratch = greedy(w);
          // Without drain-back (or with maxSurge 0) the tiers are left as they are; with it, from scratch.
          const moves = w.spec.policy.drainBack && w.spec.rollout.maxSurge > 0;
          if (moves && w.tiers.length > 1 && !isDeepStrictEqual(got, scratch)) failures.push(`seed ${seed}: settled on tiers ${JSON.stringify(got)}, from scratch ${JSON.stringify(scratch)}: ${show(out.candidates)}`);
          break;
        }
        ours = next;
      }
      if (!settled) failures.push(`seed ${seed}: never settled`);
    }
    expect(failures).toEqual([]);
    expect(drained).toBeGreaterThan(CASES / 10);
  });
});
