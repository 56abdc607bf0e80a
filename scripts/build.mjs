#!/usr/bin/env node
// `npm run build`: compiles cli/ and functions/ to dist/ (tsc -p
// tsconfig.build.json), then writes dist/.build-stamp dated when the build
// started, so bin/modelplane.js runs dist/ only while no source is newer.
// `--if-possible` (what `prepare` passes on `npm ci`): a failed compile
// warns and leaves no stamp (the CLI then runs the sources through tsx)
// instead of failing the install.
import { spawnSync } from 'node:child_process';
import { rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const lenient = process.argv.includes('--if-possible');
const started = new Date();
rmSync(join(root, 'dist'), { recursive: true, force: true });
let tsc;
try {
  tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
} catch {
  if (lenient) {
    process.stderr.write('modelplane build: typescript is not installed (npm ci --omit=dev?); the CLI will run the sources through tsx\n');
    process.exit(0);
  }
  throw new Error('typescript is not installed: run npm ci');
}
const r = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });
if (r.status !== 0) {
  process.stderr.write(`modelplane build: tsc failed${lenient ? '; the CLI will run the sources through tsx' : ''}\n`);
  process.exit(lenient ? 0 : (r.status ?? 1));
}
const stamp = join(root, 'dist', '.build-stamp');
writeFileSync(stamp, `built ${started.toISOString()}\n`);
utimesSync(stamp, started, started);
