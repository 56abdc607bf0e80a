/**
 * `npm run bench`: runs every `bench/*.bench.ts` in name order, one after the
 * other, each printing its own report (medians, ratios, RSS). Benchmarks never
 * assert times; targets are printed beside the figures for the reader.
 * `npm run bench -- NAME` runs only the benches whose file name contains NAME.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2];
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts') && (!filter || f.includes(filter)))
  .sort();
for (const file of files) {
  process.stdout.write(`\n== ${file} ==\n`);
  const mod = (await import(pathToFileURL(join(here, file)).href)) as { default: () => Promise<void> };
  await mod.default();
}
