/**
 * The production {@link DeviceMatcher}: DRA device selectors evaluated by the
 * project's CEL library (`functions/lib/cel/`, model-side.md §4).
 *
 * TEMPORARY: the CEL library is being written in parallel (issue #4). Until it
 * is committed this matcher refuses every selector with a clear message, so
 * the function reports InvalidNodeSelector and keeps what it composed rather
 * than guessing; the scheduler itself is tested through a stub matcher.
 */
import type { DeviceMatcher } from './matcher.js';

/** Message while the CEL library is missing. */
export const MSG_NO_CEL = 'the CEL library (functions/lib/cel) is not available in this build';

/** Compiles and evaluates selectors with functions/lib/cel. */
export const celMatcher: DeviceMatcher = {
  compile: () => ({ ok: false, error: MSG_NO_CEL }),
  device: (d) => d,
  matches: () => false,
};
