/**
 * docs/development.md#where-each-function-is-tested names the one test folder
 * of every function: the table names every folder under functions/ (but the
 * library) exactly once, and each named folder has a test that imports that
 * function.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const doc = readFileSync(join(ROOT, 'docs', 'development.md'), 'utf8');
const section = doc.slice(doc.indexOf('### Where each function is tested'));
const rows = [...section.matchAll(/^\| `([a-z-]+)` \| `test\/([a-z-]+)\/` \|$/gm)].map((m) => ({ fn: m[1]!, folder: m[2]! }));

/** Every `*.test.ts` under a folder, recursively. */
function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? testFiles(join(dir, e.name)) : e.name.endsWith('.test.ts') ? [join(dir, e.name)] : [],
  );
}

describe('the test layout', () => {
  it('names every function folder once', () => {
    const functions = readdirSync(join(ROOT, 'functions'), { withFileTypes: true })
      .filter((e) => e.isDirectory() && e.name !== 'lib')
      .map((e) => e.name)
      .sort();
    expect(functions.length).toBe(16);
    expect(rows.map((r) => r.fn).sort()).toEqual(functions);
  });

  it.each(rows)('$fn is tested in test/$folder/', ({ fn, folder }) => {
    const importing = testFiles(join(ROOT, 'test', folder)).filter((f) => readFileSync(f, 'utf8').includes(`functions/${fn}/`));
    expect(importing.length).toBeGreaterThan(0);
  });
});
