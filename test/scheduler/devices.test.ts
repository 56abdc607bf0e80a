/**
 * The scheduler's acceptance cases, docs/kinds/modeldeployment.md#scheduling (nodeSelector
 * matching, claim vs synthetic devices, pool drift, members and gangs):
 * whole-outcome table tests over fresh fleets.
 */
import { describe, expect, it } from 'vitest';
import { ReasonKind as K } from '../../functions/schedule-model-deployment/placement.js';
import {
  cand,
  cluster,
  deployment,
  device,
  engine,
  gang,
  gpuReq,
  member,
  mp,
  nic,
  type Outcome,
  pool,
  replica,
  req,
  retiring,
  runSchedule,
  sel,
} from '../builders/scheduler.js';

const a = 'cluster-a';
const b = 'cluster-b';
const noMatch = (details: string) => ({ kind: K.NoMatch, text: `no pool matches engine "main" (${details})` });
const with1 = (...devices: ReturnType<typeof req>[]) => deployment({ engines: [engine('main', [member('Standalone', { devices })])] });
const one = (...pools: ReturnType<typeof pool>[]) => [cluster(a, { pools })];
const ib = sel.attr('nic.nvidia.com', 'type', 'infiniband');
const sized = (size: string) => device('gpu', { attributes: { size: { string: size } } });

interface Case {
  name: string;
  reason: string;
  run: () => Outcome;
  want: Outcome;
}

const cases: Case[] = [
  {
    name: 'records-pool',
    reason: 'a matching request records the pool it matched on',
    run: () => runSchedule({ clusters: one(pool('frontier')) }),
    want: { candidates: [cand(a, 0, [mp('Standalone', 'frontier')])], refusals: {} },
  },
  {
    name: 'memory-too-small',
    reason: 'memory >= 200Gi against a 141Gi device matches nothing',
    run: () => runSchedule({ deployment: with1(req('gpu', [sel.memory('200Gi')])), clusters: one(pool()) }),
    want: { candidates: [], refusals: { [a]: noMatch('gpu: no device satisfies selectors[0]') } },
  },
  {
    name: 'count-exceeds-device',
    reason: 'count 8 against a device of count 4',
    run: () => runSchedule({ deployment: with1(req('gpu', undefined, 8)), clusters: one(pool('default', { devices: [device('gpu', { count: 4 })] })) }),
    want: { candidates: [], refusals: { [a]: noMatch('gpu: needs 8 devices per node, at most 4 available') } },
  },
  {
    name: 'device-count-0',
    reason: 'a published count of 0 is none, never 1',
    run: () => runSchedule({ clusters: one(pool('default', { devices: [device('gpu', { count: 0 })] })) }),
    want: { candidates: [], refusals: { [a]: noMatch('gpu: needs 1 devices per node, at most 0 available') } },
  },
  {
    name: 'pool-nodes-0',
    reason: 'a pool of 0 nodes takes nothing',
    run: () => runSchedule({ clusters: one(pool('default', { nodes: 0 })) }),
    want: { candidates: [], refusals: { [a]: { kind: K.Insufficient, text: 'pool default: needs 1 gpu on one node, 0 free' } } },
  },
  {
    name: 'synthetic-nic-not-claimed',
    reason: 'gpu + synthetic InfiniBand nic: only the gpu is a resolved (claimed) request',
    run: () => runSchedule({ deployment: with1(req(), req('nic', [ib])), clusters: one(pool('default', { devices: [device(), nic('infiniband')] })) }),
    want: { candidates: [cand(a, 0)], refusals: {} },
  },
  {
    name: 'synthetic-nic-missing',
    reason: 'a pool without the nic cannot take a member that requests it; the selector errors on the gpu (no such attribute), and the why-not says so',
    run: () => runSchedule({ deployment: with1(req(), req('nic', [ib])), clusters: one(pool()) }),
    want: { candidates: [], refusals: { [a]: noMatch('nic: selectors[0] failed on device gpu: no such key: type') } },
  },
  {
    name: 'two-requests-one-device',
    reason: 'two requests cannot both claim one count-1 device',
    run: () => runSchedule({ deployment: with1(req('gpu-a'), req('gpu-b')), clusters: one(pool()) }),
    want: { candidates: [], refusals: { [a]: noMatch('gpu-b: needs 1 devices per node, at most 0 available') } },
  },
  {
    name: 'two-count-5-on-8',
    reason: 'two count-5 requests do not fit a count-8 device',
    run: () => runSchedule({ deployment: with1(req('gpu-a', undefined, 5), req('gpu-b', undefined, 5)), clusters: one(pool('default', { devices: [device('gpu', { count: 8 })] })) }),
    want: { candidates: [], refusals: { [a]: noMatch('gpu-b: needs 5 devices per node, at most 3 available') } },
  },
  {
    name: 'two-count-4-on-8',
    reason: 'two count-4 requests share a count-8 device, both resolved',
    run: () => runSchedule({ deployment: with1(req('gpu-a', undefined, 4), req('gpu-b', undefined, 4)), clusters: one(pool('default', { devices: [device('gpu', { count: 8 })] })) }),
    want: { candidates: [cand(a, 0, [mp('Standalone', 'default', [gpuReq(undefined, 4, 'gpu-a'), gpuReq(undefined, 4, 'gpu-b')])])], refusals: {} },
  },
  {
    name: 'fabric-choice',
    reason: 'pools dev (gpudirect-tcpx nic) and frontier (infiniband nic): the InfiniBand request picks frontier',
    run: () =>
      runSchedule({
        deployment: with1(req(), req('nic', [ib])),
        clusters: one(pool('dev', { devices: [device(), nic('gpudirect-tcpx')] }), pool('frontier', { devices: [device(), nic('infiniband')] })),
      }),
    want: { candidates: [cand(a, 0, [mp('Standalone', 'frontier')])], refusals: {} },
  },
  {
    name: 'only-synthetic',
    reason: 'a member whose only request matches a synthetic device claims nothing: not placeable',
    run: () => runSchedule({ deployment: with1(req('nic', [ib])), clusters: one(pool('default', { devices: [device(), nic('infiniband')] })) }),
    want: { candidates: [], refusals: { [a]: noMatch('only Synthetic devices match') } },
  },
  {
    name: 'retain-pinned-pool',
    reason: 'a retained replica keeps its pinned pool frontier although default matches too',
    run: () => runSchedule({ clusters: one(pool('default'), pool('frontier')), replicas: [replica(a, 0, { pool: 'frontier' })] }),
    want: { candidates: [cand(a, 0, [mp('Standalone', 'frontier')], { retained: true })], refusals: {} },
  },
  {
    name: 'selector-drift',
    reason: 'the pinned pool a no longer matches, b does: a/1 surges on b, a/0 stays on a (retiring) until a/1 is Ready',
    run: () =>
      runSchedule({
        deployment: with1(req('gpu', [sel.attr('gpu.nvidia.com', 'size', 'big')])),
        clusters: one(pool('a', { devices: [sized('small')] }), pool('b', { devices: [sized('big')] })),
        replicas: [replica(a, 0, { pool: 'a' })],
      }),
    want: {
      candidates: [retiring(a, 0, 'a'), cand(a, 1, [mp('Standalone', 'b', [gpuReq([sel.attr('gpu.nvidia.com', 'size', 'big')])])], { role: 'surge' })],
      refusals: {},
    },
  },
  {
    name: 'drift-sticky',
    reason: 'both pools match: the replica stays on a',
    run: () => runSchedule({ clusters: one(pool('a'), pool('b')), replicas: [replica(a, 0, { pool: 'a' })] }),
    want: { candidates: [cand(a, 0, [mp('Standalone', 'a')], { retained: true })], refusals: {} },
  },
  {
    name: 'drift-nowhere',
    reason: 'no pool matches anywhere: the replica keeps running at its previous spec (rollout blocked)',
    run: () => runSchedule({ deployment: with1(req('gpu', [sel.memory('200Gi')])), clusters: one(pool()), replicas: [replica(a, 0)] }),
    want: { candidates: [retiring(a, 0)], refusals: { [a]: noMatch('gpu: no device satisfies selectors[0]') } },
  },
  {
    name: 'pool-removed',
    reason: 'a replica pinned to a pool that no longer exists is replaced by a surge on frontier (a new index) and kept meanwhile',
    run: () => runSchedule({ clusters: one(pool('frontier')), replicas: [replica(a, 0, { pool: 'default' })] }),
    want: { candidates: [retiring(a, 0, 'default'), cand(a, 1, [mp('Standalone', 'frontier')], { role: 'surge' })], refusals: {} },
  },
  {
    name: 'dropped-not-charged',
    reason: 'a/0 on frontier is kept, a/1 on "gone" retires (charging nothing: its pool is unpublished) while a/2 surges on frontier',
    run: () =>
      runSchedule({
        deployment: deployment({ replicas: 2 }),
        clusters: one(pool('frontier')),
        replicas: [replica(a, 0, { pool: 'frontier' }), replica(a, 1, { pool: 'gone' })],
      }),
    want: {
      candidates: [cand(a, 0, [mp('Standalone', 'frontier')], { retained: true, role: 'surge' }), retiring(a, 1, 'gone'), cand(a, 2, [mp('Standalone', 'frontier')], { role: 'surge' })],
      refusals: {},
    },
  },
  {
    name: 'count-8-picks-big-device',
    reason: 'count 8: pool a has 4 per device, pool b 8: placed on b',
    run: () =>
      runSchedule({
        deployment: with1(req('gpu', undefined, 8)),
        clusters: one(pool('a', { devices: [device('gpu', { count: 4 })] }), pool('b', { devices: [device('gpu', { count: 8 })] })),
      }),
    want: { candidates: [cand(a, 0, [mp('Standalone', 'b', [gpuReq(undefined, 8)])])], refusals: {} },
  },
  {
    name: 'invalid-expression',
    reason: 'a selector that does not compile makes the whole call invalid, naming its field',
    run: () => runSchedule({ deployment: with1(req('gpu', ['this is ) not valid ('])), clusters: one(pool()) }),
    want: {
      invalid: [{ path: 'spec.template.spec.engines[0].members[0].nodeSelector.devices[0].selectors[0]', error: "Syntax error: extraneous input 'is' expecting <EOF>" }],
    },
  },
  {
    name: 'members-both-on-big',
    reason: 'leader >= 141Gi, worker >= 200Gi, pools small (141Gi) and big (200Gi): both on big',
    run: () =>
      runSchedule({
        deployment: deployment({ engines: [gang(1, [req()], [req('gpu', [sel.memory('200Gi')])])] }),
        clusters: one(pool('small'), pool('big', { devices: [device('gpu', { memory: '200Gi' })] })),
      }),
    want: { candidates: [cand(a, 0, [mp('Leader', 'big'), mp('Worker', 'big', [gpuReq([sel.memory('200Gi')])])])], refusals: {} },
  },
  {
    name: 'members-no-split',
    reason: 'the leader needs big, the worker small: an engine never spans pools',
    run: () =>
      runSchedule({
        deployment: deployment({ engines: [gang(1, [req('gpu', [sel.attr('gpu.nvidia.com', 'size', 'big')])], [req('gpu', [sel.attr('gpu.nvidia.com', 'size', 'small')])])] }),
        clusters: one(pool('small', { devices: [sized('small')] }), pool('big', { devices: [sized('big')] })),
      }),
    want: { candidates: [], refusals: { [a]: noMatch('Leader gpu: no device satisfies selectors[0]; Worker gpu: no device satisfies selectors[0]') } },
  },
  {
    name: 'gang-too-big',
    reason: 'a gang of 2 nodes where the only matching pool has 1 node',
    run: () => runSchedule({ deployment: deployment({ engines: [gang(1)] }), clusters: one(pool('big', { nodes: 1 })) }),
    want: { candidates: [], refusals: { [a]: { kind: K.Insufficient, text: 'insufficient nodes in pool big (needs 2, 1 free)' } } },
  },
  {
    name: 'gang-whole-elsewhere',
    reason: 'the same gang is placed whole on cluster-b whose big pool has 2 nodes',
    run: () => runSchedule({ deployment: deployment({ engines: [gang(1)] }), clusters: [cluster(a, { pools: [pool('big', { nodes: 1 })] }), cluster(b, { pools: [pool('big')] })] }),
    want: { candidates: [cand(b, 0, [mp('Leader', 'big'), mp('Worker', 'big')])], refusals: { [a]: { kind: K.Insufficient, text: 'insufficient nodes in pool big (needs 2, 1 free)' } } },
  },
  {
    name: 'no-stranding',
    reason: 'the leader matches only a synthetic device on pool a but a DRA one on b: both members go to b',
    run: () =>
      runSchedule({
        deployment: deployment({ engines: [gang(1, [req('gpu', [sel.memory('200Gi')])])] }),
        clusters: one(
          pool('a', { devices: [device(), device('big-synthetic', { claim: 'Synthetic', memory: '200Gi' })] }),
          pool('b', { devices: [device('gpu', { memory: '200Gi', count: 2 })] }),
        ),
      }),
    want: { candidates: [cand(a, 0, [mp('Leader', 'b', [gpuReq([sel.memory('200Gi')])]), mp('Worker', 'b')])], refusals: {} },
  },
  {
    name: 'synthetic-leader-claimless',
    reason: 'a leader that matches only a synthetic nic everywhere rides claimless; the worker claims',
    run: () =>
      runSchedule({
        deployment: deployment({ engines: [gang(1, [req('nic', [ib])])] }),
        clusters: one(pool('frontier', { devices: [device(), nic('infiniband')] })),
      }),
    want: { candidates: [cand(a, 0, [mp('Leader', 'frontier', []), mp('Worker', 'frontier')])], refusals: {} },
  },
  {
    name: 'member-matches-nowhere',
    reason: 'a worker that matches nothing makes the engine unplaceable',
    run: () => runSchedule({ deployment: deployment({ engines: [gang(1, [req()], [req('gpu', [sel.memory('200Gi')])])] }), clusters: one(pool()) }),
    want: { candidates: [], refusals: { [a]: noMatch('Worker gpu: no device satisfies selectors[0]') } },
  },
  {
    name: 'claimless-leader-costs-0',
    reason: 'a leader without nodeSelector costs nothing: the gang fits a 1-node pool',
    run: () =>
      runSchedule({
        deployment: deployment({ engines: [engine('main', [member('Leader', { devices: [] }), member('Worker', { workerNodes: 1 })])] }),
        clusters: one(pool('default', { nodes: 1 })),
      }),
    want: { candidates: [cand(a, 0, [mp('Leader', 'default', []), mp('Worker', 'default')])], refusals: {} },
  },
];

describe('scheduler acceptance (docs/kinds/modeldeployment.md#scheduling): devices, pools and members', () => {
  it.each(cases)('$name: $reason', ({ run, want }) => {
    expect(run()).toEqual(want);
  });
});
