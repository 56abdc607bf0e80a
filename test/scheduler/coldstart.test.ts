/**
 * The cold-start bar (docs/design.md#production-runtime): status.coldStart
 * from the placed replicas' measured status.startup, and the
 * ColdStartWithinBar condition with the numbers.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, KubeObject } from '../../functions/lib/function.js';
import { coldStart, formatSeconds, parseDuration } from '../../functions/schedule-model-deployment/coldstart.js';
import { compose } from '../../functions/schedule-model-deployment/compose.js';
import { cluster, deployment, engine, member, pool, replica, req, request, sel } from '../builders/scheduler.js';

const measured = (seconds?: number): KubeObject => {
  const r = replica('cluster-a', 0, { ready: true });
  if (seconds !== undefined) (r['status'] as JsonObject)['startup'] = { startedAt: '2026-01-01T10:00:00Z', readyAt: 'x', seconds };
  return r;
};

describe('durations', () => {
  it.each([
    ['10m', 600],
    ['1h30m', 5400],
    ['90s', 90],
    ['1.5h', 5400],
    ['500ms', 0.5],
  ])('%s is %d seconds', (text, seconds) => expect(parseDuration(text)).toBe(seconds));
  it.each(['', '10', 'ten minutes', '-1m', '1d'])('%j does not parse', (text) => expect(parseDuration(text)).toBeUndefined());
  it.each([
    [372, '6m12s'],
    [45, '45s'],
    [3600, '1h0m0s'],
    [2700, '45m0s'],
  ])('%d seconds reads %s', (s, text) => expect(formatSeconds(s)).toBe(text));
});

describe('coldStart aggregate', () => {
  it('three engines from a 140Gi cache, slowest 6m12s, bar 10m: True with the numbers', () => {
    expect(coldStart({ replicas: [measured(300), measured(372), measured(330)], fromCache: true, sizeGiB: 140, readyWithin: '10m' })).toEqual({
      status: { replicas: 3, p50Seconds: 330, maxSeconds: 372, modelSource: 'Cache', sizeGiB: 140 },
      condition: { type: 'ColdStartWithinBar', status: 'True', reason: 'WithinBar', message: '3 engines, 140Gi from cache, slowest ready in 6m12s, bar 10m' },
    });
  });

  it('one engine slower than the bar is False, even before the others are measured', () => {
    expect(coldStart({ replicas: [measured(2700), measured(), undefined], fromCache: false, readyWithin: '10m' })).toEqual({
      status: { replicas: 1, p50Seconds: 2700, maxSeconds: 2700, modelSource: 'Direct' },
      condition: {
        type: 'ColdStartWithinBar',
        status: 'False',
        reason: 'SlowerThanBar',
        message: '1 of 3 engines ready, pulled directly, slowest ready in 45m0s, bar 10m',
      },
    });
  });

  it('within the bar so far but not all measured: Unknown Measuring', () => {
    expect(coldStart({ replicas: [measured(60), measured()], fromCache: true, readyWithin: '10m' }).condition).toEqual({
      type: 'ColdStartWithinBar',
      status: 'Unknown',
      reason: 'Measuring',
      message: '1 of 2 engines ready, from cache, slowest ready in 1m0s, bar 10m',
    });
  });

  it('nothing measured: Unknown with 0 of N, no p50/max', () => {
    expect(coldStart({ replicas: [measured()], fromCache: false, readyWithin: '5m' })).toEqual({
      status: { replicas: 0, modelSource: 'Direct' },
      condition: { type: 'ColdStartWithinBar', status: 'Unknown', reason: 'Measuring', message: '0 of 1 engine ready yet, pulled directly, bar 5m' },
    });
  });

  it('no bar: no condition; the lower median of an even count', () => {
    expect(coldStart({ replicas: [measured(10), measured(40), measured(20), measured(30)], fromCache: false })).toEqual({
      status: { replicas: 4, p50Seconds: 20, maxSeconds: 40, modelSource: 'Direct' },
    });
  });
});

describe('the deployment publishes it', () => {
  const gpu = () => [req('gpu', [sel.driver('gpu.nvidia.com')])];
  const dep = (readyWithin?: string) => {
    const d = deployment({ engines: [engine('main', [member('Standalone', { devices: gpu() })])] });
    if (readyWithin) (((d['spec'] as JsonObject)['template'] as JsonObject)['spec'] as JsonObject)['serving'] = { mode: 'Unified', readyWithin };
    return d;
  };

  it('a measured Ready replica and a bar: status.coldStart and ColdStartWithinBar last; the replica carries serving without the bar', () => {
    const r = measured(372);
    r.metadata!.name = 'my-model-5ab63';
    const out = compose(
      request(dep('10m'), {
        required: { clusters: [cluster('cluster-a', { pools: [pool('default')] })], 'all-replicas': [r] },
        observed: { 'replica-cluster-a-0': r },
      }),
    );
    expect(out.status!['coldStart']).toEqual({ replicas: 1, p50Seconds: 372, maxSeconds: 372, modelSource: 'Direct' });
    expect(out.conditions.map((c) => c.type)).toEqual(['ReplicasScheduled', 'ReplicasReady', 'Progressing', 'ColdStartWithinBar']);
    expect(out.conditions[3]).toEqual({
      type: 'ColdStartWithinBar',
      status: 'True',
      reason: 'WithinBar',
      message: '1 engine, pulled directly, slowest ready in 6m12s, bar 10m',
    });
    expect((out.resources['replica-cluster-a-0']!.resource['spec'] as JsonObject)['serving']).toEqual({ mode: 'Unified' });
  });

  it('nothing measured and no bar: no status.coldStart (unchanged status)', () => {
    const out = compose(request(dep(), { required: { clusters: [cluster('cluster-a')], 'all-replicas': [] } }));
    expect(out.status!['coldStart']).toBeUndefined();
    expect(out.conditions.map((c) => c.type)).toEqual(['ReplicasScheduled', 'ReplicasReady', 'Progressing']);
  });
});
