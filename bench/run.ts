/**
 * `npm run bench`: runs every `bench/*.bench.ts` in name order, one after the
 * other, each printing its own report (medians, ratios, RSS). Benchmarks never
 * assert times; targets are printed beside the figures for the reader.
 * `npm run bench -- NAME` runs only the benches whose file name contains NAME.
 *
 * First it prints a machine check: the median time of a fixed workload
 * of the kind the benches measure (JSON.parse of the same 2.5 MB of small
 * objects, five times: allocation, property stores, GC). A shared
 * machine's speed drifts (on the project's 2-core VMs by up to about 1.7x
 * over minutes, with no sign in the load average), and the figures drift
 * with it. The check catches much of that drift, not all of it: runs whose
 * checks differ are not comparable, and runs whose checks agree may still
 * differ.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** Median ms of JSON.parse of a fixed 2.5 MB text of small objects, of 5 runs after one warm-up. */
function machineCheck(): number {
  const items = Array.from({ length: 20_000 }, (_, i) => ({ name: `pool-${i}`, nodes: i % 17, fabric: 'EFA', labels: { region: `r${i % 7}`, tier: 'gpu' }, devices: [{ count: 8, memory: '81559Mi' }] }));
  const text = JSON.stringify(items);
  const times: number[] = [];
  for (let i = 0; i < 6; i++) {
    const t = performance.now();
    JSON.parse(text);
    if (i > 0) times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[2]!;
}

process.stdout.write(`machine check: JSON.parse of 2.5 MB in ${machineCheck().toFixed(1)} ms (median of 5; 15-18 ms on a quiet project VM: a slower check means slower figures below, though a drift can also show in them alone)\n`);
const filter = process.argv[2];
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts') && (!filter || f.includes(filter)))
  .sort();
for (const file of files) {
  process.stdout.write(`\n== ${file} ==\n`);
  const mod = (await import(pathToFileURL(join(here, file)).href)) as { default: () => Promise<void> };
  await mod.default();
}
