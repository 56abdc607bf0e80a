/**
 * Regular expressions with RE2 semantics (Go's `regexp`, which cel-go and the
 * Kubernetes regex library use) through re2js, a port of RE2/J: no
 * backreferences or lookaround, linear-time matching; a pattern RE2 rejects
 * is an error. Compiled patterns are cached by source.
 */
import { RE2JS } from 're2js';
import { CelError } from './values.js';

const cache = new Map<string, RE2JS | string>();
const CACHE_LIMIT = 1000;

/** Compiles a pattern; returns the error text when RE2 rejects it. */
export function compileRegex(pattern: string): RE2JS | string {
  let re = cache.get(pattern);
  if (re === undefined) {
    try {
      re = RE2JS.compile(pattern);
    } catch (e) {
      re = e instanceof Error ? e.message : String(e);
    }
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(pattern, re);
  }
  return re;
}

function regexOrThrow(pattern: string): RE2JS {
  const re = compileRegex(pattern);
  if (typeof re === 'string') throw new CelError(re);
  return re;
}

/** CEL `matches`: does the pattern match anywhere in the string. */
export function regexMatches(s: string, pattern: string): boolean {
  return regexOrThrow(pattern).matcher(s).find();
}

/** Kubernetes `find`: the leftmost match, or '' (errors: "Illegal regex: …"). */
export function regexFind(s: string, pattern: string): string {
  const re = compileRegex(pattern);
  if (typeof re === 'string') throw new CelError(`Illegal regex: ${re}`);
  const m = re.matcher(s);
  return m.find() ? (m.group() ?? '') : '';
}

/** Kubernetes `findAll`: up to n matches (all when n < 0), as Go FindAllString. */
export function regexFindAll(s: string, pattern: string, n: number): string[] {
  const re = compileRegex(pattern);
  if (typeof re === 'string') throw new CelError(`Illegal regex: ${re}`);
  const out: string[] = [];
  const limit = n < 0 ? s.length + 1 : n;
  const m = re.matcher(s);
  let pos = 0;
  let prevEnd = -1;
  while (out.length < limit && pos <= s.length) {
    if (!m.find(pos)) break;
    const start = m.start();
    const end = m.end();
    let accept = true;
    if (end === pos) {
      // An empty match: never right after the previous match; move on one code point.
      if (start === prevEnd) accept = false;
      pos += pos < s.length ? (s.codePointAt(pos)! > 0xffff ? 2 : 1) : 1;
    } else {
      pos = end;
    }
    prevEnd = end;
    if (accept) out.push(m.group() ?? '');
  }
  return out;
}
