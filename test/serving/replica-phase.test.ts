/**
 * ModelReplica status.phase and status.phaseSince (docs/design.md#production-runtime, phase.ts): the
 * replica moves Pending → Starting → Serving → Degraded → Serving as the
 * observed workload changes, with phaseSince from observed timestamps only.
 */
import { describe, expect, it } from 'vitest';
import { compose } from '../../functions/compose-model-replica/compose.js';
import type { JsonObject, KubeObject, ObservedResource } from '../../functions/lib/function.js';
import { inferenceCluster, replica, request } from '../builders/serving.js';

const cluster = { cluster: [inferenceCluster('cluster-a')] };
const CREATED = '2026-01-01T10:00:00Z';

/** The observed workload Object: created at CREATED, applied or not, Ready as told since `at`. */
function workload(o: { applied: boolean; ready?: boolean; at?: string }): ObservedResource {
  const status: JsonObject = {};
  if (o.applied) status['atProvider'] = { manifest: { kind: 'Deployment', status: {} } };
  if (o.ready !== undefined) {
    status['conditions'] = [
      { type: 'Ready', status: o.ready ? 'True' : 'False', reason: o.ready ? 'Available' : 'Unavailable', lastTransitionTime: o.at },
    ];
  }
  const resource: KubeObject = {
    apiVersion: 'kubernetes.m.crossplane.io/v1alpha1',
    kind: 'Object',
    metadata: { name: 'r-main', creationTimestamp: CREATED },
    spec: {},
    status,
  };
  return { resource, connectionDetails: {} };
}

function xr(prev?: JsonObject): KubeObject {
  const x = replica('r');
  x.metadata = { ...x.metadata, creationTimestamp: '2026-01-01T09:59:00Z' };
  if (prev) x['status'] = prev;
  return x;
}

function statusOf(composite: KubeObject, observed?: ObservedResource): JsonObject | undefined {
  return compose(request(composite, { required: cluster, observed: observed ? { 'model-serving-main': observed } : {} })).status;
}

describe('ModelReplica phase', () => {
  it('Pending: composed, nothing observed; since the XR was created', () => {
    expect(statusOf(xr())).toStrictEqual({ phase: 'Pending', phaseSince: '2026-01-01T09:59:00Z' });
  });

  it('Pending while the Object exists but the cluster has not applied it', () => {
    expect(statusOf(xr(), workload({ applied: false }))).toStrictEqual({ phase: 'Pending', phaseSince: '2026-01-01T09:59:00Z' });
  });

  it('Starting: applied, not available; since the workload became not Ready', () => {
    const s = statusOf(xr({ phase: 'Pending', phaseSince: '2026-01-01T09:59:00Z' }), workload({ applied: true, ready: false, at: '2026-01-01T10:00:05Z' }));
    expect(s).toStrictEqual({ phase: 'Starting', phaseSince: '2026-01-01T10:00:05Z' });
  });

  it('Starting without a Ready condition yet: since the Object was created', () => {
    expect(statusOf(xr({ phase: 'Pending' }), workload({ applied: true }))).toStrictEqual({ phase: 'Starting', phaseSince: CREATED });
  });

  it('Starting stays Starting with its first phaseSince', () => {
    const s = statusOf(
      xr({ phase: 'Starting', phaseSince: '2026-01-01T10:00:05Z' }),
      workload({ applied: true, ready: false, at: '2026-01-01T10:07:00Z' }),
    );
    expect(s).toStrictEqual({ phase: 'Starting', phaseSince: '2026-01-01T10:00:05Z' });
  });

  it('Serving: every workload available; since it became Ready', () => {
    const s = statusOf(xr({ phase: 'Starting', phaseSince: '2026-01-01T10:00:05Z' }), workload({ applied: true, ready: true, at: '2026-01-01T10:21:00Z' }));
    expect(s).toStrictEqual({ phase: 'Serving', phaseSince: '2026-01-01T10:21:00Z' });
  });

  it('a garbage entry among the workload conditions is skipped: Serving since the Ready one (the fuzz run: a null entry threw)', () => {
    const w = workload({ applied: true, ready: true, at: '2026-01-01T10:21:00Z' });
    const status = w.resource['status'] as JsonObject;
    status['conditions'] = [null, 'garbage', ...(status['conditions'] as JsonObject[])];
    expect(statusOf(xr({ phase: 'Starting', phaseSince: '2026-01-01T10:00:05Z' }), w)).toStrictEqual({ phase: 'Serving', phaseSince: '2026-01-01T10:21:00Z' });
  });

  it('Degraded: was Serving, now not available; since it lost Ready', () => {
    const s = statusOf(xr({ phase: 'Serving', phaseSince: '2026-01-01T10:21:00Z' }), workload({ applied: true, ready: false, at: '2026-01-01T12:00:00Z' }));
    expect(s).toStrictEqual({ phase: 'Degraded', phaseSince: '2026-01-01T12:00:00Z' });
  });

  it('Degraded when the workload is gone after serving (no timestamp observed: no phaseSince)', () => {
    expect(statusOf(xr({ phase: 'Serving', phaseSince: '2026-01-01T10:21:00Z' }))).toStrictEqual({ phase: 'Degraded' });
  });

  it('back to Serving from Degraded', () => {
    const s = statusOf(xr({ phase: 'Degraded', phaseSince: '2026-01-01T12:00:00Z' }), workload({ applied: true, ready: true, at: '2026-01-01T12:03:00Z' }));
    expect(s).toStrictEqual({ phase: 'Serving', phaseSince: '2026-01-01T12:03:00Z' });
  });

  it('waiting for the cluster reports the phase of what is observed', () => {
    const out = compose(request(xr({ phase: 'Serving', phaseSince: 'x' }), { observed: { 'model-serving-main': workload({ applied: true, ready: true }) } }));
    expect(out.status).toStrictEqual({ phase: 'Serving', phaseSince: 'x' });
  });
});
