/**
 * schedule-model-deployment never deletes a composed child because an input
 * is missing or cannot be read (docs/design.md#keep-what-exists; a 10000-case
 * fuzz run found each cause below): it keeps the child and says why, in a
 * Warning and in a condition, naming the field.
 *
 * Fixtures as compose.test.ts: deployment `my-model` in `ml-team`, 1
 * replica; cluster-a Ready with gateway 10.0.0.1 and pool `default`; replica
 * `my-model-5ab63` (cluster-a, index 0) observed with its endpoint.
 */
import { describe, expect, it } from 'vitest';
import type { ComposeResult, JsonObject, KubeObject } from '../../functions/lib/function.js';
import { compose } from '../../functions/schedule-model-deployment/compose.js';
import { cluster, deployment, engine, member, pool, replica, req, request, sel, withoutDashboard } from '../builders/scheduler.js';

const DRIVER_SEL = sel.driver('gpu.nvidia.com');
const dep = () => deployment({ engines: [engine('main', [member('Standalone', { devices: [req('gpu', [DRIVER_SEL])] })])] });
const NAME = 'my-model-5ab63';
/** opaqueName(my-model, cluster-a, <index>) (docs/kinds/modeldeployment.md#names-and-hashes). */
const NAMES = ['my-model-5ab63', 'my-model-609c5'];
const labels = (i: number) => ({ 'modelplane.ai/deployment': 'my-model', 'modelplane.ai/cluster': 'cluster-a', 'modelplane.ai/replica-index': String(i) });

/** The replica as compose-model-deployment recomposes it (literal). */
const wantReplica = (i = 0): KubeObject => ({
  apiVersion: 'modelplane.ai/v1alpha1',
  kind: 'ModelReplica',
  metadata: { name: NAMES[i]!, namespace: 'ml-team', labels: labels(i) },
  spec: {
    clusterName: 'cluster-a',
    engines: [
      {
        name: 'main',
        copies: 1,
        members: [
          {
            role: 'Standalone',
            nodePoolName: 'default',
            template: { spec: { containers: [{ name: 'engine', image: 'vllm/vllm-openai:latest', args: ['--model=Qwen/Qwen3-0.6B'] }] } },
            deviceRequests: [{ name: 'gpu', deviceClassName: 'gpu.nvidia.com', count: 1, selectors: [{ cel: DRIVER_SEL }] }],
          },
        ],
      },
    ],
  },
});
const WANT_REPLICA = wantReplica();

/** The endpoint as composed (literal). */
const wantEndpoint = (i = 0): KubeObject => ({
  apiVersion: 'modelplane.ai/v1alpha1',
  kind: 'ModelEndpoint',
  metadata: { name: NAMES[i]!, namespace: 'ml-team', labels: labels(i) },
  spec: { rewritePath: `/ml-team/${NAMES[i]}/`, url: `http://10.0.0.1/ml-team/${NAMES[i]}/v1` },
});
const WANT_ENDPOINT = wantEndpoint();

/** The observed Ready endpoint. */
const endpoint = (i = 0): KubeObject => ({ ...wantEndpoint(i), status: { conditions: [{ type: 'Ready', status: 'True' }] } });

/** Marks an observed replica without any status. */
const NO_STATUS = Symbol('no status');
const READY = { conditions: [{ type: 'Ready', status: 'True', reason: 'Available' }] };

/** The observed replica at `index` with this `status` (Ready by default). */
function observedReplica(status: unknown = READY, index = 0): KubeObject {
  const r = replica('cluster-a', index, { name: NAMES[index]! });
  if (status !== NO_STATUS) r['status'] = structuredClone(status) as JsonObject;
  return r;
}

function run(opts: { clusters?: KubeObject[]; all?: KubeObject[]; observedReplica?: KubeObject; withEndpoint?: boolean; index?: number }): ComposeResult {
  const i = opts.index ?? 0;
  const rep = opts.observedReplica ?? observedReplica(READY, i);
  const observed: Record<string, KubeObject> = { [`replica-cluster-a-${i}`]: rep };
  if (opts.withEndpoint !== false) observed[`endpoint-cluster-a-${i}`] = endpoint(i);
  return compose(request(dep(), { observed, required: { clusters: opts.clusters ?? [cluster('cluster-a', { pools: [pool('default')] })], 'all-replicas': opts.all ?? [rep] } }));
}

const conditionsOf = (out: ComposeResult) => out.conditions.map((c) => [c.type, c.status, c.reason, c.message]);
const resultsOf = (out: ComposeResult) => out.results.map((r) => [r.severity, r.message]);

describe('held, not dropped: a replica that reports neither Ready True nor Ready False keeps its endpoint', () => {
  const keptUntilFalse = `its endpoint is kept until the replica reports Ready False`;
  it.each([
    ['status deleted', NO_STATUS, `replica ${NAME}: status is absent; ${keptUntilFalse}`],
    ['status without conditions', { phase: 'Serving' }, `replica ${NAME}: status.conditions is absent; ${keptUntilFalse}`],
    ['conditions without Ready', { conditions: [{ type: 'Synced', status: 'True' }] }, `replica ${NAME}: status.conditions has no Ready condition; ${keptUntilFalse}`],
    ['Ready Unknown', { conditions: [{ type: 'Ready', status: 'Unknown' }] }, `replica ${NAME}: status.conditions says Ready Unknown; ${keptUntilFalse}`],
    ['conditions not a list', { conditions: 'garbage' }, `replica ${NAME}: status.conditions is not a list; ${keptUntilFalse}`],
    ['Ready status garbage', { conditions: [{ type: 'Ready', status: 42 }] }, `replica ${NAME}: status.conditions[0].status is not True, False or Unknown; ${keptUntilFalse}`],
  ])('%s: replica and endpoint composed, the replica not counted Ready, a Warning and ReplicasReady name the field', (_name, status, message) => {
    const out = run({ observedReplica: observedReplica(status) });
    expect(withoutDashboard(out.resources)).toEqual({
      'replica-cluster-a-0': { resource: WANT_REPLICA },
      'endpoint-cluster-a-0': { resource: WANT_ENDPOINT, ready: true },
    });
    expect(resultsOf(out)).toEqual([['Warning', message]]);
    expect(conditionsOf(out)).toEqual([
      ['ReplicasScheduled', 'True', 'ReplicasCreated', 'Scheduled 1 of 1 replicas'],
      ['ReplicasReady', 'False', 'ModelStarting', `0 of 1 ready; ${message}`],
      ['Progressing', 'True', 'ReplicasUpToDate', 'Every replica runs the current spec'],
    ]);
    // Not set: Crossplane derives the XR's Ready False from the replica, which is not marked ready.
    expect(out.ready).toBeUndefined();
  });

  it('Ready False withdraws the endpoint, silently (the replica really is not Ready)', () => {
    const out = run({ observedReplica: observedReplica({ conditions: [{ type: 'Ready', status: 'False', reason: 'Creating' }] }) });
    expect(Object.keys(out.resources)).toEqual(['replica-cluster-a-0', 'dashboard']);
    expect(out.results).toEqual([]);
  });

  it('a new replica without status and without an endpoint says nothing (it is starting)', () => {
    const out = run({ observedReplica: observedReplica(NO_STATUS), withEndpoint: false });
    expect(Object.keys(out.resources)).toEqual(['replica-cluster-a-0', 'dashboard']);
    expect(out.results).toEqual([]);
    expect(conditionsOf(out)[1]).toEqual(['ReplicasReady', 'False', 'ModelStarting', '0 of 1 ready']);
  });
});

describe('held, not dropped: a replica on a cluster whose state is missing stays as it runs, with its endpoint', () => {
  /** The observed replica and endpoint passed through (status and server metadata dropped). */
  const kept = () => {
    const { status: _s, ...rep } = observedReplica();
    const { status: _e, ...ep } = endpoint();
    return { 'replica-cluster-a-0': { resource: rep, ready: true }, 'endpoint-cluster-a-0': { resource: ep, ready: true } };
  };
  /** cluster-a with its status changed by `spoil`. */
  const clusterWith = (spoil: (c: KubeObject & { status: JsonObject }) => void): KubeObject => {
    const c = cluster('cluster-a', { pools: [pool('default')] }) as KubeObject & { status: JsonObject };
    spoil(c);
    return c;
  };
  const held = (why: string) => `replica ${NAME} on cluster cluster-a is kept as it is until the cluster's state can be read: ${why}`;

  it.each([
    ['status deleted', () => clusterWith((c) => delete (c as JsonObject)['status']), 'status is not published'],
    ['status.gpuPools deleted', () => clusterWith((c) => delete c.status['gpuPools']), 'status.gpuPools is not published'],
    ['status.gpuPools garbage', () => clusterWith((c) => (c.status['gpuPools'] = 'garbage')), 'status.gpuPools: Invalid input: expected array, received string'],
  ])('%s: Warning and ReplicasScheduled name the field', (_name, build, why) => {
    const out = run({ clusters: [build()] });
    expect(withoutDashboard(out.resources)).toEqual(kept());
    expect(resultsOf(out)).toEqual([['Warning', held(why)]]);
    expect(conditionsOf(out)).toEqual([
      ['ReplicasScheduled', 'True', 'ReplicasCreated', `Scheduled 1 of 1 replicas; ${held(why)}`],
      ['ReplicasReady', 'True', 'AllReplicasReady', '1 of 1 ready'],
      ['Progressing', 'True', 'ReplicasUpToDate', 'Every replica runs the current spec'],
    ]);
  });

  it('a fetched cluster without a readable name could be ours: the replica is held, nothing is placed on the nameless one', () => {
    const nameless = cluster('cluster-a', { pools: [pool('default')] });
    (nameless.metadata as JsonObject)['name'] = 42;
    const out = run({ clusters: [nameless] });
    expect(withoutDashboard(out.resources)).toEqual(kept());
    const why = held('1 fetched InferenceCluster has no readable metadata.name, so this one may still exist');
    expect(resultsOf(out)).toEqual([['Warning', why]]);
    expect(conditionsOf(out)[0]).toEqual(['ReplicasScheduled', 'True', 'ReplicasCreated', `Scheduled 1 of 1 replicas; ${why}`]);
    // A name no API server admits (not a DNS-1123 subdomain) is no name either.
    (nameless.metadata as JsonObject)['name'] = 'cluster-a\u2713';
    expect(withoutDashboard(run({ clusters: [nameless] }).resources)).toEqual(kept());
    // With every cluster named, a replica whose cluster is not listed goes (its cluster is gone).
    expect(Object.keys(run({ clusters: [cluster('cluster-b', { pools: [pool('default')] })] }).resources)).toEqual(['replica-cluster-b-0', 'dashboard']);
  });

  it('a replica whose pool is gone on a cluster whose Ready condition is absent is held; with Ready False it goes', () => {
    const noReady = cluster('cluster-a', { pools: [pool('other')] });
    (noReady['status'] as JsonObject)['conditions'] = [];
    const out = run({ clusters: [noReady] });
    expect(Object.keys(out.resources).sort()).toEqual(['dashboard', 'endpoint-cluster-a-0', 'replica-cluster-a-0']);
    expect(resultsOf(out)).toEqual([['Warning', held('status.conditions has no Ready condition')]]);

    const notReady = run({ clusters: [cluster('cluster-a', { pools: [pool('other')], ready: false })] });
    expect(Object.keys(notReady.resources)).toEqual(['dashboard']);
  });
});

describe("held, not dropped: our observed replicas are ours at their key's identity", () => {
  // Index 1 on a one-node pool: read at another identity, or as another deployment's, the
  // replica would be dropped (and its node taken), as the fuzz run found.
  it.each([
    ['replica-index label not an integer', (r: KubeObject) => (r.metadata!.labels!['modelplane.ai/replica-index'] = 'x')],
    ['deployment label gone', (r: KubeObject) => delete r.metadata!.labels!['modelplane.ai/deployment']],
    ['labels gone', (r: KubeObject) => delete r.metadata!.labels],
    ['namespace unreadable', (r: KubeObject) => ((r.metadata as JsonObject)['namespace'] = { bad: true })],
    ['spec.clusterName gone', (r: KubeObject) => delete (r['spec'] as JsonObject)['clusterName']],
  ])('all-replicas item with %s: the replica and endpoint stay, nothing else is placed', (_name, spoil) => {
    const item = observedReplica(READY, 1);
    spoil(item);
    const out = run({ all: [item], index: 1, clusters: [cluster('cluster-a', { pools: [pool('default', { nodes: 1 })] })] });
    expect(withoutDashboard(out.resources)).toEqual({
      'replica-cluster-a-1': { resource: wantReplica(1), ready: true },
      'endpoint-cluster-a-1': { resource: wantEndpoint(1), ready: true },
    });
    expect(out.results).toEqual([]);
    expect(conditionsOf(out).slice(0, 2)).toEqual([
      ['ReplicasScheduled', 'True', 'ReplicasCreated', 'Scheduled 1 of 1 replicas'],
      ['ReplicasReady', 'True', 'AllReplicasReady', '1 of 1 ready'],
    ]);
  });
});

describe('held, not dropped: an endpoint stays while its cluster publishes no gateway address', () => {
  it('the observed endpoint is passed through, with a Warning and a ReplicasReady note naming status.gateway.address', () => {
    const out = run({ clusters: [cluster('cluster-a', { pools: [pool('default')], gateway: null })] });
    const { status: _e, ...ep } = endpoint();
    expect(withoutDashboard(out.resources)).toEqual({
      'replica-cluster-a-0': { resource: WANT_REPLICA, ready: true },
      'endpoint-cluster-a-0': { resource: ep, ready: true },
    });
    const message = `replica ${NAME}: cluster cluster-a publishes no status.gateway.address; its endpoint is kept as it is until the cluster publishes one`;
    expect(resultsOf(out)).toEqual([['Warning', message]]);
    expect(conditionsOf(out)[1]).toEqual(['ReplicasReady', 'True', 'AllReplicasReady', `1 of 1 ready; ${message}`]);
  });

  it('a Ready replica without an endpoint gets none while there is no gateway (docs/kinds/modeldeployment.md#the-modelendpoint)', () => {
    const out = run({ clusters: [cluster('cluster-a', { pools: [pool('default')], gateway: null })], withEndpoint: false });
    expect(Object.keys(out.resources)).toEqual(['replica-cluster-a-0', 'dashboard']);
    expect(out.results).toEqual([]);
  });
});
