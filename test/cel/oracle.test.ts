/**
 * Differential test: our DRA selector engine, Quantity and Semver, and our
 * CRD validation-rule environment, against the answers of the real
 * Kubernetes code (test/oracle, Go), recorded in test/fixtures/cel-oracle.json
 * by `npm run oracle`. Every case must agree: same value, or an error at the
 * same stage (compile vs evaluation), the same estimated cost, and for
 * quantities the same canonical form and views; CRD cases as crd-compare.ts
 * says (compile verdicts, estimated costs and cardinalities, the CRD verdict,
 * validation errors and runtime cost).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { OracleFixture } from '../../scripts/oracle/fixture.js';
import { disagreement } from './oracle-compare.js';

const fixture = JSON.parse(readFileSync(new URL('../fixtures/cel-oracle.json', import.meta.url), 'utf8')) as OracleFixture;

// No case is skipped: the engine has no deliberate divergence on any oracle case.
const groups = [...new Set(fixture.cases.map((c) => c.id.replace(/-\d.*$/, '')))];

describe('oracle: agreement with Kubernetes 1.34 code', () => {
  it('covers at least 2,000 cases from one Kubernetes release', () => {
    expect(fixture.cases.length).toBeGreaterThanOrEqual(2000);
    expect(fixture.kubernetes['k8s.io/dynamic-resource-allocation']).toBe(fixture.kubernetes['k8s.io/apimachinery']);
    expect(fixture.kubernetes['k8s.io/dynamic-resource-allocation']).toMatch(/^v0\.(3[4-9]|[4-9]\d)\.\d+$/);
  });

  it('has CRD validation cases of every group, from the same release', () => {
    expect(fixture.kubernetes['k8s.io/apiextensions-apiserver']).toBe(fixture.kubernetes['k8s.io/apiserver']);
    const crd = fixture.cases.filter((c) => c.kind === 'crd');
    expect(crd.length).toBeGreaterThanOrEqual(700);
    for (const g of ['crd-xrd', 'crd-vendored', 'crd-lib']) expect(crd.filter((c) => c.id.startsWith(`${g}-`)).length).toBeGreaterThan(50);
    // Some answers say "no": rules that fail, rules that do not compile, objects that error.
    expect(crd.some((c) => (c.expect.crd?.validation ?? []).length > 0)).toBe(true);
    expect(crd.some((c) => (c.expect.crd?.rules ?? []).some((r) => r.error !== undefined))).toBe(true);
  });

  it.each(groups)('agrees on every %s case', (group) => {
    const cases = fixture.cases.filter((c) => c.id.replace(/-\d.*$/, '') === group);
    expect(cases.length).toBeGreaterThan(0);
    const disagreements = cases.map((c) => disagreement(c, fixture.devices)).filter((d) => d !== undefined);
    expect(disagreements).toEqual([]);
  });
});
