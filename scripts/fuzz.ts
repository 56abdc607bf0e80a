/**
 * `npm run fuzz`: hostile requests against every function (test/fuzz/).
 *
 * Usage: `npm run fuzz -- [--count N] [--seed S] [--function F[,F…]] [--case I] [--grpc]`
 * - `--count` cases per function (default 1000); `--seed` the run seed
 *   (default 1: the same seed replays the same cases);
 * - `--function` limits the run to some functions, `--case` to one case (to
 *   reproduce a finding);
 * - `--grpc` sends every case to the function's real gRPC server instead of
 *   calling the core in-process (cases nesting deeper than the gRPC decoder
 *   accepts are counted as skipped).
 * Prints one line per function and one per violation; exit status 1 when
 * any invariant is broken, 2 on bad flags.
 */
import { parseArgs } from 'node:util';
import { formatFinding, type Caller, fuzzFunction, GrpcCaller, InProcessCaller } from '../test/fuzz/harness.js';
import { collectSeeds } from '../test/fuzz/seeds.js';

async function main(): Promise<number> {
  let values: { count: string; seed: string; function?: string; case?: string; grpc: boolean };
  try {
    ({ values } = parseArgs({
      options: {
        count: { type: 'string', default: '1000' },
        seed: { type: 'string', default: '1' },
        function: { type: 'string' },
        case: { type: 'string' },
        grpc: { type: 'boolean', default: false },
      },
    }));
  } catch (e) {
    process.stderr.write(`fuzz: ${(e as Error).message}\n`);
    return 2;
  }
  const count = Number(values.count);
  const seed = Number(values.seed);
  const only = values.case === undefined ? undefined : Number(values.case);
  if (!Number.isSafeInteger(count) || count < 0 || !Number.isSafeInteger(seed) || (only !== undefined && !Number.isSafeInteger(only))) {
    process.stderr.write('fuzz: --count, --seed and --case take integers\n');
    return 2;
  }
  const seeds = await collectSeeds();
  const wanted = values.function?.split(',').map((s) => s.trim()) ?? [...seeds.keys()];
  const unknown = wanted.filter((f) => !seeds.has(f));
  if (unknown.length > 0) {
    process.stderr.write(`fuzz: unknown function ${unknown.join(', ')}; functions: ${[...seeds.keys()].join(', ')}\n`);
    return 2;
  }
  const caller: Caller = values.grpc ? new GrpcCaller() : new InProcessCaller();
  let violations = 0;
  let total = 0;
  const started = Date.now();
  try {
    for (const fn of wanted) {
      const t0 = Date.now();
      const r = await fuzzFunction(fn, seeds.get(fn)!, caller, { seed, count, ...(only !== undefined ? { only } : {}) });
      total += r.cases;
      violations += r.findings.length;
      const skipped = r.skippedDeep > 0 ? `, ${r.skippedDeep} too deep for gRPC skipped` : '';
      process.stdout.write(
        `${fn}: ${r.cases} cases from ${seeds.get(fn)!.length} seeds (${caller.name}${skipped}), ${r.findings.length} violations, ${((Date.now() - t0) / 1000).toFixed(1)} s\n`,
      );
      for (const f of r.findings) process.stdout.write(`  ${formatFinding(f)}\n`);
    }
  } finally {
    await caller.close();
  }
  process.stdout.write(
    `fuzz: ${total} cases over ${wanted.length} functions, seed ${seed}: ${violations} violations (${((Date.now() - started) / 1000).toFixed(1)} s)\n`,
  );
  return violations === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`fuzz: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
