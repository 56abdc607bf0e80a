/**
 * The measured cold start of a ModelReplica (`status.startup`,
 * docs/design.md#production-runtime): how long its engine workloads took to become
 * available, from what the cluster reports, never from the function's clock.
 *
 * Guarantees:
 * - Read from the observed provider-kubernetes Objects of the workloads
 *   (`model-serving-<engine>`): the remote manifest as observed,
 *   `status.atProvider.manifest`. `startedAt` = the earliest
 *   `metadata.creationTimestamp`; `readyAt` = the latest `lastTransitionTime`
 *   of condition `Available` with status `True` (apps/v1 Deployment and
 *   LeaderWorkerSet both publish it), set only once EVERY workload is
 *   Available; `seconds` = readyAt − startedAt, whole seconds, floored at 0.
 * - Undefined when no workload reports a creationTimestamp yet; `startedAt`
 *   alone while some workload is not Available.
 * - A timestamp that does not parse as RFC 3339 is ignored (as if absent).
 */
import { getPath, type JsonObject, type ComposeRequest } from '../lib/function.js';

/** `status.startup` of a ModelReplica. */
export interface Startup {
  /** RFC 3339, as observed. */
  startedAt: string;
  /** RFC 3339, as observed; absent until every workload is Available. */
  readyAt?: string;
  /** readyAt − startedAt in whole seconds; with readyAt only. */
  seconds?: number;
}

function time(v: unknown): { text: string; ms: number } | undefined {
  if (typeof v !== 'string') return undefined;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? undefined : { text: v, ms };
}

/** The lastTransitionTime of `Available=True` on a remote manifest, or undefined. */
function availableSince(manifest: unknown): { text: string; ms: number } | undefined {
  const conditions = getPath(manifest, 'status', 'conditions');
  if (!Array.isArray(conditions)) return undefined;
  const c = conditions.find((x): x is JsonObject => getPath(x, 'type') === 'Available' && getPath(x, 'status') === 'True');
  return c === undefined ? undefined : time(c['lastTransitionTime']);
}

/** The replica's startup from the observed workloads under `keys`, or undefined before any was created. */
export function observedStartup(req: ComposeRequest, keys: readonly string[]): Startup | undefined {
  let started: { text: string; ms: number } | undefined;
  let ready: { text: string; ms: number } | undefined;
  let allAvailable = keys.length > 0;
  for (const key of keys) {
    const manifest = getPath(req.observed[key]?.resource, 'status', 'atProvider', 'manifest');
    const created = time(getPath(manifest, 'metadata', 'creationTimestamp'));
    if (created !== undefined && (started === undefined || created.ms < started.ms)) started = created;
    const available = availableSince(manifest);
    if (available === undefined) allAvailable = false;
    else if (ready === undefined || available.ms > ready.ms) ready = available;
  }
  if (started === undefined) return undefined;
  if (!allAvailable || ready === undefined) return { startedAt: started.text };
  return { startedAt: started.text, readyAt: ready.text, seconds: Math.max(0, Math.floor((ready.ms - started.ms) / 1000)) };
}
