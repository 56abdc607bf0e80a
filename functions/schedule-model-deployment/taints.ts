/**
 * Taints and tolerations between InferenceClusters and ModelDeployments
 * (docs/kinds/modeldeployment.md#taints-and-tolerations), with Kubernetes core/v1 `Toleration.ToleratesTaint`
 * semantics restricted to the two effects clusters can carry.
 *
 * Guarantees:
 * - A toleration matches a taint when its effect is empty or equal, and either
 *   operator Exists with an empty or equal key, or operator Equal (default)
 *   with an equal key and equal value ("" when absent).
 * - An untolerated NoSchedule or NoExecute taint blocks new replicas; an
 *   untolerated NoExecute taint also drains existing ones. Tolerating one
 *   taint never covers another.
 */
import type { Taint, Toleration } from '../lib/fleet/model.js';

/** True when `t` tolerates `taint`. */
export function tolerates(t: Toleration, taint: Taint): boolean {
  if (t.effect !== undefined && t.effect !== taint.effect) return false;
  if (t.operator === 'Exists') return (t.key ?? '') === '' || t.key === taint.key;
  return t.key === taint.key && (t.value ?? '') === (taint.value ?? '');
}

/** The taints of a cluster no toleration covers, sorted by (key, effect). */
export function untolerated(taints: readonly Taint[], tolerations: readonly Toleration[]): Taint[] {
  return taints
    .filter((taint) => !tolerations.some((t) => tolerates(t, taint)))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.effect < b.effect ? -1 : a.effect > b.effect ? 1 : 0));
}

/** A taint as kubectl prints it: `key=value:Effect`, or `key:Effect` without a value. */
export function formatTaint(t: Taint): string {
  return t.value ? `${t.key}=${t.value}:${t.effect}` : `${t.key}:${t.effect}`;
}
