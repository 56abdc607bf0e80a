/**
 * Issue 16 acceptance: make-before-break rollouts (a shape change that fits,
 * one that does not, a selector change, a taint; spec.strategy.rollingUpdate
 * bounds) and capacity in devices (packing pods onto nodes, whole-node
 * classes), over the whole function response where conditions matter.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, KubeObject } from '../../functions/lib/function.js';
import { compose } from '../../functions/schedule-model-deployment/compose.js';
import { MSG_BOTH_ZERO, resolveRollingUpdate } from '../../functions/schedule-model-deployment/deployment.js';
import { ReasonKind as K } from '../../functions/schedule-model-deployment/placement.js';
import {
  cand,
  cluster,
  deployment,
  device,
  engine,
  GPU,
  gpuReq,
  member,
  mp,
  pool,
  replica,
  req,
  request,
  retiring,
  rmember,
  runSchedule,
  runScheduleFull,
  sel,
} from '../builders/scheduler.js';

const a = 'cluster-a';
const b = 'cluster-b';

/** A deployment whose replicas now run two engines (each one gpu): a shape change for one-engine replicas. */
const twoEngines = (opts: Parameters<typeof deployment>[0] = {}) => deployment({ engines: [engine('main'), engine('draft')], ...opts });

/** The replica a one-engine deployment composed on `c`, observed Ready (or not). */
const running = (c: string, i: number, ready = true) => replica(c, i, { ready });

/** A condition of a compose result by type. */
function cond(out: ReturnType<typeof compose>, type: string) {
  return out.conditions.find((c) => c.type === type);
}

/** Another deployment's replica holding `count` gpus per pod on `pool` of `c`. */
function holder(c: string, name: string, count: number, pool = 'default'): KubeObject {
  const m = rmember('Standalone', pool);
  (m['deviceRequests'] as JsonObject[])[0]!['count'] = count;
  return replica(c, 0, { deployment: 'other', name, engines: [{ name: 'main', members: [m] }] });
}

describe('make before break: a shape change that fits', () => {
  const clusters = [cluster(a), cluster(b)];
  it('places the new shape by surge and keeps the old replica and its endpoint until it is Ready', () => {
    const old = running(a, 0);
    const out = compose(request(twoEngines(), { observed: { 'replica-cluster-a-0': old }, required: { clusters, 'all-replicas': [old] } }));
    // a/0 holds one of cluster-a's two nodes, the new shape needs two gpus: it goes to b.
    expect(Object.keys(out.resources).sort()).toEqual(['dashboard', 'endpoint-cluster-a-0', 'replica-cluster-a-0', 'replica-cluster-b-0']);
    expect(out.resources['replica-cluster-a-0']!.resource).toEqual({ apiVersion: old.apiVersion, kind: old.kind, metadata: old.metadata, spec: old['spec'] });
    expect((out.resources['replica-cluster-b-0']!.resource['spec'] as JsonObject)['engines']).toHaveLength(2);
    expect((out.status!['placements'] as JsonObject[]).map((p) => [p['cluster'], p['index'], p['role'], p['ready']])).toEqual([
      [a, 0, 'retiring', true],
      [b, 0, 'surge', false],
    ]);
    expect(cond(out, 'Progressing')).toEqual({
      type: 'Progressing',
      status: 'True',
      reason: 'RollingUpdate',
      message: '1 of 1 replicas at the current spec; 1 of the previous spec retire as replacements become Ready (maxSurge 1, maxUnavailable 0)',
    });
    expect(cond(out, 'ReplicasScheduled')).toEqual({
      type: 'ReplicasScheduled',
      status: 'True',
      reason: 'ReplicasCreated',
      message: 'Scheduled 1 of 1 replicas; 1 replica of the previous spec keep running until replaced',
    });
    // Not Ready: the surge is not, so Crossplane derives the XR's Ready from its children.
    expect(out.resources['replica-cluster-b-0']!.ready).toBeUndefined();
  });

  it('retires the old replica once the new one is Ready, and then is a fixed point', () => {
    const old = running(a, 0);
    const first = compose(request(twoEngines(), { observed: { 'replica-cluster-a-0': old }, required: { clusters, 'all-replicas': [old] } }));
    const surge = { ...first.resources['replica-cluster-b-0']!.resource, status: { conditions: [{ type: 'Ready', status: 'True' }] } };
    const second = compose(
      request(twoEngines(), { observed: { 'replica-cluster-a-0': old, 'replica-cluster-b-0': surge }, required: { clusters, 'all-replicas': [old, surge] } }),
    );
    expect(Object.keys(second.resources).sort()).toEqual(['dashboard', 'endpoint-cluster-b-0', 'replica-cluster-b-0']);
    expect(cond(second, 'Progressing')).toMatchObject({ status: 'True', reason: 'ReplicasUpToDate' });
    expect(cond(second, 'ReplicasScheduled')).toMatchObject({ status: 'True', message: 'Scheduled 1 of 1 replicas' });
    expect(second.ready).toBeUndefined();
    const third = compose(request(twoEngines(), { observed: { 'replica-cluster-b-0': surge }, required: { clusters, 'all-replicas': [surge] } }));
    expect(third.resources['replica-cluster-b-0']).toEqual(second.resources['replica-cluster-b-0']);
    expect(third.status).toEqual(second.status);
  });
});

describe('make before break: a shape change that fits nowhere', () => {
  it('keeps both running replicas and their endpoints, says RolloutBlocked and why per cluster', () => {
    const clusters = [cluster(a, { pools: [pool('default', { nodes: 1 })] }), cluster(b, { pools: [pool('default', { nodes: 1 })] })];
    const olds = [running(a, 0), running(b, 0)];
    const observed = { 'replica-cluster-a-0': olds[0]!, 'replica-cluster-b-0': olds[1]! };
    const out = compose(request(twoEngines({ replicas: 2 }), { observed, required: { clusters, 'all-replicas': olds } }));
    expect(Object.keys(out.resources).sort()).toEqual(['dashboard', 'endpoint-cluster-a-0', 'endpoint-cluster-b-0', 'replica-cluster-a-0', 'replica-cluster-b-0']);
    expect(out.resources['replica-cluster-a-0']!.resource['spec']).toEqual(olds[0]!['spec']);
    const why = '0 of 2 replicas scheduled; 2 clusters: 2 pool default: needs 1 gpu on one node, 0 free';
    expect(cond(out, 'ReplicasScheduled')).toEqual({
      type: 'ReplicasScheduled',
      status: 'False',
      reason: 'InsufficientCapacity',
      message: `${why}; 2 replicas of the previous spec keep running until replaced`,
    });
    expect(cond(out, 'Progressing')).toEqual({
      type: 'Progressing',
      status: 'False',
      reason: 'RolloutBlocked',
      message: `Rollout held: keeping 2 replicas of the previous spec running; ${why}`,
    });
    expect(cond(out, 'ReplicasReady')).toMatchObject({ status: 'True', message: '2 of 2 ready' });
    expect((out.status!['placements'] as JsonObject[]).map((p) => p['role'])).toEqual(['retiring', 'retiring']);
  });
});

describe('make before break: selector change and taint', () => {
  const sized = (size: string) => device('gpu', { attributes: { size: { string: size } } });
  const big = deployment({ engines: [engine('main', [member('Standalone', { devices: [req('gpu', [sel.attr(GPU, 'size', 'big')])] })])] });
  const clusters = [cluster(a, { pools: [pool('a', { devices: [sized('small')] }), pool('b', { devices: [sized('big')] })] })];

  it('a selector change surges onto the pool that matches, then the old replica goes once the new one is Ready', () => {
    const first = runSchedule({ deployment: big, clusters, replicas: [replica(a, 0, { pool: 'a', ready: true })] });
    expect(first).toEqual({
      candidates: [retiring(a, 0, 'a', { ready: true }), cand(a, 1, [mp('Standalone', 'b', [gpuReq([sel.attr(GPU, 'size', 'big')])])], { role: 'surge' })],
      refusals: {},
    });
    const second = runSchedule({ deployment: big, clusters, replicas: [replica(a, 0, { pool: 'a', ready: true }), replica(a, 1, { pool: 'b', ready: true })] });
    expect('candidates' in second && second.candidates.map((c) => [c.cluster, c.index, c.role])).toEqual([[a, 1, 'current']]);
  });

  it('a replica that must move on a cluster that is not Ready goes at once (nothing to keep there)', () => {
    const out = runScheduleFull({ deployment: big, clusters: [cluster(a, { ready: false, pools: [pool('a', { devices: [sized('small')] })] })], replicas: [replica(a, 0, { pool: 'a' })] });
    expect(out.candidates).toEqual([]);
    // Not kept (retiring 0), and fill finds no Ready cluster for its replacement.
    expect(out.rollout).toEqual({ retiring: 0, overCapacity: 0, failover: 0, policy: 0, retired: 0, allowed: 1, short: 1, blocked: false });
  });
});

describe('spec.strategy.rollingUpdate', () => {
  it('resolves integers and percentages as a Deployment does (surge up, unavailable down; both 0 after scaling: unavailable 1)', () => {
    expect(resolveRollingUpdate(undefined, 4)).toEqual({ ok: true, bounds: { maxSurge: 1, maxUnavailable: 0 } });
    expect(resolveRollingUpdate({ maxSurge: '25%', maxUnavailable: '25%' }, 3)).toEqual({ ok: true, bounds: { maxSurge: 1, maxUnavailable: 0 } });
    expect(resolveRollingUpdate({ maxSurge: '10%', maxUnavailable: 0 }, 0)).toEqual({ ok: true, bounds: { maxSurge: 0, maxUnavailable: 1 } });
    expect(resolveRollingUpdate({ maxSurge: 0, maxUnavailable: '0%' }, 4)).toEqual({ ok: false, errors: [MSG_BOTH_ZERO] });
    expect(resolveRollingUpdate({ maxSurge: 'lots' }, 4)).toEqual({
      ok: false,
      errors: ['spec.strategy.rollingUpdate.maxSurge: "lots" is not an integer or a percentage like "25%"'],
    });
  });

  it('maxSurge 50% and maxUnavailable 1 move three of four at once', () => {
    const olds = [0, 1, 2, 3].map((i) => replica(a, i, { ready: true }));
    const out = runScheduleFull({
      deployment: twoEngines({ replicas: 4, rollingUpdate: { maxSurge: '50%', maxUnavailable: 1 } }),
      clusters: [cluster(a, { pools: [pool('default', { nodes: 4 })] }), cluster(b, { pools: [pool('default', { nodes: 8 })] })],
      replicas: olds,
    });
    expect(out.candidates.map((c) => `${c.cluster}/${c.index}:${c.role}`)).toEqual(['cluster-a/0:retiring', 'cluster-a/1:retiring', 'cluster-a/2:retiring', 'cluster-b/0:surge', 'cluster-b/1:surge', 'cluster-b/2:surge']);
    expect(out.rollout).toEqual({ retiring: 3, overCapacity: 0, failover: 0, policy: 0, retired: 1, allowed: 3, short: 0, blocked: false });
  });

  it('an invalid strategy is invalid input and keeps what runs', () => {
    const old = running(a, 0);
    const out = compose(
      request(deployment({ rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } }), { observed: { 'replica-cluster-a-0': old }, required: { clusters: [cluster(a)], 'all-replicas': [old] } }),
    );
    expect(Object.keys(out.resources)).toEqual(['replica-cluster-a-0']);
    expect(cond(out, 'ReplicasScheduled')).toEqual({ type: 'ReplicasScheduled', status: 'False', reason: 'InvalidSpec', message: `Invalid ModelDeployment spec: ${MSG_BOTH_ZERO}` });
  });
});

describe('capacity in devices', () => {
  const eightGpu = (opts: { nodes?: number; exclusive?: boolean } = {}) => [cluster(a, { pools: [pool('default', { nodes: opts.nodes ?? 1, devices: [device('gpu', { count: 8 })], exclusive: opts.exclusive ?? false })] })];

  it('packs 8 single-GPU replicas onto one 8-GPU node; a 9th finds no gpu free', () => {
    const out = runSchedule({ deployment: deployment({ replicas: 9 }), clusters: eightGpu() });
    expect(out).toEqual({
      candidates: [0, 1, 2, 3, 4, 5, 6, 7].map((i) => cand(a, i)),
      refusals: { [a]: { kind: K.Insufficient, text: 'pool default: needs 1 gpu on one node, 0 free' } },
    });
  });

  it('a 2-GPU pod does not fit a node with 1 free, even with 2 free across two nodes', () => {
    const two = deployment({ engines: [engine('main', [member('Standalone', { devices: [req('gpu', [sel.memory('141Gi')], 2)] })])] });
    const out = runSchedule({ deployment: two, clusters: eightGpu({ nodes: 2 }), replicas: [holder(a, 'other-1', 7), holder(a, 'other-2', 7)] });
    expect(out).toEqual({ candidates: [], refusals: { [a]: { kind: K.Insufficient, text: 'pool default: needs 2 gpu on one node, 1 free' } } });
    // With 2 free on one node it fits there.
    const fits = runSchedule({ deployment: two, clusters: eightGpu({ nodes: 2 }), replicas: [holder(a, 'other-1', 7), holder(a, 'other-2', 6)] });
    expect('candidates' in fits && fits.candidates.map((c) => c.engines[0]!.members[0]!.requests[0]!.count)).toEqual([2]);
  });

  it('copies of an engine are pods of their own, packed onto nodes', () => {
    const copies = deployment({ engines: [engine('main', [member('Standalone', { devices: [req('gpu', [sel.memory('141Gi')], 3)] })], { copies: 3 })], replicas: 2 });
    // 2 nodes of 8: each node takes two 3-gpu pods; a replica (3 pods) fits once, the second finds 2 free on one node.
    const out = runSchedule({ deployment: copies, clusters: eightGpu({ nodes: 2 }) });
    expect('candidates' in out && out.candidates.map((c) => `${c.cluster}/${c.index}`)).toEqual(['cluster-a/0']);
    expect('refusals' in out && out.refusals).toEqual({ [a]: { kind: K.Insufficient, text: 'pool default: needs 3 gpu on one node, 2 free' } });
  });

  it('an exclusive class keeps whole-node semantics: one single-GPU replica per node', () => {
    const out = runSchedule({ deployment: deployment({ replicas: 2 }), clusters: eightGpu({ exclusive: true }) });
    expect(out).toEqual({ candidates: [cand(a, 0)], refusals: { [a]: { kind: K.Insufficient, text: 'insufficient nodes in pool default (needs 1, 0 free)' } } });
  });

  it("charges other deployments' replicas by the devices they claim, not by nodes", () => {
    const out = runSchedule({ deployment: deployment({ replicas: 2 }), clusters: eightGpu(), replicas: [holder(a, 'other-1', 6)] });
    expect('candidates' in out && out.candidates.map((c) => `${c.cluster}/${c.index}`)).toEqual(['cluster-a/0', 'cluster-a/1']);
  });
});
