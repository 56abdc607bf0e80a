#!/usr/bin/env node
// The modelplane command. Runs the compiled JavaScript under dist/ (built by
// `npm run build`, which `prepare` runs on `npm ci`) when it is at least as
// new as every TypeScript source under cli/ and functions/; otherwise (no
// build, or a source edited since) runs the sources through tsx, so an edit
// is never shadowed by a stale build. MODELPLANE_TSX=1 forces the sources.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stamp = join(root, 'dist', '.build-stamp');

/** Newest modification time (ms) of a .ts file under dir, skipping tests. */
function newest(dir) {
  let max = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) max = Math.max(max, newest(p));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) max = Math.max(max, statSync(p).mtimeMs);
  }
  return max;
}

function compiledIsFresh() {
  if (process.env.MODELPLANE_TSX === '1' || !existsSync(stamp)) return false;
  const built = statSync(stamp).mtimeMs;
  return newest(join(root, 'cli')) <= built && newest(join(root, 'functions')) <= built;
}

if (compiledIsFresh()) {
  await import(pathToFileURL(join(root, 'dist', 'cli', 'main.js')).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../cli/main.ts');
}
