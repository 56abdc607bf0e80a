/**
 * The import boundaries of the tree (docs/development.md#import-boundaries),
 * checked by `npm run lint`:
 *
 * - A function folder (`functions/<name>/`) imports only its own files and
 *   the shared library (`functions/lib/`), never another function's folder:
 *   what two functions share lives in the library.
 * - `cli/` and `bench/` import a function only through its `compose.ts`
 *   (its public entry); everything else they need is in `functions/lib/`.
 *   (`scripts/` may read a function's message constants: the Argo CD health
 *   rules are generated from them.)
 * - `functions/lib/` imports no function folder.
 * - A workspace package (`packages/<name>/`, e.g. the CEL engine) imports
 *   nothing outside its own folder, tests included: it builds, tests and
 *   publishes alone. `functions/`, `cli/` and `bench/` import it by its
 *   package name (`@modelplane/cel`), never by a path into `packages/`.
 *
 * Relative imports only (`from '../x.js'`, `import('../x.js')`,
 * `export … from`); package imports are not checked. Tests are not checked. Exit status 1 and one
 * line per violation, `file:line imports target (rule)`.
 */
import { type Dirent, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One import that crosses a boundary. */
export interface Violation {
  /** The importing file, relative to the root, `/`-separated. */
  file: string;
  /** 1-based line of the import's specifier. */
  line: number;
  /** The imported file, relative to the root, `/`-separated (as written: `.js`). */
  target: string;
  rule: string;
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

function tsFiles(dir: string): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .flatMap((e) => (e.isDirectory() ? (e.name === 'node_modules' || e.name === 'dist' ? [] : tsFiles(join(dir, e.name))) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []))
    .sort();
}

const posix = (p: string): string => p.split(sep).join('/');

/** The rule `file` (relative, `/`-separated) breaks by importing `target`, or undefined. */
export function brokenRule(file: string, target: string): string | undefined {
  const t = target.split('/');
  const f = file.split('/');
  if (f[0] === 'packages' && (t[0] !== 'packages' || t[1] !== f[1])) return `a package imports only its own files; packages/${f[1]}/ must build and test alone`;
  if (f[0] !== 'packages' && t[0] === 'packages') return 'import a workspace package by its name (its package.json "name"), not by a path';
  if (t[0] !== 'functions' || t.length < 3 || t[1] === 'lib') return undefined;
  if (f[0] === 'functions') {
    if (f[1] === 'lib') return 'the library imports no function';
    return f[1] === t[1] ? undefined : 'a function imports no other function; share it through functions/lib';
  }
  if (['cli', 'bench'].includes(f[0]!) && !/^compose\.(js|ts)$/.test(t[t.length - 1]!)) {
    return `${f[0]}/ imports a function through its compose.ts only; move what it needs to functions/lib`;
  }
  return undefined;
}

/** Every violation under `root`'s functions/, cli/, bench/ and packages/, in file order. */
export function sidewaysImports(root: string): Violation[] {
  const out: Violation[] = [];
  for (const top of ['functions', 'cli', 'bench', 'packages']) {
    for (const path of tsFiles(join(root, top))) {
      const file = posix(relative(root, path));
      const text = readFileSync(path, 'utf8');
      for (const m of text.matchAll(SPECIFIER)) {
        const target = posix(relative(root, normalize(join(dirname(path), m[1]!))));
        const rule = brokenRule(file, target);
        if (rule === undefined) continue;
        const line = text.slice(0, m.index).split('\n').length;
        out.push({ file, line, target, rule });
      }
    }
  }
  return out;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === normalize(process.argv[1])) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const found = sidewaysImports(root);
  for (const v of found) console.error(`${v.file}:${v.line} imports ${v.target} (${v.rule})`);
  if (found.length > 0) process.exit(1);
}
