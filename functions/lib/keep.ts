/**
 * The hold path every composition function shares: input that cannot be
 * composed now (a spec that does not parse, a URL that cannot be routed to,
 * a decode port that collides) is reported, and nothing is torn down.
 *
 * Guarantees of {@link keepAndWarn}:
 * - Every observed composed resource is passed through as desired (by
 *   default through `keepObserved`), so Crossplane deletes nothing that was
 *   already composed because an input was briefly missing or invalid
 *   (docs/design.md#keep-what-exists; Crossplane deletes every composed
 *   resource a function stops returning, docs/composition.md#the-response).
 * - The problem is said twice with the same text: the condition the function
 *   owns is set False with the given reason, and a Warning result (an event on
 *   the XR) carries the message, so `kubectl describe` and
 *   `status.conditions` agree.
 * - Conditions and results are appended, never replaced: a caller may add
 *   its other conditions before or after, in the order it documents.
 */
import {
  type ComposeResult,
  condition,
  type DesiredResource,
  keepObserved,
  type ObservedResource,
  warning,
} from './function.js';

/** Why a function holds: the condition it sets False and the Warning it emits. */
export interface Hold {
  /** Condition type set False, e.g. `RoutingReady`. */
  type: string;
  /** PascalCase reason of the condition, e.g. `InvalidURL`. */
  reason: string;
  /** Names the field and the fix: the condition's message and the Warning's text. */
  message: string;
  /**
   * Sets `reason` on the Warning result too. Unset, the event carries
   * Crossplane's default reason `ComposeResources`.
   * @default false
   */
  warningReason?: boolean;
}

/** How observed children become desired on a hold path. @default keepObserved */
export type Keep = (observed: Record<string, ObservedResource>) => Record<string, DesiredResource>;

/**
 * Fills `result` for a hold: `resources` becomes every observed child kept
 * (replacing whatever `result.resources` held), condition `hold.type` False
 * with `hold.reason` and `hold.message` is appended, and a Warning with
 * `hold.message` is appended. Returns `result`.
 */
export function keepAndWarn(
  result: ComposeResult,
  observed: Record<string, ObservedResource>,
  hold: Hold,
  keep: Keep = keepObserved,
): ComposeResult {
  result.resources = keep(observed);
  result.conditions.push(condition(hold.type, false, hold.reason, hold.message));
  result.results.push(hold.warningReason ? warning(hold.message, hold.reason) : warning(hold.message));
  return result;
}
