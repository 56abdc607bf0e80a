/**
 * The capacity ledger (issue 17): charging other deployments from the
 * clusters' published `status.gpuPools[].used` instead of every ModelReplica
 * of the fleet. Differential against the whole-fleet accounting
 * (capacity.ts buildCapacity over every replica) on seeded random fleets,
 * the conservative rule for a cluster that has not published yet, the
 * schema guard, and the cluster function's published shape.
 */
import { describe, expect, it } from 'vitest';
import { buildCapacity } from '../../functions/schedule-model-deployment/capacity.js';
import { readDeployment } from '../../functions/schedule-model-deployment/deployment.js';
import { readFleet, readReplicas } from '../../functions/schedule-model-deployment/fleet.js';
import { ledgerCapacity, ledgerProblem } from '../../functions/schedule-model-deployment/ledger.js';
import { withUsage } from '../../functions/compose-inference-cluster/usage.js';
import { compose } from '../../functions/schedule-model-deployment/compose.js';
import { msgNoLedger } from '../../functions/schedule-model-deployment/scheduling.js';
import { API, cluster, DEP, deployment, device, GPU, NS, pool, replica, request, rmember, sel, withLedgers } from '../builders/scheduler.js';
import { Rand, randomClusters, randomDeployment, randomReplicas } from './random-fleet.js';

const a = 'cluster-a';
const b = 'cluster-b';
const seeds = Array.from({ length: 300 }, (_, i) => 5000 + i);

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
      const now = ledgerCapacity(fleet, replicas.filter(owns), () => true, { namespace: d.namespace, deployment: d.name });
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

describe('what an InferenceCluster publishes (compose-inference-cluster/usage.ts)', () => {
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
          { namespace: NS, deployment: 'aa', pods: [{ count: 3, devices: [{ name: 'gpu', count: 3 }] }] },
          { namespace: NS, deployment: 'zz', pods: [{ count: 1, devices: [{ name: 'gpu', count: 4 }] }] },
        ],
      },
      { nodes: 0, devices: [], holders: [] },
    ]);
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
    expect(out.resources).toEqual({});
    expect(out.conditions[0]?.message).toBe('0 of 1 replicas scheduled; 1 cluster: 1 pool default: needs 1 gpu on one node, 0 free');
  });

  it('our own entry in the ledger is replaced by our replicas: not counted twice, and one the cluster has not seen yet still counts', () => {
    const ours = replica(a, 0, { name: 'my-model-a-0', ready: true });
    // The ledger lists ours (1 node) and another's (1 node): our replicas replace our share, 2 nodes stay 2.
    const both = { clusters: withLedgers([cluster(a, { pools: [pool('default', { nodes: 3 })] })], [ours, full()[0]!]), 'own-replicas': [ours] };
    const grown = compose(request(deployment({ replicas: 2 }), { observed: { 'replica-cluster-a-0': ours }, required: both }));
    expect(Object.keys(grown.resources).sort()).toEqual(['endpoint-cluster-a-0', 'replica-cluster-a-0', 'replica-cluster-a-1']);
    // A stale ledger (published before ours existed) still charges ours: 2 nodes, the other's and ours, are full.
    const stale = { clusters: withLedgers([cluster(a)], [full()[0]!]), 'own-replicas': [ours] };
    const out = compose(request(deployment({ replicas: 2 }), { observed: { 'replica-cluster-a-0': ours }, required: stale }));
    expect(Object.keys(out.resources).sort()).toEqual(['endpoint-cluster-a-0', 'replica-cluster-a-0']);
    expect(out.conditions[0]?.message).toBe('1 of 2 replicas scheduled; 1 cluster: 1 pool default: needs 1 gpu on one node, 0 free');
  });

  it('a cluster that has not published its ledger takes no new replica, and ours there stay', () => {
    const ours = replica(a, 0, { name: 'my-model-a-0', ready: true });
    const unpublished = [cluster(a), cluster(b)];
    const out = compose(
      request(deployment({ replicas: 2 }), { observed: { 'replica-cluster-a-0': ours }, required: { clusters: unpublished, 'all-replicas': [ours] }, ledgers: false }),
    );
    expect(Object.keys(out.resources).sort()).toEqual(['endpoint-cluster-a-0', 'replica-cluster-a-0']);
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
    expect(out.resources).toEqual({ 'replica-cluster-a-0': { resource: (({ status: _s, ...rest }) => rest)(structuredClone(ours)), ready: true } });
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
  });
});
