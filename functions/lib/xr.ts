/**
 * Reading a function's own XR: every core reads its composite through the
 * generated parser of its XRD (functions/lib/generated/), which applies the
 * XRD's defaults, checks types, enums and bounds, rejects unknown fields and
 * evaluates the XRD's CEL rules, so a core never acts on input the API server
 * would refuse, and says which field is wrong instead of failing on it.
 *
 * Guarantees:
 * - `status` is left out of the parse: the function writes it, and a garbage
 *   status must never stop the function from writing a good one again;
 * - fields set to `null` are dropped first, as the API server prunes the null
 *   values of non-nullable fields before defaulting (no XRD of ours declares
 *   `nullable`); a `null` list entry stays, and is an error;
 * - the problem text names every field (`spec.engines[0].name: Required`),
 *   sorted, bounded and independent of key order (zod-issues.ts);
 * - never throws.
 */
import type { z } from 'zod';
import type { KubeObject } from './function.js';
import { withoutNulls } from './json.js';
import { formatZodIssues } from './zod-issues.js';

/** A generated parse helper (`parseModelReplica`, …). */
export type XrParser<T> = (obj: unknown) => { success: true; data: T } | { success: false; error: z.ZodError };

/** The outcome of {@link readComposite}. */
export type CompositeRead<T> = { ok: true; xr: T } | { ok: false; problem: string };

/** Parses the observed XR (status left out) with its generated parser. */
export function readComposite<T>(xr: KubeObject, parse: XrParser<T>): CompositeRead<T> {
  const { status: _status, ...rest } = xr;
  const r = parse(withoutNulls(rest));
  return r.success ? { ok: true, xr: r.data } : { ok: false, problem: formatZodIssues('', r.error) };
}
