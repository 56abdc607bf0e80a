/**
 * Runs fuzz cases against our functions and collects violations.
 *
 * - {@link InProcessCaller} calls a core the way the gRPC server does (the
 *   request round-tripped through protobuf, decoded by the SDK adapter, the
 *   response encoded and round-tripped back), but without the adapter's
 *   catch: a thrown error is reported as such, not hidden in a Fatal.
 * - {@link GrpcCaller} sends the request to the function's real gRPC server
 *   (a child process on loopback), as Crossplane does.
 * - {@link fuzzFunction} runs `count` cases of one function: case `i` is
 *   mutated from seed `i mod seeds` with a generator seeded by (run seed,
 *   function, i), so `--seed S --function F --case i` reproduces it alone.
 */
import { RunFunctionRequest, RunFunctionResponse } from '@crossplane-org/function-sdk-typescript';
import { GrpcRuntime, functionName, loadCompose } from '../../cli/functions.js';
import { decodeRequest, encodeResponse } from '../../functions/lib/sdk.js';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { z } from 'zod';
import { withoutNulls } from '../../functions/lib/json.js';
import { fieldPath, issueMessage } from '../../functions/lib/zod-issues.js';
import { repoRoot } from '../helpers/crd.js';
import { type CallOutcome, checkCase, type Violation } from './invariants.js';
import { type FuzzCase, type Mutation, mutateRequest } from './mutate.js';
import { profileOf } from './profiles.js';
import { Rng, seedOf } from './random.js';
import { withSecrets } from './secrets.js';
import type { Seed } from './seeds.js';
import { shuffleKeys } from './values.js';

/** Calls one of our functions. */
export interface Caller {
  readonly name: string;
  call(fn: string, req: RunFunctionRequest): Promise<CallOutcome>;
  close(): Promise<void>;
}

/** The core in this process, protobuf round trips on both sides, no catch. */
export class InProcessCaller implements Caller {
  readonly name = 'in-process';
  async call(fn: string, req: RunFunctionRequest): Promise<CallOutcome> {
    const compose = await loadCompose(fn);
    // Nesting beyond protobufjs' decoder limit cannot cross the wire (docs/design.md#our-own-runfunction-codec):
    // such a request is handed to the core as it is.
    let wire: RunFunctionRequest;
    try {
      wire = roundTrip(RunFunctionRequest, req);
    } catch (e) {
      return { error: `request does not encode: ${(e as Error).message}` };
    }
    let result: ReturnType<typeof compose>;
    try {
      result = compose(decodeRequest(wire));
    } catch (e) {
      const err = e as Error;
      return { threw: `${err.message}\n${(err.stack ?? '').split('\n').slice(1, 4).join('\n')}` };
    }
    try {
      return { response: roundTrip(RunFunctionResponse, encodeResponse(wire, result)) };
    } catch (e) {
      return { error: `response does not encode: ${(e as Error).message}` };
    }
  }
  async close(): Promise<void> {}
}

interface Codec<T> {
  encode(m: T): { finish(): Uint8Array };
  decode(b: Uint8Array): T;
}

/** The message after a protobuf round trip, or as it is when it nests beyond the decoder's recursion limit. */
function roundTrip<T>(codec: Codec<T>, m: T): T {
  try {
    return codec.decode(codec.encode(m).finish());
  } catch (e) {
    if (/recursion limit/.test((e as Error).message)) return m;
    throw e;
  }
}

/** The function's gRPC server, started on first use. */
export class GrpcCaller implements Caller {
  readonly name = 'grpc';
  private readonly runtime = new GrpcRuntime();
  async call(fn: string, req: RunFunctionRequest): Promise<CallOutcome> {
    try {
      return { response: await this.runtime.run(functionName(fn), req) };
    } catch (e) {
      return { error: (e as Error).message };
    }
  }
  close(): Promise<void> {
    return this.runtime.close();
  }
}

const GENERATED = join(repoRoot, 'functions', 'lib', 'generated');

/** One violation with what it takes to reproduce it. */
export interface Finding extends Violation {
  fn: string;
  caseIndex: number;
  seed: string;
  mutations: Mutation[];
}

/** What a run of one function found. */
export interface FunctionReport {
  fn: string;
  cases: number;
  /** Cases not sent because they nest too deep for the gRPC path (docs/design.md#our-own-runfunction-codec). */
  skippedDeep: number;
  findings: Finding[];
}

type Parser = (obj: unknown) => { success: boolean; error?: { issues: z.core.$ZodIssue[] } };
let parsers: Map<string, Parser> | undefined;

/** Every generated parser (functions/lib/generated/), by `apiVersion kind`. */
async function generatedParsers(): Promise<Map<string, Parser>> {
  if (parsers) return parsers;
  const out = new Map<string, Parser>();
  for (const f of readdirSync(GENERATED).filter((x) => x.endsWith('.ts')).sort()) {
    const mod = (await import(pathToFileURL(join(GENERATED, f)).href)) as Record<string, unknown>;
    for (const [name, v] of Object.entries(mod)) {
      if (!name.endsWith('GVK')) continue;
      const gvk = v as { apiVersion: string; kind: string };
      const parse = mod[`parse${gvk.kind}`];
      if (typeof parse === 'function') out.set(`${gvk.apiVersion} ${gvk.kind}`, parse as Parser);
    }
  }
  parsers = out;
  return out;
}

/**
 * The problems of an XR as its generated parser sees them (the schema every
 * core reads its XR through; status left out, as the cores leave it out):
 * `{path, message}` per issue, empty when it parses or has no parser.
 */
export async function xrProblems(xr: unknown): Promise<{ path: string; message: string }[]> {
  const o = (xr ?? {}) as { apiVersion?: unknown; kind?: unknown; status?: unknown };
  const parse = (await generatedParsers()).get(`${String(o.apiVersion)} ${String(o.kind)}`);
  if (parse === undefined) return [];
  const { status: _status, ...rest } = o;
  // As the API server and the cores (lib/xr.ts): null fields pruned first.
  const r = parse(withoutNulls(rest));
  return r.success ? [] : (r.error?.issues ?? []).map((i) => ({ path: fieldPath('', i.path) || '<root>', message: issueMessage(i) }));
}

interface Baseline {
  request: RunFunctionRequest;
  desired: ReadonlySet<string>;
  problems: ReadonlySet<string>;
}

/** Options of {@link fuzzFunction}. */
export interface FuzzOptions {
  /** Run seed: the same seed replays the same cases. */
  seed: number;
  count: number;
  /** Run only this case index. */
  only?: number;
}

/** Runs `count` cases of function `fn` from its seeds. */
export async function fuzzFunction(fn: string, seeds: readonly Seed[], caller: Caller, opts: FuzzOptions): Promise<FunctionReport> {
  const report: FunctionReport = { fn, cases: 0, skippedDeep: 0, findings: [] };
  const baselines = new Map<number, Baseline>();
  const baseline = async (i: number): Promise<Baseline> => {
    let b = baselines.get(i);
    if (b === undefined) {
      const request = withSecrets(seeds[i]!.request);
      const out = await caller.call(fn, request);
      if (!('response' in out)) throw new Error(`${fn}: seed ${seeds[i]!.source} fails unmutated: ${JSON.stringify(out)}`);
      const problems = (await xrProblems(request.observed?.composite?.resource)).map((p) => `${p.path}: ${p.message}`);
      b = { request, desired: new Set(Object.keys(out.response.desired?.resources ?? {})), problems: new Set(problems) };
      baselines.set(i, b);
    }
    return b;
  };
  const first = opts.only ?? 0;
  const last = opts.only !== undefined ? opts.only + 1 : opts.count;
  for (let i = first; i < last; i++) {
    const si = i % seeds.length;
    const base = await baseline(si);
    const rng = new Rng(seedOf(opts.seed, `${fn}#${i}`));
    const fuzz: FuzzCase = mutateRequest(rng, base.request);
    if (caller.name === 'grpc' && fuzz.inProcessOnly) {
      report.skippedDeep++;
      continue;
    }
    report.cases++;
    const outcome = await caller.call(fn, fuzz.request);
    const shuffled = await caller.call(fn, shuffleKeys(rng, fuzz.request));
    const problems = profileOf(fn).readsSpec
      ? (await xrProblems(fuzz.request.observed?.composite?.resource)).filter((p) => !base.problems.has(`${p.path}: ${p.message}`))
      : [];
    const absentDrops = profileOf(fn).absentDrops;
    for (const v of checkCase({ fuzz, outcome, shuffled, baselineDesired: base.desired, xrProblems: problems, ...(absentDrops ? { absentDrops } : {}) })) {
      report.findings.push({ ...v, fn, caseIndex: i, seed: seeds[si]!.source, mutations: fuzz.mutations });
    }
  }
  return report;
}

/** One line per finding, for a terminal or a test failure. */
export function formatFinding(f: Finding): string {
  const what = f.mutations.map((m) => `${m.scope}/${m.kind} ${m.target}`).join(' + ');
  return `${f.fn} case ${f.caseIndex} (${f.seed}; ${what}): ${f.invariant}: ${f.detail.split('\n')[0]!.slice(0, 500)}`;
}
