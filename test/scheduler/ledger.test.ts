/**
 * The capacity ledger (docs/design.md#the-capacity-ledger): charging other deployments from the
 * clusters' published `status.gpuPools[].used` instead of every ModelReplica
 * of the fleet. Differential against the whole-fleet accounting
 * (capacity.ts buildCapacity over every replica) on seeded random fleets,
 * the conservative rule for a cluster that has not published yet, the
 * schema guard, and the cluster function's published shape.
 */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../functions/lib/function.js';
import { buildCapacity } from '../../functions/lib/fleet/capacity.js';
import { readDeployment } from '../../functions/schedule-model-deployment/deployment.js';
import { readFleet, readReplicas } from '../../functions/lib/fleet/fleet.js';
import { ledgerCapacity, ledgerProblem, overCapacityIn } from '../../functions/lib/fleet/ledger.js';
import { withUsage } from '../../functions/lib/fleet/cluster-usage.js';
import { compose } from '../../functions/schedule-model-deployment/compose.js';
import { msgNoLedger } from '../../functions/schedule-model-deployment/fill.js';
import { API, cluster, DEP, deployment, device, GPU, NS, pool, replica, request, rmember, sel, withLedgers, withoutDashboard } from '../builders/scheduler.js';
import { Rand, randomClusters, randomDeployment, randomReplicas } from './random-fleet.js';

const a = 'cluster-a';
const b = 'cluster-b';
const seeds = Array.from({ length: 300 }, (_, i) => 5000 + i);

/** `r` created at `t` (`metadata.creationTimestamp`: its place in the arrival order). */
function created<T extends KubeObject>(r: T, t: string): T {
  r.metadata!.creationTimestamp = t;
  return r;
}

describe('the ledger charges what every replica of the fleet charged', () => {
  it('same free capacity per pool as the whole-fleet accounting, on 300 random fleets', () => {
    const diffs: string[] = [];
    let pools = 0;
    for (const seed of seeds) {
      const r = new Rand(seed);
      const clusters = randomClusters(r);
      const dep = randomDeployment(r);
      const read = readDeployment(dep);
      if (!read.ok) throw new Error(read.errors.join('; '));
      const d = read.deployment;
      const replicas = readReplicas(randomReplicas(r, clusters, dep));
      const owns = (x: (typeof replicas)[number]) => x.namespace === d.namespace && x.deployment === d.name;
      const before = buildCapacity(readFleet(clusters).clusters, replicas, () => true);
      const fleet = readFleet(withLedgers(clusters, replicas.map((x) => x.source))).clusters;
      // Ours the cluster judged over capacity hold nothing, as the scheduler charges them (scheduling.ts phase 5).
      const byName = new Map(fleet.map((c) => [c.name, c]));
      const fits = (x: (typeof replicas)[number]) => byName.get(x.clusterName) === undefined || overCapacityIn(byName.get(x.clusterName)!, x) === undefined;
      const now = ledgerCapacity(fleet, replicas.filter(owns), fits, { namespace: d.namespace, deployment: d.name });
      for (const [name, caps] of before) {
        caps.forEach((cap, i) => {
          pools++;
          const other = now.get(name)![i]!;
          const a = `${cap.freshNodes} ${cap.usedDevices().join(',')}`;
          const b = `${other.freshNodes} ${other.usedDevices().join(',')}`;
          if (a !== b) diffs.push(`seed ${seed} ${name}/${cap.pool.name}: fleet ${a}, ledger ${b}`);
        });
      }
    }
    expect(pools).toBeGreaterThan(300);
    expect(diffs).toEqual([]);
  });
});

describe('what an InferenceCluster publishes (lib/fleet/cluster-usage.ts)', () => {
  const pools = [pool('h100', { nodes: 2, devices: [device('gpu', { count: 8 })] }), pool('idle')];
  const gpus = (n: number) => [{ name: 'gpu', deviceClassName: GPU, count: n, selectors: [{ cel: sel.memory('141Gi') }] }];
  const onH100 = (name: string, deployment: string, n: number, copies = 1) =>
    replica(a, 0, { name, deployment, engines: [{ name: 'main', copies, members: [{ ...rmember('Standalone', 'h100'), deviceRequests: gpus(n) }] }] });

  it('per pool: nodes and devices held, and who holds them, by (namespace, deployment)', () => {
    const replicas = [onH100('zz-1', 'zz', 4), onH100('aa-1', 'aa', 3, 2), onH100('aa-2', 'aa', 3), replica('cluster-b', 0, { deployment: 'elsewhere' })];
    const out = withUsage(pools, { state: 'present', items: replicas }, a, cluster(a));
    expect(out.map((p) => p['used'])).toEqual([
      {
        nodes: 2,
        devices: [{ name: 'gpu', count: 13 }],
        holders: [
          {
            namespace: NS,
            deployment: 'aa',
            pods: [
              { replica: 'aa-1', count: 2, devices: [{ name: 'gpu', count: 3 }] },
              { replica: 'aa-2', count: 1, devices: [{ name: 'gpu', count: 3 }] },
            ],
          },
          { namespace: NS, deployment: 'zz', pods: [{ replica: 'zz-1', count: 1, devices: [{ name: 'gpu', count: 4 }] }] },
        ],
      },
      { nodes: 0, devices: [], holders: [] },
    ]);
  });

  it('arrival order: oldest first; a replica that is not Ready and finds no room is over capacity and holds nothing', () => {
    const at = (r: ReturnType<typeof onH100>, t: string, ready?: boolean) => {
      created(r, t);
      if (ready !== undefined) r['status'] = { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', reason: ready ? 'Available' : 'Creating' }] };
      return r;
    };
    // Two nodes of 8: a (older, 8 GPUs: one node), then b and c at the same second, ordered by name: b takes the second node, c finds none.
    const replicas = [at(onH100('c-1', 'cc', 8), '2026-12-03T10:00:05Z', false), at(onH100('b-1', 'bb', 8), '2026-12-03T10:00:05Z', false), at(onH100('a-1', 'aa', 8), '2026-12-03T10:00:01Z', false)];
    const [used] = withUsage(pools, { state: 'present', items: replicas }, a, cluster(a)).map((p) => p['used']);
    const held = (name: string, t: string, over?: true) => ({ replica: name, count: 1, devices: [{ name: 'gpu', count: 8 }], placed: t, ...(over ? { overCapacity: true } : {}) });
    expect(used).toEqual({
      nodes: 2,
      devices: [{ name: 'gpu', count: 16 }],
      holders: [
        { namespace: NS, deployment: 'aa', pods: [held('a-1', '2026-12-03T10:00:01Z')] },
        { namespace: NS, deployment: 'bb', pods: [held('b-1', '2026-12-03T10:00:05Z')] },
        { namespace: NS, deployment: 'cc', pods: [held('c-1', '2026-12-03T10:00:05Z', true)] },
      ],
    });
    // A Ready replica holds its devices whatever its place: c runs, so the pool is overcommitted and b (not Ready) is the one over capacity.
    replicas[0] = at(replicas[0]!, '2026-12-03T10:00:05Z', true);
    const [again] = withUsage(pools, { state: 'present', items: replicas }, a, cluster(a)).map((p) => p['used'] as { nodes: number; holders: { pods: { overCapacity?: boolean }[] }[] });
    expect(again!.holders.map((h) => h.pods[0]!.overCapacity ?? false)).toEqual([false, true, false]);
    expect(again!.nodes).toBe(2);
  });

  it('no replicas: zero usage; not fetched yet: the ledger already published is kept, none is invented', () => {
    expect(withUsage(pools, { state: 'absent' }, a, cluster(a)).map((p) => p['used'])).toEqual([
      { nodes: 0, devices: [], holders: [] },
      { nodes: 0, devices: [], holders: [] },
    ]);
    const published = { nodes: 1, devices: [{ name: 'gpu', count: 8 }], holders: [] };
    const xr = cluster(a, { pools: [{ ...pools[0]!, used: published }, pools[1]!] });
    expect(withUsage(pools, { state: 'pending' }, a, xr).map((p) => p['used'])).toEqual([published, undefined]);
  });
});

describe('the scheduler over ledgers', () => {
  const full = () => [replica(a, 0, { deployment: 'other', name: 'other-a-0' }), replica(a, 1, { deployment: 'other', name: 'other-a-1' })];

  it('others are charged from the ledger: a pool they fill takes nothing (their replicas are not in the request)', () => {
    const out = compose(request(deployment(), { required: { clusters: [cluster(a)], 'all-replicas': full() } }));
    expect(out.requirements['own-replicas']).toEqual({ apiVersion: API, kind: 'ModelReplica', matchLabels: { 'modelplane.ai/deployment': DEP }, namespace: NS });
    expect(withoutDashboard(out.resources)).toEqual({});
    expect(out.conditions[0]?.message).toBe('0 of 1 replicas scheduled; 1 cluster: 1 pool default: needs 1 gpu on one node, 0 free');
  });

  it('our own entry in the ledger is replaced by our replicas: not counted twice, and one the cluster has not seen yet still counts', () => {
    const ours = replica(a, 0, { name: 'my-model-a-0', ready: true });
    // The ledger lists ours (1 node) and another's (1 node): our replicas replace our share, 2 nodes stay 2.
    const both = { clusters: withLedgers([cluster(a, { pools: [pool('default', { nodes: 3 })] })], [ours, full()[0]!]), 'own-replicas': [ours] };
    const grown = compose(request(deployment({ replicas: 2 }), { observed: { 'replica-cluster-a-0': ours }, required: both }));
    expect(Object.keys(grown.resources).sort()).toEqual(['dashboard', 'endpoint-cluster-a-0', 'replica-cluster-a-0', 'replica-cluster-a-1']);
    // A stale ledger (published before ours existed) still charges ours: 2 nodes, the other's and ours, are full.
    const stale = { clusters: withLedgers([cluster(a)], [full()[0]!]), 'own-replicas': [ours] };
    const out = compose(request(deployment({ replicas: 2 }), { observed: { 'replica-cluster-a-0': ours }, required: stale }));
    expect(Object.keys(out.resources).sort()).toEqual(['dashboard', 'endpoint-cluster-a-0', 'replica-cluster-a-0']);
    expect(out.conditions[0]?.message).toBe('1 of 2 replicas scheduled; 1 cluster: 1 pool default: needs 1 gpu on one node, 0 free');
  });

  it('ours over capacity (not Ready, no room after older replicas) is replaced elsewhere and goes once the replacement is Ready', () => {
    const older = created(replica(a, 0, { deployment: 'other', name: 'other-a-0', ready: true }), '2026-12-03T10:00:00Z');
    const ours = created(replica(a, 1, { name: 'my-model-a-1', ready: false }), '2026-12-03T10:00:04Z');
    // cluster-a has one node, and the other deployment's replica came first.
    const one = [cluster(a, { pools: [pool('default', { nodes: 1 })] }), cluster(b)];
    const required = { clusters: withLedgers(one, [older, ours]), 'own-replicas': [ours] };
    const out = compose(request(deployment(), { observed: { 'replica-cluster-a-1': ours }, required }));
    expect(Object.keys(out.resources).sort()).toEqual(['dashboard', 'replica-cluster-a-1', 'replica-cluster-b-0']);
    const { creationTimestamp: _t, ...meta } = ours.metadata!;
    expect(out.resources['replica-cluster-a-1']!.resource).toEqual({ ...(({ status: _s, ...rest }) => rest)(structuredClone(ours)), metadata: meta });
    expect(out.conditions[0]?.message).toBe(
      'Scheduled 1 of 1 replicas; replica my-model-609c5 on cluster cluster-a is over capacity in pool default (older replicas hold its devices, so its pods are Pending): it is replaced where there is room',
    );
    expect(out.conditions.find((c) => c.type === 'Progressing')).toEqual({
      type: 'Progressing',
      status: 'True',
      reason: 'OverCapacity',
      message: '1 of 1 replicas placed where they fit; 1 over capacity go as their replacements become Ready',
    });
    expect(out.conditions.find((c) => c.type === 'ReplicasReady')?.status).toBe('False');
    // The replacement is Ready: the one over capacity goes.
    const replacement = { ...structuredClone(out.resources['replica-cluster-b-0']!.resource), status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Available' }] } };
    const after = { clusters: withLedgers(one, [older, ours, replacement]), 'own-replicas': [ours, replacement] };
    const done = compose(request(deployment(), { observed: { 'replica-cluster-a-1': ours, 'replica-cluster-b-0': replacement }, required: after }));
    expect(Object.keys(done.resources).sort()).toEqual(['dashboard', 'endpoint-cluster-b-0', 'replica-cluster-b-0']);
  });

  it('a burst that lost one pool spreads: room is kept for the replicas ahead in its queue (reservations.ts)', () => {
    const running = created(replica(a, 0, { deployment: 'x', name: 'x-a-0', ready: true }), '2026-12-03T10:00:00Z');
    const ahead = created(replica(a, 1, { deployment: 'other', name: 'other-a-1', ready: false }), '2026-12-03T10:00:01Z');
    const ours = created(replica(a, 2, { name: 'my-model-a-2', ready: false }), '2026-12-03T10:00:02Z');
    const one = (n: string) => cluster(n, { pools: [pool('default', { nodes: 1 })] });
    const fleet = withLedgers([one(a), one(b), one('cluster-c')], [running, ahead, ours]);
    const out = compose(request(deployment(), { observed: { 'replica-cluster-a-2': ours }, required: { clusters: fleet, 'own-replicas': [ours] } }));
    // other-a-1 is ahead of ours in cluster-a's queue: cluster-b is left to it, ours goes to cluster-c.
    expect(Object.keys(out.resources).sort()).toEqual(['dashboard', 'replica-cluster-a-2', 'replica-cluster-c-0']);
    // The one ahead is not reserved for by itself: it takes cluster-b.
    const theirs = compose(
      request(deployment({ name: 'other' }), { observed: { 'replica-cluster-a-1': ahead }, required: { clusters: fleet, 'own-replicas': [ahead] } }),
    );
    expect(Object.keys(theirs.resources).sort()).toEqual(['dashboard', 'replica-cluster-a-1', 'replica-cluster-b-0']);
  });

  it('a replica Crossplane lost track of (required, not observed) is composed once more under its key, so that core tracks and removes it', () => {
    const xr = deployment();
    xr.metadata!.uid = 'uid-of-the-xr';
    const running = replica(a, 0, { name: 'my-model-a-0', ready: true });
    const lost = replica(b, 0, { name: 'my-model-b-0', ready: false });
    lost.metadata!.annotations = { 'crossplane.io/composition-resource-name': 'replica-cluster-b-0' };
    lost.metadata!['ownerReferences'] = [{ apiVersion: API, kind: 'ModelDeployment', name: DEP, uid: 'uid-of-the-xr', controller: true }];
    const required = { clusters: withLedgers([cluster(a), cluster(b)], [running, lost]), 'own-replicas': [running, lost] };
    const out = compose(request(xr, { observed: { 'replica-cluster-a-0': running }, required }));
    expect(Object.keys(out.resources).sort()).toEqual(['dashboard', 'endpoint-cluster-a-0', 'replica-cluster-a-0', 'replica-cluster-b-0']);
    expect(out.resources['replica-cluster-b-0']!.resource).toEqual({ apiVersion: API, kind: 'ModelReplica', metadata: { name: 'my-model-b-0', namespace: NS, labels: lost.metadata!.labels }, spec: lost['spec'] });
    expect(out.results.map((r) => r.message)).toContain(
      "replica my-model-b-0 is not in this ModelDeployment's resourceRefs (Crossplane lost track of it): composed once more under replica-cluster-b-0 so that it is tracked, and removed if not needed",
    );
    // Once observed again, it is not wanted: it is dropped, and core deletes it.
    const again = compose(request(xr, { observed: { 'replica-cluster-a-0': running, 'replica-cluster-b-0': lost }, required }));
    expect(Object.keys(again.resources).sort()).toEqual(['dashboard', 'endpoint-cluster-a-0', 'replica-cluster-a-0']);
    // Another controller's replica, or one being deleted, is left alone.
    const foreign = { ...lost, metadata: { ...lost.metadata!, ownerReferences: [{ uid: 'another', controller: true }] } };
    const other = compose(request(xr, { observed: { 'replica-cluster-a-0': running }, required: { ...required, 'own-replicas': [running, foreign] } }));
    expect(Object.keys(other.resources).sort()).toEqual(['dashboard', 'endpoint-cluster-a-0', 'replica-cluster-a-0']);
  });

  it('a Ready replica is never over capacity, whatever the ledger says', () => {
    const older = created(replica(a, 0, { deployment: 'other', name: 'other-a-0', ready: true }), '2026-12-03T10:00:00Z');
    const ours = created(replica(a, 1, { name: 'my-model-a-1', ready: true }), '2026-12-03T10:00:09Z');
    const one = [cluster(a, { pools: [pool('default', { nodes: 1 })] }), cluster(b)];
    const out = compose(request(deployment(), { observed: { 'replica-cluster-a-1': ours }, required: { clusters: withLedgers(one, [older, ours]), 'own-replicas': [ours] } }));
    expect(Object.keys(out.resources).sort()).toEqual(['dashboard', 'endpoint-cluster-a-1', 'replica-cluster-a-1']);
    expect(out.conditions.find((c) => c.type === 'ReplicasReady')?.status).toBe('True');
    expect(out.conditions.find((c) => c.type === 'Progressing')?.reason).toBe('ReplicasUpToDate');
  });

  it('a cluster that has not published its ledger takes no new replica, and ours there stay', () => {
    const ours = replica(a, 0, { name: 'my-model-a-0', ready: true });
    const unpublished = [cluster(a), cluster(b)];
    const out = compose(
      request(deployment({ replicas: 2 }), { observed: { 'replica-cluster-a-0': ours }, required: { clusters: unpublished, 'all-replicas': [ours] }, ledgers: false }),
    );
    expect(Object.keys(out.resources).sort()).toEqual(['dashboard', 'endpoint-cluster-a-0', 'replica-cluster-a-0']);
    expect(out.conditions[0]).toEqual({
      type: 'ReplicasScheduled',
      status: 'False',
      reason: 'InsufficientCapacity',
      message: `1 of 2 replicas scheduled; 2 clusters: 2 ${msgNoLedger('default')}`,
    });
  });

  it('a ledger the XRD rejects holds our replica there as it runs, with a Warning naming the field', () => {
    const ours = replica(a, 0, { name: 'my-model-a-0', ready: true });
    const garbage = cluster(a, { pools: [{ ...pool(), used: { nodes: 'two' } }] });
    const out = compose(request(deployment(), { observed: { 'replica-cluster-a-0': ours }, required: { clusters: [garbage], 'own-replicas': [ours] } }));
    expect(withoutDashboard(out.resources)).toEqual({ 'replica-cluster-a-0': { resource: (({ status: _s, ...rest }) => rest)(structuredClone(ours)), ready: true } });
    expect(out.results.map((r) => r.message)).toEqual([
      "replica my-model-5ab63 on cluster cluster-a is kept as it is until the cluster's state can be read: status.gpuPools[0].used.nodes: expected an integer >= 0",
    ]);
  });

  it('the ledger check names the first field out of shape', () => {
    expect(ledgerProblem({ nodes: 1, devices: [{ name: 'gpu', count: 8 }], holders: [{ namespace: NS, deployment: 'x', pods: [{ count: 1 }] }] })).toBeUndefined();
    expect(ledgerProblem([])).toBe(': expected an object');
    expect(ledgerProblem({ nodes: -1 })).toBe('.nodes: expected an integer >= 0');
    expect(ledgerProblem({ nodes: 0, holders: [{ namespace: NS, deployment: 'x', pods: [{ count: 0 }] }] })).toBe('.holders[0].pods[0].count: expected an integer >= 1');
    expect(ledgerProblem({ nodes: 0, holders: [{ namespace: NS, deployment: 'x', pods: [{ count: 1, wholeNode: 'yes' }] }] })).toBe('.holders[0].pods[0].wholeNode: expected a boolean');
    expect(ledgerProblem({ nodes: 0, devices: [{ name: 'gpu' }] })).toBe('.devices[0].count: expected an integer >= 0');
    expect(ledgerProblem({ nodes: 0, holders: [{ namespace: NS, deployment: 'x', pods: [{ count: 1, overCapacity: 1 }] }] })).toBe('.holders[0].pods[0].overCapacity: expected a boolean');
    expect(ledgerProblem({ nodes: 0, holders: [{ namespace: NS, deployment: 'x', pods: [{ count: 1, placed: 5 }] }] })).toBe('.holders[0].pods[0].placed: expected a string');
  });
});
