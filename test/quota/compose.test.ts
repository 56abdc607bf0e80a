/**
 * compose-inference-quota: whole-response table (results, conditions,
 * requirements, status, readiness). Quota ml-team/team-quota: 8 devices of
 * every class, 2 devices of classes labelled gpu=h100, 10 replicas.
 */
import { describe, expect, it } from 'vitest';
import { compose, msgNoClasses } from '../../functions/compose-inference-quota/compose.js';
import type { ComposeResult, JsonObject, KubeObject } from '../../functions/lib/function.js';
import { readQuota } from '../../functions/lib/quota.js';
import { holder, labelledClass, ledgerCluster, ledgerPool, quota, run } from '../builders/quota.js';
import { request } from '../builders/serving.js';

const LIMITS = [{ devices: 8 }, { devices: 2, classSelector: { matchLabels: { gpu: 'h100' } } }, { replicas: 10 }];
const REQUIREMENTS = {
  clusters: { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceCluster' },
  'classes-1': { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceClass', matchLabels: { gpu: 'h100' } },
};
const H100 = labelledClass('h100-8x', { gpu: 'h100' });

/** ml-team holds 6 devices in 3 replicas: 1 on h100 (the h100 pool), 5 on l40s. */
function fleet(h100Devices = 1): KubeObject[] {
  return [
    ledgerCluster(
      'eks-a',
      ledgerPool('h100', { className: 'h100-8x', holders: [holder('ml-team', 'big', run('big-a', 1, [['gpu', h100Devices]])), holder('other', 'x', run('x-a', 1, [['gpu', 8]]))] }),
      ledgerPool('l40s', { className: 'l40s-1x', perNode: 1, holders: [holder('ml-team', 'small', run('small-a', 4, [['gpu', 1]], { wholeNode: true }), run('small-b', 1))] }),
    ),
  ];
}

function status(used: [number, number, number], classNames = ['h100-8x']): JsonObject {
  return {
    summary: `${used[0]}/8 devices, ${used[1]}/2 gpu=h100 devices, ${used[2]}/10 replicas`,
    limits: [
      { index: 0, devices: 8, used: used[0] },
      { index: 1, devices: 2, used: used[1], selector: 'gpu=h100', classNames },
      { index: 2, replicas: 10, used: used[2] },
    ],
  };
}

const overMsg =
  'spec.limits[0] (8 devices): the namespace holds 9; nothing running is removed, new placements it counts are refused while it is over; spec.limits[1] (2 devices of class h100-8x): the namespace holds 4; nothing running is removed, new placements it counts are refused while it is over';

const cases: { name: string; reason: string; xr: KubeObject; required?: Record<string, KubeObject[]>; want: ComposeResult }[] = [
  {
    name: 'not fetched yet',
    reason: 'only the requirements: no status from a half-read fleet (an unresolved selector is never published as [])',
    xr: quota(LIMITS),
    required: { clusters: fleet() },
    want: { resources: {}, conditions: [], results: [], requirements: REQUIREMENTS },
  },
  {
    name: 'within quota',
    reason: '6/8, 1/2 on h100, 3/10 replicas',
    xr: quota(LIMITS),
    required: { clusters: fleet(), 'classes-1': [H100] },
    want: {
      resources: {},
      status: status([6, 1, 3]),
      ready: true,
      conditions: [{ type: 'Usage', status: 'True', reason: 'WithinQuota' }],
      results: [],
      requirements: REQUIREMENTS,
    },
  },
  {
    name: 'over quota',
    reason: 'the quota was lowered below what runs: Ready, OverQuota naming each limit, a Warning when it becomes so',
    xr: quota(LIMITS),
    required: { clusters: fleet(4), 'classes-1': [H100] },
    want: {
      resources: {},
      status: status([9, 4, 3]),
      ready: true,
      conditions: [{ type: 'Usage', status: 'True', reason: 'OverQuota', message: overMsg }],
      results: [{ severity: 'Warning', message: `Over quota: ${overMsg}`, reason: 'OverQuota' }],
      requirements: REQUIREMENTS,
    },
  },
  {
    name: 'still over quota',
    reason: 'a settled fleet is quiet: no Warning on every call',
    xr: quota(LIMITS, { conditions: [{ type: 'Usage', status: 'True', reason: 'OverQuota', message: overMsg }] }),
    required: { clusters: fleet(4), 'classes-1': [H100] },
    want: {
      resources: {},
      status: status([9, 4, 3]),
      ready: true,
      conditions: [{ type: 'Usage', status: 'True', reason: 'OverQuota', message: overMsg }],
      results: [],
      requirements: REQUIREMENTS,
    },
  },
  {
    name: 'a selector matching no class',
    reason: 'resolved to [] (counts nothing), said in the condition',
    xr: quota(LIMITS),
    required: { clusters: fleet(), 'classes-1': [] },
    want: {
      resources: {},
      status: status([6, 0, 3], []),
      ready: true,
      conditions: [
        {
          type: 'Usage',
          status: 'True',
          reason: 'WithinQuota',
          message: msgNoClasses({ index: 1, kind: 'devices', limit: 2, selector: 'gpu=h100', classNames: [] }),
        },
      ],
      results: [],
      requirements: REQUIREMENTS,
    },
  },
  {
    name: 'no clusters',
    reason: 'nothing held',
    xr: quota([{ replicas: 0 }]),
    required: { clusters: [] },
    want: {
      resources: {},
      status: { summary: '0/0 replicas', limits: [{ index: 0, replicas: 0, used: 0 }] },
      ready: true,
      conditions: [{ type: 'Usage', status: 'True', reason: 'WithinQuota' }],
      results: [],
      requirements: { clusters: REQUIREMENTS.clusters },
    },
  },
  {
    name: 'invalid spec',
    reason: 'a Warning and a condition naming the field, never Fatal; the published status kept; not Ready',
    xr: quota([{ devices: 8, replicas: 2 }], status([6, 1, 3])),
    required: { clusters: fleet() },
    want: {
      resources: {},
      status: status([6, 1, 3]),
      ready: false,
      conditions: [
        {
          type: 'Usage',
          status: 'False',
          reason: 'InvalidSpec',
          message: 'Invalid InferenceQuota: spec.limits[0]: set exactly one of devices or replicas in each limit (write a limit that needs both as two limits)',
        },
      ],
      results: [
        {
          severity: 'Warning',
          message: 'Invalid InferenceQuota: spec.limits[0]: set exactly one of devices or replicas in each limit (write a limit that needs both as two limits)',
        },
      ],
      requirements: {},
    },
  },
];

describe('compose-inference-quota', () => {
  it.each(cases)('$name ($reason)', ({ xr, required, want }) => {
    expect(compose(request(xr, { required: required ?? {} }))).toEqual(want);
  });

  it('is a fixed point: its own status as input changes nothing', () => {
    const first = compose(request(quota(LIMITS), { required: { clusters: fleet(), 'classes-1': [H100] } }));
    const again = compose(request(quota(LIMITS, first.status), { required: { clusters: fleet(), 'classes-1': [H100] } }));
    expect(again).toEqual(first);
  });

  it('what it publishes, readQuota reads as resolved (the scheduler’s side)', () => {
    const first = compose(request(quota(LIMITS), { required: { clusters: fleet(), 'classes-1': [H100] } }));
    const read = readQuota(quota(LIMITS, first.status));
    expect(read.ok && read.quota.limits).toEqual([
      { index: 0, kind: 'devices', limit: 8 },
      { index: 1, kind: 'devices', limit: 2, selector: 'gpu=h100', classNames: ['h100-8x'] },
      { index: 2, kind: 'replicas', limit: 10 },
    ]);
  });
});
