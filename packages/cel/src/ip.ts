/**
 * The Kubernetes CEL IP and CIDR libraries (k8s.io/apiserver/pkg/cel/library
 * ip.go, cidr.go) on a port of Go's net/netip parsing and formatting:
 * strict dotted IPv4 (no leading zeros), RFC 4291 IPv6 with `::` and an
 * embedded IPv4 tail, RFC 5952 output; Kubernetes rejects zones and
 * IPv4-mapped IPv6 addresses.
 */
import { CelError } from './errors.js';

const err = (m: string): never => {
  throw new CelError(m);
};

/** A CEL `net.IP`: 4 or 16 bytes. */
export class CelIP {
  constructor(readonly bytes: Uint8Array) {}
  get is4(): boolean {
    return this.bytes.length === 4;
  }
  /** Addr.String (RFC 5952 for IPv6). */
  toString(): string {
    if (this.is4) return [...this.bytes].join('.');
    const groups = Array.from({ length: 8 }, (_, i) => (this.bytes[2 * i]! << 8) | this.bytes[2 * i + 1]!);
    let zs = 255;
    let ze = 255;
    for (let i = 0; i < 8; i++) {
      let j = i;
      while (j < 8 && groups[j] === 0) j++;
      if (j - i >= 2 && j - i > ze - zs) {
        zs = i;
        ze = j;
      }
    }
    let out = '';
    for (let i = 0; i < 8; i++) {
      if (i === zs) {
        out += '::';
        i = ze;
        if (i >= 8) break;
      } else if (i > 0) out += ':';
      out += groups[i]!.toString(16);
    }
    return out;
  }
  equals(o: CelIP): boolean {
    return this.bytes.length === o.bytes.length && this.bytes.every((b, i) => b === o.bytes[i]);
  }
}

/** A CEL `net.CIDR`: an address (not necessarily masked) and a prefix length. */
export class CelCIDR {
  constructor(
    readonly ip: CelIP,
    readonly bits: number,
  ) {}
  toString(): string {
    return `${this.ip.toString()}/${this.bits}`;
  }
  equals(o: CelCIDR): boolean {
    return this.bits === o.bits && this.ip.equals(o.ip);
  }
  /** Prefix.Masked. */
  masked(): CelCIDR {
    return new CelCIDR(maskTo(this.ip, this.bits), this.bits);
  }
  /** Prefix.Contains. */
  contains(ip: CelIP): boolean {
    return ip.bytes.length === this.ip.bytes.length && maskTo(ip, this.bits).equals(maskTo(this.ip, this.bits));
  }
  /** Prefix.Overlaps. */
  overlaps(o: CelCIDR): boolean {
    if (this.equals(o)) return true;
    if (this.ip.is4 !== o.ip.is4) return false;
    const min = Math.min(this.bits, o.bits);
    return min === 0 || maskTo(this.ip, min).equals(maskTo(o.ip, min));
  }
}

function maskTo(ip: CelIP, bits: number): CelIP {
  const out = new Uint8Array(ip.bytes);
  for (let i = 0; i < out.length; i++) {
    const keep = Math.max(0, Math.min(8, bits - i * 8));
    out[i] = out[i]! & ((0xff << (8 - keep)) & 0xff);
  }
  return new CelIP(out);
}

function parseIPv4Fields(s: string, out: Uint8Array, at: number): string | undefined {
  let val = 0;
  let pos = 0;
  let digits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c >= '0' && c <= '9') {
      if (digits === 1 && val === 0) return 'IPv4 field has octet with leading zero';
      val = val * 10 + Number(c);
      digits++;
      if (val > 255) return 'IPv4 field has value >255';
    } else if (c === '.') {
      if (i === 0 || i === s.length - 1 || s[i - 1] === '.') return 'IPv4 field must have at least one digit';
      if (pos === 3) return 'IPv4 address too long';
      out[at + pos++] = val;
      val = 0;
      digits = 0;
    } else return 'unexpected character';
  }
  if (pos < 3) return 'IPv4 address too short';
  out[at + 3] = val;
  return undefined;
}

/** netip.ParseAddr: the address and its zone, or the error text. */
export function netipParse(input: string): { ip: CelIP; zone: string } | string {
  for (const c of input) {
    if (c === '.') {
      const out = new Uint8Array(4);
      return parseIPv4Fields(input, out, 0) ?? { ip: new CelIP(out), zone: '' };
    }
    if (c === ':') return parseIPv6(input);
    if (c === '%') return 'missing IPv6 address';
  }
  return 'unable to parse IP';
}

function parseIPv6(input: string): { ip: CelIP; zone: string } | string {
  let s = input;
  let zone = '';
  const pct = s.indexOf('%');
  if (pct !== -1) {
    zone = s.slice(pct + 1);
    s = s.slice(0, pct);
    if (zone === '') return 'zone must be a non-empty string';
  }
  const ip = new Uint8Array(16);
  let ellipsis = -1;
  if (s.startsWith('::')) {
    ellipsis = 0;
    s = s.slice(2);
    if (s === '') return { ip: new CelIP(ip), zone };
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length; off++) {
      const c = s[off]!;
      const v = /[0-9a-fA-F]/.test(c) ? Number.parseInt(c, 16) : -1;
      if (v < 0) break;
      acc = acc * 16 + v;
      if (off > 3) return 'each group must have 4 or less digits';
      if (acc > 0xffff) return 'IPv6 field has value >=2^16';
    }
    if (off === 0) return 'each colon-separated field must have at least one digit';
    if (s[off] === '.') {
      if (ellipsis < 0 && i !== 12) return 'embedded IPv4 address must replace the final 2 fields of the address';
      if (i + 4 > 16) return 'too many hex fields to fit an embedded IPv4 at the end of the address';
      const e = parseIPv4Fields(s, ip, i);
      if (e) return e;
      s = '';
      i += 4;
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s === '') break;
    if (s[0] !== ':') return 'unexpected character, want colon';
    if (s.length === 1) return 'colon must be followed by more characters';
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) return 'multiple :: in address';
      ellipsis = i;
      s = s.slice(1);
      if (s === '') break;
    }
  }
  if (s !== '') return 'trailing garbage after address';
  if (i < 16) {
    if (ellipsis < 0) return 'address string too short';
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j]!;
    ip.fill(0, ellipsis, ellipsis + n);
  } else if (ellipsis >= 0) return 'the :: must expand to at least one field of zeros';
  return { ip: new CelIP(ip), zone };
}

const isMapped = (ip: CelIP): boolean => !ip.is4 && ip.bytes.slice(0, 10).every((b) => b === 0) && ip.bytes[10] === 0xff && ip.bytes[11] === 0xff;

/** The Kubernetes parseIPAddr: netip.ParseAddr without zones or IPv4-mapped IPv6. */
export function parseIP(raw: string): CelIP | string {
  const r = netipParse(raw);
  if (typeof r === 'string') return `IP Address ${JSON.stringify(raw)} parse error during conversion from string: ParseAddr(${JSON.stringify(raw)}): ${r}`;
  if (r.zone !== '') return `IP address ${JSON.stringify(raw)} with zone value is not allowed`;
  if (isMapped(r.ip)) return `IPv4-mapped IPv6 address ${JSON.stringify(raw)} is not allowed`;
  return r.ip;
}

/** The Kubernetes parseCIDR: netip.ParsePrefix without IPv4-mapped IPv6. */
export function parseCIDR(raw: string): CelCIDR | string {
  const fail = (m: string) => `network address parse error during conversion from string: netip.ParsePrefix(${JSON.stringify(raw)}): ${m}`;
  const slash = raw.lastIndexOf('/');
  if (slash < 0) return fail("no '/'");
  const a = netipParse(raw.slice(0, slash));
  if (typeof a === 'string') return fail(a);
  if (!a.ip.is4 && a.zone !== '') return fail('IPv6 zones cannot be present in a prefix');
  const bitsStr = raw.slice(slash + 1);
  if (bitsStr.length > 1 && !(bitsStr[0]! >= '1' && bitsStr[0]! <= '9')) return fail(`bad bits after slash: ${JSON.stringify(bitsStr)}`);
  if (!/^[+-]?\d+$/.test(bitsStr)) return fail(`bad bits after slash: ${JSON.stringify(bitsStr)}`);
  const bits = Number(bitsStr);
  if (bits < 0 || bits > (a.ip.is4 ? 32 : 128)) return fail('prefix length out of range');
  if (isMapped(a.ip)) return `IPv4-mapped IPv6 address ${JSON.stringify(raw)} is not allowed`;
  return new CelCIDR(a.ip, bits);
}

/** ip(s) / cidr(s): the value or a CEL error. */
export const ipOrError = (s: string): CelIP => {
  const r = parseIP(s);
  return typeof r === 'string' ? err(r) : r;
};
export const cidrOrError = (s: string): CelCIDR => {
  const r = parseCIDR(s);
  return typeof r === 'string' ? err(r) : r;
};

const v6u16 = (ip: CelIP, i: number): number => (ip.bytes[2 * i]! << 8) | ip.bytes[2 * i + 1]!;
const isZero = (ip: CelIP): boolean => ip.bytes.every((b) => b === 0);

/** The netip.Addr predicates the library exposes. */
export function ipPredicate(what: string, ip: CelIP): boolean {
  const b = ip.bytes;
  switch (what) {
    case 'isUnspecified':
      return isZero(ip);
    case 'isLoopback':
      return ip.is4 ? b[0] === 127 : b.slice(0, 15).every((x) => x === 0) && b[15] === 1;
    case 'isLinkLocalMulticast':
      return ip.is4 ? b[0] === 224 && b[1] === 0 && b[2] === 0 : (v6u16(ip, 0) & 0xff0f) === 0xff02;
    case 'isLinkLocalUnicast':
      return ip.is4 ? b[0] === 169 && b[1] === 254 : (v6u16(ip, 0) & 0xffc0) === 0xfe80;
    default: {
      if (ip.is4 && (isZero(ip) || b.every((x) => x === 255))) return false;
      const multicast = ip.is4 ? (b[0]! & 0xf0) === 0xe0 : b[0] === 0xff;
      return !(!ip.is4 && isZero(ip)) && !ipPredicate('isLoopback', ip) && !multicast && !ipPredicate('isLinkLocalUnicast', ip);
    }
  }
}
