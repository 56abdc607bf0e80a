/**
 * Placement policy (docs/placement-policy.md) over the whole function
 * response: tiers fill in order and overflow only when full, the
 * on-demand floor keeps replicas off Spot, drain-back moves replicas to a
 * better tier make before break and then rests (a fixed point), cost breaks
 * ties inside a tier, and the deployment reports its hourly cost.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, KubeObject } from '../../functions/lib/function.js';
import { compose } from '../../functions/schedule-model-deployment/compose.js';
import { cluster, deployment, pool, replica, request } from '../builders/scheduler.js';

/** A pool of `nodes` one-GPU nodes of a capacity type, priced per node hour when `price` is given. */
function typed(name: string, capacityType: string, nodes: number, price?: string): JsonObject {
  return { ...pool(name, { nodes }), capacityType, ...(price ? { price: { currency: 'USD', perNodeHour: price } } : {}) };
}

const TIERS = [
  { name: 'reserved', capacityTypes: ['Reserved'] },
  { name: 'on-demand', capacityTypes: ['OnDemand'] },
  { name: 'spot', capacityTypes: ['Spot'] },
];

/** reserved (2 nodes, 4.00/h), on-demand (2 nodes, 6.00/h), spot (4 nodes, 2.00/h): one replica per node. */
function fleet(nodes: { reserved?: number; onDemand?: number; spot?: number } = {}): KubeObject[] {
  return [
    cluster('reserved', { pools: [typed('gpu', 'Reserved', nodes.reserved ?? 2, '4.00')] }),
    cluster('on-demand', { pools: [typed('gpu', 'OnDemand', nodes.onDemand ?? 2, '6.00')] }),
    cluster('spot', { pools: [typed('gpu', 'Spot', nodes.spot ?? 4, '2.00')] }),
  ];
}

function md(replicas: number, placement: JsonObject, rollingUpdate?: JsonObject): KubeObject {
  const d = deployment({ replicas, ...(rollingUpdate ? { rollingUpdate } : {}) });
  (d['spec'] as JsonObject)['placement'] = placement;
  return d;
}

function run(d: KubeObject, clusters: KubeObject[], replicas: KubeObject[] = []) {
  const observed: Record<string, KubeObject> = {};
  for (const r of replicas) observed[`replica-${r.metadata?.labels?.['modelplane.ai/cluster']}-${r.metadata?.labels?.['modelplane.ai/replica-index']}`] = r;
  return compose(request(d, { observed, required: { clusters, 'all-replicas': replicas } }));
}

type Placement = { cluster: string; index: number; role: string; ready: boolean; tier?: string };
const placements = (out: ReturnType<typeof run>) => ((out.status?.['placements'] ?? []) as Placement[]).map((p) => `${p.cluster}/${p.index} ${p.tier} ${p.role}${p.ready ? ' ready' : ''}`);
const cond = (out: ReturnType<typeof run>, type: string) => out.conditions.find((c) => c.type === type);

/** The replicas a response composes, as the API server would hold them (Ready as given). */
function asObserved(out: ReturnType<typeof run>, ready: (key: string) => boolean): KubeObject[] {
  return Object.entries(out.resources)
    .filter(([k]) => k.startsWith('replica-'))
    .map(([k, v]) => ({ ...structuredClone(v.resource), status: { conditions: [{ type: 'Ready', status: ready(k) ? 'True' : 'False', reason: ready(k) ? 'Available' : 'Creating' }] } }) as KubeObject);
}

describe('placement tiers', () => {
  it('fills the first tier, overflows in order only when it is full, and reports the hourly cost', () => {
    const out = run(md(6, { tiers: TIERS }), fleet());
    expect(placements(out)).toEqual([
      'on-demand/0 on-demand current',
      'on-demand/1 on-demand current',
      'reserved/0 reserved current',
      'reserved/1 reserved current',
      'spot/0 spot current',
      'spot/1 spot current',
    ]);
    // 2 x 4.00 + 2 x 6.00 + 2 x 2.00
    expect(out.status?.['cost']).toEqual({ summary: '24.00 USD/h', hourly: [{ currency: 'USD', amount: '24.00' }] });
  });

  it('does not overflow while a better tier has room', () => {
    const out = run(md(3, { tiers: TIERS }), fleet());
    expect(placements(out)).toEqual(['on-demand/0 on-demand current', 'reserved/0 reserved current', 'reserved/1 reserved current']);
  });

  it('a pool in no tier takes nothing, and says so', () => {
    const out = run(md(5, { tiers: TIERS.slice(0, 2) }), fleet());
    expect(placements(out)).toEqual(['on-demand/0 on-demand current', 'on-demand/1 on-demand current', 'reserved/0 reserved current', 'reserved/1 reserved current']);
    expect(cond(out, 'ReplicasScheduled')?.message).toContain('no pool in any spec.placement.tiers entry');
  });

  it('tiers by cluster labels', () => {
    const clusters = [cluster('a', { labels: { site: 'owned' }, pools: [typed('gpu', 'OnDemand', 1)] }), cluster('b', { pools: [typed('gpu', 'OnDemand', 4)] })];
    const out = run(md(3, { tiers: [{ name: 'owned', clusterSelector: { matchLabels: { site: 'owned' } } }, { name: 'cloud', capacityTypes: ['OnDemand'] }] }), clusters);
    expect(placements(out)).toEqual(['a/0 owned current', 'b/0 cloud current', 'b/1 cloud current']);
  });
});

describe('minOnDemand', () => {
  it('keeps the floor on non-Spot pools; a replica that fits only on Spot below the floor is not placed', () => {
    const out = run(md(4, { minOnDemand: 3 }), fleet({ reserved: 1, onDemand: 1 }));
    expect(placements(out)).toEqual(['on-demand/0 undefined current', 'reserved/0 undefined current', 'spot/0 undefined current']);
    expect(cond(out, 'ReplicasScheduled')?.message).toContain('minOnDemand 3: the replica must run on a non-Spot pool');
  });

  it('a percentage rounds up', () => {
    const out = run(md(4, { minOnDemand: '50%', tiers: [{ name: 'any', capacityTypes: ['Spot', 'OnDemand', 'Reserved'] }] }), fleet());
    expect(placements(out).filter((p) => !p.startsWith('spot/')).length).toBeGreaterThanOrEqual(2);
  });

  it('a malformed value is refused naming the field', () => {
    const out = run(md(4, { minOnDemand: 'half' }), fleet());
    expect(cond(out, 'ReplicasScheduled')?.message).toContain('spec.placement.minOnDemand: "half" is not an integer or a percentage like "50%"');
  });

  it('the floor holds through the loss of the Spot cluster: the Spot replicas are re-placed, the on-demand ones stay', () => {
    const d = md(4, { tiers: [{ name: 'spot', capacityTypes: ['Spot'] }, { name: 'on-demand', capacityTypes: ['OnDemand', 'Reserved'] }], minOnDemand: 2 }, { maxSurge: 2 });
    const first = run(d, fleet({ onDemand: 4 }));
    expect(placements(first)).toEqual(['on-demand/0 on-demand current', 'reserved/0 on-demand current', 'spot/0 spot current', 'spot/1 spot current']);
    const lost = fleet({ onDemand: 4 }).map((c) => (c.metadata?.name === 'spot' ? cluster('spot', { health: 'Unavailable', pools: [typed('gpu', 'Spot', 4)] }) : c));
    const out = run(d, lost, asObserved(first, () => true));
    const after = placements(out);
    expect(after.filter((p) => p.includes('retiring'))).toEqual(['spot/0 spot retiring', 'spot/1 spot retiring']);
    expect(after.filter((p) => !p.startsWith('spot/')).length).toBe(4);
  });
});

describe('drain-back', () => {
  // Reserved was full when the replicas were placed; now it has room for 2.
  const d = md(4, { tiers: TIERS });
  const start = [replica('on-demand', 0, { pool: 'gpu', ready: true }), replica('on-demand', 1, { pool: 'gpu', ready: true }), replica('spot', 0, { pool: 'gpu', ready: true }), replica('spot', 1, { pool: 'gpu', ready: true })];

  it('moves the worst tier first, one at a time (maxSurge 1), make before break, and rests when done', () => {
    const one = run(d, fleet(), start);
    expect(placements(one)).toEqual([
      'on-demand/0 on-demand current ready',
      'on-demand/1 on-demand current ready',
      'reserved/0 reserved surge',
      'spot/0 spot current ready',
      'spot/1 spot retiring ready',
    ]);
    expect(cond(one, 'Progressing')).toMatchObject({ status: 'True', reason: 'PolicyMove' });
    expect(cond(one, 'ReplicasScheduled')?.message).toContain('drain-back: a tier better than spot has room: it goes once its replacement is Ready');
    // Fixed point: the replacement not Ready yet, nothing else changes.
    const again = run(d, fleet(), asObserved(one, (k) => k !== 'replica-reserved-0'));
    expect(placements(again)).toEqual(placements(one));
    // Ready: the spot replica goes; the next call moves the next one.
    const two = run(d, fleet(), asObserved(one, () => true));
    expect(placements(two)).toEqual(['on-demand/0 on-demand current ready', 'on-demand/1 on-demand current ready', 'reserved/0 reserved current ready', 'spot/0 spot current ready']);
    const next = run(d, fleet(), asObserved(two, () => true));
    expect(placements(next)).toEqual([
      'on-demand/0 on-demand current ready',
      'on-demand/1 on-demand current ready',
      'reserved/0 reserved current ready',
      'reserved/1 reserved surge',
      'spot/0 spot retiring ready',
    ]);
    const three = run(d, fleet(), asObserved(run(d, fleet(), asObserved(next, () => true)), () => true));
    expect(placements(three)).toEqual(['on-demand/0 on-demand current ready', 'on-demand/1 on-demand current ready', 'reserved/0 reserved current ready', 'reserved/1 reserved current ready']);
    expect(cond(three, 'Progressing')?.reason).toBe('ReplicasUpToDate');
    const rest = run(d, fleet(), asObserved(three, () => true));
    expect(placements(rest)).toEqual(placements(three));
  });

  it('drainBack: false moves nothing', () => {
    const out = run(md(4, { tiers: TIERS, drainBack: false }), fleet(), start);
    expect(placements(out)).toEqual(['on-demand/0 on-demand current ready', 'on-demand/1 on-demand current ready', 'spot/0 spot current ready', 'spot/1 spot current ready']);
  });
});

describe('optimize: Cost', () => {
  it('the cheapest cluster of a tier first; Spread by name otherwise', () => {
    const clusters = [cluster('a', { pools: [typed('gpu', 'OnDemand', 4, '9.00')] }), cluster('b', { pools: [typed('gpu', 'OnDemand', 4, '3.50')] })];
    expect(placements(run(md(2, { optimize: 'Cost', tiers: [{ name: 'all', capacityTypes: ['OnDemand'] }] }), clusters))).toEqual(['b/0 all current', 'b/1 all current']);
    expect(placements(run(md(2, { tiers: [{ name: 'all', capacityTypes: ['OnDemand'] }] }), clusters))).toEqual(['a/0 all current', 'b/0 all current']);
    expect(run(md(2, { optimize: 'Cost' }), clusters).status?.['cost']).toEqual({ summary: '7.00 USD/h', hourly: [{ currency: 'USD', amount: '7.00' }] });
  });
});
