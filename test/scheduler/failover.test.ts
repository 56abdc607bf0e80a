/**
 * A fleet that heals (docs/failover.md): what the scheduler does with each
 * cluster health state, over the whole function response. A blip
 * (Unreachable) moves nothing; Unavailable and drained clusters' replicas are
 * re-placed make before break; no replacement that fits keeps them in place
 * (FailoverBlocked); a route is never emptied.
 */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../functions/lib/function.js';
import { compose } from '../../functions/schedule-model-deployment/compose.js';
import { cluster, deployment, pool, replica, request } from '../builders/scheduler.js';

const a = 'cluster-a';
const b = 'cluster-b';

function cond(out: ReturnType<typeof compose>, type: string) {
  return out.conditions.find((c) => c.type === type);
}

/** One replica on each of a and b, Ready, with their endpoints; `health` of cluster a. */
function twoReplicas(healthOfA: string | undefined, opts: { readyB?: boolean; drainA?: boolean; c?: KubeObject[] } = {}) {
  const ra = replica(a, 0, { ready: true });
  const rb = replica(b, 0, { ready: opts.readyB ?? true });
  const clusters = opts.c ?? [cluster(a, { ...(healthOfA ? { health: healthOfA } : {}), ...(opts.drainA ? { drain: true } : {}) }), cluster(b, { health: 'Healthy' }), cluster('cluster-c', { health: 'Healthy' })];
  const observed: Record<string, KubeObject> = { 'replica-cluster-a-0': ra, 'replica-cluster-b-0': rb, 'endpoint-cluster-a-0': endpoint(ra), 'endpoint-cluster-b-0': endpoint(rb) };
  return compose(request(deployment({ replicas: 2 }), { observed, required: { clusters, 'all-replicas': [ra, rb] } }));
}

function endpoint(r: KubeObject): KubeObject {
  return { apiVersion: 'modelplane.ai/v1alpha1', kind: 'ModelEndpoint', metadata: { name: r.metadata?.name ?? '', namespace: 'ml-team' }, spec: { url: 'http://10.0.0.1/x/v1' }, status: { conditions: [{ type: 'Ready', status: 'True' }] } };
}

describe('cluster health in the scheduler', () => {
  it('Healthy: nothing changes', () => {
    const out = twoReplicas('Healthy');
    expect(Object.keys(out.resources).sort()).toEqual(['dashboard', 'endpoint-cluster-a-0', 'endpoint-cluster-b-0', 'replica-cluster-a-0', 'replica-cluster-b-0']);
    expect(out.status?.['replicas']).toEqual({ total: 2, ready: 2, summary: '2/2' });
  });

  it('Unreachable (a blip): nothing moves, the replica is not counted Ready, its endpoint is kept as it is', () => {
    const out = twoReplicas('Unreachable');
    expect(Object.keys(out.resources).sort()).toEqual(['dashboard', 'endpoint-cluster-a-0', 'endpoint-cluster-b-0', 'replica-cluster-a-0', 'replica-cluster-b-0']);
    expect(out.status?.['replicas']).toEqual({ total: 2, ready: 1, summary: '1/2' });
    expect(cond(out, 'ReplicasReady')?.message).toBe(
      '1 of 2 ready; replica my-model-5ab63: cluster cluster-a is Unreachable: not counted Ready; its endpoint is kept until the cluster is Unavailable or the replica is replaced',
    );
    expect(cond(out, 'Progressing')?.reason).toBe('ReplicasUpToDate');
    expect(out.resources['replica-cluster-a-0']?.ready).toBeUndefined(); // so the XR is not Ready
  });

  it('Unavailable: a replacement is placed as surge, the old replica stays until it is Ready, its endpoint leaves the route', () => {
    const out = twoReplicas('Unavailable');
    expect(Object.keys(out.resources).sort()).toEqual(['dashboard', 'endpoint-cluster-b-0', 'replica-cluster-a-0', 'replica-cluster-b-0', 'replica-cluster-c-0']);
    const placements = out.status?.['placements'] as { cluster: string; role: string; ready: boolean }[];
    expect(placements.map((p) => `${p.cluster} ${p.role} ${p.ready}`)).toEqual(['cluster-a retiring false', 'cluster-b current true', 'cluster-c surge false']);
    expect(cond(out, 'Progressing')).toEqual({ type: 'Progressing', status: 'True', reason: 'Failover', message: '2 of 2 replicas placed on clusters that serve; 1 on Unavailable or drained clusters go as their replacements become Ready' });
    expect(cond(out, 'ReplicasScheduled')?.message).toBe(
      'Scheduled 2 of 2 replicas; replica my-model-5ab63: cluster cluster-a is Unavailable since 2024-01-01T00:00:00Z: it is re-placed and goes once enough replicas are Ready elsewhere',
    );
  });

  it('Unavailable, the replacement Ready: the old replica and its endpoint go', () => {
    const ra = replica(a, 0, { ready: true });
    const rb = replica(b, 0, { ready: true });
    const rc = replica('cluster-c', 0, { ready: true });
    const clusters = [cluster(a, { health: 'Unavailable' }), cluster(b, { health: 'Healthy' }), cluster('cluster-c', { health: 'Healthy' })];
    const observed = { 'replica-cluster-a-0': ra, 'replica-cluster-b-0': rb, 'replica-cluster-c-0': rc, 'endpoint-cluster-a-0': endpoint(ra), 'endpoint-cluster-b-0': endpoint(rb) };
    const out = compose(request(deployment({ replicas: 2 }), { observed, required: { clusters, 'all-replicas': [ra, rb, rc] } }));
    expect(Object.keys(out.resources).sort()).toEqual(['dashboard', 'endpoint-cluster-b-0', 'endpoint-cluster-c-0', 'replica-cluster-b-0', 'replica-cluster-c-0']);
    expect(cond(out, 'Progressing')?.reason).toBe('ReplicasUpToDate');
    expect(out.status?.['replicas']).toEqual({ total: 2, ready: 2, summary: '2/2' });
  });

  it('Unavailable, the replacement Ready in the replica list but not yet in the observed copy: the old replica stays (make before break)', () => {
    const ra = replica(a, 0, { ready: true });
    const rb = replica(b, 0, { ready: true });
    const rcListed = replica('cluster-c', 0, { ready: true });
    const rcObserved = replica('cluster-c', 0, { ready: false });
    const clusters = [cluster(a, { health: 'Unavailable' }), cluster(b, { health: 'Healthy' }), cluster('cluster-c', { health: 'Healthy' })];
    const observed = { 'replica-cluster-a-0': ra, 'replica-cluster-b-0': rb, 'replica-cluster-c-0': rcObserved, 'endpoint-cluster-b-0': endpoint(rb) };
    const out = compose(request(deployment({ replicas: 2 }), { observed, required: { clusters, 'all-replicas': [ra, rb, rcListed] } }));
    const placements = out.status?.['placements'] as { cluster: string; role: string; ready: boolean }[];
    expect(placements.map((p) => `${p.cluster} ${p.role} ${p.ready}`)).toEqual(['cluster-a retiring false', 'cluster-b current true', 'cluster-c surge false']);
    expect(Object.keys(out.resources).sort()).toEqual(['dashboard', 'endpoint-cluster-b-0', 'replica-cluster-a-0', 'replica-cluster-b-0', 'replica-cluster-c-0']);
  });

  it('Unavailable with nowhere to go: FailoverBlocked names why per cluster, and the replica stays', () => {
    const full = [cluster(a, { health: 'Unavailable' }), cluster(b, { health: 'Healthy', pools: [pool('default', { nodes: 1 })] })];
    const out = twoReplicas('Unavailable', { c: full });
    expect(Object.keys(out.resources).sort()).toEqual(['dashboard', 'endpoint-cluster-b-0', 'replica-cluster-a-0', 'replica-cluster-b-0']);
    expect(cond(out, 'Progressing')).toEqual({
      type: 'Progressing',
      status: 'False',
      reason: 'FailoverBlocked',
      message:
        'Failover held: keeping 1 replica on Unavailable or drained clusters in place; 1 of 2 replicas scheduled; 2 clusters: 1 pool default: needs 1 gpu on one node, 0 free, 1 health Unavailable since 2024-01-01T00:00:00Z',
    });
  });

  it('Unavailable and no other replica Ready: the endpoint stays (a route is never emptied)', () => {
    const out = twoReplicas('Unavailable', { readyB: false });
    expect(Object.keys(out.resources)).toContain('endpoint-cluster-a-0');
    expect(cond(out, 'ReplicasReady')?.message).toContain('replica my-model-5ab63: cluster cluster-a is Unavailable: not counted Ready; its endpoint is kept while no other replica is Ready (a route is never emptied)');
  });

  it('the bug-log case: an endpoint on a cluster that publishes no gateway address is kept while Unreachable, removed when Unavailable or replaced', () => {
    const noGateway = (state: string) => [cluster(a, { health: state, gateway: null }), cluster(b, { health: 'Healthy' }), cluster('cluster-c', { health: 'Healthy' })];
    expect(Object.keys(twoReplicas(undefined, { c: noGateway('Unreachable') }).resources)).toContain('endpoint-cluster-a-0');
    expect(Object.keys(twoReplicas(undefined, { c: noGateway('Unavailable') }).resources)).not.toContain('endpoint-cluster-a-0');
    const ra = replica(a, 0, { ready: true });
    const rb = replica(b, 0, { ready: true });
    const rc = replica('cluster-c', 0, { ready: true });
    const replaced = compose(
      request(deployment({ replicas: 2 }), {
        observed: { 'replica-cluster-a-0': ra, 'replica-cluster-b-0': rb, 'replica-cluster-c-0': rc, 'endpoint-cluster-a-0': endpoint(ra) },
        required: { clusters: noGateway('Unavailable'), 'all-replicas': [ra, rb, rc] },
      }),
    );
    expect(Object.keys(replaced.resources).sort()).toEqual(['dashboard', 'endpoint-cluster-b-0', 'endpoint-cluster-c-0', 'replica-cluster-b-0', 'replica-cluster-c-0']);
  });

  it('spec.drain: the replica keeps serving and its endpoint while its replacement starts; the cluster takes no new replica', () => {
    const out = twoReplicas('Healthy', { drainA: true });
    expect(Object.keys(out.resources).sort()).toEqual(['dashboard', 'endpoint-cluster-a-0', 'endpoint-cluster-b-0', 'replica-cluster-a-0', 'replica-cluster-b-0', 'replica-cluster-c-0']);
    expect(cond(out, 'ReplicasScheduled')?.message).toContain('cluster cluster-a is drained (spec.drain): it is re-placed');
    expect(out.status?.['replicas']).toEqual({ total: 3, ready: 2, summary: '2/2' });
  });

  it('no placement on an Unreachable or Unavailable cluster', () => {
    for (const state of ['Unreachable', 'Unavailable']) {
      const out = compose(request(deployment({ replicas: 1 }), { required: { clusters: [cluster(a, { health: state })], 'all-replicas': [] } }));
      expect(Object.keys(out.resources)).toEqual(['dashboard']);
      expect(cond(out, 'ReplicasScheduled')?.message).toBe(`0 of 1 replicas scheduled; 1 cluster: 1 health ${state} since 2024-01-01T00:00:00Z`);
    }
  });

  it('recovered (Healthy again): nothing moves back', () => {
    const rb = replica(b, 0, { ready: true });
    const rc = replica('cluster-c', 0, { ready: true });
    const clusters = [cluster(a, { health: 'Healthy' }), cluster(b, { health: 'Healthy' }), cluster('cluster-c', { health: 'Healthy' })];
    const out = compose(request(deployment({ replicas: 2 }), { observed: { 'replica-cluster-b-0': rb, 'replica-cluster-c-0': rc }, required: { clusters, 'all-replicas': [rb, rc] } }));
    expect(Object.keys(out.resources).sort()).toEqual(['dashboard', 'endpoint-cluster-b-0', 'endpoint-cluster-c-0', 'replica-cluster-b-0', 'replica-cluster-c-0']);
  });
});
