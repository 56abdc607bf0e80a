/**
 * Reading manifest files for validation and reporting problems the way
 * `modelplane plan` prints them: `file:line kind/name: field: problem`.
 */
import { readFileSync } from 'node:fs';
import { LineCounter, parseAllDocuments } from 'yaml';
import type { FieldError } from './types.js';

/** One YAML document of a manifest file. */
export interface Manifest {
  /** The file, as given. */
  file: string;
  /** 1-based line where the document starts (its first non-comment line). */
  line: number;
  /** The document as plain JSON. */
  doc: unknown;
}

/**
 * Reads every non-empty document of a YAML stream.
 * @throws Error `<file>:<line>: <yaml error>` on a syntax error
 */
export function readManifests(file: string, text = readFileSync(file, 'utf8')): Manifest[] {
  const lc = new LineCounter();
  const out: Manifest[] = [];
  for (const d of parseAllDocuments(text, { lineCounter: lc })) {
    const e = d.errors[0];
    if (e !== undefined) throw new Error(`${file}:${lc.linePos(e.pos[0]).line}: ${e.message.split('\n')[0]}`);
    const doc = d.toJS({ maxAliasCount: -1 }) as unknown;
    if (doc === null || doc === undefined) continue;
    const start = d.contents?.range[0] ?? d.range[0];
    out.push({ file, line: lc.linePos(start).line, doc });
  }
  return out;
}

/** `kind/name` of a manifest (`?` for what is missing). */
export function manifestId(doc: unknown): string {
  const o = (typeof doc === 'object' && doc !== null ? doc : {}) as { kind?: unknown; metadata?: { name?: unknown } };
  return `${typeof o.kind === 'string' ? o.kind : '?'}/${typeof o.metadata?.name === 'string' ? o.metadata.name : '?'}`;
}

/** Formats one problem: `file:line kind/name: field: problem`. */
export function describeProblem(m: Manifest, e: FieldError): string {
  return `${m.file}:${m.line} ${manifestId(m.doc)}: ${e.path}: ${e.message}`;
}
