/**
 * Differential test: this package's DRA selector environment, Quantity and
 * Semver against the answers of the real Kubernetes code, recorded in
 * fixtures/cel-oracle.json (see oracle/fixture.ts for where the questions
 * come from). Every case must agree: same value, or an error at the same
 * stage (compile vs evaluation), the same estimated cost, and for quantities
 * the same canonical form and views.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { disagreement } from './oracle/compare.js';
import type { OracleFixture } from './oracle/fixture.js';

const fixture = JSON.parse(readFileSync(new URL('./fixtures/cel-oracle.json', import.meta.url), 'utf8')) as OracleFixture;

// No case is skipped: the engine has no deliberate divergence on any oracle case.
const groups = [...new Set(fixture.cases.map((c) => c.id.replace(/-\d.*$/, '')))];

describe('oracle: agreement with Kubernetes 1.34 code', () => {
  it('covers at least 6,000 cases of every kind from one Kubernetes release', () => {
    expect(fixture.cases.length).toBeGreaterThanOrEqual(6000);
    for (const kind of ['cel', 'quantity', 'semver'] as const) expect(fixture.cases.filter((c) => c.kind === kind).length).toBeGreaterThan(100);
    expect(fixture.kubernetes['k8s.io/dynamic-resource-allocation']).toBe(fixture.kubernetes['k8s.io/apimachinery']);
    expect(fixture.kubernetes['k8s.io/dynamic-resource-allocation']).toMatch(/^v0\.(3[4-9]|[4-9]\d)\.\d+$/);
  });

  it.each(groups)('agrees on every %s case', (group) => {
    const cases = fixture.cases.filter((c) => c.id.replace(/-\d.*$/, '') === group);
    expect(cases.length).toBeGreaterThan(0);
    expect(cases.map((c) => disagreement(c, fixture.devices)).filter((d) => d !== undefined)).toEqual([]);
  });
});
