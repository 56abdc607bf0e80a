/**
 * The fast status check (functions/lib/fleet/readable-status.ts)
 * against the zod schema it stands in for: its keys and bounds are the
 * generated schemas', it accepts the benchmark fleet's statuses, and on
 * statuses mutated one field at a time it never accepts what zod rejects.
 */
import { describe, expect, it } from 'vitest';
import { cluster } from '../../bench/scheduler-fleet.js';
import type { JsonObject } from '../../functions/lib/function.js';
import {
  InferenceClusterStatusGatewaySchema,
  InferenceClusterStatusGpuPoolDeviceAttributeSchema,
  InferenceClusterStatusGpuPoolDeviceCapacitySchema,
  InferenceClusterStatusGpuPoolDeviceSchema,
  InferenceClusterStatusGpuPoolPriceSchema,
  InferenceClusterStatusGpuPoolSchema,
} from '../../functions/lib/generated/inferenceclusters.js';
import { READ_STATUS } from '../../functions/lib/fleet/fleet.js';
import { mulberry32 as rng } from '../../scripts/oracle/grammar.js';
import {
  ATTRIBUTE_KEYS,
  BOUNDS,
  CAPACITY_KEYS,
  DEVICE_KEYS,
  GATEWAY_KEYS,
  POOL_KEYS,
  PRICE_KEYS,
  surelyReadable,
} from '../../functions/lib/fleet/readable-status.js';

const sorted = (xs: readonly string[]) => [...xs].sort();


const VALUES: unknown[] = [
  undefined,
  null,
  '',
  'x',
  'EFA',
  'DRA',
  'Synthetic',
  'Hopper',
  'Spot',
  'USD',
  'usd',
  '3.25',
  '3.1234567',
  { currency: 'USD', perNodeHour: '1.5' },
  { currency: 'USD' },
  'y'.repeat(33),
  'z'.repeat(254),
  0,
  -1,
  1.5,
  8,
  2 ** 53,
  Number.NaN,
  true,
  false,
  [],
  [{}],
  {},
  { string: 'a' },
  { value: '1Gi' },
  { value: 'v'.repeat(33) },
  { extra: 1 },
  Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, {}])),
  Array.from({ length: 17 }, () => ({ name: 'gpu', driver: 'd' })),
];

/** Every (container, key) of a status: where a mutation may land. */
function slots(v: unknown, out: [Record<string, unknown> | unknown[], string | number][] = []): typeof out {
  if (Array.isArray(v)) {
    v.forEach((x, i) => {
      out.push([v, i]);
      slots(x, out);
    });
  } else if (typeof v === 'object' && v !== null) {
    for (const [k, x] of Object.entries(v)) {
      out.push([v as Record<string, unknown>, k]);
      slots(x, out);
    }
  }
  return out;
}

function status(): JsonObject {
  return structuredClone(cluster(3)['status']) as JsonObject;
}

describe('surelyReadable', () => {
  it('knows exactly the keys of the generated schemas', () => {
    expect(sorted(POOL_KEYS)).toEqual(sorted(Object.keys(InferenceClusterStatusGpuPoolSchema.shape)));
    expect(sorted(DEVICE_KEYS)).toEqual(sorted(Object.keys(InferenceClusterStatusGpuPoolDeviceSchema.shape)));
    expect(sorted(ATTRIBUTE_KEYS)).toEqual(sorted(Object.keys(InferenceClusterStatusGpuPoolDeviceAttributeSchema.shape)));
    expect(sorted(CAPACITY_KEYS)).toEqual(sorted(Object.keys(InferenceClusterStatusGpuPoolDeviceCapacitySchema.shape)));
    expect(sorted(GATEWAY_KEYS)).toEqual(sorted(Object.keys(InferenceClusterStatusGatewaySchema.shape)));
    expect(sorted(PRICE_KEYS)).toEqual(sorted(Object.keys(InferenceClusterStatusGpuPoolPriceSchema.shape)));
    expect(BOUNDS).toEqual({ devices: 16, driver: 253, deviceClassName: 253, capacityValue: 32, properties: 32, className: 253 });
  });

  it('accepts the statuses InferenceClusters publish, as zod does', () => {
    const s = status();
    expect(READ_STATUS.safeParse(s).success).toBe(true);
    expect(surelyReadable(s)).toBe(true);
    expect(surelyReadable({})).toBe(true);
    expect(surelyReadable({ gateway: { address: '10.0.0.1' }, gpuPools: [] })).toBe(true);
  });

  it('refers to zod what is not readable: a wrong type, an unknown key, a bound exceeded', () => {
    const unknownKey = status();
    ((unknownKey['gpuPools'] as JsonObject[])[0]!)['colour'] = 'red';
    const longDriver = status();
    ((((longDriver['gpuPools'] as JsonObject[])[0]!)['devices'] as JsonObject[])[0]!)['driver'] = 'd'.repeat(254);
    for (const s of [unknownKey, longDriver, { gpuPools: {} }, { gateway: { address: 7 } }, 'Ready', [], null]) {
      expect(surelyReadable(s), JSON.stringify(s)).toBe(false);
      expect(READ_STATUS.safeParse(s).success, JSON.stringify(s)).toBe(false);
    }
  });

  it('never accepts a status zod rejects (3,000 single-field mutations)', () => {
    const r = rng(17);
    let rejected = 0;
    let referred = 0;
    for (let i = 0; i < 3000; i++) {
      const s = status();
      const all = slots(s);
      const [at, key] = all[Math.floor(r() * all.length)]!;
      const v = VALUES[Math.floor(r() * VALUES.length)];
      if (r() < 0.15 && !Array.isArray(at)) (at as Record<string, unknown>)[`extra${i % 3}`] = v;
      else (at as Record<string | number, unknown>)[key] = structuredClone(v);
      const zodOk = READ_STATUS.safeParse(s).success;
      if (!zodOk) rejected++;
      if (surelyReadable(s)) expect(zodOk, JSON.stringify(s)).toBe(true);
      else referred++;
    }
    // the mutations reach both answers
    expect(rejected).toBeGreaterThan(500);
    expect(referred).toBeGreaterThanOrEqual(rejected);
  });
});
