/**
 * The scheduler's acceptance cases, docs/kinds/modeldeployment.md#scheduling (placement, retain,
 * scale, capacity, identity): whole-outcome table tests. Each case builds a
 * fresh fleet and expects every candidate and every refusal.
 * Default fixtures (test/builders/scheduler.ts): 1 replica, engine `main`
 * with one Standalone member requesting `gpu` (memory >= 141Gi); cluster
 * Ready with gateway 10.0.0.1 and pool `default` of 2 nodes with one DRA gpu
 * (count 1, 141Gi).
 */
import { describe, expect, it } from 'vitest';
import { ReasonKind as K } from '../../functions/schedule-model-deployment/placement.js';
import {
  cand,
  cluster,
  deployment,
  engine,
  gang,
  gpuReq,
  member,
  mp,
  type Outcome,
  pool,
  replica,
  rmember,
  retiring,
  runSchedule,
} from '../builders/scheduler.js';

const a = 'cluster-a';
const b = 'cluster-b';
const c = 'cluster-c';
const insufficient = (p: string, needs: number, free: number) => ({ kind: K.Insufficient, text: `insufficient nodes in pool ${p} (needs ${needs}, ${free} free)` });
/** A pod short of devices on every node of pool `p` (capacity.ts). */
const short = (p: string, needs: number, free: number, dev = 'gpu') => ({ kind: K.Insufficient, text: `pool ${p}: needs ${needs} ${dev} on one node, ${free} free` });
const gang2 = (pl: string) => [mp('Leader', pl), mp('Worker', pl)];

interface Case {
  name: string;
  reason: string;
  run: () => Outcome;
  want: Outcome;
}

const cases: Case[] = [
  { name: 'no-clusters', reason: 'nothing to place on', run: () => runSchedule(), want: { candidates: [], refusals: {} } },
  {
    name: 'one-ready-cluster',
    reason: 'places replica 0 on the only pool with the resolved gpu request',
    run: () => runSchedule({ clusters: [cluster(a)] }),
    want: { candidates: [cand(a, 0)], refusals: {} },
  },
  {
    name: 'not-ready-cluster',
    reason: 'a cluster that is not Ready takes no new replica',
    run: () => runSchedule({ clusters: [cluster(a, { ready: false })] }),
    want: { candidates: [], refusals: { [a]: { kind: K.NotReady, text: 'not Ready' } } },
  },
  {
    name: 'no-gateway',
    reason: 'a cluster without a gateway address takes no new replica',
    run: () => runSchedule({ clusters: [cluster(a, { gateway: null })] }),
    want: { candidates: [], refusals: { [a]: { kind: K.NoGateway, text: 'no gateway address' } } },
  },
  {
    name: 'pipeline-4-on-2-nodes',
    reason: 'Leader + Worker of 3 pods costs 4 nodes; a 2-node pool cannot take it',
    run: () => runSchedule({ deployment: deployment({ engines: [gang(3)] }), clusters: [cluster(a)] }),
    want: { candidates: [], refusals: { [a]: insufficient('default', 4, 2) } },
  },
  {
    name: 'retain-viable',
    reason: 'an existing replica on a still-viable cluster stays although cluster-b is viable too',
    run: () => runSchedule({ clusters: [cluster(a), cluster(b)], replicas: [replica(a, 0)] }),
    want: { candidates: [cand(a, 0, undefined, { retained: true })], refusals: {} },
  },
  {
    name: 'retain-degraded',
    reason: 'a pinned cluster that is not Ready and has no gateway keeps its replica, gateway ""',
    run: () => runSchedule({ clusters: [cluster(a, { ready: false, gateway: null })], replicas: [replica(a, 0)] }),
    want: { candidates: [cand(a, 0, undefined, { retained: true, gateway: '' })], refusals: {} },
  },
  {
    name: 'pinned-cluster-deleted',
    reason: 'the replica of a deleted cluster is re-placed on cluster-b',
    run: () => runSchedule({ clusters: [cluster(b)], replicas: [replica(a, 0)] }),
    want: { candidates: [cand(b, 0)], refusals: {} },
  },
  {
    name: 'scale-1-to-2',
    reason: 'the retained a/0 stays, the new one spreads to b',
    run: () => runSchedule({ deployment: deployment({ replicas: 2 }), clusters: [cluster(a), cluster(b)], replicas: [replica(a, 0)] }),
    want: { candidates: [cand(a, 0, undefined, { retained: true }), cand(b, 0)], refusals: {} },
  },
  {
    name: 'scale-2-full-pool',
    reason: 'a 1-node pool already used by the retained replica takes no second one',
    run: () =>
      runSchedule({ deployment: deployment({ replicas: 2 }), clusters: [cluster(a, { pools: [pool('default', { nodes: 1 })] })], replicas: [replica(a, 0)] }),
    want: { candidates: [cand(a, 0, undefined, { retained: true })], refusals: { [a]: short('default', 1, 0) } },
  },
  {
    name: 'pack-one-cluster',
    reason: '2 replicas on one 2-node cluster pack as a/0, a/1',
    run: () => runSchedule({ deployment: deployment({ replicas: 2 }), clusters: [cluster(a)] }),
    want: { candidates: [cand(a, 0), cand(a, 1)], refusals: {} },
  },
  {
    name: 'spread-two-clusters',
    reason: '2 replicas on two clusters spread as a/0, b/0',
    run: () => runSchedule({ deployment: deployment({ replicas: 2 }), clusters: [cluster(a), cluster(b)] }),
    want: { candidates: [cand(a, 0), cand(b, 0)], refusals: {} },
  },
  {
    name: 'third-by-name',
    reason: 'with loads equal the third replica goes to the first cluster by name',
    run: () =>
      runSchedule({
        deployment: deployment({ replicas: 3 }),
        clusters: [cluster(a, { pools: [pool('default', { nodes: 4 })] }), cluster(b, { pools: [pool('default', { nodes: 4 })] })],
      }),
    want: { candidates: [cand(a, 0), cand(a, 1), cand(b, 0)], refusals: {} },
  },
  {
    name: 'uneven-capacity',
    reason: 'a has 4 nodes, b 1: a/0, b/0, then a/1',
    run: () =>
      runSchedule({
        deployment: deployment({ replicas: 3 }),
        clusters: [cluster(a, { pools: [pool('default', { nodes: 4 })] }), cluster(b, { pools: [pool('default', { nodes: 1 })] })],
      }),
    want: { candidates: [cand(a, 0), cand(a, 1), cand(b, 0)], refusals: {} },
  },
  {
    name: 'existing-a-new-on-b',
    reason: 'with a/0 existing, the second replica goes to the empty cluster b',
    run: () => runSchedule({ deployment: deployment({ replicas: 2 }), clusters: [cluster(a), cluster(b)], replicas: [replica(a, 0)] }),
    want: { candidates: [cand(a, 0, undefined, { retained: true }), cand(b, 0)], refusals: {} },
  },
  {
    name: 'lowest-free-index',
    reason: 'a/0 and a/2 exist: the new replica takes index 1',
    run: () =>
      runSchedule({
        deployment: deployment({ replicas: 3 }),
        clusters: [cluster(a, { pools: [pool('default', { nodes: 4 })] })],
        replicas: [replica(a, 0), replica(a, 2)],
      }),
    want: { candidates: [cand(a, 0, undefined, { retained: true }), cand(a, 1), cand(a, 2, undefined, { retained: true })], refusals: {} },
  },
  {
    name: 'scale-down-3-to-2',
    reason: 'the most-loaded cluster loses its highest index',
    run: () =>
      runSchedule({
        deployment: deployment({ replicas: 2 }),
        clusters: [cluster(a), cluster(b)],
        replicas: [replica(a, 0), replica(a, 1), replica(b, 0)],
      }),
    want: { candidates: [cand(a, 0, undefined, { retained: true }), cand(b, 0, undefined, { retained: true })], refusals: {} },
  },
  {
    name: 'retained-old-shape',
    reason: 'a replica stamped pipeline 2 (2 nodes) is retained at the new pipeline-4 shape; the ledger charges 2, so 4 of 6 remain',
    run: () =>
      runSchedule({
        deployment: deployment({ replicas: 2, engines: [gang(3)] }),
        clusters: [cluster(a, { pools: [pool('default', { nodes: 6 })] })],
        replicas: [replica(a, 0, { engines: [{ name: 'main', members: [rmember('Leader', 'default'), rmember('Worker', 'default', { workerNodes: 1 })] }] })],
      }),
    want: { candidates: [cand(a, 0, gang2('default'), { retained: true }), cand(a, 1, gang2('default'))], refusals: {} },
  },
  {
    name: 'scale-down-by-load',
    reason: 'a/0, a/1, b/3 down to 2 drops a/1 (cluster load), not b/3 (global index)',
    run: () =>
      runSchedule({
        deployment: deployment({ replicas: 2 }),
        clusters: [cluster(a), cluster(b)],
        replicas: [replica(a, 0), replica(a, 1), replica(b, 3)],
      }),
    want: { candidates: [cand(a, 0, undefined, { retained: true }), cand(b, 3, undefined, { retained: true })], refusals: {} },
  },
  {
    name: 'co-located-retained',
    reason: 'a/0 and a/1 on one cluster are both retained',
    run: () => runSchedule({ deployment: deployment({ replicas: 2 }), clusters: [cluster(a), cluster(b)], replicas: [replica(a, 0), replica(a, 1)] }),
    want: { candidates: [cand(a, 0, undefined, { retained: true }), cand(a, 1, undefined, { retained: true })], refusals: {} },
  },
  {
    name: 'scale-down-tie-later-name',
    reason: 'a/0 and b/0 (listed b first) down to 1 keeps a/0: ties drop the later cluster name',
    run: () => runSchedule({ clusters: [cluster(b), cluster(a)], replicas: [replica(b, 0), replica(a, 0)] }),
    want: { candidates: [cand(a, 0, undefined, { retained: true })], refusals: {} },
  },
  {
    name: 'alphabetical',
    reason: 'clusters given c, a, b: new placements are a/0, b/0',
    run: () => runSchedule({ deployment: deployment({ replicas: 2 }), clusters: [cluster(c), cluster(a), cluster(b)] }),
    want: { candidates: [cand(a, 0), cand(b, 0)], refusals: {} },
  },
  {
    name: 'other-deployment-occupies',
    reason: "another deployment's replica holds the only node",
    run: () =>
      runSchedule({ clusters: [cluster(a, { pools: [pool('default', { nodes: 1 })] })], replicas: [replica(a, 0, { deployment: 'other' })] }),
    want: { candidates: [], refusals: { [a]: short('default', 1, 0) } },
  },
  {
    name: 'own-not-charged-against-itself',
    reason: 'our retained replica on a 1-node pool is not charged against itself',
    run: () => runSchedule({ clusters: [cluster(a, { pools: [pool('default', { nodes: 1 })] })], replicas: [replica(a, 0)] }),
    want: { candidates: [cand(a, 0, undefined, { retained: true })], refusals: {} },
  },
  {
    name: 'unknown-cluster-ignored',
    reason: 'our replica pinned to a cluster not in the fleet is ignored; a new one goes to cluster-b',
    run: () => runSchedule({ clusters: [cluster(b)], replicas: [replica('cluster-x', 0)] }),
    want: { candidates: [cand(b, 0)], refusals: {} },
  },
  {
    name: 'unpublished-pool-free',
    reason: 'another deployment pinned to an unpublished pool "gone" consumes nothing',
    run: () =>
      runSchedule({
        clusters: [cluster(a, { pools: [pool('frontier', { nodes: 1 })] })],
        replicas: [replica(a, 0, { deployment: 'other', pool: 'gone' })],
      }),
    want: { candidates: [cand(a, 0, [mp('Standalone', 'frontier')])], refusals: {} },
  },
  {
    name: 'identity-collision',
    reason: 'two of ours on (cluster-a, 0): the first by name (pinned to pool a) wins whatever the input order',
    run: () =>
      runSchedule({
        clusters: [cluster(a, { pools: [pool('a'), pool('b')] })],
        replicas: [replica(a, 0, { name: 'my-model-cluster-a-0-dup', pool: 'b' }), replica(a, 0, { name: 'my-model-cluster-a-0', pool: 'a' })],
      }),
    want: { candidates: [cand(a, 0, [mp('Standalone', 'a')], { retained: true })], refusals: {} },
  },
  {
    name: 'identity-collision-charged',
    reason: 'the losing duplicate of a retained identity still holds its pool (charged by identity, as the reference does)',
    run: () =>
      runSchedule({
        deployment: deployment({ replicas: 2 }),
        clusters: [cluster(a, { pools: [pool('a', { nodes: 1 }), pool('b', { nodes: 1 })] })],
        replicas: [replica(a, 0, { name: 'my-model-cluster-a-0-dup', pool: 'b' }), replica(a, 0, { name: 'my-model-cluster-a-0', pool: 'a' })],
      }),
    want: { candidates: [cand(a, 0, [mp('Standalone', 'a')], { retained: true })], refusals: { [a]: short('a', 1, 0) } },
  },
  {
    name: 'no-fill-nothing',
    reason: 'fill=false with no replicas places nothing',
    run: () => runSchedule({ clusters: [cluster(a)], fill: false }),
    want: { candidates: [], refusals: {} },
  },
  {
    name: 'no-fill-retains',
    reason: 'fill=false keeps the existing replica',
    run: () => runSchedule({ clusters: [cluster(a)], replicas: [replica(a, 0)], fill: false }),
    want: { candidates: [cand(a, 0, undefined, { retained: true })], refusals: {} },
  },
  {
    name: 'no-fill-shortfall',
    reason: 'fill=false leaves a shortfall of 2 unfilled',
    run: () => runSchedule({ deployment: deployment({ replicas: 3 }), clusters: [cluster(a), cluster(b)], replicas: [replica(a, 0)], fill: false }),
    want: { candidates: [cand(a, 0, undefined, { retained: true })], refusals: {} },
  },
  {
    name: 'grew-to-gang',
    reason: 'a Standalone replica of a deployment that became Leader + Worker is replaced by a surge at the new shape (a/1) and kept meanwhile',
    run: () => runSchedule({ deployment: deployment({ engines: [gang(1)] }), clusters: [cluster(a, { pools: [pool('default', { nodes: 3 })] })], replicas: [replica(a, 0)] }),
    want: { candidates: [retiring(a, 0), cand(a, 1, gang2('default'), { role: 'surge' })], refusals: {} },
  },
  {
    name: 'claimless-leader-retained',
    reason: 'a retained gang whose leader claims nothing keeps its pin',
    run: () =>
      runSchedule({
        deployment: deployment({ engines: [engine('main', [member('Leader', { devices: [] }), member('Worker', { workerNodes: 1 })])] }),
        clusters: [cluster(a)],
        replicas: [
          replica(a, 0, { engines: [{ name: 'main', members: [rmember('Leader', 'default', { claims: false }), rmember('Worker', 'default', { workerNodes: 1 })] }] }),
        ],
      }),
    want: { candidates: [cand(a, 0, [mp('Leader', 'default', []), mp('Worker', 'default')], { retained: true })], refusals: {} },
  },
  {
    name: 'other-claimless-leader-costs-1',
    reason: "another deployment's gang with a claimless leader holds 1 of 2 nodes; ours fits in the other",
    run: () =>
      runSchedule({
        clusters: [cluster(a)],
        replicas: [
          replica(a, 0, {
            deployment: 'other',
            engines: [{ name: 'main', members: [rmember('Leader', 'default', { claims: false }), rmember('Worker', 'default', { workerNodes: 1 })] }],
          }),
        ],
      }),
    want: { candidates: [cand(a, 0)], refusals: {} },
  },
];

describe('scheduler acceptance (docs/kinds/modeldeployment.md#scheduling): placement, retain, scale, capacity', () => {
  it.each(cases)('$name: $reason', ({ run, want }) => {
    expect(run()).toEqual(want);
  });
  it('has a gpu request builder matching the default device', () => {
    expect(gpuReq()).toEqual({ name: 'gpu', deviceClassName: 'gpu.nvidia.com', device: 0, count: 1, selectors: ['device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("141Gi")) >= 0'] });
  });
});
