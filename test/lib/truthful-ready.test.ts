/**
 * Ready tells the truth (docs/design.md#ready-means-serving-what-was-asked;
 * found as conditions that contradicted each other on a real control plane). Each case is a state
 * where every composed resource is ready, so Crossplane alone would report
 * Ready=True, but the XR does not serve what was asked: the function sets the
 * desired composite's readiness False (`ready: false`), and says why in its
 * own conditions.
 */
import { describe, expect, it } from 'vitest';
import { compose as composeReplica } from '../../functions/compose-model-replica/compose.js';
import { compose as composeService } from '../../functions/compose-model-service/compose.js';
import type { ComposeResult } from '../../functions/lib/function.js';
import { readyOnlyIfServing } from '../../functions/lib/ready.js';
import { compose as schedule } from '../../functions/schedule-model-deployment/compose.js';
import { cluster, deployment, pool, replica as placedReplica, request as scheduleRequest } from '../builders/scheduler.js';
import {
  inferenceCluster,
  inferenceGateway,
  modelEndpoint,
  modelService,
  observedObject,
  replica,
  request,
  standalone,
} from '../builders/serving.js';

const conditionOf = (out: ComposeResult, type: string) => out.conditions.find((c) => c.type === type);

describe('readyOnlyIfServing', () => {
  it('leaves Ready to Crossplane when serving, or when a composed resource is unready (its message names it)', () => {
    const serving = { resources: { a: { resource: { apiVersion: 'v1', kind: 'X' }, ready: true as const } }, conditions: [], results: [], requirements: {} };
    readyOnlyIfServing(serving, true);
    expect('ready' in serving).toBe(false);
    const unready = { resources: { a: { resource: { apiVersion: 'v1', kind: 'X' } } }, conditions: [], results: [], requirements: {} };
    readyOnlyIfServing(unready, false);
    expect('ready' in unready).toBe(false);
  });

  it('says not ready when every composed resource is ready (or none is composed) but the XR does not serve', () => {
    const none: ComposeResult = { resources: {}, conditions: [], results: [], requirements: {} };
    readyOnlyIfServing(none, false);
    expect(none.ready).toBe(false);
  });
});

describe('ModelDeployment: partial placement is not Ready', () => {
  it('2 of 3 replicas placed and both Ready: ReplicasScheduled False, ReplicasReady True, XR not Ready', () => {
    const fleet = [cluster('cluster-a', { pools: [pool('default', { nodes: 1 })] }), cluster('cluster-b', { pools: [pool('default', { nodes: 1 })] })];
    const running = [placedReplica('cluster-a', 0, { ready: true }), placedReplica('cluster-b', 0, { ready: true })];
    const endpoint = (c: string) => ({
      apiVersion: 'modelplane.ai/v1alpha1',
      kind: 'ModelEndpoint',
      metadata: { name: `my-model-${c}-0`, namespace: 'ml-team' },
      spec: { url: `http://10.0.0.1/ml-team/my-model-${c}-0/v1` },
      status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Available' }] },
    });
    const observed = {
      ...Object.fromEntries(running.map((r) => [`replica-${(r.spec as { clusterName: string }).clusterName}-0`, r])),
      'endpoint-cluster-a-0': endpoint('cluster-a'),
      'endpoint-cluster-b-0': endpoint('cluster-b'),
    };
    const out = schedule(scheduleRequest(deployment({ replicas: 3 }), { observed, required: { clusters: fleet, 'all-replicas': running } }));
    expect(Object.keys(out.resources).sort()).toEqual(['dashboard', 'endpoint-cluster-a-0', 'endpoint-cluster-b-0', 'replica-cluster-a-0', 'replica-cluster-b-0']);
    expect(Object.values(out.resources).every((r) => r.ready === true)).toBe(true);
    expect(conditionOf(out, 'ReplicasScheduled')).toMatchObject({ status: 'False', reason: 'InsufficientCapacity' });
    expect(conditionOf(out, 'ReplicasScheduled')?.message).toMatch(/^2 of 3 replicas scheduled; 2 clusters: 2 pool default: needs 1 gpu on one node, 0 free$/);
    expect(conditionOf(out, 'ReplicasReady')).toEqual({ type: 'ReplicasReady', status: 'True', reason: 'AllReplicasReady', message: '2 of 2 ready' });
    expect(out.ready).toBe(false);
  });

  it('3 of 3 placed and Ready: readiness is left to Crossplane (every replica and endpoint composed ready)', () => {
    const fleet = ['cluster-a', 'cluster-b', 'cluster-c'].map((c) => cluster(c));
    const running = fleet.map((c) => placedReplica(c.metadata!.name!, 0, { ready: true }));
    const observed = Object.fromEntries(running.map((r) => [`replica-${(r.spec as { clusterName: string }).clusterName}-0`, r]));
    const out = schedule(scheduleRequest(deployment({ replicas: 3 }), { observed, required: { clusters: fleet, 'all-replicas': running } }));
    expect(conditionOf(out, 'ReplicasScheduled')?.status).toBe('True');
    expect('ready' in out).toBe(false);
  });
});

describe('ModelService: no route served is not Ready', () => {
  it('fetched and no endpoint matches: nothing composed, EndpointsResolved False, XR not Ready', () => {
    const out = composeService(
      request(modelService('svc'), { required: { 'inference-gateway': [inferenceGateway()], 'endpoints-0': [] } }),
    );
    expect(out.resources).toEqual({});
    expect(conditionOf(out, 'EndpointsResolved')?.reason).toBe('NoEndpoints');
    expect(out.ready).toBe(false);
  });

  it('the route was composed but never observed (the API server refused it: Synced=False): not ready', () => {
    const out = composeService(
      request(modelService('svc'), {
        required: { 'inference-gateway': [inferenceGateway()], 'endpoints-0': [modelEndpoint('a', { backendName: 'svc-a' })] },
      }),
    );
    expect(out.resources['httproute']?.ready).toBeUndefined();
    expect(conditionOf(out, 'RoutingReady')).toEqual({ type: 'RoutingReady', status: 'False', reason: 'Configuring' });
    expect('ready' in out).toBe(false); // an unready route: Crossplane says "Unready resources: httproute"
  });
});

describe('ModelReplica: ModelReady is never True while ModelAccepted is False', () => {
  it('a workload Object Ready without its applied manifest: ModelAccepted False Deploying, ModelReady False WaitingForModel', () => {
    const out = composeReplica(
      request(replica('r', { engines: [standalone()] }), {
        observed: { 'model-serving-main': observedObject({ ready: true }) },
        required: { cluster: [inferenceCluster('cluster-a')] },
      }),
    );
    expect(conditionOf(out, 'ModelAccepted')).toEqual({ type: 'ModelAccepted', status: 'False', reason: 'Deploying' });
    expect(conditionOf(out, 'ModelReady')).toEqual({ type: 'ModelReady', status: 'False', reason: 'WaitingForModel' });
  });

  it('applied and Ready: both True', () => {
    const out = composeReplica(
      request(replica('r', { engines: [standalone()] }), {
        observed: { 'model-serving-main': observedObject({ manifest: true, ready: true }) },
        required: { cluster: [inferenceCluster('cluster-a')] },
      }),
    );
    expect(conditionOf(out, 'ModelAccepted')?.status).toBe('True');
    expect(conditionOf(out, 'ModelReady')).toEqual({ type: 'ModelReady', status: 'True', reason: 'Serving' });
  });
});
