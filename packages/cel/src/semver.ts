/**
 * Semantic versions as Kubernetes' CEL semver library sees them: parsing and
 * ordering of github.com/blang/semver/v4 (`semver.Parse`, `Version.Compare`,
 * `Version.String`) and the library's `normalize` option
 * (k8s.io/apiserver/pkg/cel/library/semverlib.go `normalizeAndParse`).
 *
 * Numbers are uint64 (bigint); build metadata is kept for `toString` and
 * ignored by comparison and equality. Parse errors carry blang's messages.
 */

const NUMBERS = /^[0-9]*$/;
const ALPHANUM = /^[0-9A-Za-z-]*$/;
const UINT64_MAX = (1n << 64n) - 1n;

/** Thrown by {@link parseSemver}; `message` is blang/semver's error text. */
export class SemverParseError extends Error {
  override readonly name = 'SemverParseError';
}

/** One prerelease identifier: numeric (compared as a number) or alphanumeric. */
export type PrereleaseId = { readonly num: bigint } | { readonly str: string };

/** An immutable semantic version. */
export class Semver {
  constructor(
    /** Major version, 0 … 2^64-1. */
    readonly major: bigint,
    /** Minor version, 0 … 2^64-1. */
    readonly minor: bigint,
    /** Patch version, 0 … 2^64-1. */
    readonly patch: bigint,
    /** Prerelease identifiers (`1.0.0-rc.1` → rc, 1). */
    readonly pre: readonly PrereleaseId[] = [],
    /** Build metadata identifiers; not part of ordering or equality. */
    readonly build: readonly string[] = [],
  ) {}

  /** blang Version.Compare: -1, 0 or 1 (build metadata ignored). */
  compare(o: Semver): number {
    if (this.major !== o.major) return this.major > o.major ? 1 : -1;
    if (this.minor !== o.minor) return this.minor > o.minor ? 1 : -1;
    if (this.patch !== o.patch) return this.patch > o.patch ? 1 : -1;
    if (this.pre.length === 0 && o.pre.length === 0) return 0;
    if (this.pre.length === 0) return 1;
    if (o.pre.length === 0) return -1;
    let i = 0;
    for (; i < this.pre.length && i < o.pre.length; i++) {
      const c = comparePre(this.pre[i]!, o.pre[i]!);
      if (c !== 0) return c;
    }
    if (i === this.pre.length && i === o.pre.length) return 0;
    return i === this.pre.length ? -1 : 1;
  }

  /** Equal by precedence (blang Version.EQ). */
  equals(o: Semver): boolean {
    return this.compare(o) === 0;
  }

  /** blang Version.String: `major.minor.patch[-pre][+build]`. */
  toString(): string {
    let s = `${this.major}.${this.minor}.${this.patch}`;
    if (this.pre.length > 0) s += `-${this.pre.map((p) => ('num' in p ? p.num.toString() : p.str)).join('.')}`;
    if (this.build.length > 0) s += `+${this.build.join('.')}`;
    return s;
  }
}

function comparePre(a: PrereleaseId, b: PrereleaseId): number {
  if ('num' in a && 'num' in b) return a.num === b.num ? 0 : a.num > b.num ? 1 : -1;
  if ('num' in a) return -1;
  if ('num' in b) return 1;
  // Go compares strings bytewise; identifiers are ASCII, so code units agree.
  return a.str === b.str ? 0 : a.str > b.str ? 1 : -1;
}

/** strconv.ParseUint(s, 10, 64) on a digits-only string. */
function parseUint(s: string, what: string): bigint {
  if (s.length === 0) throw new SemverParseError(`strconv.ParseUint: parsing "": invalid syntax`);
  const v = BigInt(s);
  if (v > UINT64_MAX) throw new SemverParseError(`strconv.ParseUint: parsing "${s}": value out of range (${what})`);
  return v;
}

const hasLeadingZeroes = (s: string): boolean => s.length > 1 && s[0] === '0';

function parseNumberPart(s: string, name: string): bigint {
  if (!NUMBERS.test(s)) throw new SemverParseError(`Invalid character(s) found in ${name} number "${s}"`);
  if (hasLeadingZeroes(s)) throw new SemverParseError(`${capitalize(name)} number must not contain leading zeroes "${s}"`);
  return parseUint(s, name);
}

const capitalize = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

function parsePre(s: string): PrereleaseId {
  if (s.length === 0) throw new SemverParseError('Prerelease is empty');
  if (NUMBERS.test(s)) {
    if (hasLeadingZeroes(s)) throw new SemverParseError(`Numeric PreRelease version must not contain leading zeroes "${s}"`);
    return { num: parseUint(s, 'prerelease') };
  }
  if (ALPHANUM.test(s)) return { str: s };
  throw new SemverParseError(`Invalid character(s) found in prerelease "${s}"`);
}

/** blang semver.Parse (strict): `major.minor.patch[-pre][+build]`, no `v`, no spaces. */
export function parseSemver(s: string): Semver {
  if (s.length === 0) throw new SemverParseError('Version string empty');
  const parts = splitN(s, '.', 3);
  if (parts.length !== 3) throw new SemverParseError('No Major.Minor.Patch elements found');
  const major = parseNumberPart(parts[0]!, 'major');
  const minor = parseNumberPart(parts[1]!, 'minor');
  let patchStr = parts[2]!;
  let build: string[] = [];
  let pre: string[] = [];
  const b = patchStr.indexOf('+');
  if (b !== -1) {
    build = patchStr.slice(b + 1).split('.');
    patchStr = patchStr.slice(0, b);
  }
  const p = patchStr.indexOf('-');
  if (p !== -1) {
    pre = patchStr.slice(p + 1).split('.');
    patchStr = patchStr.slice(0, p);
  }
  const patch = parseNumberPart(patchStr, 'patch');
  const prerelease = pre.map(parsePre);
  for (const id of build) {
    if (id.length === 0) throw new SemverParseError('Build meta data is empty');
    if (!ALPHANUM.test(id)) throw new SemverParseError(`Invalid character(s) found in build meta data "${id}"`);
  }
  return new Semver(major, minor, patch, prerelease, build);
}

/**
 * The Kubernetes semver library's normalizing parse (`semver(s, true)`):
 * strips one leading `v`, strips leading zeroes of each of the first three
 * dot-separated parts, pads a short version with `.0`, then parses strictly.
 */
export function parseSemverNormalized(input: string): Semver {
  const s = input.startsWith('v') ? input.slice(1) : input;
  const parts = splitN(s, '.', 3).map((part) => {
    if (part.length <= 1) return part;
    const p = part.replace(/^0+/, '');
    return p.length === 0 || !/[0-9]/.test(p[0]!) ? `0${p}` : p;
  });
  if (parts.length < 3) {
    if (/[+-]/.test(parts[parts.length - 1]!)) {
      throw new SemverParseError('short version cannot contain PreRelease/Build meta data');
    }
    while (parts.length < 3) parts.push('0');
  }
  return parseSemver(parts.join('.'));
}

/** True when the string parses (strictly, or normalized when `normalize`). */
export function isSemver(s: string, normalize = false): boolean {
  try {
    if (normalize) parseSemverNormalized(s);
    else parseSemver(s);
    return true;
  } catch {
    return false;
  }
}

/** Go strings.SplitN(s, sep, n) for n > 0. */
function splitN(s: string, sep: string, n: number): string[] {
  const out: string[] = [];
  let rest = s;
  while (out.length < n - 1) {
    const i = rest.indexOf(sep);
    if (i === -1) break;
    out.push(rest.slice(0, i));
    rest = rest.slice(i + 1);
  }
  out.push(rest);
  return out;
}
