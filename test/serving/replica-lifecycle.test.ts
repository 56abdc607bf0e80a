/**
 * compose-model-replica lifecycle (docs/design.md#production-runtime): the startup budget from
 * serving.startupTimeout, liveness, the drain from serving.drainSeconds and
 * the PodDisruptionBudget, on the exact composed containers of a native
 * engine, a gang (leader and worker) and the prefill/decode sidecar.
 */
import { describe, expect, it } from 'vitest';
import { compose } from '../../functions/compose-model-replica/compose.js';
import { durationSeconds } from '../../functions/compose-model-replica/lifecycle.js';
import type { JsonObject, KubeObject } from '../../functions/lib/function.js';
import { engine, gpu, inferenceCluster, member, replica, request, standalone } from '../builders/serving.js';
import { budget, health, liveness, probe, startup } from './replica-expected.js';

const cluster = { cluster: [inferenceCluster('cluster-a')] };

function withServing(xr: KubeObject, serving: JsonObject): KubeObject {
  const spec = xr['spec'] as JsonObject;
  spec['serving'] = { ...((spec['serving'] as JsonObject | undefined) ?? {}), ...serving };
  return xr;
}

function manifestOf(xr: KubeObject, key: string): JsonObject {
  const r = compose(request(xr, { required: cluster }));
  const res = r.resources[key];
  if (res === undefined) throw new Error(`no ${key}: ${JSON.stringify(r.conditions)}`);
  return (res.resource['spec'] as { forProvider: { manifest: JsonObject } }).forProvider.manifest;
}

const podOf = (d: JsonObject): JsonObject => (d['spec'] as { template: { spec: JsonObject } }).template.spec;

describe('startup budget and drain', () => {
  it('native: 1h30m is 540 probes of 10 s, drain 120 s keeps the 10 s preStop wait', () => {
    const xr = withServing(replica('r', { engines: [standalone('main')] }), { startupTimeout: '1h30m', drainSeconds: 120 });
    const pod = podOf(manifestOf(xr, 'model-serving-main'));
    const c = (pod['containers'] as JsonObject[])[0]!;
    expect(pod['terminationGracePeriodSeconds']).toBe(120);
    expect({ r: c['readinessProbe'], s: c['startupProbe'], l: c['livenessProbe'], h: c['lifecycle'] }).toStrictEqual({
      r: probe(8000),
      s: startup(8000, 540),
      l: liveness(8000),
      h: { preStop: { sleep: { seconds: 10 } } },
    });
  });

  it('a budget that is not a multiple of the period rounds up (45s → 5 probes); a short drain shortens the wait', () => {
    const xr = withServing(replica('r', { engines: [standalone('main')] }), { startupTimeout: '45s', drainSeconds: 4 });
    const pod = podOf(manifestOf(xr, 'model-serving-main'));
    const c = (pod['containers'] as JsonObject[])[0]!;
    expect(pod['terminationGracePeriodSeconds']).toBe(4);
    expect(c['startupProbe']).toStrictEqual(startup(8000, 5));
    expect(c['lifecycle']).toStrictEqual({ preStop: { sleep: { seconds: 4 } } });
  });

  it('drainSeconds 0: no preStop wait, grace 0', () => {
    const xr = withServing(replica('r', { engines: [standalone('main')] }), { drainSeconds: 0 });
    const pod = podOf(manifestOf(xr, 'model-serving-main'));
    const c = (pod['containers'] as JsonObject[])[0]!;
    expect(pod['terminationGracePeriodSeconds']).toBe(0);
    expect('lifecycle' in c).toBe(false);
    expect(c['startupProbe']).toStrictEqual(startup(8000, 180));
  });

  it('gang: the leader gets every probe and the wait, the worker none; both pods the grace; the PDB holds the whole group', () => {
    const xr = withServing(
      replica('r', {
        engines: [engine('main', [member('Leader', { requests: [gpu()] }), member('Worker', { requests: [gpu()], workerNodes: 3 })])],
      }),
      { startupTimeout: '2h' },
    );
    const lws = manifestOf(xr, 'model-serving-main');
    const lwt = (lws['spec'] as { leaderWorkerTemplate: { leaderTemplate: { spec: JsonObject }; workerTemplate: { spec: JsonObject } } })
      .leaderWorkerTemplate;
    const leader = (lwt.leaderTemplate.spec['containers'] as JsonObject[])[0]!;
    const worker = (lwt.workerTemplate.spec['containers'] as JsonObject[])[0]!;
    expect({ r: leader['readinessProbe'], s: leader['startupProbe'], l: leader['livenessProbe'], h: leader['lifecycle'] }).toStrictEqual({
      r: probe(8000),
      s: startup(8000, 720),
      l: liveness(8000),
      h: { preStop: { sleep: { seconds: 10 } } },
    });
    expect(Object.keys(worker).filter((k) => /Probe$|^lifecycle$/.test(k))).toStrictEqual([]);
    expect(lwt.leaderTemplate.spec['terminationGracePeriodSeconds']).toBe(60);
    expect(lwt.workerTemplate.spec['terminationGracePeriodSeconds']).toBe(60);
    expect(manifestOf(xr, 'disruption-budget-main')).toStrictEqual(budget(lws['metadata'] ? (lws['metadata'] as { name: string }).name : '', 4, 'lws'));
  });

  it('PDB of a 3-copy Deployment keeps 2', () => {
    const xr = replica('r', { engines: [engine('main', [member('Standalone', { requests: [gpu()] })], { copies: 3 })] });
    const d = manifestOf(xr, 'model-serving-main');
    expect(manifestOf(xr, 'disruption-budget-main')).toStrictEqual(budget((d['metadata'] as { name: string }).name, 2));
  });

  it('prefill/decode: the decode engine is probed on its own port, the pd-sidecar on 8000', () => {
    const xr = withServing(
      replica('r', {
        mode: 'PrefillDecode',
        engines: [
          engine('p', [member('Standalone', { requests: [gpu()] })], { phase: 'Prefill' }),
          engine('d', [member('Standalone', { requests: [gpu()], args: ['--port=8001'] })], { phase: 'Decode' }),
        ],
      }),
      { startupTimeout: '10m' },
    );
    const [engineC, sidecar] = podOf(manifestOf(xr, 'model-serving-d'))['containers'] as JsonObject[];
    const pick = (c: JsonObject) => ({
      readinessProbe: c['readinessProbe'],
      startupProbe: c['startupProbe'],
      livenessProbe: c['livenessProbe'],
      lifecycle: c['lifecycle'],
    });
    expect(pick(engineC!)).toStrictEqual(health(8001, { failureThreshold: 60 }));
    expect(pick(sidecar!)).toStrictEqual(health(8000, { failureThreshold: 60 }));
  });

  it('a zero startupTimeout (which the pattern admits) is a Warning and a False ModelAccepted naming the field', () => {
    const xr = withServing(replica('r'), { startupTimeout: '0m' });
    const r = compose(request(xr, { required: cluster }));
    const msg = 'spec.serving.startupTimeout: "0m" is not a positive duration of hours, minutes and seconds; write it like 45m or 1h30m';
    expect(r.results).toStrictEqual([{ severity: 'Warning', message: msg }]);
    expect(r.conditions[0]).toStrictEqual({ type: 'ModelAccepted', status: 'False', reason: 'InvalidSpec', message: msg });
  });

  it.each([
    ['30m', 1800],
    ['1h30m', 5400],
    ['90s', 90],
    ['2h0m5s', 7205],
    ['0s', undefined],
    ['', undefined],
    ['1.5h', undefined],
    ['m', undefined],
  ])('durationSeconds(%j) = %j', (text, want) => {
    expect(durationSeconds(text)).toBe(want);
  });
});
