/**
 * Reading xpkg files (docs/composition.md#how-a-package-is-built): an image tarball (`manifest.json`,
 * the config, gzipped layers) whose first layer holds `package.yaml`, the
 * YAML stream of the meta object and the package's objects.
 *
 * Why we read them: `crossplane xpkg build` decodes each object into its own
 * Go types and writes them back, so a CLI older than the API it packages
 * drops what it does not know (CLI v2.2.1 dropped the XRD
 * `spec.versions[].subresources` Crossplane v2.3 added, and with it
 * `kubectl scale`). The pinned CLI v2.5.0 keeps everything; packages.ts
 * checks every build with {@link layerDocuments} and {@link firstLoss}, so a
 * build that loses a field fails, naming it, instead of installing less than
 * was written.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { extract } from 'tar-stream';
import { parseAllDocuments } from 'yaml';

function untar(buf: Buffer): Promise<Record<string, Buffer>> {
  return new Promise((resolve, reject) => {
    const out: Record<string, Buffer> = {};
    const x = extract();
    x.on('entry', (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: unknown) => chunks.push(c as Buffer));
      stream.on('end', () => {
        out[header.name] = Buffer.concat(chunks);
        next();
      });
      stream.resume();
    });
    x.on('finish', () => resolve(out));
    x.on('error', reject);
    x.end(buf);
  });
}

/** The documents of an xpkg tarball's `package.yaml` (its first layer). */
export async function layerDocuments(file: string): Promise<unknown[]> {
  const outer = await untar(readFileSync(file));
  const manifest = JSON.parse(outer['manifest.json']!.toString()) as { Layers: string[] }[];
  const layerName = manifest[0]?.Layers[0];
  if (!layerName || !outer[layerName]) throw new Error(`${file}: no layer`);
  const inner = await untar(gunzipSync(outer[layerName]!));
  const text = inner['package.yaml'];
  if (!text) throw new Error(`${file}: the layer has no package.yaml`);
  return parseAllDocuments(text.toString()).map((d) => d.toJS());
}

/**
 * The first path where `got` lost or changed something `want` has (a field
 * missing, a different scalar), or undefined when `got` keeps everything.
 * Fields `got` adds (defaults) are not losses.
 */
export function firstLoss(want: unknown, got: unknown, path = ''): string | undefined {
  if (want === null || typeof want !== 'object') return want === got ? undefined : path || '.';
  if (Array.isArray(want)) {
    if (!Array.isArray(got) || got.length !== want.length) return path || '.';
    for (let i = 0; i < want.length; i++) {
      const l = firstLoss(want[i], got[i], `${path}[${i}]`);
      if (l) return l;
    }
    return undefined;
  }
  if (got === null || typeof got !== 'object' || Array.isArray(got)) return path || '.';
  for (const [k, v] of Object.entries(want)) {
    const l = firstLoss(v, (got as Record<string, unknown>)[k], `${path}.${k}`);
    if (l) return l;
  }
  return undefined;
}
