/**
 * Status conditions as the dev runtime writes them: compared without their
 * timestamps, so an unchanged condition is never written again (a settled
 * control plane stays quiet), and an updated list keeps every condition it
 * does not own.
 */
import type { JsonObject } from '../../../functions/lib/function.js';

/** A status condition (`type`, `status`, `reason`, optional `message`). */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message?: string;
  lastTransitionTime?: string;
}

/** The conditions of an object's status. */
export function conditionsOf(status: unknown): Condition[] {
  const c = (status as JsonObject | undefined)?.['conditions'];
  return Array.isArray(c) ? (c as unknown as Condition[]) : [];
}

function same(a: Condition | undefined, b: Condition): boolean {
  return a !== undefined && a.status === b.status && a.reason === b.reason && (a.message ?? '') === (b.message ?? '');
}

/** True when every wanted condition is present with the same status, reason and message. */
export function hasConditions(current: readonly Condition[], wanted: readonly Condition[]): boolean {
  return wanted.every((w) => same(current.find((c) => c.type === w.type), w));
}

/**
 * `current` with each wanted condition set (others kept, order kept, new ones
 * appended); an unchanged condition keeps its `lastTransitionTime`, a
 * changed one gets `now`.
 */
export function mergeConditions(current: readonly Condition[], wanted: readonly Condition[], now: string): Condition[] {
  const out = current.map((c) => ({ ...c }));
  for (const w of wanted) {
    const i = out.findIndex((c) => c.type === w.type);
    const prior = i >= 0 ? out[i] : undefined;
    const next: Condition = { ...w, lastTransitionTime: same(prior, w) ? (prior!.lastTransitionTime ?? now) : now };
    if (i >= 0) out[i] = next;
    else out.push(next);
  }
  return out;
}
