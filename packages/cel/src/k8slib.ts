/**
 * The Kubernetes-specific CEL libraries a DRA selector can use
 * (k8s.io/apiserver/pkg/cel/library): quantity, semver (version 1, with the
 * normalize overloads), IP and CIDR, URL, and Format. The value types live in
 * quantity.ts, semver.ts, ip.ts, url.ts and format.ts.
 */
import { CelFormat, CONSTANT_FORMATS } from './format.js';
import { CelCIDR, CelIP, cidrOrError, ipOrError, ipPredicate, parseCIDR, parseIP } from './ip.js';
import { type FunctionDecl, global, member, type Overload } from './library.js';
import { parseQuantityOrError, Quantity } from './quantity.js';
import { isSemver, parseSemver, parseSemverNormalized, Semver } from './semver.js';
import { BOOL, CIDR, DOUBLE, FORMAT, INT, IP, listOf, mapOf, optionalOf, QUANTITY, SEMVER, STRING, URL_TYPE } from './types.js';
import { CelURL, isURL, urlOrError } from './url.js';
import { CelError, CelMap, CelOptional, type CelValue } from './values.js';

const err = (m: string): never => {
  throw new CelError(m);
};
const s = (v: CelValue | undefined): string => (typeof v === 'string' ? v : err('no such overload'));
const n = (v: CelValue | undefined): bigint => (typeof v === 'bigint' ? v : err('no such overload'));
const fn = (name: string, overloads: Overload[]): FunctionDecl => ({ name, overloads });

const q = (v: CelValue | undefined): Quantity => (v instanceof Quantity ? v : err('no such overload'));
const sv = (v: CelValue | undefined): Semver => (v instanceof Semver ? v : err('no such overload'));

/** Parsed quantities and versions by source text (selectors parse the same literals on every evaluation). */
const parsedQuantities = new Map<string, Quantity | string>();
const parsedSemvers = new Map<string, Semver | string>();
const PARSE_CACHE_LIMIT = 10_000;

function remember<T>(cache: Map<string, T>, key: string, make: () => T): T {
  let v = cache.get(key);
  if (v === undefined) {
    if (cache.size >= PARSE_CACHE_LIMIT) cache.clear();
    v = make();
    cache.set(key, v);
  }
  return v;
}

/** `quantity(s)`: a fresh copy of the cached parse (CEL may change a quantity in place, see Quantity). */
function quantity(str: string): Quantity {
  const r = remember(parsedQuantities, str, () => parseQuantityOrError(str));
  return typeof r === 'string' ? err(r) : r.clone();
}

function semver(str: string, normalize: boolean): Semver {
  const r = remember(parsedSemvers, normalize ? `n:${str}` : `s:${str}`, () => {
    try {
      return normalize ? parseSemverNormalized(str) : parseSemver(str);
    } catch (e) {
      return e instanceof Error ? e.message : String(e);
    }
  });
  return typeof r === 'string' ? err(r) : r;
}


/** The Kubernetes library declarations. */
export const KUBERNETES_LIBRARIES: readonly FunctionDecl[] = [
  // Kubernetes quantity library.
  fn('quantity', [global('string_to_quantity', [STRING], QUANTITY, (a) => quantity(s(a[0])))]),
  fn('isQuantity', [global('is_quantity_string', [STRING], BOOL, (a) => typeof remember(parsedQuantities, s(a[0]), () => parseQuantityOrError(s(a[0]))) !== 'string')]),
  fn('sign', [global('quantity_sign', [QUANTITY], INT, (a) => BigInt(q(a[0]).sign()))]),
  fn('isGreaterThan', [
    member('quantity_is_greater_than', [QUANTITY, QUANTITY], BOOL, (a) => q(a[0]).celCmp(q(a[1])) === 1),
    member('semver_is_greater_than', [SEMVER, SEMVER], BOOL, (a) => sv(a[0]).compare(sv(a[1])) === 1),
  ]),
  fn('isLessThan', [
    member('quantity_is_less_than', [QUANTITY, QUANTITY], BOOL, (a) => q(a[0]).celCmp(q(a[1])) === -1),
    member('semver_is_less_than', [SEMVER, SEMVER], BOOL, (a) => sv(a[0]).compare(sv(a[1])) === -1),
  ]),
  fn('compareTo', [
    member('quantity_compare_to', [QUANTITY, QUANTITY], INT, (a) => BigInt(q(a[0]).celCmp(q(a[1])))),
    member('semver_compare_to', [SEMVER, SEMVER], INT, (a) => BigInt(sv(a[0]).compare(sv(a[1])))),
  ]),
  fn('asApproximateFloat', [member('quantity_get_float', [QUANTITY], DOUBLE, (a) => q(a[0]).asApproximateFloat64())]),
  fn('asInteger', [member('quantity_get_int', [QUANTITY], INT, (a) => q(a[0]).asInt64() ?? err('cannot convert value to integer'))]),
  fn('isInteger', [member('quantity_is_integer', [QUANTITY], BOOL, (a) => q(a[0]).asInt64() !== undefined)]),
  fn('add', [
    member('quantity_add', [QUANTITY, QUANTITY], QUANTITY, (a) => q(a[0]).celAdd(q(a[1]))),
    member('quantity_add_int', [QUANTITY, INT], QUANTITY, (a) => q(a[0]).celAdd(Quantity.fromInt(n(a[1]), 'DecimalExponent'))),
  ]),
  fn('sub', [
    member('quantity_sub', [QUANTITY, QUANTITY], QUANTITY, (a) => q(a[0]).celSub(q(a[1]))),
    member('quantity_sub_int', [QUANTITY, INT], QUANTITY, (a) => q(a[0]).celSub(Quantity.fromInt(n(a[1]), 'DecimalExponent'))),
  ]),
  // Kubernetes semver library (version 1: with the normalize overloads).
  fn('semver', [
    global('string_to_semver', [STRING], SEMVER, (a) => semver(s(a[0]), false)),
    global('string_bool_to_semver', [STRING, BOOL], SEMVER, (a) => semver(s(a[0]), a[1] === true)),
  ]),
  fn('isSemver', [
    global('is_semver_string', [STRING], BOOL, (a) => isSemver(s(a[0]))),
    global('is_semver_string_bool', [STRING, BOOL], BOOL, (a) => isSemver(s(a[0]), a[1] === true)),
  ]),
  // Kubernetes IP and CIDR libraries.
  fn('ip', [
    global('string_to_ip', [STRING], IP, (a) => ipOrError(s(a[0]))),
    member('cidr_ip', [CIDR], IP, (a) => cidr(a[0]).ip),
  ]),
  fn('isIP', [global('is_ip', [STRING], BOOL, (a) => typeof parseIP(s(a[0])) !== 'string')]),
  fn('ip.isCanonical', [global('ip_is_canonical', [STRING], BOOL, (a) => ipOrError(s(a[0])).toString() === s(a[0]))]),
  fn('family', [member('ip_family', [IP], INT, (a) => (ipv(a[0]).is4 ? 4n : 6n))]),
  ...['isUnspecified', 'isLoopback', 'isLinkLocalMulticast', 'isLinkLocalUnicast', 'isGlobalUnicast'].map((name) =>
    fn(name, [member(`ip_${name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`, [IP], BOOL, (a) => ipPredicate(name, ipv(a[0])))]),
  ),
  fn('string', [global('ip_to_string', [IP], STRING), global('cidr_to_string', [CIDR], STRING)]),
  fn('cidr', [global('string_to_cidr', [STRING], CIDR, (a) => cidrOrError(s(a[0])))]),
  fn('isCIDR', [global('is_cidr', [STRING], BOOL, (a) => typeof parseCIDR(s(a[0])) !== 'string')]),
  fn('containsIP', [
    member('cidr_contains_ip_string', [CIDR, STRING], BOOL, (a) => cidr(a[0]).contains(ipOrError(s(a[1])))),
    member('cidr_contains_ip_ip', [CIDR, IP], BOOL, (a) => cidr(a[0]).contains(ipv(a[1]))),
  ]),
  fn('containsCIDR', [
    member('cidr_contains_cidr_string', [CIDR, STRING], BOOL, (a) => containsCIDR(cidr(a[0]), cidrOrError(s(a[1])))),
    member('cidr_contains_cidr', [CIDR, CIDR], BOOL, (a) => containsCIDR(cidr(a[0]), cidr(a[1]))),
  ]),
  fn('prefixLength', [member('cidr_prefix_length', [CIDR], INT, (a) => BigInt(cidr(a[0]).bits))]),
  fn('masked', [member('cidr_masked', [CIDR], CIDR, (a) => cidr(a[0]).masked())]),
  // Kubernetes URL library.
  fn('url', [global('string_to_url', [STRING], URL_TYPE, (a) => urlOrError(s(a[0])))]),
  fn('isURL', [global('is_url_string', [STRING], BOOL, (a) => isURL(s(a[0])))]),
  fn('getScheme', [member('url_get_scheme', [URL_TYPE], STRING, (a) => url(a[0]).scheme)]),
  fn('getHost', [member('url_get_host', [URL_TYPE], STRING, (a) => url(a[0]).host)]),
  fn('getHostname', [member('url_get_hostname', [URL_TYPE], STRING, (a) => url(a[0]).hostname())]),
  fn('getPort', [member('url_get_port', [URL_TYPE], STRING, (a) => url(a[0]).port())]),
  fn('getEscapedPath', [member('url_get_escaped_path', [URL_TYPE], STRING, (a) => url(a[0]).escapedPath())]),
  fn('getQuery', [member('url_get_query', [URL_TYPE], mapOf(STRING, listOf(STRING)), (a) => CelMap.from(url(a[0]).query()))]),
  // Kubernetes Format library.
  fn('validate', [
    member('format-validate', [FORMAT, STRING], optionalOf(listOf(STRING)), (a) => {
      const errs = fmtv(a[0]).validate(s(a[1]));
      return errs.length === 0 ? CelOptional.NONE : CelOptional.of(errs);
    }),
  ]),
  fn('format.named', [
    global('format-named', [STRING], optionalOf(FORMAT), (a) => {
      const f = CONSTANT_FORMATS.get(s(a[0]));
      return f ? CelOptional.of(f) : CelOptional.NONE;
    }),
  ]),
  ...[...CONSTANT_FORMATS].map(([name, f]) => fn(`format.${name}`, [global(`format.${name}`, [], FORMAT, () => f)])),
  fn('major', [member('semver_major', [SEMVER], INT, (a) => BigInt.asIntN(64, sv(a[0]).major))]),
  fn('minor', [member('semver_minor', [SEMVER], INT, (a) => BigInt.asIntN(64, sv(a[0]).minor))]),
  fn('patch', [member('semver_patch', [SEMVER], INT, (a) => BigInt.asIntN(64, sv(a[0]).patch))]),
];

const fmtv = (v: CelValue | undefined): CelFormat => (v instanceof CelFormat ? v : err('no such overload'));
const url = (v: CelValue | undefined): CelURL => (v instanceof CelURL ? v : err('no such overload'));
const ipv = (v: CelValue | undefined): CelIP => (v instanceof CelIP ? v : err('no such overload'));
const cidr = (v: CelValue | undefined): CelCIDR => (v instanceof CelCIDR ? v : err('no such overload'));
const containsCIDR = (a: CelCIDR, b: CelCIDR): boolean => a.overlaps(b) && a.bits <= b.bits;

