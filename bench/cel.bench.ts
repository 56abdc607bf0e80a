/**
 * DRA selector speed: evaluations per second of the seed selectors (and a
 * heavier realistic one), pre-compiled, over 64 varied devices, as the
 * scheduler calls matchDevice; and compile time per selector, with the
 * compile cache bypassed (each timed source is new). Medians of several runs.
 * Targets: >= 400,000 evaluations/s; compile <= 1 ms for a typical selector.
 */
import {
  type CompiledSelector,
  compileSelector,
  type InferenceClassDevice,
  isCompileError,
  matchDevice,
  prepareDevice,
} from '@modelplane/cel';
import { pct } from './stats.js';

const RUNS = 7;
const EVALS_PER_RUN = 200_000;
const COMPILES_PER_RUN = 300;

const SELECTORS: Record<string, string> = {
  'seed >= 20Gi': 'device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("20Gi")) >= 0\n',
  'seed >= 14Gi': 'device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("14Gi")) >= 0\n',
  'model+version+memory':
    'device.driver == "gpu.nvidia.com" && device.attributes["gpu.nvidia.com"].model in ["H100", "H200"] && ' +
    'device.attributes["gpu.nvidia.com"].driverVersion.isGreaterThan(semver("535.0.0")) && ' +
    'device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("80Gi")) >= 0',
};

/** 64 devices: several models, memories, drivers, some without the attributes a selector reads. */
function devices(): InferenceClassDevice[] {
  const models = ['A16', 'L4', 'L40S', 'A100', 'H100', 'H200', 'B200', 'MI300X'];
  const memories = ['16384Mi', '23034Mi', '46068Mi', '40Gi', '80Gi', '141Gi', '192Gi', '0.5Ti'];
  return Array.from({ length: 64 }, (_, i) => {
    const driver = i % 16 === 15 ? 'gpu.amd.com' : 'gpu.nvidia.com';
    const attributes: NonNullable<InferenceClassDevice['attributes']> =
      i % 8 === 7
        ? { architecture: { string: 'Ampere' } }
        : { model: { string: models[i % 8]! }, driverVersion: { version: `${530 + (i % 12)}.${i % 5}.${i % 3}` }, index: { int: i } };
    return { name: `gpu-${i}`, driver, attributes, capacity: { memory: { value: memories[(i * 3) % 8]! } } };
  });
}

function median(xs: number[]): number {
  return pct(xs, 50);
}

function compiled(source: string): CompiledSelector {
  const c = compileSelector(source);
  if (isCompileError(c)) throw new Error(c.toString());
  return c;
}

export default async function (): Promise<void> {
  const devs = devices();
  for (const d of devs) prepareDevice(d);
  const out: string[] = [];
  out.push(`selector evaluations (pre-compiled, ${devs.length} devices, median of ${RUNS} runs of ${EVALS_PER_RUN.toLocaleString('en')}):`);
  for (const [name, source] of Object.entries(SELECTORS)) {
    const c = compiled(source);
    const matching = devs.filter((d) => matchDevice(c, d).matched).length;
    let matched = 0;
    for (let i = 0; i < 20_000; i++) if (matchDevice(c, devs[i & 63]!).matched) matched++;
    const rates: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      const t = performance.now();
      for (let i = 0; i < EVALS_PER_RUN; i++) if (matchDevice(c, devs[i & 63]!).matched) matched++;
      rates.push(EVALS_PER_RUN / ((performance.now() - t) / 1000));
    }
    const rate = median(rates);
    const expected = (20_000 + RUNS * EVALS_PER_RUN) * (matching / devs.length);
    if (Math.abs(matched - expected) > devs.length * (RUNS + 1)) throw new Error(`${name}: inconsistent results`);
    out.push(
      `  ${name.padEnd(22)} ${Math.round(rate).toLocaleString('en').padStart(10)} /s  (${(1e6 / rate).toFixed(2)} µs each; matches ${matching}/${devs.length}; target >= 400,000/s: ${rate >= 400_000 ? 'met' : 'MISSED'})`,
    );
  }
  out.push(`compile (cache bypassed, median of ${RUNS} runs of ${COMPILES_PER_RUN}):`);
  for (const [name, source] of Object.entries(SELECTORS)) {
    for (let i = 0; i < 200; i++) compileSelector(`${source} && ${i} >= 0`);
    const times: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      const t = performance.now();
      for (let i = 0; i < COMPILES_PER_RUN; i++) compileSelector(`${source} && ${r * COMPILES_PER_RUN + i + 1000} >= 0`);
      times.push((performance.now() - t) / COMPILES_PER_RUN);
    }
    const ms = median(times);
    out.push(`  ${name.padEnd(22)} ${ms.toFixed(3).padStart(7)} ms  (target <= 1 ms: ${ms <= 1 ? 'met' : 'MISSED'})`);
  }
  process.stdout.write(`${out.join('\n')}\n`);
}
