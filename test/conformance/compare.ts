/**
 * Comparing two render YAML streams: byte for byte, except for the fields the
 * allow-list (allow-list.yaml) names, and a readable unified diff when they
 * differ.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { ROOT } from './harness.js';

/** One accepted difference between `modelplane render` and the real render. */
export interface Allowed {
  /** Example folder name, or `*`. */
  example: string;
  /** Render variant (`default`, `full`), or `*`. */
  variant: string;
  /** Document kind, or `*`. */
  kind: string;
  /**
   * Dot path of the field removed from both sides before comparing
   * (`status.foo`, `metadata.annotations.a\.b/c`), or `(order)`: documents of
   * this kind are compared as a sorted set instead of in order.
   */
  path: string;
  reason: string;
}

const ORDER = '(order)';

export const ALLOW_LIST_FILE = join(ROOT, 'test/conformance/allow-list.yaml');

export function loadAllowList(file = ALLOW_LIST_FILE): Allowed[] {
  const list = (parse(readFileSync(file, 'utf8')) ?? []) as Allowed[];
  for (const a of list) {
    for (const k of ['example', 'variant', 'kind', 'path', 'reason'] as const) {
      if (typeof a[k] !== 'string' || a[k] === '') throw new Error(`${file}: every entry needs a non-empty ${k}: ${JSON.stringify(a)}`);
    }
  }
  return list;
}

/** The allow-list as the lines the tests print. */
export function describeAllowList(list: Allowed[]): string {
  if (list.length === 0) return 'conformance allow-list (test/conformance/allow-list.yaml): empty, every difference fails';
  return [
    `conformance allow-list (test/conformance/allow-list.yaml): ${list.length} accepted difference(s)`,
    ...list.map((a) => `  - ${a.example}/${a.variant} ${a.kind} ${a.path}: ${a.reason}`),
  ].join('\n');
}

const matches = (pattern: string, value: string) => pattern === '*' || pattern === value;

function splitPath(path: string): string[] {
  // Dots separate segments; `\.` is a literal dot (annotation keys).
  return path
    .split(/(?<!\\)\./)
    .map((s) => s.replace(/\\\./g, '.'))
    .filter(Boolean);
}

function deletePath(obj: unknown, segments: string[]): void {
  if (obj === null || typeof obj !== 'object' || segments.length === 0) return;
  const [head, ...rest] = segments as [string, ...string[]];
  if (Array.isArray(obj)) {
    const items = head === '*' ? obj : [obj[Number(head)]];
    if (rest.length === 0 && head !== '*') obj.splice(Number(head), 1);
    else for (const it of items) deletePath(it, rest);
    return;
  }
  const rec = obj as Record<string, unknown>;
  if (rest.length === 0) delete rec[head];
  else deletePath(rec[head], rest);
}

/** Removes the allowed fields from a YAML stream and re-serializes it canonically. */
export function applyAllowList(stream: string, allowed: Allowed[]): string {
  const docs = parseAllDocuments(stream)
    .map((d) => d.toJS() as unknown)
    .filter((d) => d !== null && d !== undefined);
  const kindOf = (d: unknown) => String((d as Record<string, unknown>).kind ?? '');
  for (const doc of docs) {
    for (const a of allowed) if (a.path !== ORDER && matches(a.kind, kindOf(doc))) deletePath(doc, splitPath(a.path));
  }
  const text = docs.map((d) => `---\n${stringify(d, { sortMapEntries: true, lineWidth: 0 })}`);
  // Unordered kinds: their documents keep their slots, filled in sorted order.
  const unordered = allowed.filter((a) => a.path === ORDER);
  const slots = docs.map((d, i) => (unordered.some((a) => matches(a.kind, kindOf(d))) ? i : -1)).filter((i) => i >= 0);
  const sorted = slots.map((i) => text[i]!).sort();
  slots.forEach((slot, k) => {
    text[slot] = sorted[k]!;
  });
  return text.join('');
}

export interface Comparison {
  equal: boolean;
  /** Unified diff (expected = real, actual = ours), empty when equal. */
  diff: string;
  /** Allow-list entries that applied. */
  applied: Allowed[];
}

/** Compares the real render with ours, honouring the allow-list for this example and variant. */
export function compareStreams(
  real: string,
  ours: string,
  ctx: { example: string; variant: string; allowed: Allowed[]; labels?: [string, string] },
): Comparison {
  const applied = ctx.allowed.filter((a) => matches(a.example, ctx.example) && matches(a.variant, ctx.variant));
  const [a, b] = applied.length > 0 ? [applyAllowList(real, applied), applyAllowList(ours, applied)] : [real, ours];
  if (a === b) return { equal: true, diff: '', applied };
  const [la, lb] = ctx.labels ?? ['crossplane (real)', 'modelplane render'];
  return { equal: false, diff: unifiedDiff(a, b, la, lb), applied };
}

/** The failure text of a render conformance difference (what the test prints). */
export function renderMismatchMessage(example: string, variant: string, how: string, diff: string): string {
  return (
    `${example} (${variant}): modelplane render differs from the real crossplane render (${how}).\n` +
    `Fix the harness (cli/render*), or list the field in test/conformance/allow-list.yaml with a reason.\n${diff}`
  );
}

/** A unified diff of two texts (3 lines of context), for failure messages. */
export function unifiedDiff(a: string, b: string, labelA: string, labelB: string, context = 3): string {
  const x = a.split('\n');
  const y = b.split('\n');
  // Longest common subsequence table, from the end.
  const n = x.length;
  const m = y.length;
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i]![j] = x[i] === y[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  type Op = { t: ' ' | '-' | '+'; line: string; ai: number; bi: number };
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) ops.push({ t: ' ', line: x[i++]!, ai: i, bi: ++j });
    else if (i < n && (j >= m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) ops.push({ t: '-', line: x[i++]!, ai: i, bi: j });
    else ops.push({ t: '+', line: y[j++]!, ai: i, bi: j });
  }
  const out = [`--- ${labelA}`, `+++ ${labelB}`];
  let k = 0;
  while (k < ops.length) {
    if (ops[k]!.t === ' ') {
      k++;
      continue;
    }
    const start = Math.max(0, k - context);
    let end = k;
    // Extend the hunk while changes are within 2*context lines of each other.
    let last = k;
    while (end < ops.length) {
      if (ops[end]!.t !== ' ') last = end;
      else if (end - last > 2 * context) break;
      end++;
    }
    end = Math.min(ops.length, last + context + 1);
    const hunk = ops.slice(start, end);
    const aStart = (hunk.find((o) => o.t !== '+')?.ai ?? 0) || 1;
    const bStart = (hunk.find((o) => o.t !== '-')?.bi ?? 0) || 1;
    const aLen = hunk.filter((o) => o.t !== '+').length;
    const bLen = hunk.filter((o) => o.t !== '-').length;
    out.push(`@@ -${aStart},${aLen} +${bStart},${bLen} @@`);
    for (const o of hunk) out.push(`${o.t}${o.line}`);
    k = end;
  }
  return out.join('\n');
}
