/**
 * `modelplane plan` of the two ModelCache examples: the
 * prefill/decode Kimi-K2-like deployment on EKS with a cache, and a cache
 * over a fleet that includes a Vultr cluster (the declared gap). The
 * cold-start times are the simulated ones of cli/simulated/providers.ts
 * (SIMULATED_STARTUP_SECONDS: 372 s from a cache).
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../cli/functions.js';
import { plan, type PlanResult } from '../../cli/plan/planner.js';
import { buildReport, type PlanReport } from '../../cli/plan/report.js';
import { formatText } from '../../cli/plan/text.js';
import type { JsonObject, KubeObject } from '../../functions/lib/function.js';

const VULTR_REASON = 'Vultr File System cannot be attached to VKE GPU nodes, so this cluster has no RWX StorageClass for ModelCache volumes.';

function ofKind(result: PlanResult, kind: string): KubeObject[] {
  return result.store.all().filter((o) => o.kind === kind);
}
function manifests(result: PlanResult): KubeObject[] {
  return ofKind(result, 'Object').map((o) => ((o['spec'] as JsonObject)['forProvider'] as JsonObject)['manifest'] as KubeObject);
}

describe('plan examples/kimi-k2-eks (prefill/decode with a cache on EKS)', () => {
  let result: PlanResult;
  let report: PlanReport;
  beforeAll(async () => {
    result = await plan([join(REPO_ROOT, 'examples/kimi-k2-eks')]);
    report = buildReport(result);
  });

  it('converges with nothing invalid, skipped or failed', () => {
    expect([report.converged, report.invalid, result.skipped, result.errors]).toEqual([true, [], [], {}]);
  });

  it('stages the cache on the EKS cluster on its EFS class, Ready 1/1', () => {
    expect(report.caches).toEqual([
      {
        namespace: 'ml-team',
        name: 'kimi-k2',
        source: 'moonshotai/Kimi-K2-Instruct',
        sizeGiB: 1000,
        ready: '1/1',
        clusters: [{ name: 'eks-us-east', phase: 'Ready', message: null }],
      },
    ]);
    const pvc = manifests(result).find((m) => m.kind === 'PersistentVolumeClaim')!;
    expect(pvc.metadata?.name).toBe('modelcache-ml-team-kimi-k2-81193');
    expect(pvc['spec']).toEqual({ accessModes: ['ReadWriteMany'], storageClassName: 'modelplane-rwx-efs', resources: { requests: { storage: '1000Gi' } } });
  });

  it('places the one replica (two gangs on the EFA pool), every engine mounting the cache PVC', () => {
    const [d] = report.deployments;
    expect(d?.replicas.map((r) => [r.cluster, r.engines.map((e) => [e.name, e.members.map((m) => `${m.role} ${m.pool}`)])])).toEqual([
      [
        'eks-us-east',
        [
          ['prefill', ['Leader gpu-h100', 'Worker gpu-h100']],
          ['decode', ['Leader gpu-h100', 'Worker gpu-h100']],
        ],
      ],
    ]);
    const pvcName = manifests(result).find((m) => m.kind === 'PersistentVolumeClaim')!.metadata!.name;
    const lws = manifests(result).filter((m) => m.kind === 'LeaderWorkerSet');
    expect(lws).toHaveLength(2);
    for (const w of lws) {
      const lwt = (w['spec'] as JsonObject)['leaderWorkerTemplate'] as JsonObject;
      for (const t of ['leaderTemplate', 'workerTemplate']) {
        const volumes = (((lwt[t] as JsonObject)['spec'] as JsonObject)['volumes'] as JsonObject[]).filter((v) => v['name'] === 'model-cache');
        expect(volumes).toEqual([{ name: 'model-cache', persistentVolumeClaim: { claimName: pvcName } }]);
      }
    }
  });

  it('measures the cold start (simulated 6m12s from the cache) and meets the 10m bar', () => {
    const [d] = report.deployments;
    expect(d?.coldStart).toEqual({ replicas: 1, p50Seconds: 372, maxSeconds: 372, modelSource: 'Cache', sizeGiB: 1000, readyWithin: '10m' });
    expect(d?.conditions.find((c) => c.type === 'ColdStartWithinBar')).toEqual({
      type: 'ColdStartWithinBar',
      status: 'True',
      reason: 'WithinBar',
      message: '1 engine, 1000Gi from cache, slowest ready in 6m12s, bar 10m',
    });
    const [replica] = ofKind(result, 'ModelReplica');
    expect((replica!['status'] as JsonObject)['startup']).toEqual({ startedAt: '2024-01-01T00:00:00Z', readyAt: '2024-01-01T00:06:12Z', seconds: 372 });
    expect(formatText(report)).toContain(
      '  ml-team/kimi-k2: cold start (simulated times): 1 measured, p50 6m12s, slowest 6m12s, 1000Gi from cache; bar 10m: True WithinBar\n',
    );
  });
});

describe('plan examples/cache-fleet-vultr (the declared gap)', () => {
  let result: PlanResult;
  let report: PlanReport;
  beforeAll(async () => {
    result = await plan([join(REPO_ROOT, 'examples/cache-fleet-vultr')]);
    report = buildReport(result);
  });

  it('converges with nothing invalid, skipped or failed', () => {
    expect([report.converged, report.invalid, result.skipped, result.errors]).toEqual([true, [], [], {}]);
  });

  it('is Ready on EKS and Unsupported on Vultr with the reason; no volume on Vultr', () => {
    expect(report.caches[0]?.ready).toBe('1/1');
    expect(report.caches[0]?.clusters).toEqual([
      { name: 'eks-us-east', phase: 'Ready', message: null },
      { name: 'vultr-ewr', phase: 'Unsupported', message: VULTR_REASON },
    ]);
    const [cache] = ofKind(result, 'ModelCache');
    const matched = ((cache!['status'] as JsonObject)['conditions'] as JsonObject[]).find((c) => c['type'] === 'ClustersMatched');
    expect(matched?.['message']).toBe(`1 of 2 selected clusters cannot hold the cache: vultr-ewr (${VULTR_REASON})`);
    const pvcs = ofKind(result, 'Object').filter((o) => (((o['spec'] as JsonObject)['forProvider'] as JsonObject)['manifest'] as KubeObject).kind === 'PersistentVolumeClaim');
    expect(pvcs.map((o) => ((o['spec'] as JsonObject)['providerConfigRef'] as JsonObject)['name'])).toEqual(['eks-us-east-cluster-kubeconfig-4f5ea']);
  });

  it('places replicas only inside the cache footprint where it is Ready, and says why not Vultr', () => {
    const [d] = report.deployments;
    expect([d?.desiredReplicas, d?.scheduledReplicas, d?.readyReplicas]).toEqual([3, 2, 2]);
    expect(d?.replicas.map((r) => r.cluster)).toEqual(['eks-us-east', 'eks-us-east']);
    expect(d?.conditions.find((c) => c.type === 'ReplicasScheduled')?.message).toBe(
      '2 of 3 replicas scheduled; 2 clusters: 1 pool gpu-l40s: needs 1 gpu on one node, 0 free, 1 cache qwen-32b: not supported on vultr-ewr (no RWX storage class)',
    );
  });

  it('reports the cold start of the two placed replicas against the bar', () => {
    const [d] = report.deployments;
    expect(d?.coldStart).toEqual({ replicas: 2, p50Seconds: 372, maxSeconds: 372, modelSource: 'Cache', sizeGiB: 20, readyWithin: '10m' });
    expect(d?.conditions.find((c) => c.type === 'ColdStartWithinBar')?.message).toBe('2 engines, 20Gi from cache, slowest ready in 6m12s, bar 10m');
  });
});
