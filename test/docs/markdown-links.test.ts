import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  anchorsOf,
  brokenLinks,
  docCitations,
  githubSlug,
  headingText,
  markdownLinks,
  Slugger,
} from '../helpers/markdown-links.js';

describe('githubSlug', () => {
  it.each([
    ['Overflow and failover', 'overflow-and-failover'],
    ['`spec.tls` and DNS', 'spectls-and-dns'],
    ['spec.tls and DNS', 'spectls-and-dns'],
    ['Scoped keys', 'scoped-keys'],
    ["A gang's pods, one per node", 'a-gangs-pods-one-per-node'],
    ['When it is enforced', 'when-it-is-enforced'],
    ['EKS', 'eks'],
    ['Spot / on-demand (v2)', 'spot--on-demand-v2'],
    ['snake_case_name', 'snake_case_name'],
    ['2. Install', '2-install'],
    ['Überblick: Größe', 'überblick-größe'],
    ['a  b', 'a--b'],
    ['  trimmed  ', 'trimmed'],
  ])('%j -> %j', (text, slug) => {
    expect(githubSlug(text)).toBe(slug);
  });
});

describe('headingText', () => {
  it.each([
    ['`spec.tls` and DNS', 'spec.tls and DNS'],
    ['[Rate limits](ai-gateway.md#rate-limits) per key', 'Rate limits per key'],
    ['<a id="x"></a>Setup', 'Setup'],
    ['The `<key>` map', 'The <key> map'],
    ['_Emphasis_ and __strong__', 'Emphasis and strong'],
    ['snake_case stays', 'snake_case stays'],
    ['Fish &amp; chips', 'Fish & chips'],
  ])('%j renders as %j', (source, text) => {
    expect(headingText(source)).toBe(text);
  });

  it('gives the slugs of the brief', () => {
    expect(githubSlug(headingText('`spec.tls` and DNS'))).toBe('spectls-and-dns');
    expect(githubSlug(headingText('The `<key>` map'))).toBe('the-key-map');
  });
});

describe('Slugger', () => {
  it('suffixes repeated headings -1, -2, … and never reuses a slug', () => {
    const s = new Slugger();
    expect(['Usage', 'Usage', 'Usage', 'Usage-1', 'Usage 1'].map((h) => s.slug(h))).toEqual([
      'usage',
      'usage-1',
      'usage-2',
      'usage-1-1',
      'usage-1-2',
    ]);
  });
});

describe('anchorsOf', () => {
  it('reads ATX and setext headings and HTML ids, not code blocks or comments', () => {
    const md = [
      '# Title #',
      '',
      '## Examples',
      '',
      '```yaml',
      '# not a heading',
      '```',
      '',
      '~~~',
      '## nor this',
      '~~~',
      '<!--',
      '## nor a commented one',
      '-->',
      '## Examples',
      '',
      'Setext one',
      '==========',
      '',
      'Setext two',
      '----------',
      '',
      '- a list item',
      '---',
      '',
      '<a name="custom-anchor"></a>',
      '    ## indented code',
      '#hashtag is no heading',
    ].join('\n');
    expect([...anchorsOf(md)].sort()).toEqual(
      ['custom-anchor', 'examples', 'examples-1', 'setext-one', 'setext-two', 'title'].sort(),
    );
  });
});

describe('markdownLinks', () => {
  it('finds inline, image, reference and HTML links; skips external ones, code spans and fences', () => {
    const md = [
      'See [quotas](quotas.md) and [the rule](quotas.md#when-it-is-enforced "title").',
      '![diagram](img/fleet.png) [top](#title) [site](https://example.com/x.md)',
      '`[not](a-link.md)` and <a href="../README.md">readme</a> and [mail](mailto:a@b.c)',
      '```',
      '[inside](fence.md)',
      '```',
      '[ref]: <reference/README.md>',
      '[`examples/spot-pools/`](../examples/spot-pools/)',
    ].join('\n');
    expect(markdownLinks(md, 'docs/x.md').map((l) => `${l.line} ${l.target}`)).toEqual([
      '1 quotas.md',
      '1 quotas.md#when-it-is-enforced',
      '2 img/fleet.png',
      '2 #title',
      '3 ../README.md',
      '7 reference/README.md',
      '8 ../examples/spot-pools/',
    ]);
  });
});

describe('docCitations', () => {
  it('finds docs/<page>.md[#anchor] in comments and strings, not paths of other trees', () => {
    const ts = [
      '// Rate limits (docs/ai-gateway.md#rate-limits).',
      "const see = 'docs/kinds/model-deployment.md'; // and docs/design.md.",
      `// not ours: ../docs/x.md, shared/docs/y.md, docs/\${name}.md, docs/z.mdx`,
    ].join('\n');
    expect(docCitations(ts, 'functions/a.ts').map((l) => `${l.line} ${l.target}`)).toEqual([
      '1 docs/ai-gateway.md#rate-limits',
      '2 docs/kinds/model-deployment.md',
      '2 docs/design.md',
    ]);
  });
});

describe('brokenLinks', () => {
  const root = mkdtempSync(join(tmpdir(), 'modelplane-links-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('reports file:line -> target for missing files and anchors, once each', () => {
    mkdirSync(join(root, 'docs'), { recursive: true });
    writeFileSync(join(root, 'docs/a.md'), '# A\n\n## Overflow and failover\n\n## `spec.tls` and DNS\n');
    writeFileSync(join(root, 'docs/b.ts'), 'x');
    const links = [
      ...markdownLinks('[ok](a.md#overflow-and-failover) [ok](a.md#spectls-and-dns) [ok](b.ts#L3)\n[bad](a.md#nope) [gone](c.md)\n[up](../../x.md)', 'docs/i.md'),
      ...docCitations('// docs/a.md#a docs/missing.md\n// docs/missing.md', 'cli/x.ts'),
    ];
    expect(brokenLinks(root, links)).toEqual([
      'cli/x.ts:1 -> docs/missing.md (no such file)',
      'cli/x.ts:2 -> docs/missing.md (no such file)',
      'docs/i.md:2 -> a.md#nope (no heading #nope in docs/a.md)',
      'docs/i.md:2 -> c.md (no such file)',
      'docs/i.md:3 -> ../../x.md (outside the repository)',
    ]);
  });
});
