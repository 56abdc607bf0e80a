/**
 * The shape of test/fixtures/cel-oracle.json: devices, the questions asked
 * (cases) and what the Kubernetes code answered (expect). Written by
 * scripts/oracle/generate.ts from the Go program in test/oracle; read by
 * test/cel/oracle.test.ts.
 */
import type { InferenceClassDevice } from '../../functions/lib/cel/index.js';
import type { JSONSchemaProps } from '../../functions/lib/schema/index.js';
import type { SchemaRef } from './cases-crd.js';

/** A question for the oracle. */
export type OracleCase =
  | { readonly id: string; readonly kind: 'cel'; readonly expression: string; readonly device: string }
  | { readonly id: string; readonly kind: 'quantity'; readonly input: string }
  | { readonly id: string; readonly kind: 'semver'; readonly input: string; readonly normalize?: boolean }
  | {
      readonly id: string;
      readonly kind: 'crd';
      /** The root schema, inline (hand-written cases) … */
      readonly schema?: JSONSchemaProps;
      /** … or by reference to apis/ or the provider CRD snapshot. */
      readonly schemaRef?: SchemaRef;
      readonly object?: unknown;
      readonly oldObject?: unknown;
    };

/** What cel.Compile says about one rule of a CRD case. */
export interface CrdRuleAnswer {
  /** Schema path of the node (`spec.items[*]`, `<root>`). */
  readonly path: string;
  readonly rule: string;
  /** Why it does not compile (Kubernetes' detail). */
  readonly error?: string;
  /** Estimated cost (MaxCost) when it compiles. */
  readonly cost?: number;
  /** MaxCardinality when it compiles. */
  readonly cardinality?: number;
}

/** Kubernetes' answer to a CRD case. */
export interface CrdAnswer {
  /** ValidateCustomResourceDefinition errors under openAPIV3Schema. */
  readonly crd: readonly string[];
  readonly rules: readonly CrdRuleAnswer[];
  /** The validator's errors on the object (`<path>: <body>`), when there was one. */
  readonly validation?: readonly string[];
  /** Runtime cost of validating the object; omitted when it varies between runs (map order). */
  readonly runtimeCost?: number;
  /** Set when Kubernetes could not run the case at all. */
  readonly failure?: string;
}

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
  /** crd: the answer. */
  readonly crd?: CrdAnswer;
}

/** The committed fixture. */
export interface OracleFixture {
  /** Module versions the answers come from. */
  readonly kubernetes: Readonly<Record<string, string>>;
  readonly devices: Readonly<Record<string, InferenceClassDevice>>;
  readonly cases: readonly (OracleCase & { readonly expect: OracleAnswer })[];
}

/** Serializes the fixture with one case per line, so that diffs stay readable. */
export function formatFixture(f: OracleFixture): string {
  const devices = Object.entries(f.devices)
    .map(([k, v]) => `    ${JSON.stringify(k)}: ${JSON.stringify(v)}`)
    .join(',\n');
  const cases = f.cases.map((c) => `    ${JSON.stringify(c)}`).join(',\n');
  return `{\n  "kubernetes": ${JSON.stringify(f.kubernetes)},\n  "devices": {\n${devices}\n  },\n  "cases": [\n${cases}\n  ]\n}\n`;
}
