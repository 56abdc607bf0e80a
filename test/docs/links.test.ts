/**
 * Every documentation link resolves: the `docs/<page>.md[#anchor]` citations
 * in apis/, functions/, cli/, scripts/, bench/ and README.md, and every
 * relative link of docs/**\/*.md and README.md. A file must exist; an anchor
 * on a markdown file must be one of its GitHub heading slugs (see
 * test/helpers/markdown-links.ts). External (http, https, mailto) links are
 * not checked.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/crd.js';
import { brokenLinks, docCitations, filesUnder, type Link, markdownLinks } from '../helpers/markdown-links.js';

/** Where code and manifests cite docs pages. */
const CITING_DIRS = ['apis', 'functions', 'cli', 'scripts', 'bench'];
/** Files larger than this (vendored CRDs, fixtures) are not read for citations. */
const MAX_BYTES = 2_000_000;

function read(file: string): string | undefined {
  const buf = readFileSync(join(repoRoot, file));
  if (buf.length > MAX_BYTES || buf.subarray(0, 8192).includes(0)) return undefined;
  return buf.toString('utf8');
}

function report(what: string, broken: string[]): string {
  return `${broken.length} broken ${what}:\n${broken.map((b) => `  ${b}`).join('\n')}\n`;
}

describe('documentation links', () => {
  it('docs/<page>.md[#anchor] cited in apis/, functions/, cli/, scripts/, bench/ and README.md resolve', () => {
    const links: Link[] = [];
    for (const file of [...CITING_DIRS.flatMap((d) => filesUnder(repoRoot, d)), 'README.md']) {
      const text = read(file);
      if (text !== undefined) links.push(...docCitations(text, file));
    }
    expect(links.length).toBeGreaterThan(0);
    const broken = brokenLinks(repoRoot, links);
    expect(broken, report('doc citation(s) (file:line -> target)', broken)).toEqual([]);
  });

  it('relative links in docs/**/*.md and README.md resolve', () => {
    const files = [...filesUnder(repoRoot, 'docs', (f) => f.endsWith('.md')), 'README.md'];
    const links = files.flatMap((file) => markdownLinks(readFileSync(join(repoRoot, file), 'utf8'), file));
    expect(links.length).toBeGreaterThan(0);
    const broken = brokenLinks(repoRoot, links);
    expect(broken, report('markdown link(s) (file:line -> target)', broken)).toEqual([]);
  });
});
