/**
 * lib/quota.ts readQuota: the spec as the API server admits it (every error
 * text, exactly), the XRD's CEL rules evaluated by hand with the XRD's own
 * messages, and classNames read from status, `unresolved` until published
 * for that index and that selector (docs/quotas.md#class-selectors).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../cli/functions.js';
import {
  describeLimit,
  MSG_ONE_OF,
  MSG_SELECTOR_DEVICES,
  msgOverQuota,
  msgQuotaExceeded,
  msgQuotaUnresolved,
  type QuotaRead,
  readQuota,
  selectorString,
} from '../../functions/lib/quota.js';
import { quota } from '../builders/quota.js';

const ONE_OF = `spec.limits[0]: ${MSG_ONE_OF}`;

describe('readQuota: invalid specs, each error text', () => {
  const cases: { name: string; reason: string; xr: Parameters<typeof readQuota>[0]; want: QuotaRead }[] = [
    { name: 'no limits', reason: 'minItems 1', xr: quota([]), want: { ok: false, errors: ['spec.limits: Too small: expected array to have >=1 items'] } },
    {
      name: 'seventeen limits',
      reason: 'maxItems 16',
      xr: quota(Array.from({ length: 17 }, () => ({ devices: 1 }))),
      want: { ok: false, errors: ['spec.limits: Too big: expected array to have <=16 items'] },
    },
    { name: 'limits not a list', reason: 'type', xr: quota('x' as unknown as unknown[]), want: { ok: false, errors: ['spec.limits: Invalid input: expected array, received string'] } },
    { name: 'neither devices nor replicas', reason: 'CEL rule 1', xr: quota([{}]), want: { ok: false, errors: [ONE_OF] } },
    { name: 'both devices and replicas', reason: 'CEL rule 1', xr: quota([{ devices: 1, replicas: 2 }]), want: { ok: false, errors: [ONE_OF] } },
    {
      name: 'classSelector on a replicas limit',
      reason: 'CEL rule 2',
      xr: quota([{ devices: 8 }, { replicas: 2, classSelector: { matchLabels: { gpu: 'h100' } } }]),
      want: { ok: false, errors: [`spec.limits[1]: ${MSG_SELECTOR_DEVICES}`] },
    },
    {
      name: 'empty matchLabels',
      reason: 'minProperties 1 (not in the generated parser)',
      xr: quota([{ devices: 1, classSelector: { matchLabels: {} } }]),
      want: { ok: false, errors: ['spec.limits[0].classSelector.matchLabels: must have at least 1 property (omit classSelector to count every class)'] },
    },
    { name: 'negative devices', reason: 'minimum 0', xr: quota([{ devices: -1 }]), want: { ok: false, errors: ['spec.limits[0].devices: Too small: expected number to be >=0'] } },
    { name: 'fractional replicas', reason: 'integer', xr: quota([{ replicas: 1.5 }]), want: { ok: false, errors: ['spec.limits[0].replicas: Invalid input: expected int, received number'] } },
    { name: 'unknown field', reason: 'strict', xr: quota([{ devices: 1, gpus: 2 }]), want: { ok: false, errors: ['spec.limits[0]: Unrecognized key: "gpus"'] } },
    {
      name: 'no namespace',
      reason: 'namespaced',
      xr: quota([{ devices: 1 }], undefined, { name: 'q' }),
      want: { ok: false, errors: ['metadata.namespace: Required: an InferenceQuota is namespaced'] },
    },
    {
      name: 'no name, several problems sorted',
      reason: 'every field named, sorted',
      xr: quota([{ devices: 1, replicas: 1 }, { devices: 'x' }], undefined, { namespace: 'ml-team' }),
      want: {
        ok: false,
        errors: ['metadata.name: Required: an InferenceQuota is named', ONE_OF, 'spec.limits[1].devices: Invalid input: expected number, received string'],
      },
    },
  ];
  it.each(cases)('$name ($reason)', ({ xr, want }) => {
    expect(readQuota(xr)).toEqual(want);
  });

  it('the CEL rule messages are the XRD’s own', () => {
    const xrd = parse(readFileSync(join(REPO_ROOT, 'apis', 'inferencequotas', 'definition.yaml'), 'utf8'));
    const items = xrd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.limits.items;
    expect(items['x-kubernetes-validations'].map((r: { message: string }) => r.message)).toEqual([MSG_ONE_OF, MSG_SELECTOR_DEVICES]);
  });
});

describe('readQuota: limits and class names', () => {
  const spec = [{ devices: 8 }, { devices: 2, classSelector: { matchLabels: { tier: 'prod', gpu: 'h100' } } }, { replicas: 10 }];
  const published = (entry: object) => ({ limits: [{ index: 0, devices: 8, used: 6 }, entry, { index: 2, replicas: 10, used: 3 }] });

  it('classNames from status.limits[] for that index and selector, sorted', () => {
    const xr = quota(spec, published({ index: 1, devices: 2, used: 1, selector: 'gpu=h100,tier=prod', classNames: ['h100-8x', 'a-h100'] }));
    expect(readQuota(xr)).toEqual({
      ok: true,
      quota: {
        name: 'team-quota',
        namespace: 'ml-team',
        limits: [
          { index: 0, kind: 'devices', limit: 8 },
          { index: 1, kind: 'devices', limit: 2, selector: 'gpu=h100,tier=prod', classNames: ['a-h100', 'h100-8x'] },
          { index: 2, kind: 'replicas', limit: 10 },
        ],
      },
    });
  });

  it('a selector matching no class is resolved to [] (counts nothing), not unresolved', () => {
    const r = readQuota(quota(spec, published({ index: 1, devices: 2, used: 0, selector: 'gpu=h100,tier=prod', classNames: [] })));
    expect(r.ok && r.quota.limits[1]).toEqual({ index: 1, kind: 'devices', limit: 2, selector: 'gpu=h100,tier=prod', classNames: [] });
  });

  const unresolved = { index: 1, kind: 'devices', limit: 2, selector: 'gpu=h100,tier=prod', unresolved: true };
  it.each([
    ['no status yet', undefined],
    ['no entry for the index', { limits: [{ index: 0, devices: 8, used: 6 }] }],
    ['resolved from another selector (the spec changed since)', published({ index: 1, devices: 2, used: 0, selector: 'gpu=a100', classNames: ['a100-8x'] })],
    ['classNames not published', published({ index: 1, devices: 2, used: 0, selector: 'gpu=h100,tier=prod' })],
    ['classNames garbage', published({ index: 1, devices: 2, used: 0, selector: 'gpu=h100,tier=prod', classNames: [1] })],
    ['status garbage', 'garbage'],
  ])('unresolved, never [] or every class: %s', (_name, status) => {
    const r = readQuota(quota(spec, status as never));
    expect(r.ok && r.quota.limits[1]).toEqual(unresolved);
  });

  it('nulls are dropped as the API server prunes them', () => {
    expect(readQuota(quota([{ devices: 4, classSelector: null }]))).toEqual({
      ok: true,
      quota: { name: 'team-quota', namespace: 'ml-team', limits: [{ index: 0, kind: 'devices', limit: 4 }] },
    });
  });

  it('selectorString sorts keys', () => {
    expect(selectorString({ tier: 'prod', gpu: 'h100' })).toBe('gpu=h100,tier=prod');
  });
});

describe('messages', () => {
  const devices = { index: 0, kind: 'devices', limit: 8 } as const;
  it('msgQuotaExceeded', () => {
    expect(msgQuotaExceeded('ml-team/team-quota', devices, 6, 4)).toBe('InferenceQuota ml-team/team-quota limits[0]: 8 devices; the namespace holds 6 and this replica needs 4');
    expect(msgQuotaExceeded('ml-team/team-quota', { index: 2, kind: 'replicas', limit: 1 }, 1, 1)).toBe(
      'InferenceQuota ml-team/team-quota limits[2]: 1 replica; the namespace holds 1 and this replica needs 1',
    );
    expect(msgQuotaExceeded('ml-team/q', { index: 1, kind: 'devices', limit: 2, selector: 'gpu=h100', classNames: ['a', 'b'] }, 2, 1)).toBe(
      'InferenceQuota ml-team/q limits[1]: 2 devices of classes a, b; the namespace holds 2 and this replica needs 1',
    );
  });
  it('msgOverQuota', () => {
    expect(msgOverQuota(devices, 10)).toBe('spec.limits[0] (8 devices): the namespace holds 10; nothing running is removed, new placements it counts are refused while it is over');
  });
  it('msgQuotaUnresolved', () => {
    expect(msgQuotaUnresolved('ml-team/team-quota', { index: 1, kind: 'devices', limit: 2, selector: 'gpu=h100', unresolved: true })).toBe(
      'InferenceQuota ml-team/team-quota limits[1]: the InferenceClasses matching gpu=h100 are not resolved yet (status.limits[1].classNames); no replica is placed against it until they are',
    );
  });
  it('describeLimit', () => {
    expect(
      [
        { index: 0, kind: 'devices', limit: 1 },
        { index: 0, kind: 'devices', limit: 2, selector: 'gpu=h100', classNames: ['h100-8x'] },
        { index: 0, kind: 'devices', limit: 2, selector: 'gpu=h100', classNames: [] },
        { index: 0, kind: 'devices', limit: 2, selector: 'gpu=h100', unresolved: true },
        { index: 0, kind: 'replicas', limit: 0 },
      ].map((l) => describeLimit(l as never)),
    ).toEqual(['1 device', '2 devices of class h100-8x', '2 devices of classes matching gpu=h100 (none)', '2 devices of the classes matching gpu=h100 (not resolved yet)', '0 replicas']);
  });
});
