/**
 * The `device` variable of a DRA selector, built from an InferenceClass
 * device the way k8s.io/dynamic-resource-allocation/cel `DeviceMatches`
 * builds it from a ResourceSlice device:
 *
 * - `device.driver` is the driver ("" when absent);
 * - attribute and capacity names are qualified names: `domain/id` splits at
 *   the first `/`, a bare name takes the driver as its domain;
 * - an attribute value is the first of int, bool, string, version that is set
 *   (Kubernetes' order); a version is parsed strictly as semver; none set is
 *   an error ("unsupported attribute value");
 * - capacities are Kubernetes quantities;
 * - looking up an unknown domain in `device.attributes` / `device.capacity`
 *   gives an empty map, while `"domain" in device.attributes` is false.
 *
 * A device that cannot be converted (bad version, bad quantity, empty
 * attribute) is reported as an error, which makes every selector not match
 * it, as in Kubernetes.
 */
import { parseQuantityOrError, type Quantity } from './quantity.js';
import { parseSemver, type Semver } from './semver.js';
import { CelMap, type CelValue } from './values.js';

/** One attribute value of an InferenceClass device; exactly one field is expected. */
export interface DeviceAttributeValue {
  readonly int?: number | bigint | string;
  readonly bool?: boolean;
  readonly string?: string;
  readonly version?: string;
}

/** An InferenceClass device (spec.devices[*]); only driver, attributes and capacity reach CEL. */
export interface InferenceClassDevice {
  readonly name?: string;
  readonly driver?: string;
  readonly claim?: string;
  readonly deviceClassName?: string;
  readonly count?: number;
  /** Keyed by bare id (domain = driver) or qualified `domain/id`. */
  readonly attributes?: Readonly<Record<string, DeviceAttributeValue>>;
  /** Keyed like attributes; `value` is a Kubernetes quantity string such as "81559Mi". */
  readonly capacity?: Readonly<Record<string, { readonly value?: string }>>;
}

/** A device converted for evaluation. Reusable across selectors and evaluations. */
export interface CelDevice {
  readonly kind: 'CelDevice';
  /** The `device` map. */
  readonly value: CelMap;
  /** Every capacity quantity: its map, key, pristine original and the copy CEL currently sees. */
  readonly quantities: readonly { readonly map: CelMap; readonly key: string; readonly original: Quantity; current: Quantity }[];
}

/** Why a device cannot be evaluated. */
export interface DeviceError {
  readonly kind: 'DeviceError';
  readonly message: string;
}

const EMPTY = new CelMap();

/** Splits a qualified name at the first '/'; a bare name uses the default domain (dracel parseQualifiedName). */
export function splitQualifiedName(name: string, defaultDomain: string): [string, string] {
  const sep = name.indexOf('/');
  return sep === -1 ? [defaultDomain, name] : [name.slice(0, sep), name.slice(sep + 1)];
}

function attributeValue(name: string, a: DeviceAttributeValue): { value: CelValue | Semver } | { error: string } {
  if (a.int !== undefined) {
    const v = typeof a.int === 'bigint' ? a.int : typeof a.int === 'number' && Number.isSafeInteger(a.int) ? BigInt(a.int) : /^-?\d+$/.test(String(a.int)) ? BigInt(String(a.int)) : undefined;
    if (v === undefined || v < -(1n << 63n) || v > (1n << 63n) - 1n) return { error: `attribute ${name}: int: not an int64: ${String(a.int)}` };
    return { value: v };
  }
  if (a.bool !== undefined) return { value: a.bool };
  if (a.string !== undefined) return { value: a.string };
  if (a.version !== undefined) {
    try {
      return { value: parseSemver(a.version) };
    } catch (e) {
      return { error: `attribute ${name}: parse semantic version: ${(e as Error).message}` };
    }
  }
  return { error: `attribute ${name}: unsupported attribute value` };
}

/** Converts an InferenceClass device into the CEL `device` value, or explains why it cannot be. */
export function toCelDevice(device: InferenceClassDevice): CelDevice | DeviceError {
  const driver = device.driver ?? '';
  const attributes = new CelMap(EMPTY);
  const capacity = new CelMap(EMPTY);
  const inner = (outer: CelMap, domain: string): CelMap => {
    if (!outer.has(domain)) outer.insert(domain, new CelMap());
    return outer.find(domain) as CelMap;
  };
  for (const [name, a] of Object.entries(device.attributes ?? {})) {
    const r = attributeValue(name, a ?? {});
    if ('error' in r) return { kind: 'DeviceError', message: r.error };
    const [domain, id] = splitQualifiedName(name, driver);
    const m = inner(attributes, domain);
    if (m.has(id)) return { kind: 'DeviceError', message: `attribute ${name}: duplicate name ${domain}/${id}` };
    m.insert(id, r.value);
  }
  const quantities: { map: CelMap; key: string; original: Quantity; current: Quantity }[] = [];
  for (const [name, c] of Object.entries(device.capacity ?? {})) {
    const q = parseQuantityOrError(c?.value ?? '');
    if (typeof q === 'string') return { kind: 'DeviceError', message: `capacity ${name}: ${q}` };
    const [domain, id] = splitQualifiedName(name, driver);
    const m = inner(capacity, domain);
    if (m.has(id)) return { kind: 'DeviceError', message: `capacity ${name}: duplicate name ${domain}/${id}` };
    const current = q.clone();
    m.insert(id, current);
    quantities.push({ map: m, key: id, original: q, current });
  }
  const value = CelMap.from([
    ['driver', driver],
    ['attributes', attributes],
    ['capacity', capacity],
  ]);
  return { kind: 'CelDevice', value, quantities };
}

/** Puts back an original quantity wherever an evaluation changed one (see Quantity.touched). */
export function restoreQuantities(device: CelDevice): void {
  for (const q of device.quantities) {
    if (q.current.touched) {
      q.current = q.original.clone();
      q.map.replace(q.key, q.current);
    }
  }
}
