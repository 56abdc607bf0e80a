/**
 * Warm-up in status (docs/design.md#production-runtime): ModelReplica `status.phase` and
 * `status.phaseSince`, from the observed engine workloads.
 *
 * Phases:
 * - `Pending`: composed, no workload observed with its manifest applied on
 *   the cluster yet.
 * - `Starting`: every workload is applied, not all are available, and the
 *   replica has not served yet: pulling the image, downloading weights,
 *   compiling kernels or loading the model (a pod can be Running meanwhile;
 *   the startup probe of lifecycle.ts is what ends it).
 * - `Serving`: every workload is applied and available (Ready).
 * - `Degraded`: was `Serving` (or `Degraded`) by the XR's own observed status,
 *   and now not every workload is available.
 *
 * `phaseSince` (RFC 3339) comes from observed timestamps only, never a clock:
 * unchanged phase → the observed `status.phaseSince`; otherwise the latest
 * `lastTransitionTime` of the workload Objects' `Ready` conditions that made
 * the phase (True for Serving, False for Starting/Degraded), else the latest
 * workload Object's `creationTimestamp` (Starting), else the XR's own
 * `creationTimestamp` (Pending); omitted when none is observed.
 */
import { type ComposeRequest, getPath, isReady, type JsonObject, type KubeObject } from '../lib/function.js';

/** The phases, in the order a replica moves through them. */
export const PHASES = ['Pending', 'Starting', 'Serving', 'Degraded'] as const;
/** A ModelReplica phase. */
export type Phase = (typeof PHASES)[number];

function appliedManifest(o: KubeObject | undefined): boolean {
  const m = getPath(o, 'status', 'atProvider', 'manifest');
  return typeof m === 'object' && m !== null && Object.keys(m).length > 0;
}

function readyTransition(o: KubeObject | undefined, status: 'True' | 'False'): string | undefined {
  const conditions = getPath(o, 'status', 'conditions');
  if (!Array.isArray(conditions)) return undefined;
  for (const c of conditions as unknown[]) {
    // Garbage entries (null, strings, lists) are no condition: skipped, never dereferenced.
    if (typeof c !== 'object' || c === null || Array.isArray(c)) continue;
    if ((c as JsonObject)['type'] === 'Ready' && (c as JsonObject)['status'] === status && typeof (c as JsonObject)['lastTransitionTime'] === 'string') {
      return (c as JsonObject)['lastTransitionTime'] as string;
    }
  }
  return undefined;
}

function latest(times: (string | undefined)[]): string | undefined {
  const ok = times.filter((t): t is string => typeof t === 'string' && t !== '' && !Number.isNaN(Date.parse(t)));
  if (ok.length === 0) return undefined;
  return ok.reduce((a, b) => (Date.parse(b) > Date.parse(a) ? b : a));
}

/** The phase of a replica whose engine workloads have the desired keys `keys`. */
export function replicaPhase(req: ComposeRequest, keys: readonly string[]): Phase {
  const objects = keys.map((k) => req.observed[k]?.resource);
  if (keys.length === 0 || !objects.every((o) => appliedManifest(o))) return wasServing(req) ? 'Degraded' : 'Pending';
  if (objects.every((o) => isReady(o))) return 'Serving';
  return wasServing(req) ? 'Degraded' : 'Starting';
}

function previous(req: ComposeRequest): { phase?: string; since?: string } {
  const phase = getPath(req.composite, 'status', 'phase');
  const since = getPath(req.composite, 'status', 'phaseSince');
  return {
    ...(typeof phase === 'string' ? { phase } : {}),
    ...(typeof since === 'string' ? { since } : {}),
  };
}

function wasServing(req: ComposeRequest): boolean {
  const p = previous(req).phase;
  return p === 'Serving' || p === 'Degraded';
}

/** When `phase` began, from observed timestamps (see the module doc), or undefined. */
export function phaseSince(req: ComposeRequest, keys: readonly string[], phase: Phase): string | undefined {
  const prev = previous(req);
  if (prev.phase === phase && prev.since !== undefined) return prev.since;
  const objects = keys.map((k) => req.observed[k]?.resource).filter((o): o is KubeObject => o !== undefined);
  const created = (o: KubeObject | undefined) => {
    const t = o?.metadata?.['creationTimestamp'];
    return typeof t === 'string' ? t : undefined;
  };
  switch (phase) {
    case 'Serving':
      return latest(objects.map((o) => readyTransition(o, 'True')));
    case 'Degraded':
      return latest(objects.map((o) => readyTransition(o, 'False')));
    case 'Starting':
      return latest(objects.map((o) => readyTransition(o, 'False'))) ?? latest(objects.map(created));
    case 'Pending':
      return created(req.composite);
  }
}

/** The `status` fields of the phase: `{phase, phaseSince?}`. */
export function phaseStatus(req: ComposeRequest, keys: readonly string[]): JsonObject {
  const phase = replicaPhase(req, keys);
  const since = phaseSince(req, keys, phase);
  return since === undefined ? { phase } : { phase, phaseSince: since };
}

/** The observed phase fields, unchanged (for a call that cannot read the spec). */
export function keptPhaseStatus(req: ComposeRequest): JsonObject {
  const prev = previous(req);
  const out: JsonObject = {};
  if (prev.phase !== undefined) out['phase'] = prev.phase;
  if (prev.since !== undefined) out['phaseSince'] = prev.since;
  return out;
}
