#!/usr/bin/env node
// `npm run build`: compiles cli/ and functions/ to dist/ (tsc -p
// tsconfig.build.json), then writes dist/.build-stamp dated when the build
// started, so bin/modelplane.js runs dist/ only while no source is newer.
// `--if-possible` (what `prepare` passes on `npm ci`): a failed compile
// warns and leaves no stamp (the CLI then runs the sources through tsx)
// instead of failing the install.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Every .yaml/.yml file under dir, recursively, sorted (as functions/lib/schema/registry.ts yamlFiles); none when dir does not exist (the Dockerfile builds without apis/). */
function yamlFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .flatMap((e) => {
      const p = join(dir, e);
      if (statSync(p).isDirectory()) return yamlFiles(p);
      return /\.ya?ml$/.test(e) ? [p] : [];
    });
}
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
// apis/ parsed ahead of time (functions/lib/schema/registry.ts ParsedDocs): the SHA-256 of each
// file's text → its documents, as parseYamlDocs returns them; a file with a YAML error is left out
// (the CLI then parses it and reports the error as before).
const parsedDocs = {};
for (const file of yamlFiles(join(root, 'apis'))) {
  const text = readFileSync(file, 'utf8');
  const docs = parseAllDocuments(text);
  if (docs.some((d) => d.errors.length > 0)) continue;
  parsedDocs[createHash('sha256').update(text, 'utf8').digest('hex')] = docs
    .map((d) => d.toJS({ maxAliasCount: -1 }))
    .filter((d) => d !== null && d !== undefined);
}
writeFileSync(join(root, 'dist', 'yaml-docs.json'), JSON.stringify(parsedDocs));
const stamp = join(root, 'dist', '.build-stamp');
writeFileSync(stamp, `built ${started.toISOString()}\n`);
utimesSync(stamp, started, started);
