/**
 * `modelplane plan PATH... [--output text|json|yaml] [--write DIR] [--rounds N] [--together]
 * [--now T] [--lose CLUSTER... | --check-survivable]`: the preview a platform team reviews
 * before applying (plan/planner.ts), and what a cluster's loss would do
 * (docs/failover.md#what-if; plan/survivable.ts).
 *
 * Exit codes (a CI gate; also in `modelplane plan --help` and docs/cli.md#exit-codes):
 * - 0: converged, every desired replica placed, every InferenceCluster,
 *   InferenceGateway and ModelService Ready, no reconcile error;
 * - 1: invalid input (reported and left out), or a file could not be read;
 * - 2: usage (an unknown flag, a bad flag value);
 * - 4: planned with problems: not converged, reconcile errors, unplaced
 *   replicas (accepted by `--allow-partial`), False conditions or not-Ready
 *   clusters, gateways or services, a held failover or rollout; with
 *   `--check-survivable`, a single-cluster loss that is not survivable;
 *   the problems are printed first.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../functions/lib/function.js';
import { plan } from './plan/planner.js';
import { buildReport, replicasCost } from './plan/report.js';
import { stateAddresses } from './simulated/providers.js';
import { diffState, formatDiff, loadState, type PlanState, STATE_FILE } from './plan/state.js';
import { controllerUid, groupOf, keyOf } from './objects.js';
import { UserError } from './load.js';
import { formatText } from './plan/text.js';
import { toYaml } from './render/output.js';
import { checkSurvivable, formatSurvival } from './plan/survivable.js';
import { checkRoomAtMax } from './plan/autoscaling.js';

/** Flags of `modelplane plan`. */
export interface PlanFlags {
  output: 'text' | 'json' | 'yaml';
  write?: string;
  rounds: number;
  together?: boolean;
  /** Unplaced replicas do not make the exit code 4. */
  allowPartial?: boolean;
  /** The current fleet (an earlier --write directory, or kubectl get -o yaml output). */
  state?: string[];
  /** Print only what would be created, changed or deleted relative to --state. */
  diff?: boolean;
  /** `--now`: ms since the epoch. */
  now?: number;
  /** `--lose`: InferenceClusters lost once the plan converged. */
  lose?: string[];
  /** `--check-survivable`: every single-cluster loss, one plan each. */
  checkSurvivable?: boolean;
}

/** Exit codes of `modelplane plan` and `modelplane selector`. */
export const EXIT = { ok: 0, invalid: 1, usage: 2, problems: 4 } as const;

/** Marks a directory as written by `modelplane plan --write`, so a later run may replace it. */
export const WRITE_MARKER = '.modelplane-plan';

/** File name of an object inside --write: `<kind>.<group>-<name>.yaml`, lower case (group `core` for the core API). */
function fileName(o: KubeObject): string {
  const group = groupOf(o.apiVersion) || 'core';
  return `${o.kind.toLowerCase()}.${group}-${o.metadata?.name ?? 'unnamed'}.yaml`;
}

/**
 * Writes every composed object as kubectl-applicable YAML, one file per
 * object, in a folder per controlling XR (`<kind>-<namespace>-<name>/`).
 * Status, UIDs and ownerReferences are left out (they belong to the plan's
 * simulated cluster, not to the one you apply to).
 * @throws UserError when `dir` exists, is not empty and was not written by a
 * previous `--write` (nothing of yours is ever deleted).
 */
export function writeComposed(dir: string, objects: readonly KubeObject[]): number {
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory()) throw new UserError(`--write ${dir}: exists and is not a directory; choose a new directory`);
    const entries = readdirSync(dir);
    if (entries.length > 0 && !entries.includes(WRITE_MARKER)) {
      throw new UserError(`--write ${dir}: the directory is not empty and was not written by modelplane plan; choose an empty or new directory`);
    }
    rmSync(dir, { recursive: true, force: true });
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, WRITE_MARKER), 'written by modelplane plan --write; the next --write to this directory replaces it\n');
  // The simulated addresses (status is not written), so `plan --state DIR` keeps them; no .yaml suffix, so kubectl apply -R skips it.
  writeFileSync(join(dir, STATE_FILE), `${JSON.stringify({ addresses: stateAddresses(objects) })}\n`);
  let n = 0;
  for (const { owner, object } of composedForApply(objects)) {
    const folder = join(dir, `${owner.kind.toLowerCase()}-${owner.metadata?.namespace ? `${owner.metadata.namespace}-` : ''}${owner.metadata?.name ?? ''}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, fileName(object)), toYaml(object));
    n++;
  }
  return n;
}

/**
 * Every composed object (one with a controlling XR among `objects`) as
 * `--write` writes it and `--state` reads it back: no status, uid,
 * resourceVersion or ownerReferences (they belong to the plan's simulated
 * cluster, not to the one you apply to), with its controlling XR.
 */
function composedForApply(objects: readonly KubeObject[]): { owner: KubeObject; object: KubeObject }[] {
  const byUid = new Map(objects.map((o) => [o.metadata?.uid, o]));
  const out: { owner: KubeObject; object: KubeObject }[] = [];
  for (const o of objects) {
    const owner = byUid.get(controllerUid(o));
    if (!owner) continue;
    const { status: _s, ...rest } = o;
    const meta = { ...(o.metadata ?? {}) };
    delete meta.uid;
    delete meta['resourceVersion'];
    delete meta['ownerReferences'];
    out.push({ owner, object: { ...rest, metadata: meta } });
  }
  return out;
}

/**
 * The `state` key of `plan -o json|yaml`, which `--state` reads back as a
 * `--write` directory: the composed objects as `--write` writes them and
 * the simulated addresses ({@link PlanState} in cli/plan/state.ts).
 */
export function planState(objects: readonly KubeObject[]): PlanState {
  return { addresses: stateAddresses(objects), objects: composedForApply(objects).map((x) => x.object) };
}

/** Runs the command; returns the exit code. */
export async function runPlan(paths: string[], flags: PlanFlags, io = { out: (s: string) => process.stdout.write(s) }): Promise<number> {
  const tty = process.stderr.isTTY === true;
  if (flags.diff && !flags.state) {
    process.stderr.write('modelplane plan: --diff needs --state: the earlier plan -o json output, --write directory or kubectl get -o yaml output to compare with\n');
    return EXIT.usage;
  }
  const state = flags.state ? loadState(flags.state) : undefined;
  if (state && state.errors.length > 0) {
    throw new UserError(`--state: ${state.errors.map((e) => `${e.file}:${e.line}: ${e.error}`).join('; ')}`);
  }
  if (flags.checkSurvivable && (flags.lose || flags.diff)) {
    process.stderr.write('modelplane plan: --check-survivable loses every cluster in turn; it does not combine with --lose or --diff\n');
    return EXIT.usage;
  }
  const options = {
    ...(state ? { state: state.objects, addresses: state.addresses } : {}),
    rounds: flags.rounds,
    together: flags.together ?? false,
    ...(flags.now !== undefined ? { now: flags.now } : {}),
    ...(tty ? { onRound: (phase: string, round: number, n: number) => process.stderr.write(`\r${phase}: round ${round}, ${n} objects   `) } : {}),
  };
  if (flags.checkSurvivable) {
    const survival = await checkSurvivable(paths, options);
    if (tty) process.stderr.write('\r\x1b[K');
    if (flags.output === 'json') io.out(`${JSON.stringify(survival, null, 2)}\n`);
    else if (flags.output === 'yaml') io.out(toYaml(survival));
    else io.out(formatSurvival(survival));
    if (survival.invalid > 0) return EXIT.invalid;
    return survival.survivable ? EXIT.ok : EXIT.problems;
  }
  const result = await plan(paths, { ...options, ...(flags.lose ? { lose: flags.lose } : {}) });
  if (tty) process.stderr.write('\r\x1b[K');
  const report = buildReport(result, { allowPartial: flags.allowPartial ?? false });
  await checkRoomAtMax(report, paths, options);
  if (flags.diff && state) {
    const composed = result.store.all().filter((o) => controllerUid(o) !== undefined && !result.inputs.has(keyOf(o)));
    const before = state.objects.filter((o) => !result.inputs.has(keyOf(o)));
    const d = diffState(composed, before);
    // What the change adds or saves per hour (docs/placement-policy.md#status-and-cost), when anything is priced.
    const was = replicasCost(state.objects.filter((o) => o.kind === 'ModelReplica'), result.store.all().filter((o) => o.kind === 'InferenceCluster'));
    const now = report.cost?.fleet ?? null;
    const cost = was === null && now === null ? {} : { cost: { before: was, after: now } };
    if (flags.output === 'json') io.out(`${JSON.stringify({ problems: report.problems, ...cost, ...d }, null, 2)}\n`);
    else if (flags.output === 'yaml') io.out(toYaml({ problems: report.problems, ...cost, ...d }));
    else io.out(`${report.problems.map((p) => `problem: ${p}\n`).join('')}${was !== null || now !== null ? `cost: ${was ?? 'unpriced'} -> ${now ?? 'unpriced'}\n` : ''}${formatDiff(d)}`);
  } else if (flags.output === 'json' || flags.output === 'yaml') {
    const full = { ...report, state: planState(result.store.all()) };
    io.out(flags.output === 'json' ? `${JSON.stringify(full, null, 2)}\n` : toYaml(full));
  } else {
    io.out(
      formatText(report, {
        color: process.stdout.isTTY === true,
        skipped: result.skipped,
      }),
    );
  }
  if (flags.write) {
    const n = writeComposed(flags.write, result.store.all());
    process.stderr.write(`wrote ${n} composed objects under ${flags.write}\n`);
  }
  if (report.invalid.length > 0) return EXIT.invalid;
  return report.problems.length > 0 ? EXIT.problems : EXIT.ok;
}
