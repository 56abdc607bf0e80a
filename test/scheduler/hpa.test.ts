/**
 * The HPA autoscaler (docs/autoscaling.md#keda-or-hpa): where the
 * InferenceGateway `default` says `spec.autoscaling.autoscaler: HPA`, an
 * autoscaled ModelDeployment composes a HorizontalPodAutoscaler (exact, and
 * valid against Kubernetes' own autoscaling/v2 schema) instead of a KEDA
 * ScaledObject; no scale to zero there, said as a Warning; the autoscaler
 * kept as observed while the gateway is not fetched yet.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { compose } from '../../functions/schedule-model-deployment/compose.js';
import type { JsonObject, KubeObject } from '../../functions/lib/function.js';
import { repoRoot } from '../helpers/crd.js';
import { cluster, DEP, deployment, device, NS, pool, request } from '../builders/scheduler.js';

const validateHpa = new Ajv({ allErrors: true, strict: false }).compile(
  JSON.parse(readFileSync(resolve(repoRoot, 'test/fixtures/kubernetes/autoscaling-v2-hpa.schema.json'), 'utf8')) as object,
);

function autoscaled(autoscaling: JsonObject, replicas = 1): KubeObject {
  const xr = deployment({ replicas });
  (xr['spec'] as JsonObject)['autoscaling'] = autoscaling;
  return xr;
}
const gateway = (autoscaler: string): KubeObject => ({
  apiVersion: 'modelplane.ai/v1alpha1',
  kind: 'InferenceGateway',
  metadata: { name: 'default' },
  spec: { backend: 'Traefik', autoscaling: { autoscaler } },
});
const clusters = [cluster('c1', { pools: [pool('default', { nodes: 4, devices: [device('gpu', { count: 8 })] })] })];
const withGateway = (autoscaler: string) => ({ clusters, 'all-replicas': [] as KubeObject[], 'inference-gateway': [gateway(autoscaler)] });
const warnings = (r: ReturnType<typeof compose>) => r.results.filter((x) => x.severity === 'Warning').map((x) => x.message);

const HPA: KubeObject = {
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: DEP, namespace: NS },
  spec: {
    scaleTargetRef: { apiVersion: 'modelplane.ai/v1alpha1', kind: 'ModelDeployment', name: DEP },
    minReplicas: 1,
    maxReplicas: 4,
    metrics: [
      {
        type: 'External',
        external: {
          metric: { name: 'modelplane_in_flight', selector: { matchLabels: { deployment: DEP, deployment_namespace: NS } } },
          target: { type: 'AverageValue', averageValue: '8' },
        },
      },
      {
        type: 'External',
        external: {
          metric: { name: 'modelplane_time_to_first_token_p90_milliseconds', selector: { matchLabels: { deployment: DEP, deployment_namespace: NS } } },
          target: { type: 'AverageValue', averageValue: '2000' },
        },
      },
    ],
    behavior: {
      scaleUp: { stabilizationWindowSeconds: 0, policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
      scaleDown: { stabilizationWindowSeconds: 300, policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] },
    },
  },
};

describe('the HPA autoscaler', () => {
  it('composes a HorizontalPodAutoscaler on the scale subresource, one External metric per target, valid against autoscaling/v2', () => {
    const got = compose(request(autoscaled({ minReplicas: 1, maxReplicas: 4, metrics: { inFlightPerReplica: 8, timeToFirstTokenMilliseconds: 2000 } }), { required: withGateway('HPA') }));
    expect(got.resources['autoscaler-hpa']).toEqual({ resource: HPA, ready: true });
    expect(got.resources['autoscaler']).toBeUndefined();
    expect(validateHpa(got.resources['autoscaler-hpa']!.resource), JSON.stringify(validateHpa.errors)).toBe(true);
    expect(got.status?.['selector']).toBe(`modelplane.ai/deployment=${DEP}`);
    expect(got.status?.['autoscaling']).toEqual({ minReplicas: 1, maxReplicas: 4, horizontalPodAutoscaler: DEP, summary: '1..4 WaitingForHPA' });
    expect(warnings(got)).toEqual([]);
  });

  it('the schema check is real: a field autoscaling/v2 does not have fails it', () => {
    const bad = structuredClone(HPA);
    (bad['spec'] as JsonObject)['minReplicaCount'] = 1;
    expect(validateHpa(bad)).toBe(false);
  });

  it('holds minReplicas 0 at 1 and says so; no standby endpoint, no demand to wait for', () => {
    const got = compose(request(autoscaled({ minReplicas: 0, maxReplicas: 4, metrics: { inFlightPerReplica: 8 } }), { required: withGateway('HPA') }));
    expect(getSpec(got)['minReplicas']).toBe(1);
    expect(got.resources['standby-endpoint']).toBeUndefined();
    expect(warnings(got)).toEqual([
      `spec.autoscaling.minReplicas is 0, but the InferenceGateway default autoscales with HPA (spec.autoscaling.autoscaler), which cannot scale to zero: ${DEP} keeps at least 1 replica; set the gateway's autoscaler to KEDA, or minReplicas to 1`,
    ]);
    expect((got.status?.['autoscaling'] as JsonObject | undefined)?.['summary']).toBe('1..4 WaitingForHPA');
  });

  it('at zero by hand: not Ready, and says the HPA does not scale from zero (Kubernetes leaves a target at 0 alone)', () => {
    const got = compose(request(autoscaled({ minReplicas: 1, maxReplicas: 4, metrics: { queueDepth: 2 } }, 0), { required: withGateway('HPA') }));
    const message = `spec.replicas is 0 and the HorizontalPodAutoscaler does not scale from zero, so no replica will start: kubectl scale modeldeployment/${DEP} -n ${NS} --replicas 1 (spec.autoscaling under HPA is 1..4), or set the InferenceGateway's autoscaler to KEDA`;
    expect(warnings(got)).toEqual([message]);
    expect(got.ready).toBe(false);
    expect(got.conditions.find((c) => c.type === 'ReplicasReady')).toMatchObject({ status: 'False', reason: 'ScaledToZero', message });
  });

  it('switched from KEDA while scaled to zero: the held bounds in the message, not Ready, the standby gone', () => {
    // minReplicas 0 under KEDA left the deployment at 0; the HPA holds 1 but cannot scale from zero.
    const xr = autoscaled({ minReplicas: 0, maxReplicas: 3, metrics: { inFlightPerReplica: 4 } }, 0);
    const got = compose(request(xr, { required: withGateway('HPA') }));
    expect(warnings(got)).toEqual([
      `spec.autoscaling.minReplicas is 0, but the InferenceGateway default autoscales with HPA (spec.autoscaling.autoscaler), which cannot scale to zero: ${DEP} keeps at least 1 replica; set the gateway's autoscaler to KEDA, or minReplicas to 1`,
      `spec.replicas is 0 and the HorizontalPodAutoscaler does not scale from zero, so no replica will start: kubectl scale modeldeployment/${DEP} -n ${NS} --replicas 1 (spec.autoscaling under HPA is 1..3), or set the InferenceGateway's autoscaler to KEDA`,
    ]);
    expect(got.ready).toBe(false);
    expect(got.resources['standby-endpoint']).toBeUndefined();
    // The same deployment under KEDA is ScaledToZero and Ready: the standby wakes it.
    const keda = compose(request(xr, { required: withGateway('KEDA') }));
    expect(keda.ready).toBe(true);
    expect(keda.resources['standby-endpoint']).toBeDefined();
  });

  it('the default prometheusAddress with a trailing slash is the fleet view: no Warning', () => {
    const got = compose(request(autoscaled({ maxReplicas: 2, metrics: { queueDepth: 2 }, prometheusAddress: 'http://fleet-prometheus.modelplane-system.svc:9090/' }), { required: withGateway('HPA') }));
    expect(warnings(got)).toEqual([]);
  });

  it('a prometheusAddress of its own is read by KEDA only: a Warning under the HPA', () => {
    const got = compose(request(autoscaled({ maxReplicas: 2, metrics: { queueDepth: 2 }, prometheusAddress: 'http://10.0.0.9:9090' }), { required: withGateway('HPA') }));
    expect(warnings(got)).toEqual([
      'spec.autoscaling.prometheusAddress http://10.0.0.9:9090 is read by KEDA only: with the HPA autoscaler the InferenceGateway\'s prometheus-adapter queries the fleet view (http://fleet-prometheus.modelplane-system.svc:9090)',
    ]);
  });

  it('reads the HPA\'s AbleToScale and ScalingActive conditions into the summary', () => {
    const xr = autoscaled({ minReplicas: 1, maxReplicas: 4, metrics: { queueDepth: 2 } });
    const observedHpa = (active: string): KubeObject => ({
      ...HPA,
      status: {
        conditions: [
          { type: 'AbleToScale', status: 'True', reason: 'ReadyForNewScale' },
          { type: 'ScalingActive', status: active, reason: active === 'True' ? 'ValidMetricFound' : 'FailedGetExternalMetric' },
        ],
      },
    });
    const summary = (o: KubeObject) => (compose(request(xr, { required: withGateway('HPA'), observed: { 'autoscaler-hpa': o } })).status?.['autoscaling'] as JsonObject | undefined)?.['summary'];
    expect(summary(observedHpa('True'))).toBe('1..4 Ready');
    expect(summary(observedHpa('False'))).toBe('1..4 NotReady');
  });

  it('says each scale step naming the HPA', () => {
    const xr = autoscaled({ minReplicas: 1, maxReplicas: 4, metrics: { queueDepth: 2 } }, 3);
    xr['status'] = { replicas: { total: 1 } };
    const got = compose(request(xr, { required: withGateway('HPA') }));
    expect(got.results.filter((r) => r.reason === 'Scaling').map((r) => r.message)).toEqual([
      `Scaling from 1 to 3 replicas (spec.replicas; autoscaling 1..4, HorizontalPodAutoscaler ${DEP})`,
    ]);
  });

  it('KEDA when the gateway says so, or has no autoscaling, or there is no gateway', () => {
    for (const gw of [[gateway('KEDA')], [{ ...gateway('KEDA'), spec: { backend: 'Traefik' } }], []]) {
      const got = compose(request(autoscaled({ maxReplicas: 2, metrics: { queueDepth: 2 } }), { required: { clusters, 'all-replicas': [], 'inference-gateway': gw } }));
      expect(got.resources['autoscaler']?.resource.kind).toBe('ScaledObject');
      expect(got.resources['autoscaler-hpa']).toBeUndefined();
    }
  });

  it('a switch to the HPA replaces the ScaledObject (the gateway said so); while the gateway is not fetched, whichever runs is kept', () => {
    const xr = autoscaled({ maxReplicas: 2, metrics: { queueDepth: 2 } });
    const so = compose(request(xr, { required: { clusters, 'all-replicas': [], 'inference-gateway': [] } })).resources['autoscaler']!.resource;
    const switched = compose(request(xr, { required: withGateway('HPA'), observed: { autoscaler: so } }));
    expect(Object.keys(switched.resources).filter((k) => k.startsWith('autoscaler'))).toEqual(['autoscaler-hpa']);
    const pending = { clusters, 'all-replicas': [] as KubeObject[] };
    expect(compose(request(xr, { required: pending, observed: { 'autoscaler-hpa': HPA } })).resources['autoscaler-hpa']).toEqual({ resource: HPA, ready: true });
    expect(compose(request(xr, { required: pending, observed: { autoscaler: so } })).resources['autoscaler']).toEqual({ resource: so, ready: true });
    const none = compose(request(xr, { required: pending }));
    expect(Object.keys(none.resources).filter((k) => k.startsWith('autoscaler'))).toEqual([]);
    expect(none.requirements['inference-gateway']).toEqual({ apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceGateway', matchName: 'default' });
  });
});

function getSpec(r: ReturnType<typeof compose>): JsonObject {
  return r.resources['autoscaler-hpa']!.resource['spec'] as JsonObject;
}
