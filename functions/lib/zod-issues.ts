/**
 * Turns zod issues from the generated XR parsers (functions/lib/generated/)
 * into one user-facing message: `<field path>: <problem>` per issue, sorted,
 * joined with "; ", so the same invalid input always gives the same text.
 * Field paths use Kubernetes' notation: `spec.nodePools[0].className`.
 */
import type { z } from 'zod';

/** `spec` + `['nodePools', 0, 'name']` → `spec.nodePools[0].name`. */
export function fieldPath(prefix: string, path: readonly PropertyKey[]): string {
  let out = prefix;
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out === '' ? String(p) : `.${String(p)}`;
  return out;
}

/** Every issue as `<prefix><path>: <message>`, sorted and joined with "; ". */
export function formatZodIssues(prefix: string, error: z.ZodError): string {
  return error.issues
    .map((i) => `${fieldPath(prefix, i.path)}: ${i.message}`)
    .sort()
    .join('; ');
}
