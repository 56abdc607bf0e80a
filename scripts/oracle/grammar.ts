/**
 * Random selectors from a small grammar over the device: attribute and
 * capacity lookups (known and unknown domains and ids), the driver,
 * quantity and semver comparisons, string functions, `in`/`has`, boolean
 * connectives, the ternary, macros over the attribute maps, and cel.bind.
 * Deterministic for a seed (mulberry32).
 */

/** A deterministic PRNG in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Kind = 'int' | 'bool' | 'string' | 'version' | 'quantity';

/** Attributes and capacities a selector may name (some exist on no device). */
const ATTRS: readonly [string, string, Kind][] = [
  ['gpu.nvidia.com', 'architecture', 'string'],
  ['gpu.nvidia.com', 'model', 'string'],
  ['gpu.nvidia.com', 'cudaComputeCapability', 'version'],
  ['gpu.nvidia.com', 'driverVersion', 'version'],
  ['gpu.nvidia.com', 'index', 'int'],
  ['gpu.nvidia.com', 'cores', 'int'],
  ['gpu.nvidia.com', 'mig', 'bool'],
  ['gpu.nvidia.com', 'nvlink', 'bool'],
  ['resource.kubernetes.io', 'pcieRoot', 'string'],
  ['dra.example.com', 'color', 'string'],
  ['dra.example.com', 'type', 'string'],
  ['dra.example.com', 'firmware', 'version'],
  ['other.example.com', 'slots', 'int'],
  ['other.example.com', 'dual', 'bool'],
  ['limits.example.com', 'max', 'int'],
  ['limits.example.com', 'v0', 'version'],
  ['missing.example.com', 'nothing', 'string'],
  ['gpu.nvidia.com', 'absent', 'int'],
];
const CAPS: readonly [string, string][] = [
  ['gpu.nvidia.com', 'memory'],
  ['dra.example.com', 'memory'],
  ['dra.example.com', 'fraction'],
  ['dra.example.com', 'milli'],
  ['other.example.com', 'memory'],
  ['limits.example.com', 'huge'],
  ['limits.example.com', 'neg'],
  ['resource.kubernetes.io', 'power'],
  ['missing.example.com', 'memory'],
];
const QUANTITIES = ['0', '1', '16Gi', '14Gi', '20Gi', '23034Mi', '40Gi', '80Gi', '141Gi', '1.5G', '512', '0.5Ki', '250m', '8Ei', '-1Gi', '1e3', '1n'];
const VERSIONS = ['8.0.0', '8.6.0', '9.0.0', '9.5.3', '535.0.0', '1.2.3', '1.2.3-rc.1', '1.2.3-rc.2', '0.0.0', '10.0.0-alpha'];
const STRINGS = ['Hopper', 'Ampere', 'H200', 'H100', 'black', 'gpu', 'pci0', '', 'eu-1', 'A100'];
const DRIVERS = ['gpu.nvidia.com', 'dra.example.com', 'limits.example.com', 'nic.nvidia.com', ''];

/** Generates `n` random boolean selectors. */
export function randomSelectors(n: number, seed: number): string[] {
  const rnd = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const chance = (p: number) => rnd() < p;
  const s = (x: string) => JSON.stringify(x);
  const attrOf = (kind?: Kind): [string, string, Kind] => {
    const pool = kind ? ATTRS.filter((a) => a[2] === kind) : ATTRS;
    return pick(pool);
  };
  const attrRef = (domain: string, id: string): string =>
    chance(0.2) ? `device.attributes[${s(domain)}][${s(id)}]` : `device.attributes[${s(domain)}].${id}`;
  const capRef = (): string => {
    const [d, id] = pick(CAPS);
    return chance(0.2) ? `device.capacity[${s(d)}][${s(id)}]` : `device.capacity[${s(d)}].${id}`;
  };
  const quantity = (depth: number): string => {
    const r = rnd();
    if (r < 0.45) return capRef();
    if (r < 0.8 || depth > 2) return `quantity(${s(pick(QUANTITIES))})`;
    const op = pick(['add', 'sub']);
    return `${quantity(depth + 1)}.${op}(${chance(0.5) ? quantity(depth + 1) : String(Math.floor(rnd() * 2000) - 1000)})`;
  };
  const version = (): string => {
    if (chance(0.5)) {
      const [d, id] = attrOf('version');
      return attrRef(d, id);
    }
    return chance(0.3) ? `semver(${s(`v${pick(VERSIONS)}`)}, true)` : `semver(${s(pick(VERSIONS))})`;
  };
  const int = (depth: number): string => {
    const r = rnd();
    if (r < 0.3) {
      const [d, id] = attrOf('int');
      return attrRef(d, id);
    }
    if (r < 0.5) return String(Math.floor(rnd() * 40) - 10);
    if (r < 0.6) return `size(${str(depth + 1)})`;
    if (r < 0.7) return `${version()}.${pick(['major', 'minor', 'patch'])}()`;
    if (r < 0.75) return `size(device.attributes[${s(pick(ATTRS)[0])}])`;
    if (r < 0.8) return `${quantity(depth + 1)}.compareTo(${quantity(depth + 1)})`;
    if (depth > 2) return '1';
    return `(${int(depth + 1)} ${pick(['+', '-', '*', '/', '%'])} ${int(depth + 1)})`;
  };
  const str = (depth: number): string => {
    const r = rnd();
    if (r < 0.4) {
      const [d, id] = attrOf('string');
      return attrRef(d, id);
    }
    if (r < 0.55) return 'device.driver';
    if (r < 0.8 || depth > 2) return s(pick(STRINGS));
    if (r < 0.9) return `${str(depth + 1)}.${pick(['lowerAscii()', 'upperAscii()', 'trim()'])}`;
    return `(${str(depth + 1)} + ${str(depth + 1)})`;
  };
  const bool = (depth: number): string => {
    const r = rnd();
    if (depth > 3) return pick(['true', 'false', `device.driver == ${s(pick(DRIVERS))}`]);
    if (r < 0.1) return `device.driver == ${s(pick(DRIVERS))}`;
    if (r < 0.2) return `${quantity(depth + 1)}.compareTo(${quantity(depth + 1)}) ${pick(['>=', '<=', '==', '!=', '>', '<'])} ${pick(['-1', '0', '1'])}`;
    if (r < 0.27) return `${quantity(depth + 1)}.${pick(['isGreaterThan', 'isLessThan'])}(${quantity(depth + 1)})`;
    if (r < 0.3) return `${quantity(depth + 1)} == ${quantity(depth + 1)}`;
    if (r < 0.32) return `${quantity(depth + 1)}.${pick(['isInteger()', 'asInteger() > 0', 'asApproximateFloat() > 1e9'])}`;
    if (r < 0.4) return `${version()}.${pick(['isGreaterThan', 'isLessThan'])}(${version()})`;
    if (r < 0.43) return `${version()}.compareTo(${version()}) ${pick(['==', '>=', '<'])} 0`;
    if (r < 0.5) return `${int(depth + 1)} ${pick(['<', '<=', '>', '>=', '==', '!='])} ${int(depth + 1)}`;
    if (r < 0.57) return `${str(depth + 1)} ${pick(['==', '!=', '<', '>='])} ${str(depth + 1)}`;
    if (r < 0.6) return `${str(depth + 1)}.${pick(['startsWith', 'endsWith', 'contains', 'matches'])}(${s(pick(['H', 'gpu', '^[A-Z]', '.*', 'a|b', '']))})`;
    if (r < 0.63) {
      const [d, id] = attrOf('bool');
      return attrRef(d, id);
    }
    if (r < 0.66) {
      const [d, id] = pick(ATTRS);
      return pick([`has(device.attributes[${s(d)}].${id})`, `${s(id)} in device.attributes[${s(d)}]`, `${s(d)} in device.attributes`, `${s(d)} in device.capacity`]);
    }
    if (r < 0.7) {
      const [d, id] = attrOf('string');
      return `${attrRef(d, id)} in [${[pick(STRINGS), pick(STRINGS)].map(s).join(', ')}]`;
    }
    if (r < 0.76) {
      const [d] = pick(ATTRS);
      const v = pick(['k', 'id']);
      return `device.attributes[${s(d)}].${pick(['exists', 'all', 'exists_one'])}(${v}, ${pick([`${v}.startsWith("c")`, `${v}.size() > 3`, `${v} == "model"`])})`;
    }
    if (r < 0.79) return `device.${pick(['attributes', 'capacity'])}.${pick(['exists', 'all'])}(d, ${pick(['d.endsWith(".com")', 'd.contains("nvidia")', 'size(device.attributes[d]) > 1'])})`;
    if (r < 0.82) {
      const [d] = pick(CAPS);
      return `cel.bind(c, device.capacity[${s(d)}], c.exists(id, c[id].compareTo(quantity(${s(pick(QUANTITIES))})) >= 0))`;
    }
    if (r < 0.85) return `(${bool(depth + 1)} ? ${bool(depth + 1)} : ${bool(depth + 1)})`;
    if (r < 0.88) return `!${bool(depth + 1)}`;
    if (r < 0.94) return `${bool(depth + 1)} && ${bool(depth + 1)}`;
    return `(${bool(depth + 1)} || ${bool(depth + 1)})`;
  };
  const out = new Set<string>();
  while (out.size < n) out.add(bool(0));
  return [...out];
}
