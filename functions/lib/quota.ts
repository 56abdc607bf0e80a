/**
 * InferenceQuota: what one namespace may hold across the fleet, and what it
 * holds (docs/quotas.md). Shared by compose-inference-quota, which publishes
 * the usage, and the ModelDeployment scheduler, which refuses a new
 * placement that would exceed a limit. Pure: no I/O, no clock, no SDK.
 *
 * Guarantees:
 * - {@link readQuota} reads an InferenceQuota as the API server would admit
 *   it (the generated parser: types, bounds, unknown fields) plus the XRD's
 *   two CEL rules and `matchLabels` minProperties, which the generated parser
 *   does not evaluate; every problem names its field, sorted, never thrown.
 * - A limit with a classSelector takes its class names from the quota's own
 *   `status.limits[]` (compose-inference-quota resolves them, so the
 *   scheduler needs no InferenceClass). Until an entry for that index and that
 *   very selector is published, the limit is `unresolved` and has no
 *   `classNames`: never `[]`, which would mean "counts nothing" and let
 *   every placement through. The scheduler refuses against an unresolved
 *   limit ({@link msgQuotaUnresolved}); {@link usage} counts it over every
 *   class, an upper bound of what it will count once resolved.
 * - {@link usage} reads only the InferenceClusters' published capacity
 *   ledgers (`status.gpuPools[].used.holders[]`), leniently (a field of the
 *   wrong type counts nothing), in one pass over the ledger entries (times
 *   the limits that count each pool, at most 16).
 *
 * What counts (docs/quotas.md#what-counts):
 * - devices of a run of pods = `count` × (the sum of its `devices[].count`,
 *   or, for a `wholeNode` run, the DRA devices one node of the pool
 *   publishes in `gpuPools[].devices`, as the scheduler's capacity does);
 * - a run marked `overCapacity` holds nothing (its pods are Pending; its
 *   scheduler re-places it), so it counts neither devices nor a replica;
 * - replicas = distinct `replica` names among the namespace's holding runs
 *   (ModelReplica names are unique in a namespace); a run that names no
 *   replica counts as one replica of its own. A replica that claims no
 *   device is in no ledger and does not count.
 * - a limit with classNames counts only pools whose `gpuPools[].className`
 *   is one of them; a pool that does not publish its className counts only
 *   for limits without classNames.
 */
import { getPath, type JsonObject, type KubeObject } from './function.js';
import { parseInferenceQuota } from './generated/inferencequotas.js';
import { withoutNulls } from './json.js';
import { compareStrings } from './order.js';
import { fieldPath, issueMessage } from './zod-issues.js';

/** What a limit counts. */
export type QuotaKind = 'devices' | 'replicas';

/** One `spec.limits[]` entry, read. */
export interface QuotaLimit {
  /** Index in `spec.limits`. */
  index: number;
  kind: QuotaKind;
  /** The cap. Unit: devices or replicas, as {@link kind}. */
  limit: number;
  /**
   * Names of the InferenceClasses whose pools this limit counts, sorted
   * (from `status.limits[index].classNames`). Undefined: every class, or,
   * with {@link unresolved}, not known yet. `[]`: the selector matches no
   * class, so the limit counts nothing.
   */
  classNames?: string[];
  /** The classSelector as a label selector (`gpu=h100,tier=prod`, keys sorted); set only when the limit has one. */
  selector?: string;
  /**
   * Set when the limit has a classSelector whose classes are not published
   * in status yet (a new quota, or a selector changed since): refuse
   * conservatively rather than read it as every class or as none.
   */
  unresolved?: true;
}

/** An InferenceQuota, read. */
export interface Quota {
  name: string;
  namespace: string;
  /** In spec order. */
  limits: QuotaLimit[];
}

/** The outcome of {@link readQuota}. */
export type QuotaRead = { ok: true; quota: Quota } | { ok: false; errors: string[] };

/** The XRD's rule message: exactly one of devices and replicas per limit. */
export const MSG_ONE_OF = 'set exactly one of devices or replicas in each limit (write a limit that needs both as two limits)';
/** The XRD's rule message: a classSelector only on a devices limit. */
export const MSG_SELECTOR_DEVICES = 'classSelector applies only to a devices limit (set devices instead of replicas, or remove classSelector)';
/** `matchLabels` minProperties 1, in the generated parser's wording. */
export const MSG_EMPTY_SELECTOR = 'must have at least 1 property (omit classSelector to count every class)';
/** A quota without a name or namespace (the API server always sets both). */
export const MSG_NO_NAME = 'Required: an InferenceQuota is named';
export const MSG_NO_NAMESPACE = 'Required: an InferenceQuota is namespaced';

const isObj = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `{tier: prod, gpu: h100}` → `gpu=h100,tier=prod`: a label selector's text, keys sorted. */
export function selectorString(matchLabels: Readonly<Record<string, string>>): string {
  return Object.keys(matchLabels)
    .sort(compareStrings)
    .map((k) => `${k}=${matchLabels[k]}`)
    .join(',');
}

/** The problems the XRD's CEL rules (and matchLabels minProperties) find in `spec.limits`, the generated parser not evaluating them. */
function ruleProblems(limits: unknown): string[] {
  if (!Array.isArray(limits)) return [];
  const out: string[] = [];
  limits.forEach((l: unknown, i) => {
    if (!isObj(l)) return;
    const at = `spec.limits[${i}]`;
    if ((l['devices'] !== undefined) === (l['replicas'] !== undefined)) out.push(`${at}: ${MSG_ONE_OF}`);
    if (l['classSelector'] !== undefined && l['devices'] === undefined) out.push(`${at}: ${MSG_SELECTOR_DEVICES}`);
    const labels = getPath(l, 'classSelector', 'matchLabels');
    if (isObj(labels) && Object.keys(labels).length === 0) out.push(`${at}.classSelector.matchLabels: ${MSG_EMPTY_SELECTOR}`);
  });
  return out;
}

/** The published class names of limit `index` resolved from `selector`, sorted; undefined when none are published for it. */
function publishedClasses(status: unknown, index: number, selector: string): string[] | undefined {
  const entries = getPath(status, 'limits');
  if (!Array.isArray(entries)) return undefined;
  for (const e of entries) {
    if (!isObj(e) || e['index'] !== index) continue;
    const names = e['classNames'];
    if (e['selector'] !== selector || !Array.isArray(names) || !names.every((n) => typeof n === 'string')) return undefined;
    return [...new Set(names as string[])].sort(compareStrings);
  }
  return undefined;
}

/**
 * Reads an InferenceQuota: its spec as the API server admits it, and the
 * class names its function published for each classSelector (see the module
 * header for `unresolved`). Errors are `<field>: <problem>`, sorted and
 * deduplicated, e.g. `spec.limits[0]: set exactly one of devices or replicas
 * in each limit (…)`. Never throws.
 */
export function readQuota(xr: KubeObject): QuotaRead {
  const { status, ...rest } = xr;
  const plain = withoutNulls(rest);
  const parsed = parseInferenceQuota(plain);
  const errors: string[] = [];
  if (!parsed.success) for (const issue of parsed.error.issues) errors.push(`${fieldPath('', issue.path)}: ${issueMessage(issue)}`);
  errors.push(...ruleProblems(getPath(plain, 'spec', 'limits')));
  const name = xr.metadata?.name;
  const namespace = xr.metadata?.namespace;
  if (typeof name !== 'string' || name === '') errors.push(`metadata.name: ${MSG_NO_NAME}`);
  if (typeof namespace !== 'string' || namespace === '') errors.push(`metadata.namespace: ${MSG_NO_NAMESPACE}`);
  if (errors.length > 0 || !parsed.success) return { ok: false, errors: [...new Set(errors)].sort(compareStrings) };
  const limits = parsed.data.spec.limits.map((l, index): QuotaLimit => {
    if (l.replicas !== undefined) return { index, kind: 'replicas', limit: l.replicas };
    const limit: QuotaLimit = { index, kind: 'devices', limit: l.devices ?? 0 };
    if (l.classSelector === undefined) return limit;
    const selector = selectorString(l.classSelector.matchLabels);
    const classNames = publishedClasses(status, index, selector);
    return classNames === undefined ? { ...limit, selector, unresolved: true } : { ...limit, selector, classNames };
  });
  return { ok: true, quota: { name: name as string, namespace: namespace as string, limits } };
}

/**
 * True when `limit` counts what is held in a pool of class `className`
 * (undefined: the pool publishes no className). An unresolved limit counts
 * every pool (an upper bound; the scheduler refuses against it anyway).
 */
export function limitCounts(limit: QuotaLimit, className: string | undefined): boolean {
  if (limit.classNames === undefined) return true;
  return className !== undefined && limit.classNames.includes(className);
}

/** A non-negative whole number from a ledger field, else 0 (lenient, as the scheduler's ledger reader). */
function whole(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0;
}

/**
 * The devices one node of a pool offers to a whole-node pod: the `count` of
 * every `gpuPools[].devices[]` entry claimed through DRA (`claim` DRA or
 * omitted), as the scheduler's capacity counts them. Unit: devices.
 */
export function devicesPerNode(pool: unknown): number {
  const devices = getPath(pool, 'devices');
  if (!Array.isArray(devices)) return 0;
  let n = 0;
  for (const d of devices) if (isObj(d) && (d['claim'] ?? 'DRA') === 'DRA') n += whole(d['count']);
  return n;
}

/**
 * What namespace `namespace` holds of each limit, per the clusters' published
 * ledgers (see the module header for what counts), in the order of
 * `limits`: devices for a devices limit, distinct replicas for a replicas
 * limit (with classNames: those holding in pools of those classes). Holders
 * of `exclude.deployment` (in that namespace) are skipped: the scheduler
 * counts its own deployment's replicas itself. Units: devices or replicas.
 */
export function usage(
  clusters: readonly KubeObject[],
  namespace: string,
  limits: readonly QuotaLimit[],
  exclude?: { deployment: string },
): number[] {
  const used = limits.map(() => 0);
  const replicas = limits.map((l) => (l.kind === 'replicas' ? new Set<string>() : undefined));
  let unnamed = 0;
  for (const cluster of clusters) {
    // Plain property reads, not getPath: the scheduler runs this over every pool of the fleet on every call.
    const status = cluster['status'];
    const pools = isObj(status) ? status['gpuPools'] : undefined;
    if (!Array.isArray(pools)) continue;
    for (const pool of pools) {
      if (!isObj(pool)) continue;
      const ledger = pool['used'];
      const holders = isObj(ledger) ? ledger['holders'] : undefined;
      if (!Array.isArray(holders) || holders.length === 0) continue;
      const className = typeof pool['className'] === 'string' && pool['className'] !== '' ? pool['className'] : undefined;
      const counting: number[] = [];
      limits.forEach((l, i) => {
        if (limitCounts(l, className)) counting.push(i);
      });
      if (counting.length === 0) continue;
      let perNode: number | undefined;
      for (const h of holders) {
        if (!isObj(h) || h['namespace'] !== namespace) continue;
        if (exclude !== undefined && h['deployment'] === exclude.deployment) continue;
        const pods = h['pods'];
        if (!Array.isArray(pods)) continue;
        for (const run of pods) {
          if (!isObj(run) || run['overCapacity'] === true) continue;
          const count = whole(run['count']);
          if (count === 0) continue;
          let each: number;
          if (run['wholeNode'] === true) each = perNode ??= devicesPerNode(pool);
          else {
            each = 0;
            const devices = run['devices'];
            if (Array.isArray(devices)) for (const d of devices) if (isObj(d)) each += whole(d['count']);
          }
          const replica = typeof run['replica'] === 'string' && run['replica'] !== '' ? run['replica'] : `\u0000${unnamed++}`;
          for (const i of counting) {
            const set = replicas[i];
            if (set !== undefined) set.add(replica);
            else used[i]! += count * each;
          }
        }
      }
    }
  }
  return used.map((n, i) => replicas[i]?.size ?? n);
}

/** `8 devices`, `1 replica`: a count and its unit. */
function units(n: number, kind: QuotaKind): string {
  return `${n} ${n === 1 ? kind.slice(0, -1) : kind}`;
}

/**
 * A limit in words: `8 devices`, `10 replicas`, `2 devices of class h100-8x`,
 * `2 devices of classes a100-8x, h100-8x`, `2 devices of the classes matching
 * gpu=h100 (not resolved yet)`, `2 devices of classes matching gpu=h100 (none)`.
 */
export function describeLimit(limit: QuotaLimit): string {
  const base = units(limit.limit, limit.kind);
  if (limit.unresolved) return `${base} of the classes matching ${limit.selector ?? ''} (not resolved yet)`;
  if (limit.classNames === undefined) return base;
  if (limit.classNames.length === 0) return `${base} of classes matching ${limit.selector ?? ''} (none)`;
  return `${base} of class${limit.classNames.length === 1 ? '' : 'es'} ${limit.classNames.join(', ')}`;
}

/**
 * Why a new replica is refused: `InferenceQuota ml-team/team-quota
 * limits[0]: 8 devices; the namespace holds 6 and this replica needs 4`.
 * @param quota `<namespace>/<name>` of the quota
 * @param used what the namespace holds of the limit ({@link usage}). Unit: the limit's.
 * @param want what the replica adds to it. Unit: the limit's.
 */
export function msgQuotaExceeded(quota: string, limit: QuotaLimit, used: number, want: number): string {
  return `InferenceQuota ${quota} limits[${limit.index}]: ${describeLimit(limit)}; the namespace holds ${used} and this replica needs ${want}`;
}

/**
 * Why a new replica is refused against an unresolved limit:
 * `InferenceQuota ml-team/team-quota limits[1]: the InferenceClasses matching
 * gpu=h100 are not resolved yet (status.limits[1].classNames); no replica is
 * placed against it until they are`.
 */
export function msgQuotaUnresolved(quota: string, limit: QuotaLimit): string {
  return `InferenceQuota ${quota} limits[${limit.index}]: the InferenceClasses matching ${limit.selector ?? ''} are not resolved yet (status.limits[${limit.index}].classNames); no replica is placed against it until they are`;
}

/**
 * A limit the namespace holds more of than it allows (the quota was lowered,
 * or replicas were placed before it existed): `spec.limits[0] (8 devices):
 * the namespace holds 10; nothing running is removed, new placements it
 * counts are refused while it is over`.
 * @param used what the namespace holds of it. Unit: the limit's.
 */
export function msgOverQuota(limit: QuotaLimit, used: number): string {
  return `spec.limits[${limit.index}] (${describeLimit(limit)}): the namespace holds ${used}; nothing running is removed, new placements it counts are refused while it is over`;
}
