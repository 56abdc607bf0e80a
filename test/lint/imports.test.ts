/**
 * The import boundaries `npm run lint` enforces (scripts/check-imports.ts,
 * docs/development.md#import-boundaries): a sideways import in a scratch tree
 * is reported with its file, line and rule; the repository has none.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { brokenRule, sidewaysImports } from '../../scripts/check-imports.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const scratch = mkdtempSync(join(tmpdir(), 'imports-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function write(path: string, text: string): void {
  mkdirSync(dirname(join(scratch, path)), { recursive: true });
  writeFileSync(join(scratch, path), text);
}

describe('import boundaries', () => {
  it('reports a function importing another function, a CLI file reaching past compose.ts, and the library importing a function', () => {
    write('functions/a/compose.ts', "import { x } from './own.js';\nimport { y } from '../lib/shared.js';\n");
    write(
      'functions/b/compose.ts',
      "// a comment\nimport {\n  helper,\n} from '../a/helper.js';\nconst later = await import('../a/other.js');\n",
    );
    write('functions/lib/shared.ts', "export { z } from '../a/compose.js';\n");
    write('cli/plan.ts', "import { compose } from '../functions/a/compose.js';\nimport { fleet } from '../functions/a/fleet.js';\nimport { y } from '../functions/lib/shared.js';\n");
    write('bench/x.bench.ts', "import { fleet } from '../functions/b/fleet.js';\n");
    write('test/a.test.ts', "import { fleet } from '../functions/a/fleet.js';\n");
    expect(sidewaysImports(scratch)).toStrictEqual([
      { file: 'functions/b/compose.ts', line: 4, target: 'functions/a/helper.js', rule: 'a function imports no other function; share it through functions/lib' },
      { file: 'functions/b/compose.ts', line: 5, target: 'functions/a/other.js', rule: 'a function imports no other function; share it through functions/lib' },
      { file: 'functions/lib/shared.ts', line: 1, target: 'functions/a/compose.js', rule: 'the library imports no function' },
      { file: 'cli/plan.ts', line: 2, target: 'functions/a/fleet.js', rule: 'cli/ imports a function through its compose.ts only; move what it needs to functions/lib' },
      { file: 'bench/x.bench.ts', line: 1, target: 'functions/b/fleet.js', rule: 'bench/ imports a function through its compose.ts only; move what it needs to functions/lib' },
    ]);
  });

  it('allows a function its own files and the library, and anyone a compose.ts', () => {
    expect(brokenRule('functions/a/compose.ts', 'functions/a/own.js')).toBeUndefined();
    expect(brokenRule('functions/a/compose.ts', 'functions/lib/fleet/ledger.js')).toBeUndefined();
    expect(brokenRule('cli/plan.ts', 'functions/a/compose.js')).toBeUndefined();
    expect(brokenRule('cli/plan.ts', 'functions/lib/names.js')).toBeUndefined();
  });

  it('keeps a workspace package self-contained and imported by name', () => {
    write('packages/cel/src/index.ts', "import { x } from './own.js';\nimport { y } from '../../../functions/lib/order.js';\n");
    write('packages/cel/test/a.test.ts', "import { x } from '../src/index.js';\nimport { f } from '../../../scripts/oracle/grammar.js';\n");
    write('functions/c/compose.ts', "import { compileSelector } from '@modelplane/cel';\nimport { crd } from '../../packages/cel/src/crd.js';\n");
    expect(sidewaysImports(scratch).filter((v) => v.file.startsWith('packages/') || v.file === 'functions/c/compose.ts')).toStrictEqual([
      { file: 'functions/c/compose.ts', line: 2, target: 'packages/cel/src/crd.js', rule: 'import a workspace package by its name (its package.json "name"), not by a path' },
      { file: 'packages/cel/src/index.ts', line: 2, target: 'functions/lib/order.js', rule: 'a package imports only its own files; packages/cel/ must build and test alone' },
      { file: 'packages/cel/test/a.test.ts', line: 2, target: 'scripts/oracle/grammar.js', rule: 'a package imports only its own files; packages/cel/ must build and test alone' },
    ]);
  });

  it('the repository keeps them', () => {
    expect(sidewaysImports(ROOT).map((v) => `${v.file}:${v.line} imports ${v.target}`)).toStrictEqual([]);
  });
});
