/**
 * Property tests of the scheduler's invariants (scheduling.ts header) over
 * seeded random fleets (random-fleet.ts), CASES seeds per property:
 * - no pool is ever overcommitted by a new placement (devices per node,
 *   whole nodes for gang pods and exclusive classes; a replica over capacity
 *   holds nothing);
 * - make before break: a replica goes only when fewer are asked, a Ready
 *   replacement exists (within maxUnavailable) or its cluster is gone or not
 *   Ready; a call that places a new replica leaves at most replicas + maxSurge;
 * - the outcome is identical under any permutation of the input lists;
 * - scheduling its own output again changes nothing (a settled deployment,
 *   or one mid-rollout with readiness unchanged, is a fixed point);
 * - a healthy retained replica never moves, whatever else changes in the
 *   fleet (more clusters, more replicas, other deployments filling pools).
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../functions/lib/function.js';
import { composeReplica } from '../../functions/schedule-model-deployment/children.js';
import { type DeploymentSpec, readDeployment } from '../../functions/schedule-model-deployment/deployment.js';
import { readFleet, readReplicas } from '../../functions/lib/fleet/fleet.js';
import { devicesPerNode } from '../../functions/lib/fleet/capacity.js';
import type { Candidate, Pool } from '../../functions/lib/fleet/model.js';
import { schedule } from '../../functions/schedule-model-deployment/scheduling.js';
import { celMatcher } from '../../functions/lib/fleet/cel-matcher.js';
import { replica, withLedgers } from '../builders/scheduler.js';
import { Rand, randomClusters, randomDeployment, randomReplicas } from './random-fleet.js';

const CASES = 500;
const seeds = Array.from({ length: CASES }, (_, i) => 1000 + i);

interface World {
  dep: KubeObject;
  spec: DeploymentSpec;
  clusters: KubeObject[];
  replicas: KubeObject[];
}

function world(seed: number): World {
  const r = new Rand(seed);
  const clusters = randomClusters(r);
  const dep = randomDeployment(r);
  const read = readDeployment(dep);
  if (!read.ok) throw new Error(read.errors.join('; '));
  return { dep, spec: read.deployment, clusters, replicas: randomReplicas(r, clusters, dep) };
}

function run(w: World, clusters = w.clusters, replicas = w.replicas) {
  // The clusters publish their ledgers from the fleet's replicas (docs/design.md#the-capacity-ledger); the scheduler reads ours from `replicas`.
  const out = schedule({ deployment: w.spec, fleet: readFleet(withLedgers(clusters, replicas)), replicas: readReplicas(replicas), fill: true, matcher: celMatcher });
  if (out.kind === 'invalid') throw new Error('random deployments only use valid selectors');
  return out;
}

/** Our replicas as the function would compose them from candidates (what Crossplane then lists back). */
function asReplicas(w: World, candidates: readonly Candidate[]): KubeObject[] {
  return candidates.map((c) => {
    if (c.previous !== undefined) return c.previous;
    const r = composeReplica(w.spec, c);
    return c.ready ? { ...r, status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Available' }] } } : r;
  });
}

const others = (w: World) => w.replicas.filter((r) => r.metadata?.labels?.['modelplane.ai/deployment'] !== 'my-model' || r.metadata?.namespace !== 'ml-team');
const strip = (cs: readonly Candidate[]) => cs.map(({ retained: _r, ...c }) => c);

describe(`scheduler properties over ${CASES} seeded random fleets`, () => {
  it('never overcommits a pool with a new placement (devices per node, whole-node pods)', () => {
    const failures: string[] = [];
    let placedSomething = 0;
    for (const seed of seeds) {
      const w = world(seed);
      const out = run(w);
      const fleet = readFleet(w.clusters);
      const all = readReplicas(w.replicas);
      // Over capacity (arrival.ts) holds nothing: ours the call displaced, others their cluster's ledger marks.
      const kept = new Set(out.candidates.filter((c) => c.retained && c.overCapacity === undefined).map((c) => `${c.cluster}/${c.index}`));
      const pending = new Set(
        readFleet(withLedgers(w.clusters, w.replicas)).clusters.flatMap((c) =>
          c.pools.flatMap((p) => (p.used?.holders ?? []).flatMap((h) => h.runs.filter((x) => x.overCapacity).map((x) => `${h.namespace}/${x.replica}`))),
        ),
      );
      // Per (cluster/pool): devices held per device entry, and whole nodes held.
      const held = new Map<string, { devices: number[]; whole: number }>();
      const at = (c: string, p: Pool) => {
        const k = `${c}/${p.name}`;
        if (!held.has(k)) held.set(k, { devices: p.devices.map(() => 0), whole: 0 });
        return held.get(k)!;
      };
      const poolOf = (c: string, name: string) => fleet.clusters.find((x) => x.name === c)?.pools.find((x) => x.name === name);
      // An upper bound of what is held: every replica of others, and every one of ours whose
      // identity was kept (two of ours colliding on one identity are both counted).
      for (const r of all) {
        const ours = r.namespace === 'ml-team' && r.deployment === 'my-model';
        if (ours ? !kept.has(`${r.clusterName}/${r.index}`) : pending.has(`${r.namespace}/${r.name}`)) continue;
        for (const e of r.engines) {
          for (const m of e.members) {
            const p = poolOf(r.clusterName, m.nodePoolName);
            if (p === undefined || m.claims.length === 0) continue;
            const h = at(r.clusterName, p);
            if (m.role !== 'Standalone' || p.exclusive) h.whole += m.pods;
            else for (const q of m.claims) h.devices[p.devices.findIndex((d) => d.deviceClassName === q.deviceClassName)]! += q.count * m.pods;
          }
        }
      }
      const newOnes = out.candidates.filter((c) => !c.retained);
      for (const c of newOnes) {
        for (const e of c.engines) {
          const spec = w.spec.engines.find((x) => x.name === e.name)!;
          e.members.forEach((m, i) => {
            if (m.requests.length === 0) return;
            const p = poolOf(c.cluster, m.pool)!;
            const h = at(c.cluster, p);
            const pods = spec.members[i]!.nodes;
            if (spec.gang || p.exclusive) h.whole += pods;
            else for (const q of m.requests) h.devices[q.device]! += q.count * pods;
          });
        }
      }
      for (const c of newOnes) {
        placedSomething++;
        for (const e of c.engines) {
          const p = poolOf(c.cluster, e.members[0]!.pool)!;
          const h = at(c.cluster, p);
          const perNode = devicesPerNode(p);
          if (h.whole > p.nodes) failures.push(`seed ${seed}: ${c.cluster}/${p.name} holds ${h.whole} of ${p.nodes} nodes whole`);
          h.devices.forEach((n, i) => {
            if (n > (p.nodes - h.whole) * perNode[i]!) failures.push(`seed ${seed}: ${c.cluster}/${p.name} holds ${n} ${p.devices[i]!.name} of ${(p.nodes - h.whole) * perNode[i]!}`);
          });
          if (new Set(e.members.map((m) => m.pool)).size !== 1) failures.push(`seed ${seed}: engine ${e.name} spans pools`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(placedSomething).toBeGreaterThan(CASES / 2);
  });

  it('removes a replica only when fewer are asked, a Ready replacement exists, or its cluster is gone or not Ready', () => {
    const failures: string[] = [];
    let removals = 0;
    let rollouts = 0;
    for (const seed of seeds) {
      const w = world(seed);
      const out = run(w);
      const fleet = new Map(readFleet(w.clusters).clusters.map((c) => [c.name, c]));
      const ours = readReplicas(w.replicas).filter((r) => r.namespace === 'ml-team' && r.deployment === 'my-model');
      const ids = new Set(ours.filter((r) => fleet.has(r.clusterName)).map((r) => `${r.clusterName}/${r.index}`));
      const onReady = new Set(ours.filter((r) => fleet.get(r.clusterName)?.ready).map((r) => `${r.clusterName}/${r.index}`));
      const placed = new Set(out.candidates.map((c) => `${c.cluster}/${c.index}`));
      const removed = [...onReady].filter((id) => !placed.has(id));
      const readyAtSpec = out.candidates.filter((c) => c.role !== 'retiring' && c.ready).length;
      const fewer = Math.max(0, ids.size - w.spec.replicas);
      if (removed.length > fewer + readyAtSpec + w.spec.rollout.maxUnavailable) {
        failures.push(`seed ${seed}: removed ${removed.join(', ')} (asked ${w.spec.replicas}, had ${ids.size}, ${readyAtSpec} Ready at the current spec)`);
      }
      removals += removed.length;
      if (out.rollout.retiring > 0) rollouts++;
    }
    expect(failures).toEqual([]);
    expect(removals).toBeGreaterThan(0);
    expect(rollouts).toBeGreaterThan(CASES / 20);
  });

  it('fails over without their mistakes: no placement on a cluster that cannot serve, nothing moves on a blip, no failover removal before enough are Ready', () => {
    const failures: string[] = [];
    let blips = 0;
    let failovers = 0;
    for (const seed of seeds) {
      const w = world(seed);
      const out = run(w);
      const fleet = new Map(readFleet(w.clusters).clusters.map((c) => [c.name, c]));
      for (const c of out.candidates.filter((x) => !x.retained)) {
        const cl = fleet.get(c.cluster)!;
        if (cl.drain || cl.health?.state === 'Unreachable' || cl.health?.state === 'Unavailable') failures.push(`seed ${seed}: placed on ${c.cluster} (${cl.health?.state}, drain ${cl.drain})`);
      }
      const ours = readReplicas(w.replicas).filter((r) => r.namespace === 'ml-team' && r.deployment === 'my-model');
      const placed = new Set(out.candidates.map((c) => `${c.cluster}/${c.index}`));
      const readyElsewhere = out.candidates.filter((c) => c.role !== 'retiring' && c.ready && c.unseen === undefined).length;
      const seen = new Set<string>();
      for (const r of ours) {
        const id = `${r.clusterName}/${r.index}`;
        const cl = fleet.get(r.clusterName);
        if (seen.has(id) || cl === undefined) continue;
        seen.add(id);
        if (cl.health?.state === 'Unreachable' && !cl.drain && cl.unreadable === undefined) {
          blips++;
          // A blip moves nothing but what the spec itself asks to go (scale-down, a misfit replaced).
          if (!placed.has(id) && ours.filter((x) => fleet.has(x.clusterName)).length <= w.spec.replicas && out.rollout.retiring === 0) failures.push(`seed ${seed}: ${id} went on a blip`);
        }
        if ((cl.health?.state === 'Unavailable' || cl.drain) && cl.unreadable === undefined) {
          failovers++;
          if (!placed.has(id) && readyElsewhere < w.spec.replicas && ours.length <= w.spec.replicas) failures.push(`seed ${seed}: ${id} removed with ${readyElsewhere} of ${w.spec.replicas} Ready elsewhere`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(blips).toBeGreaterThan(10);
    expect(failovers).toBeGreaterThan(10);
  });

  it('never places a new replica beyond replicas + maxSurge', () => {
    const failures: string[] = [];
    let surged = 0;
    for (const seed of seeds) {
      const w = world(seed);
      const out = run(w);
      const fresh = out.candidates.filter((c) => !c.retained).length;
      if (fresh > 0 && out.candidates.length > w.spec.replicas + w.spec.rollout.maxSurge) failures.push(`seed ${seed}: ${out.candidates.length} placed`);
      if (fresh > 0 && out.candidates.length > w.spec.replicas) surged++;
    }
    expect(failures).toEqual([]);
    expect(surged).toBeGreaterThan(0);
  });

  it('gives the same outcome for any order of clusters and replicas', () => {
    const failures: number[] = [];
    for (const seed of seeds) {
      const w = world(seed);
      const r = new Rand(seed * 7 + 1);
      const a = run(w);
      const b = run(w, r.shuffle(w.clusters), r.shuffle(w.replicas));
      if (!isDeepStrictEqual(a, b)) failures.push(seed);
    }
    expect(failures).toEqual([]);
  });

  it('changes nothing when run on its own output', () => {
    const failures: number[] = [];
    let nonEmpty = 0;
    for (const seed of seeds) {
      const w = world(seed);
      const first = run(w);
      const second = run(w, w.clusters, [...others(w), ...asReplicas(w, first.candidates)]);
      if (!isDeepStrictEqual(strip(second.candidates), strip(first.candidates)) || !second.candidates.every((c) => c.retained)) failures.push(seed);
      if (first.candidates.length > 0) nonEmpty++;
    }
    expect(failures).toEqual([]);
    expect(nonEmpty).toBeGreaterThan(CASES / 2);
  });

  it('never moves a healthy retained replica when the fleet grows, more replicas are asked for, or others fill the pools', () => {
    const failures: string[] = [];
    let retained = 0;
    for (const seed of seeds) {
      const w = world(seed);
      const r = new Rand(seed * 13 + 5);
      const first = run(w);
      const ours = asReplicas(w, first.candidates);
      const more = readDeployment({ ...w.dep, spec: { ...(w.dep['spec'] as object), replicas: w.spec.replicas + r.int(0, 3) } });
      if (!more.ok) throw new Error('bad deployment');
      const grown = [...w.clusters, ...randomClusters(r, r.int(0, 3), 20)];
      const squatters = first.candidates.map((c, i) => replica(c.cluster, 0, { deployment: 'squatter', name: `sq-${i}`, pool: c.engines[0]!.members[0]!.pool, copies: 4 }));
      const w2: World = { ...w, spec: more.deployment };
      const second = run(w2, grown, [...others(w), ...squatters, ...ours]);
      for (const c of first.candidates) {
        const kept = second.candidates.find((x) => x.cluster === c.cluster && x.index === c.index);
        if (!isDeepStrictEqual(kept, { ...c, retained: true })) failures.push(`seed ${seed}: ${c.cluster}/${c.index}`);
        else retained++;
      }
    }
    expect(failures).toEqual([]);
    expect(retained).toBeGreaterThan(CASES);
  });
});
