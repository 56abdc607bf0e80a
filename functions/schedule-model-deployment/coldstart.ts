/**
 * The cold-start bar of a ModelDeployment (docs/design.md#production-runtime):
 * `status.coldStart` aggregated from the placed replicas' measured
 * `status.startup`, and, with `serving.readyWithin`, condition
 * `ColdStartWithinBar`.
 *
 * Guarantees:
 * - The deployment publishes `status.coldStart` once a replica has been
 *   measured or a bar is set (compose.ts), so an unmeasured deployment's
 *   status is unchanged.
 * - Only observed measurements are used (each ModelReplica's
 *   `status.startup.seconds`, itself from the workload's own timestamps);
 *   nothing here reads a clock, so a replica still starting is "not measured
 *   yet", never "slow so far".
 * - `p50Seconds` is the lower median (sorted[⌊(n−1)/2⌋]), `maxSeconds` the
 *   slowest; both omitted with no measurement. `modelSource` is `Cache` when
 *   the deployment references a ModelCache, else `Direct`; `sizeGiB` is the
 *   cache's `spec.huggingFace.sizeGiB` when known.
 * - `ColdStartWithinBar`: False `SlowerThanBar` as soon as one measured
 *   replica exceeds the bar; True `WithinBar` when every placed replica is
 *   measured within it; otherwise Unknown `Measuring`. The message carries the
 *   numbers: `3 engines, 140Gi from cache, slowest ready in 6m12s, bar 10m`.
 * - An unparsable bar (the XRD's pattern normally rejects it) is False
 *   `InvalidBar` naming the field.
 */
import { type Condition, condition, getPath, type JsonObject, type KubeObject } from '../lib/function.js';

/** Condition type and reasons. */
export const TYPE_COLD_START = 'ColdStartWithinBar';
export const COLD_START_REASON = {
  WithinBar: 'WithinBar',
  SlowerThanBar: 'SlowerThanBar',
  Measuring: 'Measuring',
  InvalidBar: 'InvalidBar',
} as const;

const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600 };

/** A Go duration (`10m`, `1h30m`, `90s`, `1.5h`) in seconds, or undefined when it does not parse. */
export function parseDuration(text: string): number | undefined {
  if (!/^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$/.test(text)) return undefined;
  let total = 0;
  for (const m of text.matchAll(/([0-9]+(?:\.[0-9]+)?)(ms|s|m|h)/g)) total += Number(m[1]) * UNIT_SECONDS[m[2]!]!;
  return total;
}

/** Seconds as a Go-style duration: `372` → `6m12s`, `3600` → `1h0m0s`, `45` → `45s`. */
export function formatSeconds(total: number): string {
  const s = Math.max(0, Math.floor(total));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (h > 0) return `${h}h${m}m${sec}s`;
  if (m > 0) return `${m}m${sec}s`;
  return `${sec}s`;
}

/** What the aggregate needs to know. */
export interface ColdStartInput {
  /** The observed ModelReplica of each placed replica (undefined: not observed yet). */
  replicas: readonly (KubeObject | undefined)[];
  /** True when the deployment mounts a ModelCache. */
  fromCache: boolean;
  /** The cache's size, when known. */
  sizeGiB?: number | undefined;
  /** `serving.readyWithin` as written. */
  readyWithin?: string | undefined;
}

/** The measured seconds of one observed ModelReplica, or undefined. */
export function measuredSeconds(r: KubeObject | undefined): number | undefined {
  const s = getPath(r, 'status', 'startup', 'seconds');
  return typeof s === 'number' && Number.isFinite(s) && s >= 0 ? s : undefined;
}

function engines(n: number): string {
  return `${n} engine${n === 1 ? '' : 's'}`;
}

/** `status.coldStart` and, with a bar, the `ColdStartWithinBar` condition. */
export function coldStart(input: ColdStartInput): { status: JsonObject; condition?: Condition } {
  const seconds = input.replicas.map(measuredSeconds).filter((s): s is number => s !== undefined).sort((a, b) => a - b);
  const status: JsonObject = { replicas: seconds.length, modelSource: input.fromCache ? 'Cache' : 'Direct' };
  if (seconds.length > 0) {
    status['p50Seconds'] = seconds[Math.floor((seconds.length - 1) / 2)];
    status['maxSeconds'] = seconds[seconds.length - 1];
  }
  if (input.fromCache && input.sizeGiB !== undefined) status['sizeGiB'] = input.sizeGiB;
  if (input.readyWithin === undefined) return { status };

  const bar = parseDuration(input.readyWithin);
  if (bar === undefined) {
    return {
      status,
      condition: condition(
        TYPE_COLD_START,
        false,
        COLD_START_REASON.InvalidBar,
        `spec.template.spec.serving.readyWithin: ${JSON.stringify(input.readyWithin)} is not a duration such as 10m or 1h30m`,
      ),
    };
  }
  const source = input.fromCache ? (input.sizeGiB !== undefined ? `${input.sizeGiB}Gi from cache` : 'from cache') : 'pulled directly';
  const placed = input.replicas.length;
  if (seconds.length === 0) {
    return { status, condition: condition(TYPE_COLD_START, 'Unknown', COLD_START_REASON.Measuring, `0 of ${engines(placed)} ready yet, ${source}, bar ${input.readyWithin}`) };
  }
  const max = seconds[seconds.length - 1]!;
  const head = seconds.length === placed ? engines(placed) : `${seconds.length} of ${engines(placed)} ready`;
  const message = `${head}, ${source}, slowest ready in ${formatSeconds(max)}, bar ${input.readyWithin}`;
  if (max > bar) return { status, condition: condition(TYPE_COLD_START, false, COLD_START_REASON.SlowerThanBar, message) };
  if (seconds.length < placed) return { status, condition: condition(TYPE_COLD_START, 'Unknown', COLD_START_REASON.Measuring, message) };
  return { status, condition: condition(TYPE_COLD_START, true, COLD_START_REASON.WithinBar, message) };
}
