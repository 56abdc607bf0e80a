/**
 * Where the repository is, whether this code runs from sources (tsx) or
 * compiled (`dist/`, built by `npm run build`, which `prepare` runs on
 * `npm ci`). Imports nothing heavy, so `modelplane --help` stays fast.
 */
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
/** True when this module runs compiled (`dist/cli/root.js`): functions are then loaded and spawned as JavaScript from `dist/functions/`. */
export const COMPILED = basename(resolve(HERE, '..')) === 'dist';
/** The repository root (holding `functions/`, `apis/`, `compositions/`, `package.json`), compiled or not. */
export const REPO_ROOT = COMPILED ? resolve(HERE, '..', '..') : resolve(HERE, '..');
/** The folder the runnable modules are under: `dist/` when compiled, else the root. */
export const CODE_ROOT = resolve(HERE, '..');
