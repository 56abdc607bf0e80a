/**
 * The public API of this package: typed compile errors with position,
 * never an exception for user input, the compile cache, the runtime cost
 * limit, device conversion, and that one evaluation's in-place quantity
 * changes (which Kubernetes makes, see Quantity) do not leak into the next.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  CelCompileError,
  type CompiledSelector,
  compileSelector,
  type InferenceClassDevice,
  isCompileError,
  MAX_SELECTOR_LENGTH,
  parseQuantityOrError,
  matchDevice,
  prepareDevice,
  selectorMatches,
  splitQualifiedName,
  toCelDevice,
} from '../src/index.js';

const H100: InferenceClassDevice = {
  name: 'gpu',
  driver: 'gpu.nvidia.com',
  attributes: { model: { string: 'H100' }, 'resource.kubernetes.io/pcieRoot': { string: 'pci0' }, cc: { version: '9.0.0' } },
  capacity: { memory: { value: '80Gi' } },
};

function compiled(source: string): CompiledSelector {
  const c = compileSelector(source);
  if (isCompileError(c)) throw new Error(c.toString());
  return c;
}

function compileError(source: string): CelCompileError {
  const c = compileSelector(source);
  if (!isCompileError(c)) throw new Error(`expected a compile error for ${source}`);
  return c;
}

describe('compile errors are typed values with a position and a caret', () => {
  it('a missing parenthesis (the malformed seed selector)', () => {
    const e = compileError('device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("20Gi") >= 0');
    expect(e).toBeInstanceOf(CelCompileError);
    expect({ message: e.message, line: e.line, column: e.column, caretLine: e.caretLine }).toEqual({
      message: "Syntax error: missing ')' at '<EOF>'",
      line: 1,
      column: 73,
      caretLine: ` | ${'.'.repeat(72)}^`,
    });
  });

  it('an undeclared variable, with a suggestion', () => {
    const e = compileError('devic.driver == "gpu.nvidia.com"');
    expect([e.message, e.line, e.column]).toEqual(["undeclared reference to 'devic' (in container '') (did you mean 'device'?)", 1, 1]);
  });

  it('a position on the second line', () => {
    const e = compileError('device.driver == "a" &&\n  device.atributes.size() > 0');
    expect([e.message, e.line, e.column, e.sourceLine, e.caretLine]).toEqual([
      "undefined field 'atributes'",
      2,
      9,
      '  |   device.atributes.size() > 0'.slice(1),
      ' | ........^',
    ]);
  });

  it('a non-bool result', () => {
    expect(compileError('device.capacity["gpu.nvidia.com"].memory').message).toBe('must evaluate to bool or the unknown type, not kubernetes.Quantity');
    expect(compileError('size(device.attributes)').message).toBe('must evaluate to bool or the unknown type, not int');
  });

  it('an expression over the cost limit, with its estimated cost', () => {
    const e = compileError('device.attributes.all(a, device.attributes.all(b, device.attributes.all(c, device.attributes.all(d, true))))');
    // Kubernetes estimates 3,348,675 and 104,643 for these (oracle cases limits-7 and limits-6).
    expect(e.cost).toBe(3_348_675n);
    expect(e.message).toBe('too complex: estimated cost 3348675 exceeds the limit of 1000000');
    expect(compiled('device.attributes.all(a, device.attributes.all(b, device.attributes.all(c, true)))').estimatedCost).toBe(104_643n);
  });

  it('an expression longer than 10 KiB, counted in bytes', () => {
    const fits = `"${'é'.repeat((MAX_SELECTOR_LENGTH - 8) / 2)}" != ""`;
    expect(Buffer.byteLength(fits)).toBe(MAX_SELECTOR_LENGTH);
    expect(isCompileError(compileSelector(fits))).toBe(false);
    expect(compileError(`${fits} `).message).toBe('expression too long: 10241 bytes, the limit is 10240');
  });

  it('formats like cel-go', () => {
    expect(compileError('1 == 1.0').toString()).toBe("ERROR: <input>:1:3: found no matching overload for '_==_' applied to '(int, double)'\n | 1 == 1.0\n | ..^");
  });
});

describe('never throws for user input', () => {
  it('answers a quantity beyond the digit bound with an error, as a device capacity too', () => {
    expect(parseQuantityOrError('1e2147483648')).toBe('quantity too large: its exact value needs more than 1,000,000 decimal digits');
    expect(selectorMatches('device.driver == "gpu.nvidia.com"', { name: 'g', driver: 'gpu.nvidia.com', capacity: { m: { value: '1e2147483648' } } })).toEqual({
      matched: false,
      error: 'capacity m: quantity too large: its exact value needs more than 1,000,000 decimal digits',
    });
  });

  const devices: InferenceClassDevice[] = [H100, { name: 'x' }, { name: 'bad', attributes: { v: { version: 'x' } } }];
  it('compiles and evaluates 3,000 random mutations of selectors without an exception', () => {
    // Deterministic draws in [0, 1): SHA-256 of a counter.
    let draw = 0;
    const rnd = () => createHash('sha256').update(`7:${draw++}`).digest().readUInt32BE(0) / 2 ** 32;
    const seeds = [
      'device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("20Gi")) >= 0',
      'device.attributes["gpu.nvidia.com"].all(k, k.startsWith("m") || [1, 2].exists(x, x > 1))',
      'cel.bind(v, semver("1.2.3-rc.1"), v.isLessThan(semver("v1.2.3", true))) ? "a".matches("[a-") : {"a": 1}[?"b"].orValue(2) == 2',
    ];
    const alphabet = '()[]{}.,:?!&|=<>+-*/%"\'\\ `abcdeinxy0123456789_@#$\n\t';
    let compiledCount = 0;
    for (let i = 0; i < 3000; i++) {
      const chars = [...seeds[i % seeds.length]!];
      for (let k = 0; k < 1 + Math.floor(rnd() * 4); k++) {
        const at = Math.floor(rnd() * chars.length);
        const op = rnd();
        if (op < 0.4) chars.splice(at, 1);
        else if (op < 0.8) chars.splice(at, 0, alphabet[Math.floor(rnd() * alphabet.length)]!);
        else chars[at] = alphabet[Math.floor(rnd() * alphabet.length)]!;
      }
      const c = compileSelector(chars.join(''));
      if (isCompileError(c)) {
        expect(c.line).toBeGreaterThan(0);
        continue;
      }
      compiledCount++;
      for (const d of devices) expect(typeof matchDevice(c, d).matched).toBe('boolean');
    }
    expect(compiledCount).toBeGreaterThan(100);
  });

  it('survives pathological input', () => {
    for (const s of ['(', '('.repeat(20000), `${'!'.repeat(5000)}true`, '"\\', '\u0000', 'quantity("1e2147483648").isInteger()', '[1,2,3'.repeat(500)]) {
      expect(() => compileSelector(s)).not.toThrow();
    }
    // 10^1,000,008 digits are refused (Kubernetes would compute them, slowly).
    const huge = compiled('sign(quantity("1e999999").add(quantity("1e-999999"))) == 1');
    expect(matchDevice(huge, H100)).toEqual({ matched: false, error: 'decimal too large: 10^1000008' });
    expect(selectorMatches('sign(quantity("1e99999").add(quantity("1e-99999"))) == 1', H100)).toEqual({ matched: true });
  });
});

describe('compiling and matching', () => {
  it('caches compiled selectors and errors by source', () => {
    expect(compileSelector('device.driver == "x"')).toBe(compileSelector('device.driver == "x"'));
    expect(compileSelector('nope(')).toBe(compileSelector('nope('));
  });

  it('a non-bool result at run time is an error, not a match', () => {
    expect(selectorMatches('device.attributes["gpu.nvidia.com"].model', H100)).toEqual({
      matched: false,
      error: 'CEL result of type string could not be converted to bool',
    });
  });

  it('stops an evaluation over the runtime cost limit on a device larger than DRA allows', () => {
    const attributes = Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`a${i}`, { int: i }]));
    const big: InferenceClassDevice = { name: 'big', driver: 'x.example.com', attributes };
    const c = compiled('device.attributes["x.example.com"].all(a, device.attributes["x.example.com"].all(b, device.attributes["x.example.com"].all(c, a != "" && b != "" && c != "")))');
    expect(c.estimatedCost).toBeLessThanOrEqual(1_000_000n);
    expect(matchDevice(c, big)).toEqual({ matched: false, error: 'operation cancelled: actual cost limit exceeded' });
    expect(matchDevice(c, H100)).toEqual({ matched: true });
  });

  it('undoes in-evaluation quantity changes before the next evaluation', () => {
    const dev: InferenceClassDevice = { name: 'q', driver: 'x.example.com', capacity: { half: { value: '0.5Ki' }, five: { value: '5' } } };
    // Within one evaluation Kubernetes shares the decimal: adding to `half` changes `half`.
    expect(selectorMatches('device.capacity["x.example.com"].half.add(quantity("1")) == device.capacity["x.example.com"].half', dev)).toEqual({ matched: true });
    expect(selectorMatches('device.capacity["x.example.com"].half.compareTo(quantity("512")) == 0', dev)).toEqual({ matched: true });
    // Comparing with a decimal-backed value turns `five` decimal for the rest of that evaluation.
    expect(selectorMatches('device.capacity["x.example.com"].five.compareTo(device.capacity["x.example.com"].half) < 0 && device.capacity["x.example.com"].five.isInteger()', dev)).toEqual({ matched: false });
    expect(selectorMatches('device.capacity["x.example.com"].five.isInteger()', dev)).toEqual({ matched: true });
  });
});

describe('the device variable', () => {
  it('splits qualified names at the first slash; bare names take the driver domain', () => {
    expect(splitQualifiedName('memory', 'gpu.nvidia.com')).toEqual(['gpu.nvidia.com', 'memory']);
    expect(splitQualifiedName('a.com/b/c', 'gpu.nvidia.com')).toEqual(['a.com', 'b/c']);
    expect(selectorMatches('device.attributes["resource.kubernetes.io"].pcieRoot == "pci0" && device.attributes["gpu.nvidia.com"].model == "H100"', H100)).toEqual({ matched: true });
  });

  it('an unknown domain is an empty map; membership is false', () => {
    expect(selectorMatches('device.attributes["other.com"] == {} && !("other.com" in device.attributes)', H100)).toEqual({ matched: true });
    expect(selectorMatches('device.attributes["gpu.nvidia.com"].missing == "x"', H100)).toEqual({ matched: false, error: 'no such key: missing' });
    expect(selectorMatches('has(device.attributes["gpu.nvidia.com"].missing) || "missing" in device.attributes["gpu.nvidia.com"]', H100)).toEqual({ matched: false });
  });

  it('reads ints given as numbers, bigints or strings and rejects the rest', () => {
    const d = (int: number | bigint | string) => toCelDevice({ driver: 'x', attributes: { n: { int } } });
    expect(d(5).kind).toBe('CelDevice');
    expect(selectorMatches('device.attributes["x"].n == 9223372036854775807', { driver: 'x', attributes: { n: { int: '9223372036854775807' } } })).toEqual({ matched: true });
    expect(d(1.5)).toEqual({ kind: 'DeviceError', message: 'attribute n: int: not an int64: 1.5' });
    expect(d('9223372036854775808')).toEqual({ kind: 'DeviceError', message: 'attribute n: int: not an int64: 9223372036854775808' });
  });

  it('converts each device object once', () => {
    expect(prepareDevice(H100)).toBe(prepareDevice(H100));
  });
});
