/**
 * Team quotas in the scheduler (quota-budget.ts, docs/quotas.md): the
 * namespace's other deployments charged from the ledgers, ours from our
 * replicas; a placement that would exceed a limit is refused with
 * QuotaExceeded naming it; a lowered quota removes nothing (OverQuota).
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, KubeObject } from '../../functions/lib/function.js';
import { compose } from '../../functions/schedule-model-deployment/compose.js';
import { cluster, deployment, pool, replica, request } from '../builders/scheduler.js';

const quota = (limits: JsonObject[], namespace = 'ml-team'): KubeObject => ({ apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceQuota', metadata: { name: 'team', namespace }, spec: { limits } });
const clusters = () => [cluster('a', { pools: [pool('default', { nodes: 4 })] }), cluster('b', { pools: [pool('default', { nodes: 4 })] })];
const cond = (out: ReturnType<typeof compose>, type: string) => out.conditions.find((c) => c.type === type);
const placed = (out: ReturnType<typeof compose>) => Object.keys(out.resources).filter((k) => k.startsWith('replica-')).sort();

describe('InferenceQuota in the scheduler', () => {
  // Another deployment of ml-team holds one device on cluster a.
  const other = replica('a', 0, { deployment: 'other', name: 'other-a-0', ready: true });

  it('stops at the quota with QuotaExceeded naming the limit; the other deployment is charged from the ledger', () => {
    const out = compose(request(deployment({ replicas: 3 }), { required: { clusters: clusters(), 'all-replicas': [other], quotas: [quota([{ devices: 2 }])] } }));
    expect(placed(out)).toEqual(['replica-a-0']);
    expect(cond(out, 'ReplicasScheduled')).toMatchObject({ status: 'False', reason: 'QuotaExceeded' });
    expect(cond(out, 'ReplicasScheduled')?.message).toBe(
      '1 of 3 replicas scheduled; 2 clusters: 2 InferenceQuota ml-team/team limits[0]: 2 devices; the namespace holds 2 and this replica needs 1',
    );
  });

  it('a replicas limit, and another namespace is not charged', () => {
    const foreign = replica('a', 1, { deployment: 'x', namespace: 'other-team', name: 'x-a-1', ready: true });
    const out = compose(request(deployment({ replicas: 3 }), { required: { clusters: clusters(), 'all-replicas': [other, foreign], quotas: [quota([{ replicas: 3 }])] } }));
    expect(placed(out)).toEqual(['replica-a-0', 'replica-b-0']);
  });

  it('a lowered quota removes nothing: the running replica stays, OverQuota is said', () => {
    const mine = replica('a', 0, { ready: true });
    const out = compose(request(deployment({ replicas: 1 }), { observed: { 'replica-a-0': mine }, required: { clusters: clusters(), 'all-replicas': [other, mine], quotas: [quota([{ devices: 1 }])] } }));
    expect(placed(out)).toEqual(['replica-a-0']);
    const over = 'OverQuota: InferenceQuota ml-team/team spec.limits[0] (1 device): the namespace holds 2; nothing running is removed, new placements it counts are refused while it is over';
    expect(out.results.map((r) => r.message), JSON.stringify(out.results)).toContain(over);
    expect(cond(out, 'ReplicasScheduled')?.message).toContain(over);
  });

  it('without a quota nothing is refused', () => {
    const out = compose(request(deployment({ replicas: 3 }), { required: { clusters: clusters(), 'all-replicas': [other], quotas: [] } }));
    expect(placed(out)).toEqual(['replica-a-0', 'replica-a-1', 'replica-b-0']);
  });
});
