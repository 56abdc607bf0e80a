/**
 * lib/quota.ts usage: what a namespace holds per the clusters' published
 * capacity ledgers (docs/quotas.md#what-counts), exact numbers per limit.
 */
import { describe, expect, it } from 'vitest';
import { devicesPerNode, limitCounts, type QuotaLimit, usage } from '../../functions/lib/quota.js';
import { holder, ledgerCluster, ledgerPool, run } from '../builders/quota.js';

const ALL: QuotaLimit = { index: 0, kind: 'devices', limit: 100 };
const H100: QuotaLimit = { index: 1, kind: 'devices', limit: 100, selector: 'gpu=h100', classNames: ['h100-8x'] };
const REPLICAS: QuotaLimit = { index: 2, kind: 'replicas', limit: 100 };
const H100_REPLICAS: QuotaLimit = { index: 3, kind: 'replicas', limit: 100, classNames: ['h100-8x'] };
const LIMITS = [ALL, H100, REPLICAS, H100_REPLICAS];

describe('usage', () => {
  const cases: { name: string; reason: string; clusters: ReturnType<typeof ledgerCluster>[]; exclude?: { deployment: string }; want: number[] }[] = [
    { name: 'no clusters', reason: 'nothing held', clusters: [], want: [0, 0, 0, 0] },
    {
      name: 'devices: count × sum of devices[].count',
      reason: 'two runs of one replica, one with two device entries',
      clusters: [ledgerCluster('a', ledgerPool('p', { holders: [holder('ml-team', 'qwen', run('qwen-a', 2, [['gpu', 2]]), run('qwen-a', 1, [['gpu', 1], ['gpu2', 3]]))] }))],
      want: [8, 0, 1, 0],
    },
    {
      name: 'wholeNode: the DRA devices one node publishes',
      reason: 'a whole-node run of 2 pods on 8-GPU nodes holds 16; Synthetic devices do not count',
      clusters: [ledgerCluster('a', ledgerPool('p', { perNode: 8, synthetic: 4, holders: [holder('ml-team', 'kimi', run('kimi-a', 2, [['gpu', 8]], { wholeNode: true }))] }))],
      want: [16, 0, 1, 0],
    },
    {
      name: 'overCapacity holds nothing',
      reason: 'neither devices nor a replica',
      clusters: [
        ledgerCluster('a', ledgerPool('p', { holders: [holder('ml-team', 'qwen', run('qwen-a', 1, [['gpu', 4]]), run('qwen-b', 1, [['gpu', 4]], { overCapacity: true }))] })),
      ],
      want: [4, 0, 1, 0],
    },
    {
      name: 'other namespaces do not count',
      reason: 'holders are per namespace',
      clusters: [ledgerCluster('a', ledgerPool('p', { holders: [holder('other', 'qwen', run('qwen-a', 1, [['gpu', 4]])), holder('ml-team', 'x', run('x-a', 1, [['gpu', 1]]))] }))],
      want: [1, 0, 1, 0],
    },
    {
      name: 'classNames: only pools of those classes; a pool without className only for limits without classNames',
      reason: 'h100 pool, a100 pool, pool without className',
      clusters: [
        ledgerCluster(
          'a',
          ledgerPool('h', { className: 'h100-8x', holders: [holder('ml-team', 'big', run('big-a', 1, [['gpu', 8]]))] }),
          ledgerPool('l', { className: 'l40s-1x', holders: [holder('ml-team', 'small', run('small-a', 2, [['gpu', 1]]))] }),
        ),
        ledgerCluster('b', ledgerPool('old', { holders: [holder('ml-team', 'small', run('small-b', 1, [['gpu', 1]]))] })),
      ],
      want: [11, 8, 3, 1],
    },
    {
      name: 'replicas: distinct names across pools and clusters',
      reason: 'a replica with members in two pools counts once; a run without a name counts on its own',
      clusters: [
        ledgerCluster(
          'a',
          ledgerPool('h', { className: 'h100-8x', holders: [holder('ml-team', 'pd', run('pd-a', 1, [['gpu', 2]]))] }),
          ledgerPool('l', { className: 'l40s-1x', holders: [holder('ml-team', 'pd', run('pd-a', 1, [['gpu', 1]]), { replica: '', count: 1, devices: [{ name: 'gpu', count: 1 }] })] }),
        ),
      ],
      want: [4, 2, 2, 1],
    },
    {
      name: 'exclude skips the deployment’s holders',
      reason: 'the scheduler counts its own replicas itself',
      clusters: [
        ledgerCluster('a', ledgerPool('p', { className: 'h100-8x', holders: [holder('ml-team', 'qwen', run('qwen-a', 1, [['gpu', 4]])), holder('ml-team', 'kimi', run('kimi-a', 1, [['gpu', 2]]))] })),
      ],
      exclude: { deployment: 'qwen' },
      want: [2, 2, 1, 1],
    },
    {
      name: 'lenient on garbage',
      reason: 'a field of the wrong type counts nothing; a cluster without status is skipped',
      clusters: [
        { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceCluster', metadata: { name: 'x' } },
        ledgerCluster('a', { name: 'p', used: 'garbage' }, 'pool' as never, ledgerPool('q', { holders: ['h' as never, holder('ml-team', 'd', run('d-a', -2), { replica: 'd-b', count: 1, devices: 'x' }, 'p' as never)] })),
      ],
      want: [0, 0, 1, 0],
    },
  ];
  it.each(cases)('$name ($reason)', ({ clusters, exclude, want }) => {
    expect(usage(clusters, 'ml-team', LIMITS, exclude)).toEqual(want);
  });

  it('an unresolved limit counts every class (an upper bound)', () => {
    const clusters = [ledgerCluster('a', ledgerPool('h', { className: 'h100-8x', holders: [holder('ml-team', 'd', run('d-a', 1, [['gpu', 3]]))] }), ledgerPool('n', { holders: [holder('ml-team', 'd', run('d-b', 1, [['gpu', 1]]))] }))];
    expect(usage(clusters, 'ml-team', [{ index: 0, kind: 'devices', limit: 2, selector: 'gpu=h100', unresolved: true }])).toEqual([4]);
  });

  it('limitCounts and devicesPerNode', () => {
    expect([limitCounts(ALL, undefined), limitCounts(H100, undefined), limitCounts(H100, 'h100-8x'), limitCounts(H100, 'l40s-1x')]).toEqual([true, false, true, false]);
    expect(devicesPerNode({ devices: [{ name: 'a', count: 4 }, { name: 'b', claim: 'DRA', count: 2 }, { name: 'c', claim: 'Synthetic', count: 8 }, { name: 'd' }] })).toBe(6);
    expect(devicesPerNode({})).toBe(0);
  });
});
