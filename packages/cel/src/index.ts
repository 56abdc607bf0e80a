/**
 * DRA device selectors: compile a CEL expression the way a Kubernetes 1.34
 * API server validates a new ResourceClaim selector, and evaluate it against
 * InferenceClass devices the way the scheduler's DRA allocator does
 * (k8s.io/dynamic-resource-allocation/cel, apimachinery resource.Quantity,
 * blang/semver). Agreement with the real Kubernetes code is checked by the
 * oracle suite (test/oracle.test.ts, fixture test/fixtures/cel-oracle.json).
 *
 * Guarantees:
 * - nothing here throws for user input: compiling returns a
 *   {@link CompiledSelector} or a {@link CelCompileError}; matching returns
 *   `{matched, error?}`;
 * - compile rules: at most 10 KiB of source, result type bool (or the
 *   attribute "unknown" type), estimated cost at most 1,000,000 using DRA's
 *   declared size bounds; the runtime cost limit is 1,000,000 as well;
 * - compiled selectors are cached by source.
 *
 * Deliberate divergences from Kubernetes (none change the result of a
 * selector that compiles in both):
 * - not implemented, so rejected at compile time here: the Kubernetes Authz
 *   library (only reachable through an `authorizer` variable, which DRA does
 *   not declare, so Kubernetes rejects such selectors too);
 * - syntax error wording is ANTLR-like, not verbatim;
 * - inputs so large that Kubernetes would compute for minutes (quantities
 *   with exponents beyond ±1,000,000, expressions nested thousands deep) are
 *   errors here.
 */
import type { Expr, ParsedAst } from './ast.js';
import { BASE_FUNCTIONS, type CelCompileError, errorAt, typeName } from './environment.js';
import { check, type CheckerEnv, DRA_DEVICE_FIELDS } from './checker.js';
import { estimateCost } from './cost.js';
import { type CelDevice, type DeviceError, type InferenceClassDevice, restoreQuantities, toCelDevice } from './device.js';
import { COST_LIMIT_MESSAGE, type EvalState, PlanError, type Program, plan } from './interpreter.js';
import { parse, CelSyntaxError } from './parser.js';
import { TYPE_IDENTS } from './stdlib.js';
import { type CelType, DRA_DEVICE } from './types.js';
import { CelError, type CelValue } from './values.js';

export type { CelDevice, DeviceError, InferenceClassDevice } from './device.js';
export { CelCompileError } from './environment.js';
export { splitQualifiedName, toCelDevice } from './device.js';
export { isQuantity, parseQuantity, parseQuantityOrError, Quantity, QuantityParseError } from './quantity.js';
export { isSemver, parseSemver, parseSemverNormalized, Semver, SemverParseError } from './semver.js';

/** CELSelectorExpressionMaxLength: bytes of source. */
export const MAX_SELECTOR_LENGTH = 10 * 1024;
/** CELSelectorExpressionMaxCost: the estimated and the runtime cost limit. */
export const MAX_SELECTOR_COST = 1_000_000;

/** A selector ready to evaluate. */
export interface CompiledSelector {
  readonly kind: 'CompiledSelector';
  readonly source: string;
  /** The worst-case cost estimate Kubernetes computes for it. */
  readonly estimatedCost: bigint;
  /** @internal */
  readonly program: Program;
}

/** The outcome of evaluating a selector on one device. */
export interface MatchResult {
  /** True only when the selector evaluated to true. */
  readonly matched: boolean;
  /** Set when evaluation failed (the device then does not match). */
  readonly error?: string;
}

const FUNCTIONS = BASE_FUNCTIONS;

const ENV: CheckerEnv = {
  idents: new Map<string, CelType>([['device', DRA_DEVICE], ...TYPE_IDENTS]),
  functions: FUNCTIONS,
  structs: new Map([[DRA_DEVICE.name, DRA_DEVICE_FIELDS]]),
};

const CACHE_LIMIT = 4096;
const cache = new Map<string, CompiledSelector | CelCompileError>();

/** Compiles a selector (cached by source). Never throws. */
export function compileSelector(source: string): CompiledSelector | CelCompileError {
  const hit = cache.get(source);
  if (hit) return hit;
  let result: CompiledSelector | CelCompileError;
  try {
    result = compileUncached(source);
  } catch (e) {
    result = errorAt(source, 0, `internal error: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(source, result);
  return result;
}

/** True when the value is a compile error. */
export function isCompileError(x: CompiledSelector | CelCompileError): x is CelCompileError {
  return x.kind === 'CelCompileError';
}

function compileUncached(source: string): CompiledSelector | CelCompileError {
  const bytes = Buffer.byteLength(source, 'utf8');
  if (bytes > MAX_SELECTOR_LENGTH) {
    return errorAt(source, 0, `expression too long: ${bytes} bytes, the limit is ${MAX_SELECTOR_LENGTH}`);
  }
  let parsed: ParsedAst;
  try {
    parsed = parse(source);
  } catch (e) {
    if (e instanceof CelSyntaxError) return errorAt(source, e.offset, e.message);
    throw e;
  }
  const checked = check(parsed, ENV);
  if (Array.isArray(checked)) {
    const first = checked[0]!;
    return errorAt(source, parsed.offsets.get(first.id) ?? 0, withSuggestion(first.message));
  }
  const out = checked.outputType;
  if (out.kind !== 'bool' && out.kind !== 'any') {
    return errorAt(source, parsed.offsets.get(parsed.expr.id) ?? 0, `must evaluate to bool or the unknown type, not ${typeName(out)}`);
  }
  const cost = estimateCost(checked).max;
  if (cost > BigInt(MAX_SELECTOR_COST)) {
    return errorAt(source, 0, `too complex: estimated cost ${cost} exceeds the limit of ${MAX_SELECTOR_COST}`, cost);
  }
  try {
    return { kind: 'CompiledSelector', source, estimatedCost: cost, program: plan(checked, FUNCTIONS) };
  } catch (e) {
    if (e instanceof PlanError) return errorAt(source, parsed.offsets.get(e.id) ?? 0, `program instantiation failed: ${e.message}`);
    throw e;
  }
}

function withSuggestion(message: string): string {
  const m = /^undeclared reference to '([^']+)'/.exec(message);
  if (!m || m[1] === 'device') return message;
  const name = m[1]!;
  const known = ['device', ...FUNCTIONS.keys()].filter((k) => /^[a-z]/i.test(k));
  const best = known.map((k) => [k, editDistance(name, k)] as const).sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0]))[0];
  return best && best[1] <= 2 && best[1] < name.length ? `${message} (did you mean '${best[0]}'?)` : message;
}

function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
  }
  return d[a.length]![b.length]!;
}

const prepared = new WeakMap<object, CelDevice | DeviceError>();

/** The CEL device for an InferenceClass device, converted once per device object. */
export function prepareDevice(device: InferenceClassDevice | CelDevice): CelDevice | DeviceError {
  if ('kind' in device && device.kind === 'CelDevice') return device as CelDevice;
  let d = prepared.get(device);
  if (!d) {
    d = toCelDevice(device as InferenceClassDevice);
    prepared.set(device, d);
  }
  return d;
}

/**
 * Evaluates a compiled selector on a device. Matched only when the result is
 * exactly true; an evaluation error, a non-bool result, a device that cannot
 * be converted, or exceeding the runtime cost limit gives `matched: false`
 * with `error` set. Never throws.
 */
export function matchDevice(compiled: CompiledSelector, device: InferenceClassDevice | CelDevice): MatchResult {
  const d = prepareDevice(device);
  if (d.kind === 'DeviceError') return { matched: false, error: d.message };
  const { root, slots } = compiled.program;
  const vars: CelValue[] = new Array(slots);
  vars[0] = d.value;
  const state: EvalState = { vars, cost: 0, limit: MAX_SELECTOR_COST };
  try {
    const v = root(state);
    if (state.cost > MAX_SELECTOR_COST) return { matched: false, error: COST_LIMIT_MESSAGE };
    if (typeof v === 'boolean') return { matched: v };
    return { matched: false, error: `CEL result of type ${typeof v === 'bigint' ? 'int' : typeof v} could not be converted to bool` };
  } catch (e) {
    if (e instanceof CelError) return { matched: false, error: e.message };
    return { matched: false, error: e instanceof Error ? e.message : String(e) };
  } finally {
    if (d.quantities.length > 0) restoreQuantities(d);
  }
}

/** Compiles (cached) and evaluates in one step; a compile error is returned as such. */
export function selectorMatches(source: string, device: InferenceClassDevice | CelDevice): MatchResult | CelCompileError {
  const c = compileSelector(source);
  return isCompileError(c) ? c : matchDevice(c, device);
}

/** The runtime cost of one evaluation (for tests and diagnostics). */
export function evaluationCost(compiled: CompiledSelector, device: InferenceClassDevice | CelDevice): number | undefined {
  const d = prepareDevice(device);
  if (d.kind === 'DeviceError') return undefined;
  const vars = new Array(compiled.program.slots);
  vars[0] = d.value;
  const state: EvalState = { vars, cost: 0, limit: Number.POSITIVE_INFINITY };
  try {
    compiled.program.root(state);
  } catch {
    // the cost so far is still reported
  } finally {
    restoreQuantities(d);
  }
  return state.cost;
}

export type { Expr };
