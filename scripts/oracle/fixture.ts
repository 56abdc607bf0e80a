/**
 * The shape of the oracle fixtures: devices, the questions asked (cases) and
 * what the Kubernetes code answered (expect). Written by
 * scripts/oracle/generate.ts from the Go program in test/oracle. The CEL
 * package's questions (DRA selectors, Quantity, Semver) go to its own fixture,
 * packages/cel/test/fixtures/cel-oracle.json, read by its oracle test; the
 * CRD validation-rule questions, which ask about this repository's XRDs and
 * vendored CRDs, go to test/fixtures/crd-oracle.json, read by
 * test/schema/crd-oracle.test.ts.
 */
import {
  type CelOracleCase,
  type OracleAnswer as CelOracleAnswer,
  type OracleFixture as Fixture,
  formatFixture,
} from '../../packages/cel/test/oracle/fixture.js';
import type { JSONSchemaProps } from '../../functions/lib/schema/index.js';
import type { SchemaRef } from './cases-crd.js';

export { formatFixture };

/** A CRD validation-rule question. */
export interface CrdCase {
  readonly id: string;
  readonly kind: 'crd';
  /** The root schema, inline (hand-written cases) … */
  readonly schema?: JSONSchemaProps;
  /** … or by reference to apis/ or the provider CRD snapshot. */
  readonly schemaRef?: SchemaRef;
  readonly object?: unknown;
  readonly oldObject?: unknown;
}

/** A question for the oracle. */
export type OracleCase = CelOracleCase | CrdCase;

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
export interface OracleAnswer extends CelOracleAnswer {
  /** crd: the answer. */
  readonly crd?: CrdAnswer;
}

/** All answers of one oracle run. */
export type OracleFixture = Fixture<OracleCase, OracleAnswer>;

/**
 * Splits one run's answers into the CEL package's fixture (every case but
 * `crd`, with the devices) and this repository's CRD fixture (the `crd`
 * cases, no devices); both keep the module versions.
 */
export function splitFixture(f: OracleFixture): { readonly cel: Fixture; readonly crd: Fixture<CrdCase, OracleAnswer> } {
  const cel = f.cases.filter((c): c is CelOracleCase & { expect: OracleAnswer } => c.kind !== 'crd');
  const crd = f.cases.filter((c): c is CrdCase & { expect: OracleAnswer } => c.kind === 'crd');
  return { cel: { kubernetes: f.kubernetes, devices: f.devices, cases: cel }, crd: { kubernetes: f.kubernetes, devices: {}, cases: crd } };
}
