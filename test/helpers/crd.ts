/**
 * Validating composed resources against their real schemas in tests.
 *
 * The registry knows every CRD in `../shared/crds` (resolved from the
 * repository root, so it works from any clone with `shared/` beside it), the
 * ones vendored in `cli/dev/crds` (for kinds the former lacks), and
 * every XRD in `apis/` (converted as Crossplane does). Kubernetes core kinds
 * (Deployment, Service, Secret, …) have no CRD there; `validateAgainstCrd`
 * throws for them so a test never silently validates nothing.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import {
  formatFieldError,
  loadCrds,
  loadXrds,
  SchemaRegistry,
  type ValidateOptions,
  type ValidationResult,
} from '../../functions/lib/schema/index.js';

/** The repository root. */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** `../shared/crds`, beside the repository. */
export const sharedCrdsDir = resolve(repoRoot, '../shared/crds');
/** Our XRDs. */
export const apisDir = resolve(repoRoot, 'apis');
/** CRDs of our own beside ../shared/crds (cli/dev/crds: cert-manager's Certificate, Traefik's Middleware, …). */
export const ownCrdsDir = resolve(repoRoot, 'cli/dev/crds');

let registry: SchemaRegistry | undefined;

/** The shared registry: upstream CRDs (../shared/crds, then cli/dev/crds for kinds it lacks) plus our XRDs (built once per test file, CRDs parsed lazily). */
export function crdRegistry(): SchemaRegistry {
  registry ??= loadXrds(apisDir, loadCrds(ownCrdsDir, loadCrds(sharedCrdsDir, new SchemaRegistry())));
  return registry;
}

/**
 * Validates an object against the CRD (or XRD) of its apiVersion/kind:
 * defaults, OpenAPI, unknown fields as errors, CEL rules.
 * @throws Error `no CRD or XRD for <apiVersion> <kind>` when the kind is unknown
 */
export function validateAgainstCrd(obj: unknown, opts: ValidateOptions = {}): ValidationResult {
  const o = (obj ?? {}) as { apiVersion?: unknown; kind?: unknown };
  const r = crdRegistry().validate(o, opts);
  if (r === undefined) throw new Error(`no CRD or XRD for ${String(o.apiVersion)} ${String(o.kind)}`);
  return r;
}

/** Asserts that `obj` is valid against its CRD; the failure lists every `path: problem`. */
export function expectValidAgainstCrd(obj: unknown, opts: ValidateOptions = {}): void {
  const r = validateAgainstCrd(obj, opts);
  const o = obj as { kind?: string; metadata?: { name?: string } };
  expect(r.errors.map(formatFieldError), `${o.kind}/${o.metadata?.name ?? '?'} against its CRD`).toEqual([]);
}
