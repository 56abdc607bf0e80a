/**
 * The fuzzer in the suite (docs/design.md#tested-against-the-real-thing): every function gets mutated requests
 * from the examples' recorded requests, in process (the protobuf round trip
 * on both sides, no catch), and every response holds the invariants of
 * invariants.ts. Seeded (run seed 1) and bounded: {@link CASES} per
 * function, fewer for the one whose requests carry the Gateway API CRDs
 * (~500 KB each, so its cases cost ~20x the others'); `npm run fuzz --
 * --count 10000` runs more.
 */
import { describe, expect, it } from 'vitest';
import { functionFolders } from '../../cli/functions.js';
import { formatFinding, fuzzFunction, InProcessCaller } from './harness.js';
import { collectSeeds } from './seeds.js';

/** Cases per function in `npm test`. */
const CASES = 200;
/** Functions whose seeds are large, with their own (smaller) count. */
const FEWER: Readonly<Record<string, number>> = { 'compose-inference-gateway': 60 };

describe('fuzz: hostile requests to every function, in process', () => {
  it('has seeds for every function, the three issue-13 clouds included', async () => {
    const seeds = await collectSeeds();
    expect([...seeds.keys()].sort()).toEqual([...functionFolders()].sort());
    for (const fn of ['compose-gke-cluster', 'compose-aks-cluster', 'compose-nebius-cluster']) expect(seeds.get(fn)!.length).toBeGreaterThan(0);
  });

  it.each(functionFolders())('%s: no violations', async (fn) => {
    const seeds = (await collectSeeds()).get(fn)!;
    const count = FEWER[fn] ?? CASES;
    const report = await fuzzFunction(fn, seeds, new InProcessCaller(), { seed: 1, count });
    expect(report.cases).toBe(count);
    expect(report.findings.map(formatFinding)).toEqual([]);
  });
});
