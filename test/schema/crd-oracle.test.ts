/**
 * Differential test: our CRD validation-rule environment (the CEL package's
 * `@modelplane/cel/crd` with functions/lib/schema) against the answers of the
 * real Kubernetes code (test/oracle, Go), recorded in
 * test/fixtures/crd-oracle.json by `npm run oracle`. Every case must agree as
 * crd-compare.ts says: compile verdicts, estimated costs and cardinalities,
 * the API server's verdict on the CRD, validation errors and runtime cost.
 * The CEL package checks its own selector, Quantity and Semver answers
 * (packages/cel/test/oracle.test.ts).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CrdCase, OracleAnswer } from '../../scripts/oracle/fixture.js';
import type { OracleFixture } from '../../packages/cel/test/oracle/fixture.js';
import { crdDisagreement } from './crd-compare.js';

const fixture = JSON.parse(readFileSync(new URL('../fixtures/crd-oracle.json', import.meta.url), 'utf8')) as OracleFixture<CrdCase, OracleAnswer>;

// No case is skipped: the engine has no deliberate divergence on any oracle case.
const groups = ['crd-xrd', 'crd-vendored', 'crd-lib', 'crd-hand'].filter((g) => fixture.cases.some((c) => c.id.startsWith(`${g}-`)));

describe('oracle: CRD validation rules agree with Kubernetes 1.34 code', () => {
  it('has at least 700 CRD cases of every group, from one release', () => {
    expect(fixture.kubernetes['k8s.io/apiextensions-apiserver']).toBe(fixture.kubernetes['k8s.io/apiserver']);
    expect(fixture.kubernetes['k8s.io/apiextensions-apiserver']).toMatch(/^v0\.(3[4-9]|[4-9]\d)\.\d+$/);
    expect(fixture.cases.length).toBeGreaterThanOrEqual(700);
    expect(fixture.cases.every((c) => c.kind === 'crd')).toBe(true);
    for (const g of ['crd-xrd', 'crd-vendored', 'crd-lib']) expect(fixture.cases.filter((c) => c.id.startsWith(`${g}-`)).length).toBeGreaterThan(50);
    // Some answers say "no": rules that fail, rules that do not compile, objects that error.
    expect(fixture.cases.some((c) => (c.expect.crd?.validation ?? []).length > 0)).toBe(true);
    expect(fixture.cases.some((c) => (c.expect.crd?.rules ?? []).some((r) => r.error !== undefined))).toBe(true);
  });

  it('puts every case in a group', () => {
    expect(fixture.cases.filter((c) => !groups.some((g) => c.id.startsWith(`${g}-`))).map((c) => c.id)).toEqual([]);
  });

  it.each(groups)('agrees on every %s case', (group) => {
    const cases = fixture.cases.filter((c) => c.id.startsWith(`${group}-`));
    expect(cases.length).toBeGreaterThan(0);
    expect(cases.map((c) => crdDisagreement(c)).filter((d) => d !== undefined)).toEqual([]);
  });
});
