/**
 * Markdown links for the link check (test/docs/links.test.ts): GitHub heading
 * slugs, the links a markdown file makes, the `docs/<page>.md[#anchor]`
 * citations source files make, and whether a link resolves.
 *
 * Slugs follow GitHub (github-slugger): the heading's rendered text,
 * lowercased; every character other than a letter, digit, space, `-` or `_`
 * removed; each space turned into `-`; a repeated slug gets `-1`, `-2`, …
 * Explicit `id="…"` / `name="…"` anchors in HTML count too.
 */
import { type Dirent, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';

/** One link: where it is written and what it points at (as written). */
export interface Link {
  /** Repository-relative path of the file holding the link (`/` separators). */
  file: string;
  /** 1-based line. */
  line: number;
  target: string;
  /** What `target` is relative to: the file's directory (markdown links) or the repository root (citations). */
  base: 'file' | 'root';
}

/** The slug of one heading's rendered text, before de-duplication. */
export function githubSlug(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Hands out slugs as GitHub does for one document: a repeated slug gets `-1`, `-2`, … */
export class Slugger {
  private readonly seen = new Map<string, number>();

  slug(text: string): string {
    const original = githubSlug(text);
    let result = original;
    while (this.seen.has(result)) {
      const n = this.seen.get(original)! + 1;
      this.seen.set(original, n);
      result = `${original}-${n}`;
    }
    this.seen.set(result, 0);
    return result;
  }
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** A heading's source as the text GitHub renders (links to their text, markup and tags dropped). */
export function headingText(source: string): string {
  return source
    .split(/(`+[^`]*?`+)/)
    .map((part, i) => {
      if (i % 2 === 1) return part.replace(/^`+ ?| ?`+$/g, '');
      return part
        .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
        .replace(/\[([^\]]*)\]\[[^\]]*\]/g, '$1')
        .replace(/<\/?[A-Za-z][^>]*>/g, '')
        .replace(/(?<![\p{L}\p{N}])(_{1,2})(?=\S)(.+?)(?<=\S)\1(?![\p{L}\p{N}])/gu, '$2')
        .replace(/\\([!-/:-@[-`{-~])/g, '$1')
        .replace(/&(#\d+|#x[\da-f]+|[a-z]+);/gi, (m, e: string) => {
          if (e.startsWith('#x') || e.startsWith('#X')) return String.fromCodePoint(Number.parseInt(e.slice(2), 16));
          if (e.startsWith('#')) return String.fromCodePoint(Number(e.slice(1)));
          return ENTITIES[e.toLowerCase()] ?? m;
        });
    })
    .join('');
}

/**
 * The lines of `markdown` with fenced code blocks and HTML comments blanked
 * (line numbers kept), so nothing inside them counts as a heading or a link.
 */
function proseLines(markdown: string): string[] {
  const lines = markdown.replace(/<!--[\s\S]*?-->/g, (c) => c.replace(/[^\n]/g, ' ')).split(/\r?\n/);
  let fence: { char: string; len: number } | undefined;
  return lines.map((line) => {
    const m = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence === undefined) {
      if (m !== null && !(m[1]![0] === '`' && line.slice(m[0].length).includes('`'))) {
        fence = { char: m[1]![0]!, len: m[1]!.length };
        return '';
      }
      return line;
    }
    if (m !== null && m[1]![0] === fence.char && m[1]!.length >= fence.len && line.slice(m[0].length).trim() === '') fence = undefined;
    return '';
  });
}

/** Every anchor a markdown document offers: its headings' slugs (ATX and setext) and explicit HTML ids/names. */
export function anchorsOf(markdown: string): Set<string> {
  const slugger = new Slugger();
  const anchors = new Set<string>();
  const lines = proseLines(markdown);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    for (const m of line.matchAll(/<[A-Za-z][^>]*?\s(?:id|name)\s*=\s*["']([^"']+)["']/g)) anchors.add(m[1]!);
    const atx = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (atx !== null) {
      anchors.add(slugger.slug(headingText(atx[1] ?? '')));
      continue;
    }
    const next = lines[i + 1];
    if (next !== undefined && /^ {0,3}(=+|-+)[ \t]*$/.test(next) && isParagraphLine(line)) {
      anchors.add(slugger.slug(headingText(line.trim())));
      i++;
    }
  }
  return anchors;
}

/** Whether a line can be the text of a setext heading (a paragraph line, not a list item, quote, table or blank). */
function isParagraphLine(line: string): boolean {
  if (line.trim() === '' || /^ {4}/.test(line)) return false;
  return !/^ {0,3}([-*+>|]|\d+[.)]|#)/.test(line);
}

/** Blanks inline code spans of one line (so links inside them do not count), keeping columns. */
function withoutCodeSpans(line: string): string {
  return line.replace(/(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)/g, (c) => ' '.repeat(c.length));
}

/** Whether a target is another site or scheme (http:, https:, mailto:, //host) rather than a repository path. */
export function isExternal(target: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(target) || target.startsWith('//');
}

/** Relative links (inline, reference definitions, HTML href/src) of a markdown file; external ones left out. */
export function markdownLinks(markdown: string, file: string): Link[] {
  const links: Link[] = [];
  const add = (target: string, line: number) => {
    let t = target.trim();
    if (t.startsWith('<') && t.endsWith('>')) t = t.slice(1, -1);
    if (t === '' || isExternal(t)) return;
    links.push({ file, line, target: t, base: 'file' });
  };
  proseLines(markdown).forEach((raw, i) => {
    const line = withoutCodeSpans(raw);
    const inline = /!?\[(?:[^[\]\\]|\\.|\[[^\]]*\])*\]\(\s*(<[^>]*>|(?:[^\s()]|\([^\s)]*\))*)(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/g;
    for (const m of line.matchAll(inline)) add(m[1]!, i + 1);
    const def = /^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/.exec(line);
    if (def !== null) add(def[1]!, i + 1);
    for (const m of line.matchAll(/<[A-Za-z][^>]*?\s(?:href|src)\s*=\s*["']([^"']+)["']/g)) add(m[1]!, i + 1);
  });
  return links;
}

/**
 * `docs/<path>.md` and `docs/<path>.md#anchor` citations in any text (code
 * comments, strings, YAML descriptions), relative to the repository root. A
 * path preceded by `/`, `.` or a word character (`../docs/x.md`,
 * `shared/docs/x.md`) is not a citation of ours.
 */
export function docCitations(text: string, file: string): Link[] {
  const links: Link[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    for (const m of line.matchAll(/(?<![\w./-])docs\/[\w./-]*?\.md(?:#[\p{L}\p{N}_-]+)?(?![\w])/gu)) {
      links.push({ file, line: i + 1, target: m[0], base: 'root' });
    }
  });
  return links;
}

/** Files under `dir` (recursively), repository-relative, sorted; node_modules, dist and dot directories skipped. */
export function filesUnder(root: string, dir: string, accept: (path: string) => boolean = () => true): string[] {
  const out: string[] = [];
  const walk = (abs: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(abs, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.name.startsWith('.') || e.name === 'node_modules' || e.name === 'dist') continue;
      const p = join(abs, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        const rel = relative(root, p).split(sep).join('/');
        if (accept(rel)) out.push(rel);
      }
    }
  };
  walk(join(root, dir));
  return out.sort();
}

/** Checks links against the files of one repository, caching each markdown target's anchors. */
export class LinkChecker {
  private readonly anchorCache = new Map<string, Set<string>>();

  constructor(private readonly root: string) {}

  /** Why `link` does not resolve, or undefined when it does. */
  problem(link: Link): string | undefined {
    const hash = link.target.indexOf('#');
    let path = hash >= 0 ? link.target.slice(0, hash) : link.target;
    const rawAnchor = hash >= 0 ? link.target.slice(hash + 1) : undefined;
    path = path.replace(/\?.*$/, '');
    let anchor = rawAnchor;
    try {
      path = decodeURI(path);
      if (rawAnchor !== undefined) anchor = decodeURIComponent(rawAnchor);
    } catch {
      return 'malformed percent-encoding';
    }
    const abs =
      path === ''
        ? resolve(this.root, link.file)
        : path.startsWith('/') || link.base === 'root'
          ? resolve(this.root, path.replace(/^\/+/, ''))
          : resolve(this.root, dirname(link.file), path);
    const rel = relative(this.root, abs);
    if (rel.startsWith('..') || resolve(this.root, rel) !== abs) return 'outside the repository';
    let isFile: boolean;
    try {
      isFile = statSync(abs).isFile();
    } catch {
      return 'no such file';
    }
    if (anchor === undefined || anchor === '' || !isFile || extname(abs).toLowerCase() !== '.md') return undefined;
    let anchors = this.anchorCache.get(abs);
    if (anchors === undefined) {
      anchors = anchorsOf(readFileSync(abs, 'utf8'));
      this.anchorCache.set(abs, anchors);
    }
    return anchors.has(anchor) ? undefined : `no heading #${anchor} in ${rel.split(sep).join('/')}`;
  }
}

/** `file:line -> target (why)`, one per broken link, in file and line order, duplicates dropped. */
export function brokenLinks(root: string, links: Link[]): string[] {
  const checker = new LinkChecker(root);
  const out = new Set<string>();
  const sorted = [...links].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
  for (const link of sorted) {
    const why = checker.problem(link);
    if (why !== undefined) out.add(`${link.file}:${link.line} -> ${link.target} (${why})`);
  }
  return [...out];
}
