#!/usr/bin/env node
// npm pack/publish hooks. In the repository the package exports its
// TypeScript sources (src/), which the workspace's tools (tsx, vitest,
// esbuild, tsc) load directly; a published package exports compiled
// JavaScript and declarations (dist/). `prepack` compiles dist/ and points
// `exports` at it, keeping the original manifest in package.json.orig;
// `postpack` puts the original back.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const manifest = join(here, 'package.json');
const saved = join(here, 'package.json.orig');

if (process.argv[2] === 'prepack') {
  execFileSync('npx', ['tsc', '-p', join(here, 'tsconfig.build.json')], { stdio: 'inherit', cwd: here });
  copyFileSync(manifest, saved);
  const pkg = JSON.parse(readFileSync(manifest, 'utf8'));
  const compiled = (src) => ({ types: src.replace(/^\.\/src\//, './dist/').replace(/\.ts$/, '.d.ts'), default: src.replace(/^\.\/src\//, './dist/').replace(/\.ts$/, '.js') });
  pkg.exports = Object.fromEntries(Object.entries(pkg.exports).map(([k, v]) => [k, compiled(v)]));
  writeFileSync(manifest, `${JSON.stringify(pkg, null, 2)}\n`);
} else if (process.argv[2] === 'postpack' && existsSync(saved)) {
  renameSync(saved, manifest);
}
