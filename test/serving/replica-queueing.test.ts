/**
 * compose-model-replica: the in-cluster queueing a member template asks for
 * reaches the workload cluster as written: `template.spec.priorityClassName`
 * on every pod of the member, and Kueue's labels (`kueue.x-k8s.io/queue-name`,
 * `kueue.x-k8s.io/priority-class`) on the Deployment or LeaderWorkerSet, where
 * Kueue reads them, as well as on the pods. Other labels stay on the pods only.
 */
import { describe, expect, it } from 'vitest';
import { compose } from '../../functions/compose-model-replica/compose.js';
import type { JsonObject, KubeObject } from '../../functions/lib/function.js';
import { engine, gpu, inferenceCluster, member, replica, request } from '../builders/serving.js';

const QUEUE = { 'kueue.x-k8s.io/queue-name': 'team-chat', 'kueue.x-k8s.io/priority-class': 'inference-high', tier: 'prod' };

/** The remote manifests of kind `kind` a replica composes. */
function manifests(r: KubeObject, kind: string): KubeObject[] {
  const out = compose(request(r, { required: { cluster: [inferenceCluster('cluster-a')] } }));
  return Object.values(out.resources)
    .map((d) => (d.resource['spec'] as { forProvider: { manifest: KubeObject } }).forProvider.manifest)
    .filter((m) => m.kind === kind && m.metadata?.name?.endsWith('-epp') !== true);
}

/** `member()` with `priorityClassName` set in its template. */
function prioritized(role: 'Standalone' | 'Leader' | 'Worker', o: Parameters<typeof member>[1]): JsonObject {
  const m = member(role, o);
  ((m['template'] as JsonObject)['spec'] as JsonObject)['priorityClassName'] = 'gpu-inference';
  return m;
}

describe('compose-model-replica: priorityClassName and Kueue labels pass through', () => {
  it('a Standalone member: the Deployment carries the Kueue labels, its pods the class and every label', () => {
    const [d] = manifests(replica('r', { engines: [engine('main', [prioritized('Standalone', { requests: [gpu()], labels: QUEUE })])] }), 'Deployment');
    expect(d!.metadata).toStrictEqual({
      name: 'r-main-bb4e3',
      namespace: 'default',
      labels: { 'kueue.x-k8s.io/queue-name': 'team-chat', 'kueue.x-k8s.io/priority-class': 'inference-high' },
    });
    const pod = (d!.spec as { template: { metadata: { labels: Record<string, string> }; spec: JsonObject } }).template;
    expect(pod.spec['priorityClassName']).toBe('gpu-inference');
    expect(pod.metadata.labels).toStrictEqual({ ...QUEUE, 'modelplane.ai/serving': 'r', 'modelplane.ai/workload': 'r-main-bb4e3' });
  });

  it('a Leader + Worker engine: the LeaderWorkerSet carries the leader template’s Kueue labels; each template keeps its own class', () => {
    const leader = prioritized('Leader', { requests: [gpu()], labels: QUEUE });
    const worker = member('Worker', { requests: [gpu()], workerNodes: 1 });
    const [lws] = manifests(replica('r', { engines: [engine('main', [leader, worker])] }), 'LeaderWorkerSet');
    expect(lws!.metadata!.labels).toStrictEqual({ 'kueue.x-k8s.io/queue-name': 'team-chat', 'kueue.x-k8s.io/priority-class': 'inference-high' });
    const lwt = (lws!.spec as { leaderWorkerTemplate: { leaderTemplate: { spec: JsonObject }; workerTemplate: { spec: JsonObject } } }).leaderWorkerTemplate;
    expect(lwt.leaderTemplate.spec['priorityClassName']).toBe('gpu-inference');
    expect(lwt.workerTemplate.spec['priorityClassName']).toBeUndefined();
  });

  it('without them: no labels on the workload, no priorityClassName on the pods', () => {
    const [d] = manifests(replica('r', { engines: [engine('main', [member('Standalone', { requests: [gpu()], labels: { tier: 'prod' } })])] }), 'Deployment');
    expect(d!.metadata).toStrictEqual({ name: 'r-main-bb4e3', namespace: 'default' });
    expect((d!.spec as { template: { spec: JsonObject } }).template.spec).not.toHaveProperty('priorityClassName');
  });
});
