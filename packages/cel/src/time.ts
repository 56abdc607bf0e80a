/**
 * CEL timestamps and durations as cel-go implements them on Go's `time`
 * package: RFC 3339 parsing with Go's leniencies (one-digit hour, comma
 * before the fraction, any two-digit zone offset), `time.ParseDuration`,
 * nanosecond precision on bigint, the year 0001–9999 range, overflow-checked
 * arithmetic, RFC 3339 (nano) formatting in the timestamp's own offset, and
 * the calendar getters in UTC, a fixed offset or an IANA zone.
 *
 * Divergence: IANA zone names are resolved by the JavaScript runtime's ICU
 * data: a zone alias written in the wrong case (`us/pacific`) is accepted here
 * and unknown to Go; offsets follow ICU's rules, which may differ from Go's
 * tz database for historical dates.
 */
import { CelError } from './errors.js';

const NS_PER_SEC = 1_000_000_000n;
const MIN_UNIX = -62135596800n;
const MAX_UNIX = 253402300799n;
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

const err = (m: string): never => {
  throw new CelError(m);
};

/** A CEL duration: signed nanoseconds within int64. */
export class CelDuration {
  constructor(readonly ns: bigint) {}
}

/** A CEL timestamp: nanoseconds since the Unix epoch and the UTC offset (seconds) it is shown in. */
export class CelTimestamp {
  constructor(
    readonly ns: bigint,
    readonly offset = 0,
  ) {}
  /** Whole seconds since the epoch (Go Time.Unix, floored). */
  get unix(): bigint {
    return floorDiv(this.ns, NS_PER_SEC);
  }
}

const floorDiv = (a: bigint, b: bigint): bigint => {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
};

function checkedTimestamp(ns: bigint, offset: number): CelTimestamp {
  const sec = floorDiv(ns, NS_PER_SEC);
  if (sec < MIN_UNIX || sec > MAX_UNIX) return err('timestamp overflow');
  return new CelTimestamp(ns, offset);
}

const checkedDuration = (ns: bigint): CelDuration => (ns < INT64_MIN || ns > INT64_MAX ? err('integer overflow') : new CelDuration(ns));

const isLeap = (y: number): boolean => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const daysIn = (m: number, y: number): number => (m === 2 && isLeap(y) ? 29 : DAYS[m - 1]!);

/** Days from 1970-01-01 to the civil date (proleptic Gregorian). */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(z0: number): [number, number, number] {
  const z = z0 + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp + (mp < 10 ? 3 : -9);
  return [era * 400 + yoe + (m <= 2 ? 1 : 0), m, d];
}

const digits = (s: string, from: number, n: number): number | undefined => {
  const part = s.slice(from, from + n);
  return part.length === n && /^\d+$/.test(part) ? Number(part) : undefined;
};

/** time.Parse(time.RFC3339, s) followed by cel-go's range check. */
export function parseTimestamp(s: string): CelTimestamp {
  const bad = () => err(`type conversion error from 'string' to 'google.protobuf.Timestamp'`);
  const year = digits(s, 0, 4);
  const month = digits(s, 5, 2);
  const day = digits(s, 8, 2);
  if (year === undefined || month === undefined || day === undefined || s[4] !== '-' || s[7] !== '-' || s[10] !== 'T') return bad();
  let i = 11;
  const h2 = digits(s, i, 2);
  const hour = h2 ?? digits(s, i, 1);
  if (hour === undefined) return bad();
  i += h2 !== undefined ? 2 : 1;
  const minute = s[i] === ':' ? digits(s, i + 1, 2) : undefined;
  const second = minute !== undefined && s[i + 3] === ':' ? digits(s, i + 4, 2) : undefined;
  if (minute === undefined || second === undefined) return bad();
  i += 6;
  let nanos = 0;
  if ((s[i] === '.' || s[i] === ',') && /\d/.test(s[i + 1] ?? '')) {
    let j = i + 1;
    while (j < s.length && /\d/.test(s[j]!)) j++;
    nanos = Number(s.slice(i + 1, Math.min(j, i + 10)).padEnd(9, '0'));
    i = j;
  }
  let offset = 0;
  if (s[i] === 'Z' && i + 1 === s.length) {
    offset = 0;
  } else {
    const sign = s[i];
    const oh = digits(s, i + 1, 2);
    const om = digits(s, i + 4, 2);
    if ((sign !== '+' && sign !== '-') || s[i + 3] !== ':' || oh === undefined || om === undefined || i + 6 !== s.length) return bad();
    // Go accepts offsets up to 24 hours and 60 minutes (its range test uses >).
    if (oh > 24 || om > 60) return bad();
    offset = (oh * 60 + om) * 60 * (sign === '-' ? -1 : 1);
  }
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59 || day < 1 || day > daysIn(month, year)) return bad();
  const sec = BigInt(daysFromCivil(year, month, day)) * 86400n + BigInt(hour * 3600 + minute * 60 + second) - BigInt(offset);
  return checkedTimestamp(sec * NS_PER_SEC + BigInt(nanos), offset);
}

/** cel-go Int → Timestamp: Unix seconds within the supported range. */
export function timestampFromUnix(sec: bigint): CelTimestamp {
  if (sec < MIN_UNIX || sec > MAX_UNIX) return err('timestamp overflow');
  return new CelTimestamp(sec * NS_PER_SEC, 0);
}

const UNITS: Record<string, bigint> = { ns: 1n, us: 1000n, µs: 1000n, μs: 1000n, ms: 1_000_000n, s: NS_PER_SEC, m: 60n * NS_PER_SEC, h: 3600n * NS_PER_SEC };
const TWO63 = 1n << 63n;

/** time.ParseDuration. */
export function parseDuration(orig: string): CelDuration {
  const bad = () => err(`type conversion error from 'string' to 'google.protobuf.Duration'`);
  let s = orig;
  let neg = false;
  if (s[0] === '-' || s[0] === '+') {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return new CelDuration(0n);
  if (s === '') return bad();
  let d = 0n;
  while (s !== '') {
    if (!(s[0] === '.' || /\d/.test(s[0]!))) return bad();
    const intPart = /^\d*/.exec(s)![0];
    let v = 0n;
    for (const c of intPart) {
      if (v > TWO63 / 10n) return bad();
      v = v * 10n + BigInt(c);
      if (v > TWO63) return bad();
    }
    s = s.slice(intPart.length);
    let f = 0n;
    let scale = 1;
    let post = false;
    if (s[0] === '.') {
      const frac = /^\d*/.exec(s.slice(1))![0];
      post = frac.length > 0;
      let overflow = false;
      for (const c of frac) {
        if (overflow) continue;
        if (f > (TWO63 - 1n) / 10n) {
          overflow = true;
          continue;
        }
        const y = f * 10n + BigInt(c);
        if (y > TWO63) {
          overflow = true;
          continue;
        }
        f = y;
        scale *= 10;
      }
      s = s.slice(1 + frac.length);
    }
    if (intPart.length === 0 && !post) return bad();
    const unitText = /^[^.\d]*/.exec(s)![0];
    if (unitText === '') return bad();
    const unit = UNITS[unitText];
    if (unit === undefined) return bad();
    s = s.slice(unitText.length);
    if (v > TWO63 / unit) return bad();
    v *= unit;
    if (f > 0n) {
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > TWO63) return bad();
    }
    d += v;
    if (d > TWO63) return bad();
  }
  if (neg) return new CelDuration(-d);
  if (d > TWO63 - 1n) return bad();
  return new CelDuration(d);
}

/** Go strconv.FormatFloat(x, 'f', -1, 64). */
function formatF(x: number): string {
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(x.toExponential())!;
  const digitsStr = m[2]! + (m[3] ?? '');
  const exp = Number(m[4]);
  let out: string;
  if (exp >= digitsStr.length - 1) out = digitsStr + '0'.repeat(exp - digitsStr.length + 1);
  else if (exp >= 0) out = `${digitsStr.slice(0, exp + 1)}.${digitsStr.slice(exp + 1)}`;
  else out = `0.${'0'.repeat(-exp - 1)}${digitsStr}`;
  return m[1] + out;
}

/** cel-go string(duration): seconds as Go formats float64 with 'f', then "s". */
export function durationToString(d: CelDuration): string {
  const sec = d.ns / NS_PER_SEC;
  const nsec = d.ns % NS_PER_SEC;
  return `${formatF(Number(sec) + Number(nsec) / 1e9)}s`;
}

const pad = (n: number, w: number): string => String(n).padStart(w, '0');

/** Calendar fields of an instant shifted by an offset. */
function fields(ns: bigint, offset: number) {
  const secs = floorDiv(ns, NS_PER_SEC) + BigInt(offset);
  const nanos = Number(ns - floorDiv(ns, NS_PER_SEC) * NS_PER_SEC);
  const days = Number(floorDiv(secs, 86400n));
  const rem = Number(secs - BigInt(days) * 86400n);
  const [year, month, day] = civilFromDays(days);
  return { year, month, day, hour: Math.floor(rem / 3600), minute: Math.floor((rem % 3600) / 60), second: rem % 60, nanos, days };
}

/** cel-go string(timestamp): time.RFC3339Nano in the timestamp's offset. */
export function timestampToString(t: CelTimestamp): string {
  const f = fields(t.ns, t.offset);
  let frac = f.nanos === 0 ? '' : `.${pad(f.nanos, 9).replace(/0+$/, '')}`;
  if (frac === '.') frac = '';
  let zone = 'Z';
  if (t.offset !== 0) {
    const a = Math.abs(t.offset);
    zone = `${t.offset < 0 ? '-' : '+'}${pad(Math.floor(a / 3600), 2)}:${pad(Math.floor((a % 3600) / 60), 2)}`;
  }
  return `${pad(f.year, 4)}-${pad(f.month, 2)}-${pad(f.day, 2)}T${pad(f.hour, 2)}:${pad(f.minute, 2)}:${pad(f.second, 2)}${frac}${zone}`;
}

const zoneFormats = new Map<string, Intl.DateTimeFormat | undefined>();

/** The UTC offset (seconds) of an IANA zone at an instant; throws for unknown zones. */
function zoneOffset(zone: string, ns: bigint): number {
  if (zone === '' || zone === 'UTC') return 0;
  if (!zoneFormats.has(zone)) {
    try {
      const fmt = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
      const resolved = fmt.resolvedOptions().timeZone;
      // Go's tz database is case-sensitive: a name ICU only knows in another case is unknown.
      const wrongCase = resolved !== zone && resolved.toLowerCase() === zone.toLowerCase();
      zoneFormats.set(zone, wrongCase ? undefined : fmt);
    } catch {
      zoneFormats.set(zone, undefined);
    }
  }
  const fmt = zoneFormats.get(zone) ?? err(`unknown time zone ${zone}`);
  const name = fmt.formatToParts(new Date(Number(floorDiv(ns, 1_000_000n)))).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const m = /^GMT(?:([+-])(\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(name);
  if (!m?.[1]) return 0;
  const secs = Number(m[2]) * 3600 + Number(m[3]) * 60 + Number(m[4] ?? 0);
  return m[1] === '-' ? -secs : secs;
}

/** cel-go inTimeZone: the offset for a zone argument (IANA name, or "+hh:mm"/"-hh:mm"). */
function offsetFor(t: CelTimestamp, tz: string): number {
  const colon = tz.indexOf(':');
  if (colon === -1) return zoneOffset(tz, t.ns);
  const atoi = (x: string): number => (/^[+-]?\d+$/.test(x) ? Number(x) : err(`strconv.Atoi: parsing "${x}": invalid syntax`));
  const hr = atoi(tz.slice(0, colon));
  const min = atoi(tz.slice(colon + 1));
  return (tz[0] === '-' ? hr * 60 - min : hr * 60 + min) * 60;
}

/** The timestamp getters (UTC unless a zone is given). */
export function timestampGet(what: string, t: CelTimestamp, tz = 'UTC'): bigint {
  const f = fields(t.ns, offsetFor(t, tz));
  switch (what) {
    case 'getFullYear':
      return BigInt(f.year);
    case 'getMonth':
      return BigInt(f.month - 1);
    case 'getDayOfYear':
      return BigInt(f.days - daysFromCivil(f.year, 1, 1));
    case 'getDayOfMonth':
      return BigInt(f.day - 1);
    case 'getDate':
      return BigInt(f.day);
    case 'getDayOfWeek':
      return BigInt((((f.days + 4) % 7) + 7) % 7);
    case 'getHours':
      return BigInt(f.hour);
    case 'getMinutes':
      return BigInt(f.minute);
    case 'getSeconds':
      return BigInt(f.second);
    default:
      return BigInt(Math.floor(f.nanos / 1_000_000));
  }
}

/** The duration getters: whole hours, minutes, seconds, milliseconds (truncated). */
export function durationGet(what: string, d: CelDuration): bigint {
  const unit = { getHours: 3600n * NS_PER_SEC, getMinutes: 60n * NS_PER_SEC, getSeconds: NS_PER_SEC }[what] ?? 1_000_000n;
  return d.ns / unit;
}

/** timestamp + duration (cel-go addTimeDurationChecked). */
export const addTimestamp = (t: CelTimestamp, d: CelDuration): CelTimestamp => checkedTimestamp(t.ns + d.ns, t.offset);

/** timestamp - timestamp (cel-go subtractTimeChecked). */
export function subtractTimestamps(a: CelTimestamp, b: CelTimestamp): CelDuration {
  const sec = a.unix - b.unix;
  const nsec = a.ns - a.unix * NS_PER_SEC - (b.ns - b.unix * NS_PER_SEC);
  const tsec = sec * NS_PER_SEC;
  if (tsec < INT64_MIN || tsec > INT64_MAX) return err('integer overflow');
  return checkedDuration(tsec + nsec);
}

export const addDurations = (a: CelDuration, b: CelDuration): CelDuration => checkedDuration(a.ns + b.ns);
export const subtractDurations = (a: CelDuration, b: CelDuration): CelDuration => checkedDuration(a.ns - b.ns);
export const negateDuration = (a: CelDuration): CelDuration => checkedDuration(-a.ns);
export const subtractDuration = (t: CelTimestamp, d: CelDuration): CelTimestamp => addTimestamp(t, negateDuration(d));
