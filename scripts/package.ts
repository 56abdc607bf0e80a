/**
 * `npm run package`: writes `_output/package.yaml` (the Configuration's base
 * layer: meta + XRDs + Compositions) and `_output/functions/<folder>/package.yaml`
 * (each function's meta Function), ready for `crossplane xpkg build`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { functionFolders, REPO_ROOT } from '../cli/functions.js';
import { UserError } from '../cli/load.js';
import { buildConfigurationPackage, functionPackage } from '../cli/package.js';
import { toYaml } from '../cli/render/output.js';

const out = join(REPO_ROOT, '_output');
try {
  mkdirSync(out, { recursive: true });
  const { yaml, skipped } = buildConfigurationPackage();
  writeFileSync(join(out, 'package.yaml'), yaml);
  process.stdout.write(`wrote _output/package.yaml\n`);
  for (const s of skipped) process.stdout.write(`left out ${s}\n`);
  for (const folder of functionFolders()) {
    mkdirSync(join(out, 'functions', folder), { recursive: true });
    writeFileSync(join(out, 'functions', folder, 'package.yaml'), `---\n${toYaml(functionPackage(folder))}`);
  }
  process.stdout.write(`wrote _output/functions/<name>/package.yaml for ${functionFolders().length} functions\n`);
} catch (err) {
  process.stderr.write(`npm run package: ${(err as Error).message}\n`);
  process.exit(err instanceof UserError ? 1 : 2);
}
