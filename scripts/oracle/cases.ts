/**
 * The hand-picked oracle questions: seed selectors, the acceptance cases of
 * packages/cel/test/acceptance.test.ts (CEL, quantities, semver), every quantity suffix and exponent form with
 * boundaries, semver with prereleases. Library and syntax questions are in
 * cases-libraries.ts.
 */

/** A CEL question before it gets an id: expression and device name. */
export interface CelQuestion {
  readonly expression: string;
  readonly device: string;
}

const q = (s: string): string => JSON.stringify(s);
const cap = (domain: string, id: string): string => `device.capacity[${q(domain)}].${id}`;
const attr = (domain: string, id: string): string => `device.attributes[${q(domain)}].${id}`;

/** The selectors of the seed manifests (demo/inference.yaml, vultr/vultr-model.yaml). */
export const SEED_SELECTORS = [
  'device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("20Gi")) >= 0\n',
  'device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("14Gi")) >= 0\n',
];

/** Numbers and suffixes whose combinations exercise quantity parsing. */
export const QUANTITY_NUMBERS = [
  '0', '1', '5', '12', '100', '1000', '1024', '1.5', '0.5', '.5', '5.', '0.001', '0.0000000001', '0.0000000004',
  '123456789012345678', '1234567890123456789', '99999999999999999999', '-1', '+1', '-0', '-.5', '+.5', '.', '-', '+',
  '007', '0.1', '1.000', '9223372036854775807', '9223372036854775808', '-9223372036854775808', '8', '16', '7',
  '3.14159265358979', '50.703', '1.3', '256',
];
export const QUANTITY_SUFFIXES = [
  '', 'n', 'u', 'm', 'k', 'M', 'G', 'T', 'P', 'E', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei', 'e3', 'E3', 'e-3', 'e+3', 'e0',
  'e18', 'e-9', 'e-10', 'E-12', 'e100', 'K', 'ki', 'i', 'e', 'Mo', 'e4294967296', 'KiB', 'E1',
];
export const QUANTITY_EXTRAS = [
  '', ' 5', '5 ', 'Mi', 'k', 'E', 'e', 'Ki', '-Ki', '1,3G', 'Three', '10Mm', '200K', '1000E', '100000E', '0.1Ki', '1.5Gi',
  '8Ei', '10Ei', '-10Ei', '256E', '12Mi', '50.703k', '2048', '1025', '1023Ki', '1536Mi', '0.3G', '200M', '0.2G', '2M',
  '0.002G', '2000k', '50M', '50Mi', '150Mi', '20', '20M', '20Mi', '256e3', '1E3', '100n', '100u', '1.3G', '1.3Gi',
  '10000k', '10E', '20Mo', '50000000G', '1e-400', '0e400', '1e+', '1e1e1', '1..5', '1.5.5', '--1', '+-1', '١',
];

/** Versions for strict and normalized semver parsing. */
export const SEMVER_INPUTS = [
  '1.2.3', '0.0.0', '1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-0.3.7', '1.0.0-x.7.z.92', '1.0.0-alpha+001', '1.0.0+20130313144700',
  '1.0.0-beta+exp.sha.5114f85', '1.2.3-beta.1+build.1', '01.2.3', '1.02.3', '1.2.03', '1.2', '1', '', 'v1.2.3', 'v1.0', 'v01.01',
  '01.01.01', '1.1', ' 1.0.0', '1.0.0 ', '1. 0.0', 'hello', '200K', 'Mi', '1.2.3.4', '1.2.3-', '1.2.3+', '1.2.3-01', '1.2.3-a..b',
  '1.2.3-a_b', '1.2.3+a..b', '18446744073709551615.0.0', '18446744073709551616.0.0', '1.0.0-18446744073709551616', 'v1',
  'v1.2-rc.1', '1.2-rc.1', '1.0+build', 'v', '0', '00', '000.000.000', 'v00.00.00', '1.2.3-rc.1.2', 'V1.2.3', '1.2.3-ü',
  '9.0', '9.5.3', '535.104.05', '550.54.15',
];

/** Versions whose pairwise order is checked (blang precedence, prereleases). */
export const SEMVER_ORDER = [
  '1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0',
  '1.0.0+build', '2.0.0', '2.1.0', '2.1.1', '1.0.0-1', '1.0.0-a1', '1.0.0-A', '1.0.0-alpha.0',
];

/** Selectors from the spec's acceptance list and the DRA documentation. */
export function acceptanceQuestions(): CelQuestion[] {
  const g = 'gpu.nvidia.com';
  const mem = cap(g, 'memory');
  const cc = attr(g, 'cudaComputeCapability');
  const h200 = [
    `device.driver == "gpu.nvidia.com"`,
    `device.driver == "nic.nvidia.com"`,
    `${mem}.compareTo(quantity("141Gi")) >= 0`,
    `${mem}.compareTo(quantity("200Gi")) >= 0`,
    `${mem}.isGreaterThan(quantity("80Gi"))`,
    `${mem}.isLessThan(quantity("200Gi"))`,
    `${mem}.sign() == 1`,
    `sign(${mem}) == 1`,
    `${mem}.asInteger() == 141 * 1024 * 1024 * 1024`,
    `${mem}.isInteger()`,
    `${mem}.add(quantity("1Gi")).compareTo(quantity("142Gi")) == 0`,
    `isQuantity("1.3Gi")`,
    `isQuantity("200K")`,
    `${cc}.isGreaterThan(semver("9.0.0"))`,
    `${cc}.isGreaterThan(semver("9.9.0"))`,
    `${cc}.major() == 9 && ${cc}.minor() == 5 && ${cc}.patch() == 3`,
    `${cc} == semver("9.5.3")`,
    `isSemver("1.0.0")`,
    `isSemver("1.0")`,
    `isSemver("1.0", true)`,
    `semver("v1.0", true).major() == 1`,
    `semver("v1.0").major() == 1`,
    `${attr(g, 'architecture')} == "Hopper"`,
    attr(g, 'mig'),
    attr(g, 'nvlink'),
    `${attr(g, 'index')} >= 8`,
    `${attr(g, 'cores')} >= 8`,
    `device.attributes["resource.kubernetes.io"].pcieRoot == "pci0"`,
    `"5"`,
    attr(g, 'index'),
    `"other.com" in device.attributes`,
    `"gpu.nvidia.com" in device.attributes`,
    `device.attributes["other.com"].x == "y"`,
    `"other.com" in device.attributes && device.attributes["other.com"].x == "y"`,
    `!("other.com" in device.attributes) || device.attributes["other.com"].x == "y"`,
    `"model" in device.attributes["gpu.nvidia.com"] && ${attr(g, 'model')} in ["H100", "H200"]`,
    `device.driver == "gpu.nvidia.com" && ${attr(g, 'model')} in ["H100","H200"] && ${attr(g, 'driverVersion')}.isGreaterThan(semver("535.0.0")) && ${mem}.compareTo(quantity("80Gi")) >= 0`,
    `has(device.attributes["gpu.nvidia.com"].model)`,
    `has(device.attributes["other.com"].model)`,
    `has(device.attributes.other)`,
    `has(device.capacity["gpu.nvidia.com"].memory)`,
    `device.attributes["gpu.nvidia.com"].unknown == 1`,
    `not ) valid (`,
    `device.attributes.exists(d, d == "resource.kubernetes.io")`,
    `size(device.attributes["gpu.nvidia.com"]) == 9`,
    `device.attributes["gpu.nvidia.com"].all(k, k.size() > 0)`,
    `cel.bind(dra, device.attributes["gpu.nvidia.com"], dra.mig && !dra.nvlink)`,
    `device.capacity["resource.kubernetes.io"].power.compareTo(quantity("700")) == 0`,
  ];
  const multi = [
    `${attr('dra.example.com', 'color')} == "black" && ${attr('dra.example.com', 'size')} == "large"`,
    `${attr('dra.example.com', 'color')} == "white" && ${attr('dra.example.com', 'size')} == "small"`,
    `device.driver == "dra.example.com" && ${attr('dra.example.com', 'type')} == "gpu"`,
    `${attr('dra.example.com', 'type')} == "gpu" && ${cap('dra.example.com', 'memory')} == quantity("64Gi")`,
    `${attr('dra.example.com', 'type')} == "gpu" && ${cap('dra.example.com', 'memory')} == quantity("32Gi")`,
    `${cap('other.example.com', 'memory')} == quantity("32Gi")`,
    `${attr('other.example.com', 'slots')} < 0 && ${attr('other.example.com', 'dual')}`,
    `${attr('dra.example.com', 'firmware')}.isLessThan(semver("1.2.3"))`,
    `${attr('dra.example.com', 'firmware')} == semver("1.2.3-rc.1")`,
    `${cap('dra.example.com', 'fraction')}.isInteger()`,
    `${cap('dra.example.com', 'fraction')}.compareTo(quantity("512")) == 0`,
    `${cap('dra.example.com', 'fraction')}.add(1).compareTo(quantity("513")) == 0`,
    `${cap('dra.example.com', 'fraction')}.add(quantity("1")) == ${cap('dra.example.com', 'fraction')}`,
    `${cap('dra.example.com', 'slices')}.compareTo(${cap('dra.example.com', 'fraction')}) < 0 && ${cap('dra.example.com', 'slices')}.isInteger()`,
    `${cap('dra.example.com', 'milli')}.asApproximateFloat() == 0.25`,
    `${cap('dra.example.com', 'bandwidth')}.asInteger() == 1500000000`,
    `${attr('dra.example.com', 'unicode')}.size() == 8`,
    `${attr('dra.example.com', 'empty')} == ""`,
    `${attr('gpu.nvidia.com', 'model')} == "A100"`,
    `device.attributes.all(d, size(device.attributes[d]) > 0)`,
    `device.capacity.exists_one(d, d == "other.example.com")`,
  ];
  const limits = [
    `${attr('limits.example.com', 'max')} == 9223372036854775807`,
    `${attr('limits.example.com', 'max')} + 1 > 0`,
    `${attr('limits.example.com', 'min')} - 1 < 0`,
    `${attr('limits.example.com', 'min')} == -9223372036854775808`,
    `-${attr('limits.example.com', 'min')} > 0`,
    `${attr('limits.example.com', 'min')} / -1 > 0`,
    `${attr('limits.example.com', 'min')} % -1 == 0`,
    `${attr('limits.example.com', 'max')} * 2 > 0`,
    `${attr('limits.example.com', 'zero')} == 0.0`,
    `${attr('limits.example.com', 'zero')} == 0u`,
    `${attr('limits.example.com', 'max')} == 9223372036854775807.0`,
    `${attr('limits.example.com', 'max')} < 9223372036854775808.0`,
    `${attr('limits.example.com', 'vbig')}.major() == -1`,
    `${attr('limits.example.com', 'v0')}.compareTo(semver("0.0.0-0")) == 1`,
    `${attr('limits.example.com', 'long')}.size() == 64`,
    `${cap('limits.example.com', 'huge')}.asInteger() == 9223372036854775807`,
    `${cap('limits.example.com', 'huge')}.add(1).isInteger()`,
    `${cap('limits.example.com', 'big')}.isGreaterThan(${cap('limits.example.com', 'huge')})`,
    `${cap('limits.example.com', 'big')}.isInteger()`,
    `${cap('limits.example.com', 'neg')}.sub(${cap('limits.example.com', 'neg')}).sign() == 0`,
    `sign(${cap('limits.example.com', 'neg')}) == -1`,
    `${cap('limits.example.com', 'nano')}.compareTo(${cap('limits.example.com', 'tiny')}) == 0`,
    `${cap('limits.example.com', 'tiny')}.asApproximateFloat() > 0.0`,
    `${cap('limits.example.com', 'zero')}.isInteger() && sign(${cap('limits.example.com', 'zero')}) == 0`,
    `${cap('limits.example.com', 'exp')}.asInteger() == 1000`,
  ];
  const other = [
    `device.attributes[""].cores == 16`,
    `device.driver == ""`,
    `device.capacity[""].memory.compareTo(quantity("100Gi")) > 0`,
    `size(device.attributes) == 0 && size(device.capacity) == 0`,
    `device.attributes.size() == 0`,
  ];
  const out: CelQuestion[] = [];
  for (const e of h200) out.push({ expression: e, device: 'h200' });
  for (const e of multi) out.push({ expression: e, device: 'multi' });
  for (const e of limits) out.push({ expression: e, device: 'limits' });
  for (const e of other) for (const device of ['nodriver', 'empty']) out.push({ expression: e, device });
  for (const e of [h200[0]!, h200[2]!, `true`, `device.attributes.size() >= 0`]) {
    for (const device of ['badVersion', 'badQuantity', 'emptyAttribute']) out.push({ expression: e, device });
  }
  return out;
}

/** Quantity operations through CEL, on pairs of quantity literals (the quantity acceptance cases and more). */
export function quantityQuestions(): CelQuestion[] {
  const values = ['0', '1', '-1', '12Mi', '200M', '0.2G', '2M', '0.002G', '2000k', '50M', '50Mi', '100M', '150Mi', '50k', '8Ei', '10Ei', '-10Ei', '7Ei', '256E', '1Ei', '0.0000000004', '0.000000001', '1n', '0.5Ki', '1.5', '1e3', '1000E', '50000000G', '50.703k', '9223372036854775807', '1m'];
  const out: CelQuestion[] = [];
  const push = (expression: string) => out.push({ expression, device: 'empty' });
  for (const a of values) {
    const qa = `quantity(${q(a)})`;
    push(`${qa}.isInteger()`);
    push(`${qa}.asInteger() >= 0`);
    push(`sign(${qa}) == 1`);
    push(`${qa}.asApproximateFloat() >= 0.0`);
    push(`${qa}.add(20).isInteger()`);
    push(`${qa}.sub(${qa}).sign() == 0`);
  }
  for (let i = 0; i < values.length; i++) {
    for (let j = 0; j < values.length; j += 3) {
      const qa = `quantity(${q(values[i]!)})`;
      const qb = `quantity(${q(values[(i + j) % values.length]!)})`;
      push(`${qa}.compareTo(${qb}) == ${(i * 7 + j) % 3 - 1}`);
      push(`${qa}.isGreaterThan(${qb}) || ${qa} == ${qb}`);
      push(`${qa}.add(${qb}).isLessThan(${qb})`);
      push(`${qa}.sub(${qb}).asInteger() < 0`);
    }
  }
  for (const e of [
    'quantity("12Mi") == quantity("12Mi")',
    'quantity("256e3") == quantity("256000")',
    'quantity("0.0000000004").compareTo(quantity("0.000000001")) == 0',
    'quantity("50k").add(20) == quantity("50.02k")',
    'quantity("50k").sub(20) == quantity("49.98k")',
    'quantity("50k").sub(20) == quantity("49980")',
    'quantity("50k").add(20).sub(quantity("100k")).asInteger() == -49980',
    'quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger() == 20',
    'quantity("8Ei") == quantity("9223372036854775807")',
    'quantity("-10Ei") == quantity("-9223372036854775807")',
    'quantity("256E") == quantity("256000000000000000000")',
    'quantity("50.703k").asApproximateFloat() == 50703.0',
    'quantity("50k").add(20).isLessThan(quantity("50020"))',
    'quantity("10Mo").isGreaterThan(quantity("1"))',
    'quantity("50000000000G").isInteger()',
    'quantity("50000000000G").asInteger() > 0',
    'quantity("9223372036854775807").add(1).isInteger()',
    'quantity("9223372036854775807").add(quantity("9223372036854775807")).compareTo(quantity("18446744073709551614")) == 0',
    'quantity("-9223372036854775808").sub(1).sign() == -1',
    'quantity("1").sub(-9223372036854775808).isInteger()',
    'quantity("1.5").add(quantity("1.5")).isInteger()',
    'quantity("1.5").add(quantity("1.5")).asInteger() == 3',
    'quantity("0.1").add(quantity("0.2")) == quantity("0.3")',
    'quantity("1e-9").add(quantity("1e-9")).compareTo(quantity("2n")) == 0',
    'quantity("1000E").compareTo(quantity("1e21")) == 0',
    'quantity("1e21").asApproximateFloat() == 1e21',
  ]) {
    push(e);
  }
  return out;
}

/** Semver operations through CEL (ordering with prereleases, normalize, accessors). */
export function semverQuestions(): CelQuestion[] {
  const out: CelQuestion[] = [];
  const push = (expression: string) => out.push({ expression, device: 'empty' });
  for (let i = 0; i < SEMVER_ORDER.length; i++) {
    for (let j = 0; j < SEMVER_ORDER.length; j++) {
      const a = `semver(${q(SEMVER_ORDER[i]!)})`;
      const b = `semver(${q(SEMVER_ORDER[j]!)})`;
      push((i + j) % 2 === 0 ? `${a}.compareTo(${b}) == -1` : `${a}.isGreaterThan(${b})`);
      if ((i * 3 + j) % 4 === 0) push(`${a}.isLessThan(${b}) || ${a} == ${b}`);
    }
  }
  for (const v of SEMVER_INPUTS) {
    push(`isSemver(${q(v)})`);
    push(`isSemver(${q(v)}, true)`);
    push(`semver(${q(v)}, true).minor() >= 0`);
    push(`semver(${q(v)}).patch() >= 0`);
  }
  return out;
}
