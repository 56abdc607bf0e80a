/**
 * The functions as the image ships them, for the benches that start them:
 * the esbuild bundle of `npm run build` (scripts/build.mjs) into
 * .cache/bench-dist, without the type check (a type error elsewhere in the
 * tree does not stop a benchmark).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../cli/functions.js';

/** Where {@link buildImageFunctions} writes. */
export const BENCH_DIST = join(REPO_ROOT, '.cache', 'bench-dist');

/** Bundles the functions into {@link BENCH_DIST}; returns the path of `folder`'s entry point (the image's ENTRYPOINT). */
export function buildImageFunctions(folder: string, stdio: 'ignore' | 'inherit' = 'ignore'): string {
  execFileSync(process.execPath, [join(REPO_ROOT, 'scripts', 'build.mjs'), '--outdir', BENCH_DIST, '--no-check'], { cwd: REPO_ROOT, stdio });
  return join(BENCH_DIST, 'functions', folder, 'main.js');
}
