/**
 * Writing and reading xpkg files (crossplane.md §3.5): an image tarball
 * (`manifest.json`, the config, one gzipped layer) whose single layer holds
 * `package.yaml`, the YAML stream of the meta object and the package's
 * objects, annotated `io.crossplane.xpkg: base` through the config label
 * `io.crossplane.xpkg:sha256:<layer digest>` (a tarball cannot carry layer
 * annotations; `crossplane xpkg push` turns the label into one).
 *
 * Why we write one ourselves: `crossplane xpkg build` decodes each object
 * into its own Go types and writes them back, so a CLI older than the API it
 * packages drops what it does not know. CLI v2.2.1 (the newest buildable
 * here) drops the XRD `spec.versions[].subresources` Crossplane v2.3 added,
 * and with it `kubectl scale`. packages.ts builds with the CLI, checks with
 * {@link layerDocuments} that nothing was lost, and writes with
 * {@link writeXpkg} only when something was.
 *
 * Deterministic: the same files give the same bytes (zero times and owners,
 * gzip without a timestamp).
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { pack, extract } from 'tar-stream';
import { parseAllDocuments } from 'yaml';

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

function tarOf(files: Record<string, Buffer>): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const p = pack();
    const chunks: Buffer[] = [];
    p.on('data', (c: unknown) => chunks.push(c as Buffer));
    p.on('end', () => resolve(Buffer.concat(chunks)));
    p.on('error', reject);
    for (const [name, body] of Object.entries(files)) {
      p.entry({ name, mode: 0o644, mtime: new Date(0), uid: 0, gid: 0, uname: '', gname: '' }, body);
    }
    p.finalize();
  });
}

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

/** Writes `packageYaml` (meta first) as an xpkg tarball to `file`. */
export async function writeXpkg(file: string, packageYaml: string): Promise<void> {
  const layerTar = await tarOf({ 'package.yaml': Buffer.from(packageYaml) });
  const diffId = sha256(layerTar);
  const layer = gzipSync(layerTar, { level: 9 });
  const layerDigest = sha256(layer);
  const created = '0001-01-01T00:00:00Z';
  const config = Buffer.from(
    JSON.stringify({
      architecture: '',
      created,
      history: [{ created }],
      os: '',
      rootfs: { type: 'layers', diff_ids: [`sha256:${diffId}`] },
      config: { Labels: { [`io.crossplane.xpkg:sha256:${layerDigest}`]: 'base' } },
    }),
  );
  const configName = `sha256:${sha256(config)}`;
  const manifest = Buffer.from(JSON.stringify([{ Config: configName, RepoTags: null, Layers: [`${layerDigest}.tar.gz`] }]));
  writeFileSync(file, await tarOf({ 'manifest.json': manifest, [configName]: config, [`${layerDigest}.tar.gz`]: layer }));
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
