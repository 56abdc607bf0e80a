/**
 * The condition states the functions set (and the e2e sees) that the golden
 * renders do not hold, hand-built from the functions' condition code, through
 * each kind's committed Argo CD health check run by gopher-lua: the health
 * and message docs/argocd.md promises.
 */
import { describe, expect, it } from 'vitest';
import { assess, SKIP_REASON } from './harness.js';

type Cond = [type: string, status: string, reason: string, message?: string];

/** An XR of `kind` with `conditions` (Synced True unless given) and further status fields. */
function xr(conditions: Cond[], status: Record<string, unknown> = {}): unknown {
  const all = conditions.some(([t]) => t === 'Synced') ? conditions : [['Synced', 'True', 'ReconcileSuccess'] as Cond, ...conditions];
  return { status: { ...status, conditions: all.map(([type, s, reason, message]) => (message ? { type, status: s, reason, message } : { type, status: s, reason })) } };
}

const NOT_READY: Cond = ['Ready', 'False', 'Creating', 'Unready resources: gateway'];
const READY: Cond = ['Ready', 'True', 'Available'];

/** [case, object, health, message]. */
type Case = [string, unknown, string, string];

const CASES: Record<string, [group: string, cases: Case[]]> = {
  ModelDeployment: ['modelplane.ai', [
    ['no status yet', {}, 'Progressing', "Waiting for the ModelDeployment's scheduler to report status"],
    ['the function failed', xr([['Synced', 'False', 'ReconcileError', 'cannot compose resources: boom']]), 'Degraded', 'cannot compose resources: boom'],
    ['rollout blocked', xr([['Progressing', 'False', 'RolloutBlocked', 'Rollout held: keeping 2 replicas; no capacity'], READY]), 'Degraded', 'Rollout held: keeping 2 replicas; no capacity'],
    ['failover blocked', xr([['Progressing', 'False', 'FailoverBlocked', 'Failover held: keeping 1 replica in place'], NOT_READY]), 'Degraded', 'Failover held: keeping 1 replica in place'],
    ['insufficient capacity', xr([['ReplicasScheduled', 'False', 'InsufficientCapacity', 'Scheduled 1 of 3 replicas'], NOT_READY]), 'Degraded', 'Scheduled 1 of 3 replicas'],
    ['quota exceeded', xr([['ReplicasScheduled', 'False', 'QuotaExceeded', 'quota team-a: 8/8 devices'], NOT_READY]), 'Degraded', 'quota team-a: 8/8 devices'],
    ['below its replicas past its bar', xr([['ReplicasReady', 'False', 'ModelStarting', '1 of 2 ready'], ['ColdStartWithinBar', 'False', 'SlowerThanBar', '1 of 2 engines ready, pulled directly, slowest ready in 12m, bar 10m'], NOT_READY]), 'Degraded', '1 of 2 engines ready, pulled directly, slowest ready in 12m, bar 10m'],
    ['all ready but slower than the bar', xr([['ReplicasReady', 'True', 'AllReplicasReady', '2 of 2 ready'], ['ColdStartWithinBar', 'False', 'SlowerThanBar', 'slowest ready in 12m, bar 10m'], READY]), 'Healthy', '2 of 2 ready'],
    ['cache not found', xr([['ModelCacheResolved', 'False', 'ModelCacheNotFound', 'ModelCache qwen not found'], NOT_READY]), 'Degraded', 'ModelCache qwen not found'],
    ['rolling update', xr([['ReplicasReady', 'True', 'AllReplicasReady', '2 of 2 ready'], ['Progressing', 'True', 'RollingUpdate', '1 of 2 replicas run the current spec'], READY]), 'Progressing', '1 of 2 replicas run the current spec'],
    ['failover runs', xr([['Progressing', 'True', 'Failover', '1 replica on an Unavailable cluster is re-placed'], READY]), 'Progressing', '1 replica on an Unavailable cluster is re-placed'],
    ['scaled to zero', xr([['ReplicasScheduled', 'True', 'ScaledToZero', 'spec.replicas is 0: no replicas are placed'], READY]), 'Healthy', 'spec.replicas is 0: no replicas are placed'],
    ['at zero under the HPA, which never scales from zero', xr([['ReplicasScheduled', 'True', 'ScaledToZero', 'spec.replicas is 0: no replicas are placed'], ['ReplicasReady', 'False', 'ScaledToZero', 'spec.replicas is 0 and the HorizontalPodAutoscaler does not scale from zero, so no replica will start: kubectl scale modeldeployment/qwen -n default --replicas 1 (spec.autoscaling under HPA is 1..3), or set the InferenceGateway\'s autoscaler to KEDA'], NOT_READY]), 'Degraded', 'spec.replicas is 0 and the HorizontalPodAutoscaler does not scale from zero, so no replica will start: kubectl scale modeldeployment/qwen -n default --replicas 1 (spec.autoscaling under HPA is 1..3), or set the InferenceGateway\'s autoscaler to KEDA'],
    ['serving', xr([['ReplicasScheduled', 'True', 'ReplicasCreated', 'Scheduled 2 of 2 replicas'], ['ReplicasReady', 'True', 'AllReplicasReady', '2 of 2 ready'], ['Progressing', 'True', 'ReplicasUpToDate', 'Every replica runs the current spec'], READY]), 'Healthy', '2 of 2 ready'],
  ]],
  ModelReplica: ['modelplane.ai', [
    ['invalid spec', xr([['ModelAccepted', 'False', 'InvalidSpec', 'spec.clusterName: required'], NOT_READY]), 'Degraded', 'spec.clusterName: required'],
    ['starting', xr([['ModelAccepted', 'True', 'Accepted'], ['ModelReady', 'False', 'ModelStarting'], NOT_READY], { phase: 'Starting' }), 'Progressing', 'Starting: pulling the image, downloading weights or loading the model'],
    ['degraded after serving', xr([['ModelAccepted', 'True', 'Accepted'], ['ModelReady', 'False', 'ModelStarting'], NOT_READY], { phase: 'Degraded' }), 'Degraded', 'Degraded: the replica served, and now not every engine workload is available'],
    ['waiting for its cluster', xr([['ModelAccepted', 'False', 'WaitingForCluster'], ['ModelReady', 'False', 'WaitingForModel'], NOT_READY]), 'Progressing', 'ModelAccepted is False: WaitingForCluster'],
    ['serving', xr([['ModelAccepted', 'True', 'Accepted'], ['ModelReady', 'True', 'Serving'], READY], { phase: 'Serving' }), 'Healthy', 'Ready'],
  ]],
  InferenceCluster: ['modelplane.ai', [
    ['class not found', xr([['ClusterReady', 'False', 'ClassNotFound', 'spec.gpuPools[0].className: h100 not found'], NOT_READY]), 'Degraded', 'spec.gpuPools[0].className: h100 not found'],
    ['unreachable', xr([['ClusterReady', 'True', 'ClusterRunning'], READY], { health: { state: 'Unreachable', message: 'probe failed; replicas here are not counted Ready' } }), 'Degraded', 'probe failed; replicas here are not counted Ready'],
    ['unavailable', xr([['ClusterReady', 'True', 'ClusterRunning'], READY], { health: { state: 'Unavailable', message: 'probe failed; unreachable for failover.after 5m' } }), 'Degraded', 'probe failed; unreachable for failover.after 5m'],
    ['draining', xr([READY], { health: { state: 'Draining', message: 'spec.drain: replicas here are re-placed' } }), 'Suspended', 'spec.drain: replicas here are re-placed'],
    ['backend installing', xr([['ClusterReady', 'True', 'ClusterRunning'], ['BackendReady', 'False', 'Installing'], NOT_READY], { health: { state: 'Healthy', message: 'reachable, cluster and serving stack Ready' } }), 'Progressing', 'BackendReady is False: Installing'],
    ['healthy', xr([['ClusterReady', 'True', 'ClusterRunning'], ['BackendReady', 'True', 'BackendHealthy'], READY], { health: { state: 'Healthy', message: 'reachable, cluster and serving stack Ready' } }), 'Healthy', 'reachable, cluster and serving stack Ready'],
  ]],
  InferenceClass: ['modelplane.ai', [
    ['invalid quantity', xr([['Accepted', 'False', 'InvalidQuantity', 'spec.memory: 80Gx is not a quantity'], NOT_READY]), 'Degraded', 'spec.memory: 80Gx is not a quantity'],
  ]],
  InferenceGateway: ['modelplane.ai', [
    ['invalid spec', xr([['ControllerReady', 'False', 'InvalidSpec', 'spec.auth: bad'], NOT_READY]), 'Degraded', 'spec.auth: bad'],
    ['healthy', xr([['ControllerReady', 'True', 'ControllerHealthy'], READY]), 'Healthy', 'Ready'],
  ]],
  InferenceQuota: ['modelplane.ai', [
    ['over quota', xr([['Usage', 'True', 'OverQuota', 'devices: 10 used of 8'], READY], { summary: '10/8 devices' }), 'Degraded', 'devices: 10 used of 8'],
    ['invalid spec', xr([['Usage', 'False', 'InvalidSpec', 'spec.hard: empty'], READY]), 'Degraded', 'spec.hard: empty'],
  ]],
  ModelCache: ['modelplane.ai', [
    ['no supported clusters', xr([['ClustersMatched', 'False', 'NoSupportedClusters', '1 of 1 selected clusters cannot hold the cache'], NOT_READY]), 'Degraded', '1 of 1 selected clusters cannot hold the cache'],
    ['hydrate failed', xr([['ClustersMatched', 'True', 'Matched'], ['ArtifactReady', 'False', 'Failed', 'hydrate Job failed on eks-a'], NOT_READY]), 'Degraded', 'hydrate Job failed on eks-a'],
    ['partial', xr([['ClustersMatched', 'True', 'Matched'], ['ArtifactReady', 'False', 'Partial', '1 of 2 clusters Ready'], NOT_READY]), 'Progressing', '1 of 2 clusters Ready'],
  ]],
  ModelEndpoint: ['modelplane.ai', [
    ['invalid URL', xr([['RoutingReady', 'False', 'InvalidURL', 'Invalid spec.url: ftp://x'], NOT_READY]), 'Degraded', 'Invalid spec.url: ftp://x'],
    ['routed', xr([['RoutingReady', 'True', 'BackendConfigured'], READY]), 'Healthy', 'Ready'],
  ]],
  ModelService: ['modelplane.ai', [
    ['no endpoints', xr([['EndpointsResolved', 'False', 'NoEndpoints', 'No ModelEndpoints matched the configured selectors'], NOT_READY]), 'Degraded', 'No ModelEndpoints matched the configured selectors'],
    ['gateway not found', xr([['EndpointsResolved', 'True', 'Resolved', 'Matched 1 endpoint(s)'], ['RoutingReady', 'False', 'GatewayNotFound', 'InferenceGateway default not found'], NOT_READY]), 'Degraded', 'InferenceGateway default not found'],
    ['key secret missing', xr([['Authenticated', 'False', 'KeySecretNotFound', 'Secret default/keys not found'], READY]), 'Degraded', 'Secret default/keys not found'],
    ['anonymous by choice', xr([['EndpointsResolved', 'True', 'Resolved', 'Matched 1 endpoint(s)'], ['Authenticated', 'False', 'AnonymousByChoice', 'auth.type None'], READY]), 'Healthy', 'Matched 1 endpoint(s)'],
    ['waiting for the gateway', xr([['RoutingReady', 'False', 'WaitingForGateway', 'Waiting for InferenceGateway default to publish an address'], NOT_READY]), 'Progressing', 'Waiting for InferenceGateway default to publish an address'],
  ]],
  ServingStack: ['infrastructure.modelplane.ai', [
    ['invalid spec', xr([['Accepted', 'False', 'InvalidSpec', 'spec.gpu: bad'], NOT_READY]), 'Degraded', 'spec.gpu: bad'],
    ['installing', xr([NOT_READY]), 'Progressing', 'Unready resources: gateway'],
  ]],
  EKSCluster: ['infrastructure.modelplane.ai', [
    ['invalid networking', xr([['SpecValid', 'False', 'InvalidNetworking', 'spec.network: subnets overlap'], NOT_READY]), 'Degraded', 'spec.network: subnets overlap'],
    ['no Ready yet', xr([]), 'Progressing', 'Waiting for Ready'],
  ]],
  AKSCluster: ['infrastructure.modelplane.ai', [['invalid pool', xr([['SpecValid', 'False', 'InvalidNodePool', 'spec.nodePools[0]: bad'], READY]), 'Degraded', 'spec.nodePools[0]: bad']]],
  GKECluster: ['infrastructure.modelplane.ai', [['invalid spec', xr([['SpecValid', 'False', 'InvalidSpec', 'spec.region: required'], NOT_READY]), 'Degraded', 'spec.region: required']]],
  NebiusCluster: ['infrastructure.modelplane.ai', [['deleting', xr([['Ready', 'False', 'Deleting']]), 'Progressing', 'Ready is False: Deleting']]],
  VultrCluster: ['infrastructure.modelplane.ai', [['empty conditions', { status: { conditions: [] } }, 'Progressing', "Waiting for the VultrCluster's function to report status"]]],
};

describe.skipIf(SKIP_REASON !== undefined)(`Argo CD health of the states the functions report${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ''}`, () => {
  for (const [kind, [group, cases]] of Object.entries(CASES)) {
    it(`${kind}: ${cases.map((c) => c[0]).join(', ')}`, () => {
      const got = assess(group, kind, cases.map((c) => c[1]));
      expect(got.map((g, i) => [cases[i]![0], g.status, g.message ?? g.error])).toEqual(cases.map(([name, , status, message]) => [name, status, message]));
    });
  }
});
