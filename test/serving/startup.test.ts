/**
 * ModelReplica `status.startup` (docs/design.md#production-runtime): the cold
 * start measured from the observed workload's own timestamps.
 */
import { describe, expect, it } from 'vitest';
import { compose } from '../../functions/compose-model-replica/compose.js';
import { observedStartup } from '../../functions/compose-model-replica/startup.js';
import type { JsonObject, ObservedResource } from '../../functions/lib/function.js';
import { engine, gpu, inferenceCluster, member, observed, replica, request, standalone } from '../builders/serving.js';

/** An observed workload Object whose remote manifest has these timestamps. */
function workload(created: string | undefined, available?: { at: string; status?: 'True' | 'False' }): ObservedResource {
  const manifest: JsonObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: created ? { name: 'w', creationTimestamp: created } : { name: 'w' } };
  if (available) {
    manifest['status'] = {
      conditions: [
        { type: 'Progressing', status: 'True', lastTransitionTime: '2026-01-01T09:00:00Z' },
        { type: 'Available', status: available.status ?? 'True', lastTransitionTime: available.at },
      ],
    };
  }
  return observed({
    apiVersion: 'kubernetes.m.crossplane.io/v1alpha1',
    kind: 'Object',
    spec: {},
    status: { atProvider: { manifest }, conditions: [{ type: 'Ready', status: available?.status === 'True' || (available && !available.status) ? 'True' : 'False', reason: 'x' }] },
  });
}

const cluster = { cluster: [inferenceCluster('cluster-a')] };

describe('ModelReplica status.startup', () => {
  it('a Deployment created 10:00:00 and Available at 10:06:12 reports exactly 372 seconds', () => {
    const out = compose(
      request(replica('r'), {
        required: cluster,
        observed: { 'model-serving-main': workload('2026-01-01T10:00:00Z', { at: '2026-01-01T10:06:12Z' }) },
      }),
    );
    expect(out.status?.['startup']).toEqual({ startedAt: '2026-01-01T10:00:00Z', readyAt: '2026-01-01T10:06:12Z', seconds: 372 });
  });

  it('no Available condition yet: startedAt only', () => {
    const out = compose(request(replica('r'), { required: cluster, observed: { 'model-serving-main': workload('2026-01-01T10:00:00Z') } }));
    expect(out.status?.['startup']).toEqual({ startedAt: '2026-01-01T10:00:00Z' });
  });

  it('Available=False is not ready: startedAt only', () => {
    const out = compose(
      request(replica('r'), {
        required: cluster,
        observed: { 'model-serving-main': workload('2026-01-01T10:00:00Z', { at: '2026-01-01T10:01:00Z', status: 'False' }) },
      }),
    );
    expect(out.status?.['startup']).toEqual({ startedAt: '2026-01-01T10:00:00Z' });
  });

  it('nothing observed: no status.startup at all', () => {
    expect(compose(request(replica('r'), { required: cluster })).status?.['startup']).toBeUndefined();
  });

  it('two engines (prefill/decode): earliest creation to the last Available, only once both are Available', () => {
    const r = replica('r', {
      mode: 'PrefillDecode',
      engines: [
        engine('p', [member('Standalone', { requests: [gpu()] })], { phase: 'Prefill' }),
        engine('d', [member('Standalone', { requests: [gpu()], args: ['--port=8001'] })], { phase: 'Decode' }),
      ],
    });
    const both = {
      'model-serving-p': workload('2026-01-01T10:00:05Z', { at: '2026-01-01T10:05:00Z' }),
      'model-serving-d': workload('2026-01-01T10:00:00Z', { at: '2026-01-01T10:07:30Z' }),
    };
    expect(observedStartup(request(r, { observed: both }), ['model-serving-p', 'model-serving-d'])).toEqual({
      startedAt: '2026-01-01T10:00:00Z',
      readyAt: '2026-01-01T10:07:30Z',
      seconds: 450,
    });
    const one = { ...both, 'model-serving-d': workload('2026-01-01T10:00:00Z') };
    expect(observedStartup(request(r, { observed: one }), ['model-serving-p', 'model-serving-d'])).toEqual({ startedAt: '2026-01-01T10:00:00Z' });
  });

  it('an unparsable timestamp is ignored', () => {
    expect(observedStartup(request(replica('r', { engines: [standalone()] }), { observed: { 'model-serving-main': workload('yesterday') } }), ['model-serving-main'])).toBeUndefined();
  });
});
