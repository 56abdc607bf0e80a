/**
 * The CEL, quantity and semver acceptance lists of the reference
 * (docs/kinds/modeldeployment.md#device-selectors),
 * with Kubernetes' answers (each expression is also an oracle case, so these
 * values are the real Kubernetes ones). Where the Python reference was more
 * permissive than Kubernetes, the Kubernetes answer is used and noted:
 * `sign` is a global function only (`q.sign()` does not compile), and
 * `"5"` or an int attribute as the whole selector compile (the unknown type
 * passes the bool check) but do not match.
 */
import { describe, expect, it } from 'vitest';
import { compileSelector, type InferenceClassDevice, isCompileError, matchDevice } from '../src/index.js';

const GPU: InferenceClassDevice = {
  name: 'gpu',
  driver: 'gpu.nvidia.com',
  attributes: {
    architecture: { string: 'Hopper' },
    cudaComputeCapability: { version: '9.5.3' },
    'resource.kubernetes.io/pcieRoot': { string: 'pci0' },
    mig: { bool: true },
    nvlink: { bool: false },
    index: { int: 8 },
    cores: { int: 4 },
  },
  capacity: { memory: { value: '141Gi' } },
};
const EMPTY: InferenceClassDevice = { name: 'none', driver: 'empty.example.com' };
const DRA_DOC: InferenceClassDevice = {
  name: 'd',
  driver: 'dra.example.com',
  attributes: { color: { string: 'black' }, size: { string: 'large' }, type: { string: 'gpu' } },
  capacity: { memory: { value: '64Gi' } },
};

type Outcome = boolean | 'error' | 'compile';

/** What a selector gives on a device: its bool, an evaluation error, or a compile error. */
function outcome(expression: string, device: InferenceClassDevice): Outcome {
  const c = compileSelector(expression);
  if (isCompileError(c)) return 'compile';
  const r = matchDevice(c, device);
  return r.error !== undefined ? 'error' : r.matched;
}

const mem = 'device.capacity["gpu.nvidia.com"].memory';
const cc = 'device.attributes["gpu.nvidia.com"].cudaComputeCapability';

const CEL: [string, InferenceClassDevice, Outcome][] = [
  ['device.driver == "gpu.nvidia.com"', GPU, true],
  ['device.driver == "nic.nvidia.com"', GPU, false],
  [`${mem}.compareTo(quantity("141Gi")) >= 0`, GPU, true],
  [`${mem}.compareTo(quantity("200Gi")) >= 0`, GPU, false],
  [`${mem}.isGreaterThan(quantity("80Gi"))`, GPU, true],
  [`${mem}.isLessThan(quantity("200Gi"))`, GPU, true],
  [`sign(${mem}) == 1`, GPU, true],
  [`${mem}.sign() == 1`, GPU, 'compile'],
  [`${mem}.asInteger() == 141 * 1024 * 1024 * 1024`, GPU, true],
  [`${mem}.isInteger()`, GPU, true],
  [`${mem}.add(quantity("1Gi")).compareTo(quantity("142Gi")) == 0`, GPU, true],
  ['isQuantity("1.3Gi")', GPU, true],
  ['isQuantity("200K")', GPU, false],
  [`${cc}.isGreaterThan(semver("9.0.0"))`, GPU, true],
  [`${cc}.isGreaterThan(semver("9.9.0"))`, GPU, false],
  [`${cc}.major() == 9 && ${cc}.minor() == 5 && ${cc}.patch() == 3`, GPU, true],
  [`${cc} == semver("9.5.3")`, GPU, true],
  ['isSemver("1.0.0")', GPU, true],
  ['isSemver("1.0")', GPU, false],
  ['isSemver("1.0", true)', GPU, true],
  ['semver("v1.0", true).major() == 1', GPU, true],
  ['semver("v1.0").major() == 1', GPU, 'error'],
  ['device.attributes["gpu.nvidia.com"].architecture == "Hopper"', GPU, true],
  ['device.attributes["gpu.nvidia.com"].mig', GPU, true],
  ['device.attributes["gpu.nvidia.com"].nvlink', GPU, false],
  ['device.attributes["gpu.nvidia.com"].index >= 8', GPU, true],
  ['device.attributes["gpu.nvidia.com"].cores >= 8', GPU, false],
  ['device.attributes["resource.kubernetes.io"].pcieRoot == "pci0"', GPU, true],
  ['device.attributes["gpu.nvidia.com"].unknown == "x"', GPU, 'error'],
  ['"5"', GPU, 'compile'],
  ['device.attributes["gpu.nvidia.com"].index', GPU, 'error'],
  ['"other.com" in device.attributes', GPU, false],
  ['"gpu.nvidia.com" in device.attributes', GPU, true],
  ['device.attributes["other.com"].x == "y"', GPU, 'error'],
  ['"other.com" in device.attributes && device.attributes["other.com"].x == "y"', GPU, false],
  ['!("other.com" in device.attributes) || device.attributes["other.com"].x == "y"', GPU, true],
  [`device.driver == "gpu.nvidia.com" && ${cc}.isGreaterThan(semver("9.0.0")) && ${mem}.compareTo(quantity("80Gi")) >= 0`, GPU, true],
  ['device.attributes["dra.example.com"].color == "black" && device.attributes["dra.example.com"].size == "large"', DRA_DOC, true],
  ['device.attributes["dra.example.com"].color == "white" && device.attributes["dra.example.com"].size == "small"', DRA_DOC, false],
  ['device.driver == "dra.example.com" && device.attributes["dra.example.com"].type == "gpu"', DRA_DOC, true],
  ['device.attributes["dra.example.com"].type == "gpu" && device.capacity["dra.example.com"].memory == quantity("64Gi")', DRA_DOC, true],
  ['device.attributes["dra.example.com"].type == "gpu" && device.capacity["dra.example.com"].memory == quantity("32Gi")', DRA_DOC, false],
  ['not ) valid (', GPU, 'compile'],
];

const BROKEN: [string, InferenceClassDevice][] = [
  ['version "9.0"', { ...GPU, attributes: { cudaComputeCapability: { version: '9.0' } } }],
  ['capacity "10Mo"', { ...GPU, capacity: { memory: { value: '10Mo' } } }],
  ['an empty attribute', { ...GPU, attributes: { architecture: {} } }],
];

const q = (s: string) => `quantity(${JSON.stringify(s)})`;
const QUANTITY_TRUE = [
  `${q('12Mi')} == ${q('12Mi')}`,
  ...['20', '20M', '20Mi', '256e3', '1E3', '100n', '100u', '5.', '1.3G', '1.3Gi', '10000k', '256E', '10E'].map((s) => `isQuantity(${JSON.stringify(s)})`),
  `${q('256e3')} == ${q('256000')}`,
  `${q('0.0000000004')}.compareTo(${q('0.000000001')}) == 0`,
  `${q('200M')} == ${q('200M')}`,
  `${q('200M')} == ${q('0.2G')}`,
  `${q('0.2G')} == ${q('200M')}`,
  `${q('2M')} == ${q('0.002G')}`,
  `${q('2000k')} == ${q('2M')}`,
  `${q('0.002G')} == ${q('2000k')}`,
  `${q('50M')}.isLessThan(${q('50Mi')})`,
  `${q('50M')}.isLessThan(${q('100M')})`,
  `${q('50Mi')}.isGreaterThan(${q('50M')})`,
  `${q('150Mi')}.isGreaterThan(${q('100Mi')})`,
  `${q('200M')}.compareTo(${q('0.2G')}) == 0`,
  `${q('50M')}.compareTo(${q('50Mi')}) == -1`,
  `${q('50Mi')}.compareTo(${q('50M')}) == 1`,
  `${q('50k')}.add(20).compareTo(${q('50.02k')}) == 0`,
  `${q('50k')}.sub(20).compareTo(${q('49.98k')}) == 0`,
  `${q('50k')}.sub(20).compareTo(${q('49980')}) == 0`,
  `${q('50k')}.add(20).sub(${q('100k')}).asInteger() == -49980`,
  `${q('50k')}.add(20).sub(${q('100k')}).sub(-50000).asInteger() == 20`,
  `sign(${q('50k')}) == 1`,
  `sign(${q('-50k')}) == -1`,
  `sign(${q('0')}) == 0`,
  `${q('8Ei')} == ${q('9223372036854775807')}`,
  `${q('8Ei')} == ${q('10Ei')}`,
  `${q('10Ei')} == ${q('100Ei')}`,
  `${q('-10Ei')} == ${q('-9223372036854775807')}`,
  `${q('7Ei')}.isLessThan(${q('8Ei')})`,
  `${q('256E')} == ${q('256000000000000000000')}`,
  `${q('256E')}.isGreaterThan(${q('1Ei')})`,
  `${q('50k')}.asInteger() == 50000`,
  `${q('50')}.isInteger()`,
  `${q('50000000G')}.isInteger()`,
  `${q('50.703k')}.asApproximateFloat() == 50703.0`,
];
const QUANTITY_FALSE = [
  ...['20Mo', '10Mm', ' 5Gi', '5Gi ', '1,3G', '200K', 'Three'].map((s) => `isQuantity(${JSON.stringify(s)})`),
  `${q('200M')} == ${q('0.3G')}`,
  `${q('100M')}.isLessThan(${q('50M')})`,
  `${q('50M')}.isGreaterThan(${q('100M')})`,
  `${q('50k')}.add(20).isLessThan(${q('50020')})`,
  `${q('50000000000G')}.isInteger()`,
];
const QUANTITY_ERROR = [`${q('50000000000G')}.asInteger() > 0`, `${q('10Mo')}.isGreaterThan(${q('1')})`, `${q('Mi')} == ${q('0')} && sign(${q('')}) == 0`];

const SEMVER_TRUE = [
  'semver("1.2.3").compareTo(semver("1.2.3")) == 0',
  'semver("0.1.0-alpha.1").major() == 0',
  'isSemver("1.2.3-beta.1+build.1")',
  'isSemver("1.0.0")',
  ...['v1.0.0', '01.01.01', '1', '1.1'].map((s) => `isSemver(${JSON.stringify(s)}, true)`),
  'semver("v01.01", true) == semver("1.1.0")',
  'semver("v1.0.0", true).major() == 1',
  'semver("1.0", true).patch() == 0',
  'semver("01.01.01", true).minor() == 1',
  'semver("1.2.3") == semver("1.2.3")',
  'semver("1.0.0").isLessThan(semver("1.2.3"))',
  'semver("1.2.3").isGreaterThan(semver("1.0.0"))',
  'semver("1.2.3").compareTo(semver("2.0.0")) == -1',
  'semver("1.2.3").compareTo(semver("0.1.2")) == 1',
  'semver("1.2.3").major() == 1 && semver("1.2.3").minor() == 2 && semver("1.2.3").patch() == 3',
  'semver("1.0.0-alpha").isLessThan(semver("1.0.0-alpha.1"))',
  'semver("1.0.0-beta.2").isLessThan(semver("1.0.0-beta.11"))',
  'semver("1.0.0-rc.1").isLessThan(semver("1.0.0"))',
  'semver("1.0.0+build.1") == semver("1.0.0+build.2")',
];
const SEMVER_FALSE = [
  ...['hello', '', 'v1.0.0', 'v1.0', ' 1.0.0', '1. 0.0', '1.0.0 ', '01.01.01', '1', '1.1', '200K', 'Mi'].map((s) => `isSemver(${JSON.stringify(s)})`),
  ...['', ' 1.0.0', '1. 0.0', '1.0.0 '].map((s) => `isSemver(${JSON.stringify(s)}, true)`),
  'semver("1.2.3") == semver("1.0.0")',
  'semver("1.0.0").isLessThan(semver("1.0.0"))',
  'semver("1.0.0").isGreaterThan(semver("1.0.0"))',
];

describe('CEL acceptance, docs/kinds/modeldeployment.md#device-selectors (Kubernetes answers)', () => {
  it.each(CEL)('%s', (expression, device, want) => {
    expect(outcome(expression, device)).toBe(want);
  });

  it.each(BROKEN)('a device with %s matches no selector, even ones that do not read it', (_what, device) => {
    for (const e of ['true', 'device.driver == "gpu.nvidia.com"']) {
      const c = compileSelector(e);
      if (isCompileError(c)) throw new Error(c.toString());
      const r = matchDevice(c, device);
      expect(r.matched).toBe(false);
      expect(r.error).toMatch(/^(attribute|capacity) /);
    }
  });
});

describe('quantity acceptance, docs/kinds/modeldeployment.md#quantities', () => {
  it.each(QUANTITY_TRUE)('%s is true', (e) => expect(outcome(e, EMPTY)).toBe(true));
  it.each(QUANTITY_FALSE)('%s is false', (e) => expect(outcome(e, EMPTY)).toBe(false));
  it.each(QUANTITY_ERROR)('%s fails at evaluation (not matched)', (e) => expect(outcome(e, EMPTY)).toBe('error'));
});

describe('semver acceptance, docs/kinds/modeldeployment.md#semantic-versions', () => {
  it.each(SEMVER_TRUE)('%s is true', (e) => expect(outcome(e, EMPTY)).toBe(true));
  it.each(SEMVER_FALSE)('%s is false', (e) => expect(outcome(e, EMPTY)).toBe(false));
});
