/**
 * Seeded random fleets for the scheduler's property tests: clusters with
 * 1-4 pools of three GPU classes (plus a synthetic NIC), taints, not-Ready
 * and gateway-less clusters, pools without multi-node fabric; deployments of
 * 0-6 replicas with 1-2 engines (Standalone or Leader + Worker gangs, copies
 * 1-2) over three distinct selectors; existing replicas of ours (some pinned
 * to vanished clusters or pools, some colliding) and of other deployments
 * (including a same-named one in another namespace), Ready or not; rolling
 * update bounds (maxSurge, maxUnavailable) as integers and percentages.
 * Deterministic: the same seed gives the same objects.
 */
import type { JsonObject, KubeObject } from '../../functions/lib/function.js';
import { cluster, deployment, device, engine, member, nic, pool, replica, req, rmember, sel } from '../builders/scheduler.js';
import { mulberry32 } from '../../scripts/oracle/grammar.js';

/** mulberry32: a small, well-distributed 32-bit PRNG (scripts/oracle/grammar.ts). */
export const rng = mulberry32;

/** A seeded random helper. */
export class Rand {
  readonly next: () => number;
  constructor(seed: number) {
    this.next = rng(seed);
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)]!;
  }
  /** A shuffled copy (Fisher-Yates). */
  shuffle<T>(xs: readonly T[]): T[] {
    const out = [...xs];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }
}

const SELECTORS = [sel.memory('80Gi'), sel.memory('141Gi'), sel.driver('gpu.nvidia.com')];
const CLASSES: (() => JsonObject[])[] = [
  () => [device('gpu', { memory: '80Gi', count: 2 })],
  () => [device('gpu', { memory: '141Gi', count: 1 })],
  () => [device('gpu', { memory: '200Gi', count: 8 }), nic('infiniband')],
];
const TAINTS = [
  { key: 'maintenance', effect: 'NoSchedule' },
  { key: 'maintenance', effect: 'NoExecute' },
  { key: 'spot', value: 'true', effect: 'NoSchedule' },
];

const HEALTH = ['Provisioning', 'Healthy', 'Degraded', 'Unreachable', 'Unavailable', 'Draining'];

/** A random fleet of 1-12 clusters named c00..c19. */
export function randomClusters(r: Rand, count = r.int(1, 12), offset = 0): KubeObject[] {
  const names = r.shuffle(Array.from({ length: 20 }, (_, i) => `c${String(i + offset).padStart(2, '0')}`)).slice(0, count);
  return names.map((name) => {
    const pools = Array.from({ length: r.int(1, 4) }, (_, i) => {
      const opts: { nodes: number; devices: JsonObject[]; multiNode?: boolean } = { nodes: r.int(0, 4), devices: r.pick(CLASSES)() };
      if (r.chance(0.2)) opts.multiNode = false;
      return pool(`p${i}`, opts);
    });
    const opts: Parameters<typeof cluster>[1] = { pools };
    if (r.chance(0.1)) opts.ready = false;
    if (r.chance(0.1)) opts.gateway = null;
    if (r.chance(0.2)) opts.taints = [r.pick(TAINTS)];
    // Health (docs/failover.md): most clusters publish it; a few are drained.
    if (r.chance(0.6)) opts.health = r.chance(0.6) ? 'Healthy' : r.pick(HEALTH);
    if (r.chance(0.05)) opts.drain = true;
    return cluster(name, opts);
  });
}

/** A random deployment of `my-model`. */
export function randomDeployment(r: Rand, replicas = r.int(0, 6)): KubeObject {
  const engines = Array.from({ length: r.int(1, 2) }, (_, i) => {
    const copies = r.int(1, 2);
    const request = () => [req('gpu', [r.pick(SELECTORS)])];
    if (r.chance(0.3)) {
      const leader = r.chance(0.3) ? member('Leader', { devices: [] }) : member('Leader', { devices: request() });
      return engine(`e${i}`, [leader, member('Worker', { devices: request(), workerNodes: r.int(1, 2) })], { copies });
    }
    return engine(`e${i}`, [member('Standalone', { devices: request() })], { copies });
  });
  const opts: Parameters<typeof deployment>[0] = { replicas, engines };
  if (r.chance(0.2)) opts.tolerations = [{ key: 'maintenance', operator: 'Exists' }];
  if (r.chance(0.4)) {
    const surge = r.pick([0, 1, 2, '50%']);
    opts.rollingUpdate = { maxSurge: surge, maxUnavailable: surge === 0 ? r.pick([1, '50%']) : r.pick([0, 0, 1]) };
  }
  return deployment(opts);
}

/** Existing replicas: ours (shaped like the deployment or not) and others'. */
export function randomReplicas(r: Rand, clusters: readonly KubeObject[], dep: KubeObject): KubeObject[] {
  const names = [...clusters.map((c) => c.metadata!.name!), 'gone-cluster'];
  const engines = ((dep['spec'] as JsonObject)['template'] as { spec: { engines: JsonObject[] } }).spec.engines;
  const out: KubeObject[] = [];
  const n = r.int(0, 6);
  for (let i = 0; i < n; i++) {
    const c = r.pick(names);
    const p = `p${r.int(0, 4)}`;
    const shaped = engines.map((e) => ({
      name: e['name'],
      copies: e['copies'] ?? 1,
      members: (e['members'] as JsonObject[]).map((m) =>
        rmember(m['role'] as 'Standalone', p, { claims: m['nodeSelector'] !== undefined, ...(m['worker'] ? { workerNodes: (m['worker'] as { nodes: number }).nodes } : {}) }),
      ),
    }));
    const kind = r.int(0, 3);
    if (kind === 0) out.push(replica(c, r.int(0, 3), { deployment: 'other', name: `other-${i}`, pool: p, copies: r.int(1, 2) }));
    else if (kind === 1) out.push(replica(c, r.int(0, 3), { namespace: 'other-team', name: `my-model-x${i}`, pool: p }));
    else if (r.chance(0.8)) out.push(replica(c, r.int(0, 3), { name: `my-model-${i}`, engines: shaped, ready: r.chance(0.6) }));
    else out.push(replica(c, r.int(0, 3), { name: `my-model-${i}`, pool: p, ready: r.chance(0.6) }));
  }
  // Arrival order (arrival.ts): most replicas carry a creation time, some share one, a few have none.
  for (const o of out) if (r.chance(0.8)) o.metadata!.creationTimestamp = `2026-01-01T00:00:0${r.int(0, 4)}Z`;
  return out;
}
