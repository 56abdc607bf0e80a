/**
 * The InferenceCluster's health (compose-inference-cluster/health.ts,
 * docs/failover.md): the reachability probe, each health transition as the
 * function publishes it against a fixed `now`, the TTL to the next bound and
 * the XR's readiness.
 */
import { describe, expect, it } from 'vitest';
import { compose } from '../../functions/compose-inference-cluster/compose.js';
import type { JsonObject, KubeObject } from '../../functions/lib/function.js';
import { classes, expectedProbe, expectedStack, inferenceCluster, observed, pool, request, requiredClasses } from '../builders/platform.js';

const secret = (data: JsonObject): KubeObject => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'my-kubeconfig', namespace: 'modelplane-system' }, data });

const T0 = Date.UTC(2024, 0, 1);
const iso = (s: number) => new Date(T0 + s * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
const kubeconfig = { type: 'Kubeconfig', name: 'my-kubeconfig', key: 'kubeconfig' };

/** An Existing cluster with `spec` extras and the health it published last (if any). */
function cluster(extra: JsonObject = {}, health?: JsonObject): KubeObject {
  const ic = inferenceCluster({ source: 'Existing', existing: { secretRef: { name: 'my-kubeconfig' } } }, [pool('l4-pool', 'gpu-l4')]);
  ic['spec'] = { ...(ic['spec'] as JsonObject), ...extra };
  if (health) ic['status'] = { health };
  return ic;
}

/** The probe as provider-kubernetes reports it: Synced True or False since `since` seconds after T0. */
function probe(synced: boolean, since: number) {
  return observed(expectedProbe(), undefined, [
    { type: 'Ready', status: 'True', reason: 'Available', lastTransitionTime: iso(0) },
    synced
      ? { type: 'Synced', status: 'True', reason: 'ReconcileSuccess', lastTransitionTime: iso(since) }
      : { type: 'Synced', status: 'False', reason: 'ReconcileError', message: 'dial tcp 127.0.0.1:7443: connect: connection refused', lastTransitionTime: iso(since) },
  ]);
}

/** The published health of a result. */
const healthOf = (out: ReturnType<typeof run>): JsonObject => (out.status?.['health'] ?? {}) as JsonObject;

function run(ic: KubeObject, probeState: ReturnType<typeof probe> | undefined, now: number) {
  const stack = observed(expectedStack([kubeconfig]), { gateway: { address: '10.0.0.9' } }, [{ type: 'Ready', status: 'True', reason: 'Available', lastTransitionTime: iso(0) }]);
  const req = request(ic, {
    required: { ...requiredClasses(classes.gkeL4()), 'kubeconfig-secret': [secret({ kubeconfig: 'YXBpVmVyc2lvbjogdjE=' })], 'model-replicas': [] },
    observed: { 'serving-stack': stack, ...(probeState ? { 'reachability-probe': probeState } : {}) },
  });
  return compose({ ...req, now: T0 + now * 1000 });
}

const healthy = { state: 'Healthy', since: iso(0), reason: 'Healthy', message: 'reachable, cluster and serving stack Ready' };

describe('InferenceCluster health', () => {
  it('composes the observe-only probe through its ClusterProviderConfig, always ready', () => {
    const out = run(cluster(), undefined, 0);
    expect(out.resources['reachability-probe']).toEqual({ resource: expectedProbe(), ready: true });
    expect(out.status?.['health']).toEqual({ state: 'Provisioning', since: iso(0), reason: 'ProbePending', message: 'the reachability probe has not been observed yet' });
  });

  it('probe Synced: Healthy, since the latest transition; the XR may be Ready', () => {
    const out = run(cluster(), probe(true, 30), 60);
    expect(out.status?.['health']).toEqual({ ...healthy, since: iso(30) });
    expect(out.ready).toBeUndefined();
    expect(out.ttlSeconds).toBeUndefined();
  });

  it('probe Synced False: Unreachable since its transition, not Ready, TTL to failover.after', () => {
    const out = run(cluster({}, healthy), probe(false, 100), 160);
    expect(out.status?.['health']).toEqual({
      state: 'Unreachable',
      since: iso(100),
      reason: 'ProbeFailed',
      message:
        'the reachability probe cannot read the cluster (provider-kubernetes Synced False: dial tcp 127.0.0.1:7443: connect: connection refused); replicas here are not counted Ready, and are re-placed if it is still unreachable at 2024-01-01T00:06:40Z (failover.after 5m)',
    });
    expect(out.ttlSeconds).toBe(60);
    expect(out.ready).toBe(false);
  });

  it('a paused probe (Synced False ReconcilePaused) checks nothing: no sign of a loss', () => {
    const paused = observed(expectedProbe(), undefined, [
      { type: 'Ready', status: 'True', reason: 'Available', lastTransitionTime: iso(0) },
      { type: 'Synced', status: 'False', reason: 'ReconcilePaused', lastTransitionTime: iso(20) },
    ]);
    expect(healthOf(run(cluster({}, healthy), paused, 60))).toEqual(healthy);
    expect(healthOf(run(cluster(), paused, 60))).toEqual({ ...healthy, since: iso(20) });
  });

  it('a probe paused after a failed look (crossplane.io/paused, its Synced False ReconcileError kept): no sign of a loss', () => {
    // The dev control plane pauses a simulated cluster's Objects; one its provider looked at first keeps that Synced.
    const stale = probe(false, 20);
    stale.resource.metadata = { ...stale.resource.metadata, annotations: { ...stale.resource.metadata?.annotations, 'crossplane.io/paused': 'true' } };
    expect(healthOf(run(cluster(), stale, 60))).toEqual({ ...healthy, since: iso(20) });
    expect(healthOf(run(cluster({}, healthy), stale, 60))).toEqual(healthy);
  });

  it('spec.failover.after: 20s turns it Unavailable 20 s after the probe failed', () => {
    const ic = cluster({ failover: { after: '20s', recoverAfter: '10s' } }, healthy);
    const before = run(ic, probe(false, 100), 110);
    expect([healthOf(before)['state'], before.ttlSeconds]).toEqual(['Unreachable', 10]);
    const after = run(cluster({ failover: { after: '20s', recoverAfter: '10s' } }, healthOf(before)), probe(false, 100), 120);
    expect(healthOf(after)['state']).toBe('Unavailable');
    expect(healthOf(after)['since']).toBe(iso(120));
  });

  it('spec.drain: Draining; a NoExecute taint too', () => {
    expect(healthOf(run(cluster({ drain: true }, healthy), probe(true, 0), 10))['message']).toBe(
      'spec.drain is true: replicas here are re-placed on other clusters, make before break; no new replica is placed here',
    );
    const tainted = run(cluster({ taints: [{ key: 'maintenance', effect: 'NoExecute' }] }, healthy), probe(true, 0), 10);
    expect(healthOf(tainted)['message']).toMatch(/^taint maintenance:NoExecute: /);
  });
});
