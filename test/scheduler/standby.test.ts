/**
 * Zero and back (docs/autoscaling.md#zero-and-back): the standby
 * ModelEndpoint a deployment that may scale to zero composes while no
 * replica's endpoint is Ready, and the demand trigger that reads what the
 * validator records behind it.
 */
import { describe, expect, it } from 'vitest';
import { compose } from '../../functions/schedule-model-deployment/compose.js';
import { getPath, type JsonObject, type KubeObject } from '../../functions/lib/function.js';
import { cluster, DEP, deployment, device, NS, pool, replica, request } from '../builders/scheduler.js';

function autoscaled(minReplicas: number, replicas: number): KubeObject {
  const xr = deployment({ replicas });
  (xr['spec'] as JsonObject)['autoscaling'] = { minReplicas, maxReplicas: 4, metrics: { inFlightPerReplica: 8 } };
  return xr;
}
const clusters = [cluster('c1', { pools: [pool('default', { nodes: 4, devices: [device('gpu', { count: 8 })] })] })];
const gateway = (validatorURL?: string): KubeObject => ({
  apiVersion: 'modelplane.ai/v1alpha1',
  kind: 'InferenceGateway',
  metadata: { name: 'default' },
  spec: validatorURL ? { auth: { validatorURL } } : {},
});
const STANDBY: KubeObject = {
  apiVersion: 'modelplane.ai/v1alpha1',
  kind: 'ModelEndpoint',
  metadata: { name: `${DEP}-standby`, namespace: NS, labels: { 'modelplane.ai/deployment': DEP, 'modelplane.ai/standby': 'true' } },
  spec: {
    rewritePath: `/scale-from-zero/${NS}/${DEP}/retry-after-30/`,
    url: `http://modelplane-key-validator.modelplane-system.svc.cluster.local:8080/scale-from-zero/${NS}/${DEP}/retry-after-30/v1`,
  },
};
const ready = (o: KubeObject): KubeObject => ({ ...o, status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Available' }] } });

describe('standby endpoint', () => {
  it('at zero with minReplicas 0: routes to the validator\'s scale-from-zero path (the composed validator by default)', () => {
    const got = compose(request(autoscaled(0, 0), { required: { clusters, 'inference-gateway': [] } }));
    expect(got.requirements['inference-gateway']).toEqual({ apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceGateway', matchName: 'default' });
    expect(got.resources['standby-endpoint']).toEqual({ resource: STANDBY });
    expect(got.ready).toBe(true);
  });

  it('uses the gateway\'s spec.auth.validatorURL, and is ready as observed', () => {
    const got = compose(request(autoscaled(0, 0), { required: { clusters, 'inference-gateway': [gateway('http://10.96.200.2:18080/')] }, observed: { 'standby-endpoint': ready(STANDBY) } }));
    expect(got.resources['standby-endpoint']).toEqual({
      resource: { ...STANDBY, spec: { rewritePath: `/scale-from-zero/${NS}/${DEP}/retry-after-30/`, url: `http://10.96.200.2:18080/scale-from-zero/${NS}/${DEP}/retry-after-30/v1` } },
      ready: true,
    });
  });

  it('keeps an observed standby while the gateway is not fetched yet, and composes none before', () => {
    const kept = compose(request(autoscaled(0, 0), { required: { clusters }, observed: { 'standby-endpoint': STANDBY } }));
    expect(kept.resources['standby-endpoint']?.resource).toEqual(STANDBY);
    const none = compose(request(autoscaled(0, 0), { required: { clusters } }));
    expect(none.resources['standby-endpoint']).toBeUndefined();
  });

  it('stays while the first replica starts, and gives way once its endpoint is Ready', () => {
    const required = { clusters, 'all-replicas': [] as KubeObject[], 'inference-gateway': [] as KubeObject[] };
    const starting = compose(request(autoscaled(0, 1), { required, observed: { 'standby-endpoint': STANDBY } }));
    expect(Object.keys(starting.resources).filter((k) => k !== 'dashboard').sort()).toEqual(['autoscaler', 'replica-c1-0', 'standby-endpoint']);

    const r = ready(replica('c1', 0));
    const replicaReady = compose(request(autoscaled(0, 1), { required: { ...required, 'all-replicas': [r] }, observed: { 'replica-c1-0': r, 'standby-endpoint': STANDBY } }));
    // The replica's endpoint is composed but not Ready yet: the standby still answers.
    expect(Object.keys(replicaReady.resources).filter((k) => k !== 'dashboard').sort()).toEqual(['autoscaler', 'endpoint-c1-0', 'replica-c1-0', 'standby-endpoint']);

    const endpoint = ready(replicaReady.resources['endpoint-c1-0']!.resource);
    const serving = compose(request(autoscaled(0, 1), { required: { ...required, 'all-replicas': [r] }, observed: { 'replica-c1-0': r, 'endpoint-c1-0': endpoint, 'standby-endpoint': STANDBY } }));
    expect(Object.keys(serving.resources).filter((k) => k !== 'dashboard').sort()).toEqual(['autoscaler', 'endpoint-c1-0', 'replica-c1-0']);
  });

  it('the demand trigger reads the validator\'s last-request gauge: a request in the last 2 minutes asks for one replica', () => {
    const got = compose(request(autoscaled(0, 0), { required: { clusters, 'inference-gateway': [] } }));
    const triggers = (got.resources['autoscaler']!.resource['spec'] as JsonObject)['triggers'] as JsonObject[];
    expect(triggers.at(-1)).toEqual({
      type: 'prometheus',
      name: 'demand',
      metricType: 'AverageValue',
      metadata: {
        serverAddress: 'http://fleet-prometheus.modelplane-system.svc:9090',
        query: `clamp_max(count(time() - modelplane_scale_from_zero_last_request_timestamp_seconds{namespace="${NS}",deployment="${DEP}"} < 120) or vector(0), 1)`,
        threshold: '1',
        activationThreshold: '0',
      },
    });
  });

  it('minReplicas 1: no standby (the gateway is asked for its autoscaler only); no autoscaling: neither', () => {
    const required = { clusters, 'all-replicas': [] as KubeObject[], 'inference-gateway': [] as KubeObject[] };
    const min1 = compose(request(autoscaled(1, 1), { required }));
    expect(min1.resources['standby-endpoint']).toBeUndefined();
    expect(min1.requirements['inference-gateway']).toEqual({ apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceGateway', matchName: 'default' });
    const plain = compose(request(deployment({ replicas: 1 }), { required }));
    expect(plain.resources['standby-endpoint']).toBeUndefined();
    expect(plain.requirements['inference-gateway']).toBeUndefined();
  });

  it('measures the way back from zero when the standby gives way: KEDA Active → first replica Ready, then carries it', () => {
    const at = (t: string) => [{ type: 'Ready', status: 'True', reason: 'Available', lastTransitionTime: t }];
    const so: KubeObject = {
      apiVersion: 'keda.sh/v1alpha1',
      kind: 'ScaledObject',
      metadata: { name: DEP, namespace: NS },
      status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'Active', status: 'True', lastTransitionTime: '2026-12-06T10:00:05Z' }] },
    };
    const r: KubeObject = { ...replica('c1', 0), status: { conditions: at('2026-12-06T10:03:47Z') } };
    const required = { clusters, 'all-replicas': [r], 'inference-gateway': [] as KubeObject[] };
    const first = compose(request(autoscaled(0, 1), { required, observed: { autoscaler: so, 'replica-c1-0': r, 'standby-endpoint': STANDBY } }));
    const endpoint = ready(first.resources['endpoint-c1-0']!.resource);
    const back = compose(request(autoscaled(0, 1), { required, observed: { autoscaler: so, 'replica-c1-0': r, 'endpoint-c1-0': endpoint, 'standby-endpoint': STANDBY } }));
    const measured = { activeAt: '2026-12-06T10:00:05Z', readyAt: '2026-12-06T10:03:47Z', seconds: 222 };
    expect(back.resources['standby-endpoint']).toBeUndefined();
    expect(getPath(back.status, 'autoscaling', 'lastScaleFromZero')).toEqual(measured);
    // Not measured while the standby still answers (the replica's endpoint is not Ready yet).
    expect(getPath(first.status, 'autoscaling', 'lastScaleFromZero')).toBeUndefined();
    // Next reconcile: no standby observed; the XR's status carries the measurement.
    const xr = autoscaled(0, 1);
    xr['status'] = { autoscaling: { lastScaleFromZero: measured } };
    const later = compose(request(xr, { required, observed: { autoscaler: so, 'replica-c1-0': r, 'endpoint-c1-0': endpoint } }));
    expect(getPath(later.status, 'autoscaling', 'lastScaleFromZero')).toEqual(measured);
  });

  it('KEDA stamps no time on its conditions: the way back starts at the first replica\'s creation', () => {
    const so: KubeObject = { apiVersion: 'keda.sh/v1alpha1', kind: 'ScaledObject', metadata: { name: DEP, namespace: NS }, status: { conditions: [{ type: 'Active', status: 'True' }] } };
    const base = replica('c1', 0);
    const r: KubeObject = {
      ...base,
      metadata: { ...(base['metadata'] as JsonObject), creationTimestamp: '2026-12-06T10:00:20Z' },
      status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Available', lastTransitionTime: '2026-12-06T10:01:05Z' }] },
    };
    const required = { clusters, 'all-replicas': [r], 'inference-gateway': [] as KubeObject[] };
    const first = compose(request(autoscaled(0, 1), { required, observed: { autoscaler: so, 'replica-c1-0': r, 'standby-endpoint': STANDBY } }));
    const endpoint = ready(first.resources['endpoint-c1-0']!.resource);
    const back = compose(request(autoscaled(0, 1), { required, observed: { autoscaler: so, 'replica-c1-0': r, 'endpoint-c1-0': endpoint, 'standby-endpoint': STANDBY } }));
    expect(getPath(back.status, 'autoscaling', 'lastScaleFromZero')).toEqual({ activeAt: '2026-12-06T10:00:20Z', readyAt: '2026-12-06T10:01:05Z', seconds: 45 });
  });

  it('back at zero after a measured way back: Retry-After is the wake-up (30 s) plus the measured 222 s', () => {
    const xr = autoscaled(0, 0);
    xr['status'] = { autoscaling: { lastScaleFromZero: { activeAt: '2026-12-06T10:00:05Z', readyAt: '2026-12-06T10:03:47Z', seconds: 222 } } };
    const got = compose(request(xr, { required: { clusters, 'inference-gateway': [] } }));
    expect(got.resources['standby-endpoint']?.resource['spec']).toEqual({
      rewritePath: `/scale-from-zero/${NS}/${DEP}/retry-after-252/`,
      url: `http://modelplane-key-validator.modelplane-system.svc.cluster.local:8080/scale-from-zero/${NS}/${DEP}/retry-after-252/v1`,
    });
    expect(getPath(got.status, 'autoscaling', 'lastScaleFromZero', 'seconds')).toBe(222);
  });
});
