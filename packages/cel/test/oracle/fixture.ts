/**
 * The shape of the oracle fixture (test/fixtures/cel-oracle.json in this package): the
 * devices, the questions asked (cases) and what the real Kubernetes code
 * answered (expect). The questions and the Go program that answers them live
 * in the repository this package is developed in (`npm run oracle` there);
 * the fixture is all this package needs to check itself.
 */
import type { InferenceClassDevice } from '../../src/index.js';

/** A question about the DRA selector environment, Quantity or Semver. */
export type CelOracleCase =
  | { readonly id: string; readonly kind: 'cel'; readonly expression: string; readonly device: string }
  | { readonly id: string; readonly kind: 'quantity'; readonly input: string }
  | { readonly id: string; readonly kind: 'semver'; readonly input: string; readonly normalize?: boolean };

/** What Kubernetes answered. */
export interface OracleAnswer {
  readonly id: string;
  /** Where it failed: compile, device, eval (cel) or parse (quantity, semver); absent on success. */
  readonly stage?: 'compile' | 'device' | 'eval' | 'parse';
  /** Kubernetes' error text; not kept for eval errors (which one comes first depends on map order). */
  readonly error?: string;
  /** cel: the bool result; quantity: the canonical string; semver: Version.String(). */
  readonly value?: boolean | string;
  /** cel: the estimated cost (when it compiled or was rejected for cost). */
  readonly cost?: number;
  /** cel: the runtime cost of the evaluation (printed by the oracle, not kept in the fixture: it depends on map order). */
  readonly actualCost?: number;
  /** quantity: AsApproximateFloat64 formatted with Go's 'e' -1 format. */
  readonly float?: string;
  /** quantity: AsInt64 when it succeeds. */
  readonly int?: string;
  readonly sign?: number;
  /** quantity: the exact value (inf.Dec String). */
  readonly exact?: string;
}

/** A fixture: Kubernetes module versions, devices and answered cases. */
export interface OracleFixture<C extends { readonly id: string; readonly kind: string } = CelOracleCase, A extends OracleAnswer = OracleAnswer> {
  /** Module versions the answers come from. */
  readonly kubernetes: Readonly<Record<string, string>>;
  readonly devices: Readonly<Record<string, InferenceClassDevice>>;
  readonly cases: readonly (C & { readonly expect: A })[];
}

/** Serializes a fixture with one case per line, so that diffs stay readable. */
export function formatFixture(f: OracleFixture<{ readonly id: string; readonly kind: string }>): string {
  const devices = Object.entries(f.devices)
    .map(([k, v]) => `    ${JSON.stringify(k)}: ${JSON.stringify(v)}`)
    .join(',\n');
  const cases = f.cases.map((c) => `    ${JSON.stringify(c)}`).join(',\n');
  return `{\n  "kubernetes": ${JSON.stringify(f.kubernetes)},\n  "devices": {\n${devices ? `${devices}\n` : ''}  },\n  "cases": [\n${cases}\n  ]\n}\n`;
}
