/**
 * The Kubernetes CEL URL library (k8s.io/apiserver/pkg/cel/library/urls.go)
 * on a port of Go's net/url parsing (`ParseRequestURI` decides validity,
 * `Parse` gives the value), byte for byte on UTF-8: schemes, authority with
 * userinfo, bracketed IPv6 hosts, percent-encoding rules per component,
 * `EscapedPath`, `Query`, `String`. Multiple colons in a host are split at
 * the last one, as Go did before its 1.26 `urlstrictcolons` setting.
 */
import { netipParse } from './ip.js';
import { CelError } from './errors.js';

/** net/url encoding modes. */
const Mode = {
  Path: 0,
  PathSegment: 1,
  Host: 2,
  Zone: 3,
  UserPassword: 4,
  QueryComponent: 5,
  Fragment: 6,
} as const;
type Mode = (typeof Mode)[keyof typeof Mode];

const enc = new TextEncoder();
const dec = new TextDecoder();
const isAlnum = (c: number): boolean => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39);
const isHex = (c: number | undefined): boolean => c !== undefined && ((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46));
const unhex = (c: number): number => (c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x61 + 10);
const ch = (s: string): number => s.charCodeAt(0);

/** net/url shouldEscape (gen_encoding_table.go). */
function shouldEscape(c: number, mode: Mode): boolean {
  if (isAlnum(c)) return false;
  if ((mode === Mode.Host || mode === Mode.Zone) && `!$&'()*+,;=:[]<>"`.includes(String.fromCharCode(c))) return false;
  const s = String.fromCharCode(c);
  if ('-_.~'.includes(s)) return false;
  if ('$&+,/:;=?@'.includes(s)) {
    switch (mode) {
      case Mode.Path:
        return s === '?';
      case Mode.PathSegment:
        return '/;,?'.includes(s);
      case Mode.UserPassword:
        return '@/?:'.includes(s);
      case Mode.QueryComponent:
        return true;
      case Mode.Fragment:
        return false;
    }
  }
  if (mode === Mode.Fragment && '!()*'.includes(s)) return false;
  return true;
}

class UrlError extends Error {}

/** net/url unescape on bytes. */
function urlUnescape(s: Uint8Array, mode: Mode): Uint8Array {
  let n = 0;
  let hasPlus = false;
  for (let i = 0; i < s.length; ) {
    const c = s[i]!;
    if (c === 0x25) {
      n++;
      const escapeError = (len: number) => new UrlError(`invalid URL escape ${quote(text(s.slice(i, i + len)))}`);
      if (i + 2 >= s.length || !isHex(s[i + 1]) || !isHex(s[i + 2])) throw escapeError(3);
      if (mode === Mode.Host && unhex(s[i + 1]!) < 8 && !(s[i + 1] === 0x32 && s[i + 2] === 0x35)) throw escapeError(3);
      if (mode === Mode.Zone) {
        const v = (unhex(s[i + 1]!) << 4) | unhex(s[i + 2]!);
        if (!(s[i + 1] === 0x32 && s[i + 2] === 0x35) && v !== 0x20 && shouldEscape(v, Mode.Host)) throw escapeError(3);
      }
      i += 3;
    } else if (c === 0x2b) {
      hasPlus = mode === Mode.QueryComponent;
      i++;
    } else {
      if ((mode === Mode.Host || mode === Mode.Zone) && c < 0x80 && shouldEscape(c, mode)) {
        throw new UrlError(`invalid character ${quote(String.fromCharCode(c))} in host name`);
      }
      i++;
    }
  }
  if (n === 0 && !hasPlus) return s;
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === 0x25) {
      out.push((unhex(s[i + 1]!) << 4) | unhex(s[i + 2]!));
      i += 2;
    } else if (c === 0x2b) out.push(mode === Mode.QueryComponent ? 0x20 : 0x2b);
    else out.push(c);
  }
  return Uint8Array.from(out);
}

/** net/url escape on bytes. */
function urlEscape(s: Uint8Array, mode: Mode): string {
  let out = '';
  for (const c of s) {
    if (c === 0x20 && mode === Mode.QueryComponent) out += '+';
    else if (shouldEscape(c, mode)) out += `%${c.toString(16).toUpperCase().padStart(2, '0')}`;
    else out += String.fromCharCode(c);
  }
  return out;
}

/** strconv.Quote, close enough for the ASCII texts URL errors quote. */
const quote = (x: string): string => JSON.stringify(x);

const bytesEqual = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i]);
const text = (b: Uint8Array): string => dec.decode(b);
const bytes = (s: string): Uint8Array => enc.encode(s);

/** A parsed URL (the fields of Go's url.URL that the library reads). */
export class CelURL {
  scheme = '';
  opaque = '';
  user: { username: Uint8Array; password?: Uint8Array } | undefined;
  host = '';
  path: Uint8Array = new Uint8Array();
  rawPath = '';
  rawQuery = '';
  forceQuery = false;
  omitHost = false;
  fragment: Uint8Array = new Uint8Array();
  rawFragment = '';

  /** URL.Hostname. */
  hostname(): string {
    return splitHostPort(this.host)[0];
  }
  /** URL.Port. */
  port(): string {
    return splitHostPort(this.host)[1];
  }
  /** URL.EscapedPath. */
  escapedPath(): string {
    if (this.rawPath !== '' && validEncoded(this.rawPath, Mode.Path)) {
      try {
        if (bytesEqual(urlUnescape(bytes(this.rawPath), Mode.Path), this.path)) return this.rawPath;
      } catch {
        // fall through
      }
    }
    if (text(this.path) === '*') return '*';
    return urlEscape(this.path, Mode.Path);
  }
  private escapedFragment(): string {
    if (this.rawFragment !== '' && validEncoded(this.rawFragment, Mode.Fragment)) {
      try {
        if (bytesEqual(urlUnescape(bytes(this.rawFragment), Mode.Fragment), this.fragment)) return this.rawFragment;
      } catch {
        // fall through
      }
    }
    return urlEscape(this.fragment, Mode.Fragment);
  }
  /** URL.Query: the query parameters, invalid pairs skipped. */
  query(): Map<string, string[]> {
    const m = new Map<string, string[]>();
    let q = this.rawQuery;
    while (q !== '') {
      const amp = q.indexOf('&');
      let key = amp === -1 ? q : q.slice(0, amp);
      q = amp === -1 ? '' : q.slice(amp + 1);
      if (key.includes(';') || key === '') continue;
      const eq = key.indexOf('=');
      let value = eq === -1 ? '' : key.slice(eq + 1);
      key = eq === -1 ? key : key.slice(0, eq);
      try {
        key = text(urlUnescape(bytes(key), Mode.QueryComponent));
        value = text(urlUnescape(bytes(value), Mode.QueryComponent));
      } catch {
        continue;
      }
      m.set(key, [...(m.get(key) ?? []), value]);
    }
    return m;
  }
  /** URL.String. */
  toString(): string {
    let buf = '';
    if (this.scheme !== '') buf += `${this.scheme}:`;
    if (this.opaque !== '') buf += this.opaque;
    else {
      if (this.scheme !== '' || this.host !== '' || this.user) {
        if (!(this.omitHost && this.host === '' && !this.user)) {
          if (this.host !== '' || this.path.length > 0 || this.user) buf += '//';
          if (this.user) {
            buf += urlEscape(this.user.username, Mode.UserPassword);
            if (this.user.password) buf += `:${urlEscape(this.user.password, Mode.UserPassword)}`;
            buf += '@';
          }
          if (this.host !== '') buf += urlEscape(bytes(this.host), Mode.Host);
        }
      }
      const path = this.escapedPath();
      if (path !== '' && path[0] !== '/' && this.host !== '') buf += '/';
      if (buf === '' && (path.split('/')[0] ?? '').includes(':')) buf += './';
      buf += path;
    }
    if (this.forceQuery || this.rawQuery !== '') buf += `?${this.rawQuery}`;
    if (this.fragment.length > 0) buf += `#${this.escapedFragment()}`;
    return buf;
  }
}

function validEncoded(s: string, mode: Mode): boolean {
  for (const c of bytes(s)) {
    if (`!$&'()*+,;=:@[]%`.includes(String.fromCharCode(c))) continue;
    if (shouldEscape(c, mode)) return false;
  }
  return true;
}

function validOptionalPort(port: string): boolean {
  if (port === '') return true;
  return port[0] === ':' && /^[0-9]*$/.test(port.slice(1));
}

function splitHostPort(hostPort: string): [string, string] {
  let host = hostPort;
  let port = '';
  const colon = host.lastIndexOf(':');
  if (colon !== -1 && validOptionalPort(host.slice(colon))) {
    port = host.slice(colon + 1);
    host = host.slice(0, colon);
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return [host, port];
}

function getScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a)) continue;
    if ((c >= 0x30 && c <= 0x39) || c === ch('+') || c === ch('-') || c === ch('.')) {
      if (i === 0) return ['', raw];
      continue;
    }
    if (c === ch(':')) {
      if (i === 0) throw new UrlError('missing protocol scheme');
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ['', raw];
  }
  return ['', raw];
}

function parseHost(host: string): string {
  const open = host.lastIndexOf('[');
  if (open > 0) throw new UrlError('invalid IP-literal');
  if (open === 0) {
    const close = host.lastIndexOf(']');
    if (close < 0) throw new UrlError("missing ']' in host");
    const colonPort = host.slice(close + 1);
    if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${quote(colonPort)} after host`);
    const port = text(urlUnescape(bytes(colonPort), Mode.Host));
    const hostname = host.slice(1, close);
    const zone = hostname.indexOf('%25');
    const unescaped =
      zone >= 0
        ? text(urlUnescape(bytes(hostname.slice(0, zone)), Mode.Host)) + text(urlUnescape(bytes(hostname.slice(zone)), Mode.Zone))
        : text(urlUnescape(bytes(hostname), Mode.Host));
    const addr = netipParse(unescaped);
    if (typeof addr === 'string') throw new UrlError(`invalid host: ParseAddr(${quote(unescaped)}): ${addr}`);
    if (addr.ip.is4) throw new UrlError('invalid IP-literal');
    return `[${unescaped}]${port}`;
  }
  const i = host.lastIndexOf(':');
  if (i !== -1 && !validOptionalPort(host.slice(i))) throw new UrlError(`invalid port ${quote(host.slice(i))} after host`);
  return text(urlUnescape(bytes(host), Mode.Host));
}

function parseAuthority(u: CelURL, authority: string): void {
  const at = authority.lastIndexOf('@');
  u.host = parseHost(at < 0 ? authority : authority.slice(at + 1));
  if (at < 0) return;
  const userinfo = authority.slice(0, at);
  if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo)) throw new UrlError('net/url: invalid userinfo');
  const colon = userinfo.indexOf(':');
  if (colon === -1) u.user = { username: urlUnescape(bytes(userinfo), Mode.UserPassword) };
  else {
    u.user = {
      username: urlUnescape(bytes(userinfo.slice(0, colon)), Mode.UserPassword),
      password: urlUnescape(bytes(userinfo.slice(colon + 1)), Mode.UserPassword),
    };
  }
}

function parse(raw: string, viaRequest: boolean): CelURL {
  if ([...bytes(raw)].some((b) => b < 0x20 || b === 0x7f)) throw new UrlError('net/url: invalid control character in URL');
  if (raw === '' && viaRequest) throw new UrlError('empty url');
  const u = new CelURL();
  if (raw === '*') {
    u.path = bytes('*');
    return u;
  }
  let [scheme, rest] = getScheme(raw);
  u.scheme = scheme.toLowerCase();
  if (rest.endsWith('?') && rest.split('?').length === 2) {
    u.forceQuery = true;
    rest = rest.slice(0, -1);
  } else {
    const q = rest.indexOf('?');
    if (q !== -1) {
      u.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (u.scheme !== '') {
      u.opaque = rest;
      return u;
    }
    if (viaRequest) throw new UrlError('invalid URI for request');
    if ((rest.split('/')[0] ?? '').includes(':')) throw new UrlError('first path segment in URL cannot contain colon');
  }
  if ((u.scheme !== '' || (!viaRequest && !rest.startsWith('///'))) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const slash = authority.indexOf('/');
    if (slash >= 0) {
      rest = authority.slice(slash);
      authority = authority.slice(0, slash);
    }
    parseAuthority(u, authority);
  } else if (u.scheme !== '' && rest.startsWith('/')) {
    u.omitHost = true;
  }
  const path = urlUnescape(bytes(rest), Mode.Path);
  u.path = path;
  u.rawPath = urlEscape(path, Mode.Path) === rest ? '' : rest;
  return u;
}

/** url.Parse: the fragment after the first '#' is unescaped separately. */
function parseWithFragment(raw: string): CelURL {
  const hash = raw.indexOf('#');
  const u = parse(hash === -1 ? raw : raw.slice(0, hash), false);
  if (hash !== -1) {
    const f = raw.slice(hash + 1);
    if (f !== '') {
      u.fragment = urlUnescape(bytes(f), Mode.Fragment);
      u.rawFragment = urlEscape(u.fragment, Mode.Fragment) === f ? '' : f;
    }
  }
  return u;
}

/** isURL: url.ParseRequestURI succeeds. */
export function isURL(s: string): boolean {
  return requestURIError(s) === undefined;
}

/** The error text of url.ParseRequestURI (`parse "s": reason`), or undefined when it parses. */
export function requestURIError(s: string): string | undefined {
  try {
    parse(s, true);
    return undefined;
  } catch (e) {
    return `parse ${quote(s)}: ${(e as Error).message}`;
  }
}

/** url(s): validated with ParseRequestURI, parsed with Parse. */
export function urlOrError(s: string): CelURL {
  try {
    parse(s, true);
    return parseWithFragment(s);
  } catch (e) {
    throw new CelError(`URL parse error during conversion from string: ${(e as Error).message}`);
  }
}
