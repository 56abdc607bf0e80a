/**
 * Loading Kubernetes manifests from files and directories.
 *
 * Guarantees: documents come back in a stable order (files sorted by path,
 * documents in stream order), each with the file and 1-based line it starts
 * on, so errors can say `file:line kind/name`. Empty documents are skipped.
 * A missing file or a YAML syntax error is a {@link UserError} naming the file
 * (and line), never a stack trace.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { LineCounter, parseAllDocuments } from 'yaml';
import type { KubeObject } from '../functions/lib/function.js';

/** An error caused by the user's input: printed as one line, exit code 1. */
export class UserError extends Error {
  override name = 'UserError';
}

/** A document loaded from a manifest file. */
export interface LoadedDocument {
  object: KubeObject;
  /** Path as given (joined with the directory entry for directories). */
  file: string;
  /** 1-based line where the document starts. */
  line: number;
}

/** Files under `path`: the file itself, or every `.yaml`/`.yml` below a directory, sorted. */
export function manifestFiles(path: string): string[] {
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(path);
  } catch {
    throw new UserError(`${path}: no such file or directory`);
  }
  if (!st.isDirectory()) return [path];
  const out: string[] = [];
  for (const entry of readdirSync(path).sort()) {
    const full = join(path, entry);
    if (statSync(full).isDirectory()) out.push(...manifestFiles(full));
    else if (/\.ya?ml$/.test(entry)) out.push(full);
  }
  return out;
}

/** Parses a YAML stream. @throws UserError on a syntax error, naming file and line. */
export function parseManifests(text: string, file: string): LoadedDocument[] {
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter });
  const out: LoadedDocument[] = [];
  for (const doc of docs) {
    if (doc.errors.length > 0) {
      const err = doc.errors[0]!;
      const pos = lineCounter.linePos(err.pos[0]);
      throw new UserError(`${file}:${pos.line}: invalid YAML: ${err.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`);
    }
    const value: unknown = doc.toJS({ maxAliasCount: 1000 });
    if (value === null || value === undefined) continue;
    if (typeof value !== 'object' || Array.isArray(value)) {
      const pos = lineCounter.linePos(doc.range[0]);
      throw new UserError(`${file}:${pos.line}: a manifest must be a YAML mapping with apiVersion and kind`);
    }
    const start = doc.contents?.range[0] ?? doc.range[0];
    out.push({ object: value as KubeObject, file, line: lineCounter.linePos(start).line });
  }
  return out;
}

/** Loads every document under each path (files or directories). */
export function loadManifests(...paths: string[]): LoadedDocument[] {
  const out: LoadedDocument[] = [];
  for (const path of paths) {
    for (const file of manifestFiles(path)) {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        throw new UserError(`${file}: cannot read file`);
      }
      out.push(...parseManifests(text, file));
    }
  }
  return out;
}

/** A file that could not be loaded: the `file:line: message` of its {@link UserError}. */
export interface LoadError {
  file: string;
  line: number;
  error: string;
}

/**
 * Loads every document under each path like {@link loadManifests}, but a
 * file that cannot be read or parsed does not stop the others: each is one
 * {@link LoadError} (its first YAML error), so every bad file is reported.
 * @throws UserError only for a path that does not exist (all of them named).
 */
export function loadManifestsReporting(...paths: string[]): { docs: LoadedDocument[]; errors: LoadError[] } {
  const missing: string[] = [];
  const files: string[] = [];
  for (const path of paths) {
    try {
      files.push(...manifestFiles(path));
    } catch (err) {
      missing.push((err as Error).message);
    }
  }
  if (missing.length > 0) throw new UserError(missing.join('; '));
  const docs: LoadedDocument[] = [];
  const errors: LoadError[] = [];
  for (const file of files) {
    try {
      docs.push(...loadManifests(file));
    } catch (err) {
      const m = /^(.*?):(\d+): (.*)$/s.exec((err as Error).message);
      errors.push(m && m[1] === file ? { file, line: Number(m[2]), error: m[3]! } : { file, line: 0, error: (err as Error).message.replace(`${file}: `, '') });
    }
  }
  return { docs, errors };
}

/**
 * Loads exactly one object from a file.
 * @throws UserError when the file holds no document or more than one.
 */
export function loadOne(path: string, what: string): KubeObject {
  const docs = loadManifests(path);
  if (docs.length !== 1) {
    throw new UserError(`${path}: expected exactly one ${what}, found ${docs.length} documents`);
  }
  const obj = docs[0]!.object;
  if (typeof obj.apiVersion !== 'string' || typeof obj.kind !== 'string') {
    throw new UserError(`${path}: ${what} has no apiVersion or kind`);
  }
  return obj;
}
