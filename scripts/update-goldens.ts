/**
 * `npm run golden:update [-- NAME...]`: re-renders every example (or the named
 * ones) in-process and rewrites its `expected.yaml`. Review the diff before
 * committing: goldens change only on purpose.
 */
import { writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { renderExample, renderExamples } from '../cli/examples.js';
import { InProcessRuntime } from '../cli/functions.js';

const only = process.argv.slice(2);
const runtime = new InProcessRuntime();
for (const dir of renderExamples()) {
  if (only.length > 0 && !only.includes(basename(dir))) continue;
  const { yaml } = await renderExample(dir, runtime);
  writeFileSync(join(dir, 'expected.yaml'), yaml);
  process.stdout.write(`wrote ${join(basename(dir), 'expected.yaml')}\n`);
}
