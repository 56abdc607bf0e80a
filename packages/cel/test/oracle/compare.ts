/**
 * Compares this package's answer to one oracle case with Kubernetes' answer.
 * Used by oracle.test.ts.
 */
import {
  compileSelector,
  evaluationCost,
  isCompileError,
  matchDevice,
  parseQuantityOrError,
  parseSemver,
  parseSemverNormalized,
} from '../../src/index.js';
import type { CelOracleCase, OracleFixture } from './fixture.js';

type FixtureCase = OracleFixture['cases'][number];

/** Go strconv.FormatFloat(f, 'e', -1, 64). */
export function goFloatE(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (f === Number.POSITIVE_INFINITY) return '+Inf';
  if (f === Number.NEGATIVE_INFINITY) return '-Inf';
  const m = /^(-?[\d.]+)e([+-])(\d+)$/.exec(f.toExponential())!;
  return `${m[1]}e${m[2]}${m[3]!.padStart(2, '0')}`;
}

/** What our engine answers, in the oracle's shape (without id). */
export function ourAnswer(c: CelOracleCase, devices: OracleFixture['devices'], withRuntimeCost = false): Record<string, unknown> {
  if (c.kind === 'quantity') {
    const q = parseQuantityOrError(c.input);
    if (typeof q === 'string') return { stage: 'parse', error: q };
    const i = q.asInt64();
    return { value: q.toString(), float: goFloatE(q.asApproximateFloat64()), int: i?.toString(), sign: q.sign(), exact: q.asDec().toString() };
  }
  if (c.kind === 'semver') {
    try {
      return { value: (c.normalize ? parseSemverNormalized(c.input) : parseSemver(c.input)).toString() };
    } catch (e) {
      return { stage: 'parse', error: (e as Error).message };
    }
  }
  const compiled = compileSelector(c.expression);
  if (isCompileError(compiled)) return { stage: 'compile', error: compiled.message, cost: compiled.cost === undefined ? undefined : Number(compiled.cost) };
  const device = devices[c.device];
  if (!device) throw new Error(`case ${c.id}: unknown device ${c.device}`);
  const r = matchDevice(compiled, device);
  const actualCost = withRuntimeCost ? evaluationCost(compiled, device) : undefined;
  const base = { cost: Number(compiled.estimatedCost), actualCost };
  if (r.error !== undefined) return { ...base, stage: r.error.startsWith('attribute ') || r.error.startsWith('capacity ') ? 'device' : 'eval', error: r.error };
  return { ...base, value: r.matched };
}

/**
 * The disagreement between our answer and Kubernetes', or undefined when
 * they agree: same value, or both failed at the same stage (compile, or at
 * evaluation including device conversion); for quantities also the same
 * canonical string, float, int64 view, sign and exact value; for compiled
 * selectors also the same estimated cost.
 */
export function disagreement(c: FixtureCase, devices: OracleFixture['devices']): string | undefined {
  const ours = ourAnswer(c, devices);
  const want = c.expect;
  const show = () => `${c.id} ${c.kind === 'cel' ? JSON.stringify(c.expression) : JSON.stringify(c.input)}: ours ${JSON.stringify(ours)} k8s ${JSON.stringify(want)}`;
  const failed = (stage: unknown) => (stage === 'device' || stage === 'eval' ? 'runtime' : stage);
  if (failed(ours.stage) !== failed(want.stage)) return show();
  if (want.stage === undefined && ours.value !== want.value) return show();
  if (c.kind === 'quantity' && want.stage === undefined) {
    for (const k of ['float', 'int', 'sign', 'exact'] as const) if (String(ours[k]) !== String(want[k])) return `${show()} (${k})`;
  }
  if (c.kind === 'cel' && want.cost !== undefined && ours.cost !== undefined && ours.cost !== want.cost) return `${show()} (estimated cost)`;
  return undefined;
}
