/**
 * What `npm run generate` and `npm run docs` share: every XRD of the
 * repository read from `apis/<dir>/definition.yaml`, and the clean-up of
 * generated files whose XRD is gone.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseYamlDocs } from '../../functions/lib/schema/registry.js';
import type { Xrd } from '../../functions/lib/schema/xrd.js';

/** One XRD file: its path relative to the root (`/`-separated) and the parsed CompositeResourceDefinition. */
export interface XrdFile<T extends Xrd = Xrd> {
  source: string;
  xrd: T;
}

/**
 * Every `apis/<dir>/definition.yaml` under `root`, directories in name order
 * (a directory without one is skipped), then `each` on it; an error thrown by
 * `each` or by reading is rethrown as `<source>: <message>`.
 * @throws Error naming the file when it has no CompositeResourceDefinition
 */
export function eachXrd<T extends Xrd>(root: string, each: (file: XrdFile<T>) => void): void {
  const apis = join(root, 'apis');
  const dirs = readdirSync(apis, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  for (const dir of dirs) {
    const file = join(apis, dir, 'definition.yaml');
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    const source = relative(root, file).split('\\').join('/');
    try {
      const xrd = parseYamlDocs(text).find(
        (d): d is T => typeof d === 'object' && d !== null && (d as { kind?: unknown }).kind === 'CompositeResourceDefinition',
      );
      if (xrd === undefined) throw new Error('no CompositeResourceDefinition');
      each({ source, xrd });
    } catch (e) {
      throw new Error(`${source}: ${(e as Error).message}`);
    }
  }
}

/** Deletes the `*<ext>` files of `outDir` not in `written` that begin with `header` (generated, their XRD gone). */
export function removeStale(outDir: string, ext: string, written: readonly string[], header: string): void {
  for (const f of readdirSync(outDir)) {
    if (!f.endsWith(ext) || written.includes(f)) continue;
    if (readFileSync(join(outDir, f), 'utf8').startsWith(header)) rmSync(join(outDir, f));
  }
}
