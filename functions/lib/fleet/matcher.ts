/**
 * The seam between the scheduler and a CEL implementation of DRA device
 * selectors (docs/kinds/modeldeployment.md#device-selectors).
 *
 * Guarantees a {@link DeviceMatcher} must give the scheduler:
 * - `compile` never throws: a selector that does not compile (or exceeds the
 *   Kubernetes cost limits, docs/design.md#cel-as-kubernetes-enforces-it) is `{ok: false, error}`
 *   with the compiler's message;
 * - `matches` never throws and is true only when the selector evaluates to the
 *   boolean `true` (an evaluation error or a non-bool is a non-match);
 * - `device` converts a published pool device into whatever `matches` reads;
 *   the scheduler calls it at most once per device per call.
 */
import type { PoolDevice } from './model.js';

/** A compiled selector or why it does not compile. */
export type CompileOutcome<S> = { ok: true; selector: S } | { ok: false; error: string };

/** A CEL implementation of DRA device selectors. */
export interface DeviceMatcher<S = unknown, D = unknown> {
  /** Compiles one selector (implementations cache by source). */
  compile(source: string): CompileOutcome<S>;
  /** The CEL view of a published device. */
  device(device: PoolDevice): D;
  /** True only when `selector` evaluates to boolean true for `device`. */
  matches(selector: S, device: D): boolean;
  /**
   * Why `selector` errors on `device` (e.g. `no such key: sharingStrategy`),
   * or undefined when it evaluates (true or false). Called only to explain a
   * failed placement.
   */
  error?(selector: S, device: D): string | undefined;
}
