/**
 * JSON values as CRD validation rules see them: Kubernetes'
 * `UnstructuredToVal` (k8s.io/apiserver/pkg/cel/common/valuesunstructured.go)
 * over a structural schema, converted eagerly.
 *
 * Guarantees, as in Kubernetes:
 * - `integer` → int, `number` → double, `boolean` → bool, `string` → string,
 *   or bytes / duration / timestamp for the formats `byte`, `duration`,
 *   `date`, `date-time`; `x-kubernetes-int-or-string` → int or string;
 * - objects with properties (and embedded resources) are maps keyed by the
 *   escaped property names, holding only declared properties, a `null` in a
 *   nullable property reading as absent; `additionalProperties` maps keep
 *   their keys as they are; other objects expose nothing;
 * - lists of `x-kubernetes-list-type: set` and `map` compare ignoring order
 *   (maps by their key fields) and `+` merges them instead of appending;
 * - a value that does not fit its schema becomes the conversion error, raised
 *   when a rule reads it.
 * - Unknown preserved data (`x-kubernetes-preserve-unknown-fields` without a
 *   type) is converted generically; rules cannot name it, only compare it.
 *
 * Deliberate divergence: the size of an object with unknown preserved fields
 * counts only its declared fields (Kubernetes counts every key; no rule can
 * call `size()` on such an object, only compare two of them).
 */
import { CEL_RESERVED_SYMBOLS, escapeCelName } from './crd-names.js';
import { type CrdSchema, withTypeAndObjectMeta } from './crd-types.js';
import { CelDuration, type CelTimestamp, parseDuration, parseTimestamp } from './time.js';
import { LIST_SEMANTICS, type ListSemantics } from './typed-list.js';
import { CelError, CelMap, type CelValue } from './values.js';

function typeName(v: unknown): string {
  // The API server decodes integral JSON numbers within int64 as int64, the rest as float64.
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) < 2 ** 63 ? 'int64' : 'float64';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

/** UnstructuredToVal: the CEL value of JSON `v` under schema `s`. */
export function toCrdValue(v: unknown, s: CrdSchema): CelValue {
  if (v === null || v === undefined) {
    return s.nullable ? null : new CelError('invalid data, got null for schema with nullable=false');
  }
  if (s['x-kubernetes-int-or-string']) {
    if (typeof v === 'string') return v;
    if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
    return new CelError('invalid data, expected XIntOrString value to be either a string or integer');
  }
  switch (s.type) {
    case 'object':
      return objectValue(v, s);
    case 'array': {
      if (!Array.isArray(v)) return new CelError('invalid data, expected an array for the provided schema with type=array');
      const items = s.items;
      if (items === undefined) return new CelError('invalid array type, expected Items with a non-empty Schema');
      const list = v.map((x) => toCrdValue(x, items)) as CelValue[] & { [LIST_SEMANTICS]?: ListSemantics };
      const lt = s['x-kubernetes-list-type'];
      if (lt === 'set') list[LIST_SEMANTICS] = { type: 'set' };
      else if (lt === 'map') list[LIST_SEMANTICS] = { type: 'map', keys: (s['x-kubernetes-list-map-keys'] ?? []).map((k) => escapeCelName(k) ?? k) };
      else if (lt !== undefined && lt !== 'atomic') return new CelError(`invalid x-kubernetes-list-type, expected 'map', 'set' or 'atomic' but got ${lt}`);
      return list;
    }
    case 'string':
      if (typeof v !== 'string') return new CelError(`invalid data, expected string, got ${typeName(v)}`);
      return formatted(v, s.format);
    case 'number':
      if (typeof v !== 'number') return new CelError(`invalid data, expected float, got ${typeName(v)}`);
      return v;
    case 'integer':
      if (typeof v !== 'number' || !Number.isInteger(v)) return new CelError(`invalid data, expected int, got ${typeName(v)}`);
      return BigInt(v);
    case 'boolean':
      if (typeof v !== 'boolean') return new CelError(`invalid data, expected bool, got ${typeName(v)}`);
      return v;
  }
  if (s['x-kubernetes-preserve-unknown-fields']) return genericValue(v);
  return new CelError(
    `invalid type, expected object, array, number, integer, boolean or string, or no type with x-kubernetes-int-or-string or x-kubernetes-preserve-unknown-fields is true, got ${s.type ?? ''}`,
  );
}

/**
 * A CRD object: its fields under their escaped names; a reserved word also
 * finds its escaped field (`namespace` → `__namespace__`), as Kubernetes'
 * unescaping lookup does.
 */
export class CrdObject extends CelMap {
  override find(k: CelValue): CelValue | undefined {
    return super.find(k) ?? (typeof k === 'string' && CEL_RESERVED_SYMBOLS.has(k) ? super.find(`__${k}__`) : undefined);
  }
  override has(k: CelValue): boolean {
    return super.has(k) || (typeof k === 'string' && CEL_RESERVED_SYMBOLS.has(k) && super.has(`__${k}__`));
  }
}

function objectValue(v: unknown, schema: CrdSchema): CelValue {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    return new CelError('invalid data, expected a map for the provided schema with type=object');
  }
  const obj = v as Record<string, unknown>;
  let s = schema;
  if (s['x-kubernetes-embedded-resource'] || s.properties !== undefined) {
    const out = new CrdObject();
    if (s['x-kubernetes-embedded-resource']) s = withTypeAndObjectMeta(s);
    for (const key of Object.keys(obj).sort()) {
      const ps = s.properties?.[key];
      const name = escapeCelName(key);
      if (ps === undefined || name === undefined || obj[key] === null) continue;
      out.set(name, toCrdValue(obj[key], ps));
    }
    return out;
  }
  const out = new CelMap();
  const ap = s.additionalProperties;
  if (ap !== undefined && typeof ap === 'object') {
    for (const key of Object.keys(obj).sort()) out.set(key, toCrdValue(obj[key], ap));
  }
  return out;
}

function formatted(v: string, format: string | undefined): CelValue {
  try {
    switch (format) {
      case 'duration':
        return strfmtDuration(v);
      case 'date':
        if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) throw new Error(`parsing time ${JSON.stringify(v)} as "2006-01-02"`);
        return parseTimestamp(`${v}T00:00:00Z`);
      case 'date-time':
        return strfmtDateTime(v);
      case 'byte':
        return base64(v);
    }
  } catch (e) {
    const what = format === 'date-time' ? 'date-time formatted string' : format === 'byte' ? 'byte formatted string' : format;
    return new CelError(`Invalid ${what} ${v}: ${(e as Error).message}`);
  }
  return v;
}

const UNITS: readonly (readonly string[])[] = [
  ['ns', 'nano'],
  ['us', 'µs', 'micro'],
  ['ms', 'milli'],
  ['s', 'sec'],
  ['m', 'min'],
  ['h', 'hr', 'hour'],
  ['d', 'day'],
  ['w', 'wk', 'week'],
];
const NS: Record<string, bigint> = { ns: 1n, us: 1000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n, d: 86_400_000_000_000n, w: 604_800_000_000_000n };

/** strfmt.ParseDuration: Go's time.ParseDuration, else `<n> <unit>` groups (`3 days 2h`). */
function strfmtDuration(v: string): CelDuration {
  try {
    return parseDuration(v);
  } catch {
    // fall through to the lenient form
  }
  let ns = 0n;
  let ok = false;
  for (const m of v.matchAll(/(\d+)\s*([A-Za-zµ]+)/g)) {
    const factor = BigInt(m[1]!);
    const unit = m[2]!.trim().toLowerCase();
    for (const variants of UNITS) {
      variants.forEach((variant, i) => {
        if ((i === variants.length - 1 && unit.startsWith(variant)) || variant === unit) {
          ok = true;
          ns += factor * NS[variants[0]!]!;
        }
      });
    }
  }
  if (!ok) throw new Error(`unable to parse ${v} as duration`);
  return new CelDuration(BigInt.asIntN(64, ns));
}

/** strfmt.ParseDateTime: RFC 3339 (any fraction), or a local time without zone read as UTC; "" is the zero time. */
function strfmtDateTime(v: string): CelTimestamp {
  if (v === '') return parseTimestamp('0001-01-01T00:00:00Z');
  try {
    return parseTimestamp(v);
  } catch {
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?$/.test(v)) throw new Error(`parsing time ${JSON.stringify(v)} as "2006-01-02T15:04:05"`);
    return parseTimestamp(`${v}Z`);
  }
}

/** base64.StdEncoding (padded, standard alphabet; CR and LF skipped), with Go's error for the first bad byte. */
function base64(v: string): Uint8Array {
  const bytes = Buffer.from(v, 'utf8');
  const clean: number[] = [];
  const offsets: number[] = [];
  bytes.forEach((b, i) => {
    if (b !== 0x0a && b !== 0x0d) {
      clean.push(b);
      offsets.push(i);
    }
  });
  const isAlpha = (b: number) => (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || (b >= 48 && b <= 57) || b === 43 || b === 47;
  const bad = (i: number): never => {
    throw new Error(`illegal base64 data at input byte ${i}`);
  };
  let i = 0;
  while (i < clean.length && isAlpha(clean[i]!)) i++;
  const padStart = i;
  while (i < clean.length && clean[i] === 61) i++;
  if (i < clean.length) bad(offsets[i]!);
  const pad = clean.length - padStart;
  if (pad > 2 || (pad > 0 && clean.length % 4 !== 0)) bad(offsets[padStart]!);
  if (pad === 0 && clean.length % 4 !== 0) bad(bytes.length);
  return new Uint8Array(Buffer.from(String.fromCharCode(...clean), 'base64'));
}

/** Untyped JSON as CEL sees decoded unstructured data: integral numbers are ints. */
function genericValue(v: unknown): CelValue {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  if (Array.isArray(v)) return v.map(genericValue);
  const out = new CelMap();
  for (const k of Object.keys(v as object).sort()) out.set(k, genericValue((v as Record<string, unknown>)[k]));
  return out;
}
