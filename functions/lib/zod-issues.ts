/**
 * Turns zod issues from the generated XR parsers (functions/lib/generated/)
 * into one user-facing message: `<field path>: <problem>` per issue, sorted,
 * joined with "; ", so the same invalid input always gives the same text.
 * Field paths use Kubernetes' notation: `spec.nodePools[0].className`.
 *
 * Guarantees: the text does not depend on the order of the input's keys
 * (unrecognized keys are listed sorted) and stays bounded however broken the
 * input is (at most {@link MAX_KEYS} keys per issue and {@link MAX_ISSUES}
 * issues, the rest counted).
 */
import type { z } from 'zod';

/** Most unrecognized keys named in one issue. */
export const MAX_KEYS = 5;
/** Most issues named in one message. */
export const MAX_ISSUES = 10;

/** `spec` + `['nodePools', 0, 'name']` → `spec.nodePools[0].name`. */
export function fieldPath(prefix: string, path: readonly PropertyKey[]): string {
  let out = prefix;
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out === '' ? String(p) : `.${String(p)}`;
  return out;
}

/** One issue's problem, with input-order-dependent parts made canonical. */
export function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') {
    const keys = [...issue.keys].sort();
    const shown = keys.slice(0, MAX_KEYS).map((k) => JSON.stringify(k));
    const more = keys.length > MAX_KEYS ? ` and ${keys.length - MAX_KEYS} more` : '';
    return `Unrecognized key${keys.length === 1 ? '' : 's'}: ${shown.join(', ')}${more}`;
  }
  return issue.message;
}

/** Every issue as `<prefix><path>: <message>`, sorted, deduplicated and joined with "; " (at most {@link MAX_ISSUES}). */
export function formatZodIssues(prefix: string, error: z.ZodError): string {
  return formatIssues(prefix, error.issues);
}

/** {@link formatZodIssues} over a list of issues (e.g. some of an error's). */
export function formatIssues(prefix: string, issues: readonly z.core.$ZodIssue[]): string {
  const all = [...new Set(issues.map((i) => `${fieldPath(prefix, i.path)}: ${issueMessage(i)}`))].sort();
  const shown = all.slice(0, MAX_ISSUES);
  if (all.length > MAX_ISSUES) shown.push(`and ${all.length - MAX_ISSUES} more problems`);
  return shown.join('; ');
}
