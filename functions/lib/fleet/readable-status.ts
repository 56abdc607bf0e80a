/**
 * The fast path of the InferenceCluster status check (fleet.ts
 * `unreadableStatus`): a hand-written walk of `status.gpuPools` (without
 * their ledgers, which ledger.ts checks) and `status.gateway` that answers
 * "the XRD's schema accepts this" without zod, which builds a copy of every
 * pool and device it checks (about 20 ms and its garbage for 1,000
 * clusters of 4 pools, most of a steady RunFunction).
 *
 * One-sided by design: {@link surelyReadable} returns true only for a
 * status the zod schema (`READ_STATUS` in fleet.ts, from
 * lib/generated/inferenceclusters.ts) accepts; anything it is unsure of
 * (an unknown key, a value of another type, a bound exceeded, an integer
 * beyond 2^53) returns false and the caller asks zod, which then gives the
 * exact message. So the check can only be slower than zod, never
 * different. test/scheduler/readable-status.test.ts pins the keys and
 * bounds below to the generated schemas and checks the one-sidedness on
 * mutated statuses.
 */
import type { JsonObject } from '../function.js';

/** The keys of a `gpuPools[]` entry (InferenceClusterStatusGpuPoolSchema, a strict object). */
export const POOL_KEYS = ['name', 'className', 'capacityType', 'price', 'nodes', 'exclusive', 'fabric', 'devices', 'used'] as const;
/** The keys of a pool's `price` (InferenceClusterStatusGpuPoolPriceSchema, strict; both required). */
export const PRICE_KEYS = ['currency', 'perNodeHour'] as const;
/** The keys of a pool's `devices[]` entry (InferenceClusterStatusGpuPoolDeviceSchema, strict). */
export const DEVICE_KEYS = ['name', 'claim', 'driver', 'deviceClassName', 'count', 'attributes', 'capacity'] as const;
/** The keys of a device attribute (InferenceClusterStatusGpuPoolDeviceAttributeSchema, strict). */
export const ATTRIBUTE_KEYS = ['string', 'version', 'bool', 'int'] as const;
/** The keys of a device capacity (InferenceClusterStatusGpuPoolDeviceCapacitySchema, strict). */
export const CAPACITY_KEYS = ['value'] as const;
/** The keys of `status.gateway` (InferenceClusterStatusGatewaySchema, strict). */
export const GATEWAY_KEYS = ['address'] as const;

/** `devices` maxItems; `driver`/`deviceClassName` maxLength; `capacity[].value` maxLength; attributes/capacity maxProperties. */
export const BOUNDS = { devices: 16, driver: 253, deviceClassName: 253, capacityValue: 32, properties: 32, className: 253 } as const;

/** `price.currency` and `price.perNodeHour` patterns (the XRD's). */
export const CURRENCY = /^[A-Z]{3}$/;
export const DECIMAL = /^[0-9]+(\.[0-9]{1,6})?$/;

const FABRICS = new Set(['EFA', 'InfiniBand', 'Ethernet']);
const CLAIMS = new Set(['DRA', 'Synthetic']);
const CAPACITY_TYPES = new Set(['OnDemand', 'Spot', 'Reserved']);

function isObj(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function optString(v: unknown, max = Number.POSITIVE_INFINITY): boolean {
  return v === undefined || (typeof v === 'string' && v.length <= max);
}

function optInt(v: unknown): boolean {
  return v === undefined || Number.isSafeInteger(v);
}

function optBool(v: unknown): boolean {
  return v === undefined || typeof v === 'boolean';
}

/** Whether every own key of `o` is one of `keys` (a strict object's unknown key is an error). */
function onlyKeys(o: JsonObject, keys: readonly string[]): boolean {
  for (const k in o) {
    if (!Object.hasOwn(o, k) || !keys.includes(k)) return false;
  }
  return true;
}

/** A record of strict objects checked by `entry`, with at most {@link BOUNDS}.properties keys. */
function optRecord(v: unknown, entry: (e: JsonObject) => boolean): boolean {
  if (v === undefined) return true;
  if (!isObj(v)) return false;
  let n = 0;
  for (const k in v) {
    if (!Object.hasOwn(v, k) || k === '__proto__') return false;
    const e = v[k];
    if (!isObj(e) || !entry(e)) return false;
    n++;
  }
  return n <= BOUNDS.properties;
}

function attribute(a: JsonObject): boolean {
  return onlyKeys(a, ATTRIBUTE_KEYS) && optString(a['string']) && optString(a['version']) && optBool(a['bool']) && optInt(a['int']);
}

function capacity(c: JsonObject): boolean {
  return onlyKeys(c, CAPACITY_KEYS) && optString(c['value'], BOUNDS.capacityValue);
}

function device(d: unknown): boolean {
  if (!isObj(d) || !onlyKeys(d, DEVICE_KEYS)) return false;
  if (typeof d['name'] !== 'string') return false;
  if (d['claim'] !== undefined && !CLAIMS.has(d['claim'] as string)) return false;
  if (typeof d['driver'] !== 'string' || d['driver'].length > BOUNDS.driver) return false;
  return optString(d['deviceClassName'], BOUNDS.deviceClassName) && optInt(d['count']) && optRecord(d['attributes'], attribute) && optRecord(d['capacity'], capacity);
}

function price(v: unknown): boolean {
  if (v === undefined) return true;
  if (!isObj(v) || !onlyKeys(v, PRICE_KEYS)) return false;
  const { currency, perNodeHour } = v;
  return typeof currency === 'string' && CURRENCY.test(currency) && typeof perNodeHour === 'string' && DECIMAL.test(perNodeHour);
}

function pool(p: unknown): boolean {
  if (!isObj(p) || !onlyKeys(p, POOL_KEYS)) return false;
  if (typeof p['name'] !== 'string' || !optInt(p['nodes']) || !optBool(p['exclusive'])) return false;
  if (p['fabric'] !== undefined && !FABRICS.has(p['fabric'] as string)) return false;
  if (!optString(p['className'], BOUNDS.className) || !price(p['price'])) return false;
  if (p['capacityType'] !== undefined && !CAPACITY_TYPES.has(p['capacityType'] as string)) return false;
  const devices = p['devices'];
  if (devices === undefined) return true;
  if (!Array.isArray(devices) || devices.length > BOUNDS.devices) return false;
  for (let i = 0; i < devices.length; i++) if (!device(devices[i])) return false;
  return true;
}

/**
 * True only when the zod schema of the scheduler's status fields accepts
 * `status` (its `gpuPools` with any `used`, and its `gateway`); false when
 * unsure (ask zod). See the module doc.
 */
export function surelyReadable(status: unknown): boolean {
  if (!isObj(status)) return false;
  const pools = status['gpuPools'];
  if (pools !== undefined) {
    if (!Array.isArray(pools)) return false;
    for (let i = 0; i < pools.length; i++) if (!pool(pools[i])) return false;
  }
  const gateway = status['gateway'];
  return gateway === undefined || (isObj(gateway) && onlyKeys(gateway, GATEWAY_KEYS) && optString(gateway['address']));
}
