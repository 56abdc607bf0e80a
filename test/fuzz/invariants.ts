/**
 * The invariants every response to a fuzzed request must hold, as pure
 * checks over (request, response, what the seed's response was).
 *
 * 1. `throw`: the core never throws (the SDK adapter's "internal error"
 *    Fatal is a last resort; reaching it is a violation too: `internal`).
 * 2. `internal`: no gRPC error (INTERNAL or otherwise), no response that
 *    fails to encode.
 * 3. `invalid-unnamed`: an XR its generated parser rejects (the XRD's
 *    types, required fields, enums, bounds, unknown fields: what every core
 *    reads its XR through; the CEL rules are the API server's) gets a Fatal
 *    result or a False condition whose message names a field on the path of
 *    one of the problems.
 * 4. `dropped`: no observed composed resource is missing from desired
 *    unless the spec asked for it: with a Fatal result nothing is deleted
 *    anyway; after a valid change of the spec anything may go; otherwise
 *    (an invalid XR, a requirement not fetched yet, absent or garbage, a
 *    garbage observed object, earlier steps' desired state, the context)
 *    everything the seed's response kept stays, except the keys the
 *    function's profile says the spec removes when a requirement is fetched
 *    and empty (profiles.ts `absentDrops`; "absent" is an answer, not a
 *    transient). (Observed keys the seed's response did not keep may belong
 *    to a later pipeline step.)
 * 5. `nondeterministic`: the same request with its maps in another order
 *    gives the same response (compared in Go's deterministic encoding order:
 *    map keys sorted, lists as they are).
 * 6. `secret`: no planted secret value appears anywhere in the response.
 */
import { RunFunctionResponse, Severity, Status } from '@crossplane-org/function-sdk-typescript';
import type { FuzzCase } from './mutate.js';
import { leakedSecrets } from './secrets.js';

/** One broken invariant. */
export interface Violation {
  invariant: 'throw' | 'internal' | 'invalid-unnamed' | 'dropped' | 'nondeterministic' | 'secret';
  detail: string;
}

/** The outcome of one call: a response, or what went wrong instead. */
export type CallOutcome = { response: RunFunctionResponse } | { threw: string } | { error: string };

/** Everything the checks look at for one case. */
export interface CaseRun {
  fuzz: FuzzCase;
  outcome: CallOutcome;
  /** The same request with its keys shuffled. */
  shuffled: CallOutcome;
  /** Desired keys of the response to the unmutated seed. */
  baselineDesired: ReadonlySet<string>;
  /** New XRD validation problems of the mutated XR in spec/metadata (`path: message`), with their paths. */
  xrProblems: readonly { path: string; message: string }[];
  /** Observed keys the spec removes when a requirement is fetched and empty (profiles.ts `absentDrops`). */
  absentDrops?: Readonly<Record<string, { keys: readonly string[] }>>;
}

/** Map keys sorted at every level: the order Go's deterministic encoding writes. */
export function canonicalJson(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => {
    if (x === null || typeof x !== 'object' || Array.isArray(x)) return x;
    return Object.fromEntries(Object.keys(x).sort().map((k) => [k, (x as Record<string, unknown>)[k]]));
  });
}

/** The response as comparable text. */
export function responseText(rsp: RunFunctionResponse): string {
  return canonicalJson(RunFunctionResponse.toJSON(rsp));
}

/** Every invariant checked on one case; empty when all hold. */
export function checkCase(run: CaseRun): Violation[] {
  const out: Violation[] = [];
  const { outcome } = run;
  if ('threw' in outcome) return [{ invariant: 'throw', detail: outcome.threw }];
  if ('error' in outcome) return [{ invariant: 'internal', detail: outcome.error }];
  const rsp = outcome.response;
  const messages = [...rsp.results.map((r) => r.message), ...rsp.conditions.map((c) => c.message ?? '')];
  const internal = messages.find((m) => /internal error/.test(m));
  if (internal !== undefined) out.push({ invariant: 'internal', detail: internal });

  const fatal = rsp.results.some((r) => r.severity === Severity.SEVERITY_FATAL);
  if (run.xrProblems.length > 0 && !namesProblem(rsp, run.xrProblems)) {
    const said = [...rsp.results.map((r) => `result ${r.message}`), ...rsp.conditions.map((c) => `condition ${c.type} ${c.message ?? ''}`)];
    out.push({
      invariant: 'invalid-unnamed',
      detail: `XR problems [${run.xrProblems.map((p) => `${p.path}: ${p.message}`).join('; ').slice(0, 300)}] but the response says [${said.join(' | ').slice(0, 400)}]`,
    });
  }

  if (!fatal) {
    const mustKeep = keysToKeep(run);
    const desired = new Set(Object.keys(rsp.desired?.resources ?? {}));
    const dropped = mustKeep.filter((k) => !desired.has(k));
    if (dropped.length > 0) out.push({ invariant: 'dropped', detail: `observed ${dropped.join(', ')} not in desired` });
  }

  if ('response' in run.shuffled) {
    const a = responseText(rsp);
    const b = responseText(run.shuffled.response);
    if (a !== b) out.push({ invariant: 'nondeterministic', detail: firstDifference(a, b) });
  } else {
    out.push({ invariant: 'nondeterministic', detail: `the shuffled request failed: ${JSON.stringify(run.shuffled)}` });
  }

  const leaked = leakedSecrets(JSON.stringify(RunFunctionResponse.toJSON(rsp)));
  if (leaked.length > 0) out.push({ invariant: 'secret', detail: `response carries ${leaked.join(', ')}` });
  return out;
}

/** The observed keys that must still be desired (invariant 4). */
function keysToKeep(run: CaseRun): string[] {
  const observed = Object.keys(run.fuzz.request.observed?.resources ?? {}).sort();
  const scopes = new Set(run.fuzz.mutations.map((m) => m.scope));
  const specChanged = scopes.has('xr-spec') || scopes.has('xr-metadata');
  if (specChanged && run.xrProblems.length === 0) return [];
  const mayGo = new Set<string>();
  for (const m of run.fuzz.mutations) {
    if (m.scope !== 'required-absent') continue;
    for (const k of run.absentDrops?.[m.target.replace(/^required /, '')]?.keys ?? []) mayGo.add(k);
  }
  return observed.filter((k) => run.baselineDesired.has(k) && !mayGo.has(k));
}

/**
 * Field paths named in free text: `spec.a[0].b`, `metadata.name`, `spec:`,
 * `spec.devices[0].capacity.a.b/c:d` (a map key may hold a `:`; a `:`
 * followed by a space or the end ends the path, as in `spec.url: Required`).
 */
const FIELD = /\b(spec|metadata)((?:\.[A-Za-z_][\w\-/]*(?::[\w\-/]+)*|\[[^\]\s]*\])*)/g;

function segments(path: string): string[] {
  return path
    .replace(/\[([^\]]*)\]/g, '.$1')
    .split('.')
    .filter((s) => s !== '');
}

function related(a: string[], b: string[]): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i] && a[i] !== '*' && b[i] !== '*') return false;
  return true;
}

/** True when a Fatal result or a False condition names a field on the path of a problem. */
function namesProblem(rsp: RunFunctionResponse, problems: CaseRun['xrProblems']): boolean {
  const texts = [
    ...rsp.results.filter((r) => r.severity === Severity.SEVERITY_FATAL).map((r) => r.message),
    ...rsp.conditions.filter((c) => c.status === Status.STATUS_CONDITION_FALSE).map((c) => c.message ?? ''),
  ];
  const wanted = problems.map((p) => (p.path === '<root>' ? [] : segments(p.path)));
  for (const t of texts) {
    for (const m of t.matchAll(FIELD)) {
      const named = segments(`${m[1]}${m[2] ?? ''}`);
      if (wanted.some((w) => related(named, w))) return true;
    }
  }
  return false;
}

function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `responses differ at ${i}: …${a.slice(Math.max(0, i - 80), i + 80)}… vs …${b.slice(Math.max(0, i - 80), i + 80)}…`;
}
