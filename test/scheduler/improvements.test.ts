/**
 * Where we deliberately do better than the reference (the sections of
 * docs/design.md that touch the fleet scheduler): one whole-response test per section.
 */
import { describe, expect, it } from 'vitest';
import type { ComposeResult, KubeObject } from '../../functions/lib/function.js';
import { compose } from '../../functions/schedule-model-deployment/compose.js';
import { ReasonKind as K } from '../../functions/schedule-model-deployment/placement.js';
import {
  cand,
  cluster,
  deployment,
  device,
  engine,
  gang,
  member,
  mp,
  pool,
  replica,
  req,
  request,
  rmember,
  runSchedule,
  sel,
  countingMatcher,
  withoutDashboard,
} from '../builders/scheduler.js';

const REQS = {
  clusters: { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceCluster' },
  // Issue 17: this deployment's replicas only; others are charged from the clusters' ledgers.
  'own-replicas': { apiVersion: 'modelplane.ai/v1alpha1', kind: 'ModelReplica', matchLabels: { 'modelplane.ai/deployment': 'my-model' }, namespace: 'ml-team' },
  quotas: { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceQuota', matchLabels: {}, namespace: 'ml-team' },
};
const a = 'cluster-a';
const b = 'cluster-b';

/** What keepObserved passes through for an observed replica built by `replica()`. */
function kept(r: KubeObject, ready: boolean) {
  const { status: _s, ...rest } = structuredClone(r);
  return ready ? { resource: rest, ready: true } : { resource: rest };
}

const running = replica(a, 0, { name: 'my-model-5ab63', ready: true });
const endpoint: KubeObject = {
  apiVersion: 'modelplane.ai/v1alpha1',
  kind: 'ModelEndpoint',
  metadata: { name: 'my-model-5ab63', namespace: 'ml-team' },
  spec: { url: 'http://10.0.0.1/ml-team/my-model-5ab63/v1' },
  status: { conditions: [{ type: 'Ready', status: 'True' }] },
};
const observed = { 'replica-cluster-a-0': running, 'endpoint-cluster-a-0': endpoint };
const keptStatus = {
  replicas: { total: 1, ready: 1, summary: '1/1' },
  placements: [{ replica: 'my-model-5ab63', cluster: a, index: 0, ready: true, role: 'current', engines: [{ name: 'main', pool: 'default' }] }],
};
const keptResources = { 'endpoint-cluster-a-0': kept(endpoint, true), 'replica-cluster-a-0': kept(running, true) };

describe('docs/design.md#both-modeldeployment-shapes', () => {
  it('the flat form schedules exactly like the canonical form', () => {
    const fleet = { clusters: [cluster(a), cluster(b)], 'all-replicas': [] };
    const canonical = compose(request(deployment({ replicas: 2 }), { required: fleet }));
    const flat = compose(request(deployment({ replicas: 2, flat: true }), { required: fleet }));
    expect(flat).toEqual(canonical);
    expect(Object.keys(flat.resources)).toEqual(['replica-cluster-a-0', 'replica-cluster-b-0', 'dashboard']);
  });

  it('both shapes at once is invalid input, and nothing composed is dropped', () => {
    const xr = deployment();
    (xr['spec'] as Record<string, unknown>)['engines'] = [engine()];
    const out = compose(request(xr, { observed, required: { clusters: [cluster(a)], 'all-replicas': [running] } }));
    const message = 'Invalid ModelDeployment spec: spec: exactly one of spec.template (canonical form) or spec.engines (flat form) must be set';
    expect(out).toEqual({
      ready: false,
      resources: keptResources,
      status: keptStatus,
      conditions: [
        { type: 'ReplicasScheduled', status: 'False', reason: 'InvalidSpec', message },
        { type: 'ReplicasReady', status: 'True', reason: 'AllReplicasReady', message: '1 of 1 ready' },
      ],
      results: [{ severity: 'Warning', message }],
      requirements: {},
    } satisfies ComposeResult);
  });
});

describe('field paths follow the shape the user wrote', () => {
  it('an invalid selector in the flat form is named under spec.engines', () => {
    const xr = deployment({ flat: true, engines: [engine('main', [member('Standalone', { devices: [req('gpu', [sel.driver('x'), 'bad ('])] })])] });
    const out = compose(request(xr, { required: { clusters: [cluster(a)], 'all-replicas': [] } }));
    expect(out.conditions[0]).toEqual({
      type: 'ReplicasScheduled',
      status: 'False',
      reason: 'InvalidNodeSelector',
      message: "Invalid nodeSelector CEL expression: spec.engines[0].members[0].nodeSelector.devices[0].selectors[1].cel: Syntax error: mismatched input '<EOF>' expecting an expression",
    });
  });

  it('a spec the schema rejects names the field (the API server normally rejects it first)', () => {
    const xr = deployment({ replicas: 101 });
    const out = compose(request(xr));
    expect(out.conditions[0]).toEqual({
      type: 'ReplicasScheduled',
      status: 'False',
      reason: 'InvalidSpec',
      message: 'Invalid ModelDeployment spec: spec.replicas: Too big: expected number to be <=100',
    });
  });
});

describe('docs/design.md#cel-as-kubernetes-enforces-it', () => {
  it("a selector over 10 KiB (within the XRD's 10240 characters) is invalid, with its size in the message", () => {
    const long = `device.driver == "${'é'.repeat(5200)}"`;
    const out = compose(request(deployment({ engines: [engine('main', [member('Standalone', { devices: [req('gpu', [long])] })])] }), { required: { clusters: [cluster(a)], 'all-replicas': [] } }));
    expect(out.conditions[0]).toEqual({
      type: 'ReplicasScheduled',
      status: 'False',
      reason: 'InvalidNodeSelector',
      message:
        'Invalid nodeSelector CEL expression: spec.template.spec.engines[0].members[0].nodeSelector.devices[0].selectors[0].cel: expression too long: 10419 bytes, the limit is 10240',
    });
  });
});

describe('docs/design.md#keep-what-exists and #not-fetched-yet-is-not-absent: nothing is torn down by a transient or user error', () => {
  it('an invalid selector keeps the running replica and its endpoint, naming the field and the CEL error', () => {
    const xr = deployment({ engines: [engine('main', [member('Standalone', { devices: [req('gpu', ['devic.driver == "gpu.nvidia.com"'])] })])] });
    const out = compose(request(xr, { observed, required: { clusters: [cluster(a)], 'all-replicas': [running] } }));
    const message =
      "Invalid nodeSelector CEL expression: spec.template.spec.engines[0].members[0].nodeSelector.devices[0].selectors[0].cel: undeclared reference to 'devic' (in container '') (did you mean 'device'?)";
    expect(out).toEqual({
      resources: keptResources,
      status: keptStatus,
      ready: false,
      conditions: [
        { type: 'ReplicasScheduled', status: 'False', reason: 'InvalidNodeSelector', message },
        { type: 'ReplicasReady', status: 'True', reason: 'AllReplicasReady', message: '1 of 1 ready' },
      ],
      results: [{ severity: 'Warning', message }],
      requirements: REQS,
    } satisfies ComposeResult);
  });

  it('the first pass, before the fleet is read, asks for it, keeps everything and warns nothing', () => {
    const out = compose(request(deployment(), { observed }));
    expect(out).toEqual({
      resources: keptResources,
      status: keptStatus,
      conditions: [
        { type: 'ReplicasScheduled', status: 'False', reason: 'Scheduling', message: 'Waiting for the InferenceClusters and ModelReplicas to be read' },
        { type: 'ReplicasReady', status: 'True', reason: 'AllReplicasReady', message: '1 of 1 ready' },
      ],
      results: [],
      requirements: REQS,
    } satisfies ComposeResult);
  });

  it('replicas not read yet (clusters read) is still "not yet": everything kept', () => {
    const out = compose(request(deployment(), { observed, required: { clusters: [cluster(a)] } }));
    expect(out.resources).toEqual(keptResources);
    expect(out.conditions[0]).toEqual({
      type: 'ReplicasScheduled',
      status: 'False',
      reason: 'Scheduling',
      message: 'Waiting for the InferenceClusters and ModelReplicas to be read',
    });
    expect(out.results).toEqual([]);
  });

  it('no InferenceClusters at all keeps the running replica and warns', () => {
    const out = compose(request(deployment(), { observed, required: { clusters: [], 'all-replicas': [running] } }));
    expect(out).toEqual({
      resources: keptResources,
      status: keptStatus,
      conditions: [
        { type: 'ReplicasScheduled', status: 'False', reason: 'NoClusters' },
        { type: 'ReplicasReady', status: 'True', reason: 'AllReplicasReady', message: '1 of 1 ready' },
      ],
      results: [{ severity: 'Warning', message: 'No InferenceClusters found' }],
      requirements: REQS,
    } satisfies ComposeResult);
  });
});

describe('docs/design.md#namespaces-are-identity', () => {
  it('a same-named deployment in another namespace is another deployment: not retained, and charged', () => {
    const theirs = replica(a, 0, { namespace: 'other-team' });
    expect(
      runSchedule({ clusters: [cluster(a, { pools: [pool('default', { nodes: 1 })] }), cluster(b)], replicas: [theirs] }),
    ).toEqual({ candidates: [cand(b, 0)], refusals: { [a]: { kind: K.Insufficient, text: 'pool default: needs 1 gpu on one node, 0 free' } } });
  });

  it('our replica is retained although one with the same name and labels lives in another namespace', () => {
    const ours = replica(a, 0);
    const theirs = replica(a, 0, { namespace: 'other-team' });
    expect(runSchedule({ clusters: [cluster(a), cluster(b)], replicas: [theirs, ours] })).toEqual({
      candidates: [cand(a, 0, undefined, { retained: true })],
      refusals: {},
    });
  });
});

describe('docs/design.md#explained-placement', () => {
  it('says per cluster why a replica was not placed, grouped and sorted', () => {
    const qwen = deployment({ replicas: 2, engines: [engine('qwen', [member('Standalone', { devices: [req('gpu', [sel.memory('20Gi')])] })])] });
    const fleet = [
      cluster('eks-a', { pools: [pool('gpu-l4', { nodes: 1, devices: [device('gpu', { memory: '23034Mi' })] })] }),
      cluster('eks-b', { pools: [pool('gpu-t4', { devices: [device('gpu', { memory: '15Gi' })] })] }),
      cluster('eks-c', { ready: false }),
    ];
    const out = compose(request(qwen, { required: { clusters: fleet, 'all-replicas': [] } }));
    expect(out.conditions[0]).toEqual({
      type: 'ReplicasScheduled',
      status: 'False',
      reason: 'InsufficientCapacity',
      message:
        '1 of 2 replicas scheduled; 3 clusters: 1 no pool matches engine "qwen" (gpu: no device satisfies selectors[0]), 1 pool gpu-l4: needs 1 gpu on one node, 0 free, 1 not Ready',
    });
    expect(Object.keys(out.resources)).toEqual(['replica-eks-a-0', 'dashboard']);
  });

  it('is bounded: at most 6 reason groups, the rest counted', () => {
    const fleet = Array.from({ length: 9 }, (_, i) => cluster(`c${i}`, { pools: [pool(`p${i}`, { nodes: 0 })] }));
    const out = compose(request(deployment(), { required: { clusters: fleet, 'all-replicas': [] } }));
    expect(out.conditions[0]?.message).toBe(
      '0 of 1 replicas scheduled; 9 clusters: ' +
        [0, 1, 2, 3, 4, 5].map((i) => `1 pool p${i}: needs 1 gpu on one node, 0 free`).join(', ') +
        ', 3 for other reasons',
    );
  });
});

describe('docs/design.md#scale-to-zero', () => {
  it('replicas 0 removes every replica and endpoint; conditions True ScaledToZero; XR Ready', () => {
    const out = compose(
      request(deployment({ replicas: 0 }), { observed, required: { clusters: [cluster(a)], 'all-replicas': [running] } }));
    expect(withoutDashboard(out)).toEqual({
      resources: {},
      status: { replicas: { total: 0, ready: 0, summary: '0/0' }, placements: [] },
      ready: true,
      conditions: [
        { type: 'ReplicasScheduled', status: 'True', reason: 'ScaledToZero', message: 'spec.replicas is 0: no replicas are placed' },
        { type: 'ReplicasReady', status: 'True', reason: 'ScaledToZero', message: 'spec.replicas is 0: no replicas are placed' },
      ],
      results: [],
      requirements: {},
    } satisfies ComposeResult);
  });
});

describe('docs/design.md#multi-node-needs-a-fabric', () => {
  const vultr = () => cluster('vultr-demo', { pools: [pool('gpu-a16', { multiNode: false })] });

  it('a gang is refused on a pool without fabric, with the reason', () => {
    expect(runSchedule({ deployment: deployment({ engines: [gang(1)] }), clusters: [vultr()] })).toEqual({
      candidates: [],
      refusals: { 'vultr-demo': { kind: K.NoFabric, text: 'pool gpu-a16 has no multi-node fabric' } },
    });
  });

  it('a single-node engine is unaffected', () => {
    expect(runSchedule({ clusters: [vultr()] })).toEqual({ candidates: [cand('vultr-demo', 0, [mp('Standalone', 'gpu-a16')])], refusals: {} });
  });

  it('reads the provider contract: a cluster offering no fabric, or publishing no capabilities, takes no gang', () => {
    const none = cluster('c-none', { fabric: 'None' });
    const silent = cluster('c-silent', { fabric: null });
    expect(runSchedule({ deployment: deployment({ engines: [gang(1)] }), clusters: [none, silent] })).toEqual({
      candidates: [],
      refusals: {
        'c-none': { kind: K.NoFabric, text: 'pool default has no multi-node fabric' },
        'c-silent': { kind: K.NoFabric, text: 'pool default has no multi-node fabric' },
      },
    });
  });

  it('on a cluster with a fabric, the gang lands on the pool that is on it', () => {
    const efa = cluster('eks', { fabric: 'EFA', pools: [pool('a-plain', { multiNode: false }), { ...pool('b-efa'), fabric: 'EFA' }] });
    expect(runSchedule({ deployment: deployment({ engines: [gang(1)] }), clusters: [efa] })).toEqual({
      candidates: [cand('eks', 0, [mp('Leader', 'b-efa'), mp('Worker', 'b-efa')])],
      refusals: {},
    });
  });

  it('Ethernet is a fabric: a cluster without RDMA (GKE, an EKS pool without EFA) takes a gang on its Ethernet pool', () => {
    const gke = cluster('gke', { fabric: 'Ethernet', pools: [{ ...pool('gpu-l4'), fabric: 'Ethernet' }] });
    expect(runSchedule({ deployment: deployment({ engines: [gang(1)] }), clusters: [gke] })).toEqual({
      candidates: [cand('gke', 0, [mp('Leader', 'gpu-l4'), mp('Worker', 'gpu-l4')])],
      refusals: {},
    });
  });

  it('a gang pinned to a pool without fabric is re-placed on one with fabric (make before break: kept until the new one is Ready)', () => {
    const pinned = replica('vultr-demo', 0, { engines: [{ name: 'main', members: [rmember('Leader', 'gpu-a16'), rmember('Worker', 'gpu-a16', { workerNodes: 1 })] }] });
    const out = runSchedule({ deployment: deployment({ engines: [gang(1)] }), clusters: [vultr(), cluster(a)], replicas: [pinned] });
    expect(out).toEqual({
      candidates: [
        cand(a, 0, [mp('Leader', 'default'), mp('Worker', 'default')], { role: 'surge' }),
        {
          cluster: 'vultr-demo',
          index: 0,
          gatewayAddress: '10.0.0.1',
          engines: [{ name: 'main', members: [mp('Leader', 'gpu-a16', []), mp('Worker', 'gpu-a16', [])] }],
          retained: true,
          role: 'retiring',
          ready: false,
          previous: 'my-model-vultr-demo-0',
        },
      ],
      refusals: {},
    });
  });
});

describe('CEL runs once per (class, request), not per replica or cluster', () => {
  it('100 clusters of one class and 10 replicas evaluate each selector once per device', () => {
    const matcher = countingMatcher();
    const fleet = Array.from({ length: 100 }, (_, i) => cluster(`c${String(i).padStart(3, '0')}`));
    const out = runSchedule({ deployment: deployment({ replicas: 10 }), clusters: fleet, matcher });
    expect('candidates' in out && out.candidates.length).toBe(10);
    expect(matcher.evaluations).toBe(1);
  });
});
