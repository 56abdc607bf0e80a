/**
 * spec.autoscaling (docs/autoscaling.md): the KEDA ScaledObject a
 * ModelDeployment composes, exact, and valid against KEDA's own CRD; its
 * status; a hand-scaled spec.replicas reported, not fought; bad bounds named.
 */
import { describe, expect, it } from 'vitest';
import { compose } from '../../functions/schedule-model-deployment/compose.js';
import type { JsonObject, KubeObject } from '../../functions/lib/function.js';
import { expectValidAgainstCrd } from '../helpers/crd.js';
import { cluster, DEP, deployment, NS, pool, device, request } from '../builders/scheduler.js';

/** A deployment of `replicas` with this spec.autoscaling. */
function autoscaled(autoscaling: JsonObject, replicas = 1): KubeObject {
  const xr = deployment({ replicas });
  (xr['spec'] as JsonObject)['autoscaling'] = autoscaling;
  return xr;
}

const fleet = { clusters: [cluster('c1', { pools: [pool('default', { nodes: 4, devices: [device('gpu', { count: 8 })] })] })], 'all-replicas': [], 'inference-gateway': [] };
const SERVER = 'http://fleet-prometheus.modelplane-system.svc:9090';
const SEL = 'deployment="my-model",deployment_namespace="ml-team"';

describe('spec.autoscaling', () => {
  it('reads only its own series: two teams\' same-named deployments select by deployment_namespace too', () => {
    const queriesIn = (namespace: string) => {
      const xr = deployment({ namespace });
      (xr['spec'] as JsonObject)['autoscaling'] = { maxReplicas: 2, metrics: { queueDepth: 4 } };
      const so = compose(request(xr, { required: fleet })).resources['autoscaler']!.resource;
      return ((so['spec'] as JsonObject)['triggers'] as JsonObject[]).map((t) => (t['metadata'] as JsonObject)['query']);
    };
    expect(queriesIn('team-a')).toEqual([`(sum(vllm:num_requests_waiting{deployment="${DEP}",deployment_namespace="team-a"}) or vector(0))`]);
    expect(queriesIn('team-b')).toEqual([`(sum(vllm:num_requests_waiting{deployment="${DEP}",deployment_namespace="team-b"}) or vector(0))`]);
  });

  it('composes a ScaledObject on the deployment\'s scale subresource, one trigger per target, valid against KEDA\'s CRD', () => {
    const got = compose(request(autoscaled({ minReplicas: 0, maxReplicas: 4, metrics: { inFlightPerReplica: 8, kvCacheUtilizationPercent: 80 } }), { required: fleet }));
    const so = got.resources['autoscaler'];
    expect(so?.ready).toBe(true);
    expect(so?.resource).toEqual({
      apiVersion: 'keda.sh/v1alpha1',
      kind: 'ScaledObject',
      metadata: { name: DEP, namespace: NS },
      spec: {
        scaleTargetRef: { apiVersion: 'modelplane.ai/v1alpha1', kind: 'ModelDeployment', name: DEP },
        minReplicaCount: 0,
        maxReplicaCount: 4,
        pollingInterval: 15,
        cooldownPeriod: 300,
        advanced: {
          horizontalPodAutoscalerConfig: {
            behavior: {
              scaleUp: { stabilizationWindowSeconds: 0, policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
              scaleDown: { stabilizationWindowSeconds: 300, policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] },
            },
          },
        },
        triggers: [
          {
            type: 'prometheus',
            name: 'in-flight-per-replica',
            metricType: 'AverageValue',
            metadata: {
              serverAddress: SERVER,
              query: `(sum(vllm:num_requests_running{${SEL}}) or vector(0)) + (sum(vllm:num_requests_waiting{${SEL}}) or vector(0))`,
              threshold: '8',
            },
          },
          {
            type: 'prometheus',
            name: 'kv-cache-utilization',
            metricType: 'AverageValue',
            metadata: {
              serverAddress: SERVER,
              query: `100 * avg(vllm:kv_cache_usage_perc{${SEL}}) * count(count by (replica) (vllm:kv_cache_usage_perc{${SEL}}))`,
              threshold: '80',
            },
          },
          {
            // KEDA's scale-to-zero skips the HPA's one-a-minute policy: active while more than one replica reports.
            type: 'prometheus',
            name: 'one-at-a-time',
            metricType: 'AverageValue',
            metadata: {
              serverAddress: SERVER,
              query: `clamp_min((count(count by (replica) (vllm:num_requests_running{${SEL}})) or vector(0)) - 1, 0)`,
              threshold: '1',
              activationThreshold: '0',
            },
          },
          {
            type: 'prometheus',
            name: 'demand',
            metricType: 'AverageValue',
            metadata: {
              serverAddress: SERVER,
              query: `clamp_max(count(time() - modelplane_scale_from_zero_last_request_timestamp_seconds{namespace="${NS}",deployment="my-model"} < 120) or vector(0), 1)`,
              threshold: '1',
              activationThreshold: '0',
            },
          },
        ],
      },
    });
    expectValidAgainstCrd(so!.resource);
    expect(got.status?.['autoscaling']).toEqual({ minReplicas: 0, maxReplicas: 4, scaledObject: DEP, summary: '0..4 WaitingForKEDA' });
    // The scale subresource's selector (labelSelectorPath): the HPA behind the ScaledObject requires one.
    expect(got.status?.['selector']).toBe(`modelplane.ai/deployment=${DEP}`);
  });

  it('writes queue depth and p90 time to first token as their own triggers, with the given window and address', () => {
    const xr = autoscaled({ maxReplicas: 3, metrics: { queueDepth: 4, timeToFirstTokenMilliseconds: 2000 }, scaleDownStabilizationSeconds: 600, prometheusAddress: 'https://metrics.example.com' });
    const so = compose(request(xr, { required: fleet })).resources['autoscaler']!.resource;
    const spec = so['spec'] as JsonObject;
    expect([spec['minReplicaCount'], spec['cooldownPeriod']]).toEqual([1, 600]);
    expect(spec['triggers']).toEqual([
      { type: 'prometheus', name: 'queue-depth', metricType: 'AverageValue', metadata: { serverAddress: 'https://metrics.example.com', query: `(sum(vllm:num_requests_waiting{${SEL}}) or vector(0))`, threshold: '4' } },
      {
        type: 'prometheus',
        name: 'time-to-first-token-p90',
        metricType: 'AverageValue',
        metadata: {
          serverAddress: 'https://metrics.example.com',
          query: `1000 * histogram_quantile(0.9, sum by (le) (rate(vllm:time_to_first_token_seconds_bucket{${SEL}}[2m]))) * count(count by (replica) (rate(vllm:time_to_first_token_seconds_bucket{${SEL}}[2m])))`,
          threshold: '2000',
        },
      },
    ]);
    expectValidAgainstCrd(so);
  });

  it('is at zero ScaledToZero once KEDA reports the ScaledObject Ready and not Active, and composes it there too', () => {
    const observedSo: KubeObject = {
      apiVersion: 'keda.sh/v1alpha1',
      kind: 'ScaledObject',
      metadata: { name: DEP, namespace: NS },
      status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'Active', status: 'False' }] },
    };
    const got = compose(request(autoscaled({ minReplicas: 0, maxReplicas: 4, metrics: { queueDepth: 2 } }, 0), { required: fleet, observed: { autoscaler: observedSo } }));
    expect(got.resources['autoscaler']?.resource.kind).toBe('ScaledObject');
    expect(got.status?.['autoscaling']).toEqual({ minReplicas: 0, maxReplicas: 4, scaledObject: DEP, active: false, summary: '0..4 ScaledToZero' });
    expect(got.results).toEqual([]);
  });

  it('reads an unreadable ScaledObject status as not Ready, without failing', () => {
    const garbled: KubeObject = { apiVersion: 'keda.sh/v1alpha1', kind: 'ScaledObject', metadata: { name: DEP, namespace: NS }, status: { conditions: 'garbage' } };
    const got = compose(request(autoscaled({ minReplicas: 0, maxReplicas: 4, metrics: { queueDepth: 2 } }, 0), { required: fleet, observed: { autoscaler: garbled } }));
    expect(got.status?.['autoscaling']).toEqual({ minReplicas: 0, maxReplicas: 4, scaledObject: DEP, active: false, summary: '0..4 NotReady' });
  });

  it('reports a hand-scaled spec.replicas outside the bounds and still places what it asks', () => {
    const got = compose(request(autoscaled({ minReplicas: 1, maxReplicas: 2, metrics: { queueDepth: 2 } }, 3), { required: fleet }));
    expect(got.results).toContainEqual({
      severity: 'Warning',
      message: 'spec.replicas is 3, outside spec.autoscaling 1..2: the ScaledObject sets it back at its next poll; change spec.autoscaling, or remove it to scale by hand',
    });
    expect(Object.keys(got.resources).filter((k) => k.startsWith('replica-'))).toHaveLength(3);
  });

  it('says each scale step as a Normal Scaling event, from what the last reconcile placed to spec.replicas', () => {
    const xr = autoscaled({ minReplicas: 0, maxReplicas: 4, metrics: { inFlightPerReplica: 8 } }, 3);
    xr['status'] = { replicas: { total: 1, ready: 1, summary: '1/1' } };
    const got = compose(request(xr, { required: fleet }));
    const scaling = (r: typeof got) => r.results.filter((x) => x.reason === 'Scaling');
    expect(scaling(got)).toEqual([{ severity: 'Normal', reason: 'Scaling', message: 'Scaling from 1 to 3 replicas (spec.replicas; autoscaling 0..4, ScaledObject my-model)' }]);
    (xr['status'] as JsonObject)['replicas'] = { total: 3, ready: 3, summary: '3/3' };
    expect(scaling(compose(request(xr, { required: fleet })))).toEqual([]);
  });

  it('refuses bounds the wrong way round and a target-less metrics block, naming the field', () => {
    const bad = compose(request(autoscaled({ minReplicas: 3, maxReplicas: 2, metrics: {} }), { required: fleet }));
    expect(bad.conditions[0]).toMatchObject({ type: 'ReplicasScheduled', status: 'False', reason: 'InvalidSpec' });
    expect(bad.conditions[0]!.message).toContain('spec.autoscaling.minReplicas (3) must not exceed spec.autoscaling.maxReplicas (2)');
    expect(bad.conditions[0]!.message).toContain('spec.autoscaling.metrics: set at least one target (inFlightPerReplica, queueDepth, kvCacheUtilizationPercent or timeToFirstTokenMilliseconds)');
    expect(bad.resources['autoscaler']).toBeUndefined();
  });

  it('composes nothing for autoscaling without spec.autoscaling', () => {
    const got = compose(request(deployment(), { required: fleet }));
    expect(got.resources['autoscaler']).toBeUndefined();
    expect(got.status?.['autoscaling']).toBeUndefined();
    expect(got.status?.['selector']).toBeUndefined();
  });
});
