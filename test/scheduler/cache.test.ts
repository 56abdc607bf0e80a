/**
 * The deployment side of ModelCache (docs/kinds/modeldeployment.md#the-modelcache;
 * cache cases beyond compose.test.ts; docs/design.md#declared-capabilities): new replicas
 * only inside the cache's footprint and only where it is Ready, with the
 * why-not naming the cache and the cluster; retained replicas kept whatever
 * the cache's phase.
 */
import { describe, expect, it } from 'vitest';
import type { ComposeRequest, JsonObject, KubeObject } from '../../functions/lib/function.js';
import { footprint, readCache } from '../../functions/schedule-model-deployment/cache.js';
import { compose } from '../../functions/schedule-model-deployment/compose.js';
import { cluster, deployment, engine, member, pool, replica, req, request, sel, withoutDashboard } from '../builders/scheduler.js';

const gpu = () => [req('gpu', [sel.driver('gpu.nvidia.com')])];
const dep = (opts: Parameters<typeof deployment>[0] = {}) =>
  deployment({ engines: [engine('main', [member('Standalone', { devices: gpu() })])], cache: 'qwen-72b', ...opts });

function cache(clusters: JsonObject[] | undefined, selector?: Record<string, string>): KubeObject {
  const obj: KubeObject = {
    apiVersion: 'modelplane.ai/v1alpha1',
    kind: 'ModelCache',
    metadata: { name: 'qwen-72b', namespace: 'ml-team' },
    spec: { source: 'HuggingFace', huggingFace: { repo: 'Qwen/Qwen2.5-72B-Instruct', sizeGiB: 140 }, ...(selector ? { clusterSelector: { matchLabels: selector } } : {}) },
  };
  if (clusters) obj['status'] = { clusters };
  return obj;
}

function run(xr: KubeObject, clusters: KubeObject[], c: KubeObject, opts: { replicas?: KubeObject[]; observed?: Record<string, KubeObject> } = {}): ReturnType<typeof compose> {
  const r: ComposeRequest = request(xr, { observed: opts.observed ?? {}, required: { clusters, 'all-replicas': opts.replicas ?? [], cache: [c] } });
  return compose(r);
}

const scheduled = (out: ReturnType<typeof compose>) => out.conditions.find((c) => c.type === 'ReplicasScheduled');

describe('new replicas only where the cache is Ready', () => {
  it('places on the Ready cluster, never on the Unsupported one, even when that one sorts first', () => {
    const out = run(
      dep({ replicas: 2 }),
      [cluster('a-vultr-demo', { pools: [pool('default')] }), cluster('eks-a', { pools: [pool('default', { nodes: 1 })] })],
      cache([
        { name: 'a-vultr-demo', phase: 'Unsupported', message: 'no RWX' },
        { name: 'eks-a', phase: 'Ready' },
      ]),
    );
    expect(Object.keys(out.resources)).toEqual(['replica-eks-a-0', 'dashboard']);
    expect(scheduled(out)).toEqual({
      type: 'ReplicasScheduled',
      status: 'False',
      reason: 'InsufficientCapacity',
      message:
        '1 of 2 replicas scheduled; 2 clusters: 1 pool default: needs 1 gpu on one node, 0 free, 1 cache qwen-72b: not supported on a-vultr-demo (no RWX storage class)',
    });
  });

  it('a footprint with no usable cluster says so per cluster: Unsupported, Hydrating, not listed', () => {
    const out = run(
      dep(),
      [cluster('vultr-demo'), cluster('gke-a'), cluster('aks-a')],
      cache([
        { name: 'vultr-demo', phase: 'Unsupported', message: 'Vultr File System cannot be attached' },
        { name: 'gke-a', phase: 'Hydrating' },
      ]),
    );
    expect(withoutDashboard(out.resources)).toEqual({});
    expect(scheduled(out)!.message).toBe(
      '0 of 1 replicas scheduled; 3 clusters: 1 cache qwen-72b: Hydrating on gke-a, 1 cache qwen-72b: not staged on aks-a yet, 1 cache qwen-72b: not supported on vultr-demo (no RWX storage class)',
    );
    expect(out.ready).toBe(false);
  });

  it('a present cache that has published no status yet holds new placement', () => {
    const out = run(dep(), [cluster('gke-a')], cache(undefined));
    expect(withoutDashboard(out.resources)).toEqual({});
    expect(scheduled(out)!.message).toBe('0 of 1 replicas scheduled; 1 cluster: 1 cache qwen-72b: not staged on gke-a yet');
  });

  it('a Failed cache cluster takes no new replica', () => {
    const out = run(dep(), [cluster('gke-a')], cache([{ name: 'gke-a', phase: 'Failed', message: 'hydrate Job failed' }]));
    expect(scheduled(out)!.message).toBe('0 of 1 replicas scheduled; 1 cluster: 1 cache qwen-72b: Failed on gke-a');
  });

  it('a retained replica stays where the cache is re-hydrating (retain is not gated by the cache phase)', () => {
    const existing = replica('gke-a', 0, { name: 'my-model-x', ready: true });
    const out = run(dep(), [cluster('gke-a')], cache([{ name: 'gke-a', phase: 'Hydrating' }]), {
      replicas: [existing],
      observed: { 'replica-gke-a-0': existing },
    });
    expect(Object.keys(out.resources).sort()).toEqual(['dashboard', 'endpoint-gke-a-0', 'replica-gke-a-0']);
    expect(scheduled(out)).toEqual({ type: 'ReplicasScheduled', status: 'True', reason: 'ReplicasCreated', message: 'Scheduled 1 of 1 replicas' });
  });

  it('the replica references the cache so it mounts the PVC', () => {
    const out = run(dep(), [cluster('gke-a')], cache([{ name: 'gke-a', phase: 'Ready' }]));
    expect((out.resources['replica-gke-a-0']!.resource['spec'] as JsonObject)['modelCacheRef']).toEqual({ name: 'qwen-72b' });
  });

  it("the footprint: the cache's selector is merged over the deployment's, the cache winning a shared key", () => {
    const out = run(dep({ clusterSelector: { region: 'us-east', tier: 'cpu' } }), [], cache([], { tier: 'gpu' }));
    expect(out.requirements['clusters']).toEqual({
      apiVersion: 'modelplane.ai/v1alpha1',
      kind: 'InferenceCluster',
      matchLabels: { region: 'us-east', tier: 'gpu' },
    });
    expect(footprint(undefined, readCache('c', cache([])))).toBeUndefined();
  });

  it('readCache reads size, selector and per-cluster phases; malformed entries are skipped', () => {
    const view = readCache('qwen-72b', cache([{ name: 'a', phase: 'Ready' }, { phase: 'Ready' }, { name: 'b', phase: 'Unsupported', message: 'm' }], { x: 'y' }));
    expect(view).toEqual({
      state: 'present',
      name: 'qwen-72b',
      sizeGiB: 140,
      selector: { x: 'y' },
      clusters: new Map([
        ['a', { phase: 'Ready' }],
        ['b', { phase: 'Unsupported', message: 'm' }],
      ]),
    });
  });
});
