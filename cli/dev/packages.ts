/**
 * The packages a dev control plane installs, built as users build them: each
 * a folder with a `crossplane.yaml` and its objects, turned into an `.xpkg` by
 * the real Crossplane CLI (`crossplane xpkg build`) and pushed to the
 * registry on loopback (`crossplane xpkg push`), from where Crossplane core
 * pulls them (an ImageConfig rewrites `xpkg.modelplane.ai` and
 * `xpkg.upbound.io` to it, so the Configuration's dependencies keep their
 * production names).
 *
 * - the Configuration `xpkg.modelplane.ai/modelplane/modelplane` (cli/package.ts);
 * - one Function package per functions/<folder> (no runtime image: with
 *   core's External package runtime, our own process is the runtime);
 * - one Provider package per crossplane.yaml provider dependency (simulated.ts).
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { parse, parseAllDocuments } from 'yaml';
import type { JsonObject, KubeObject } from '../../functions/lib/function.js';
import { functionFolders } from '../functions.js';
import { configurationDocuments, FUNCTION_REGISTRY, functionPackage, PACKAGE_VERSION } from '../package.js';
import { toYaml } from '../render/output.js';
import { CHART_CRDS, EXTRA_CRDS_DIR, PROVIDER_PACKAGES } from '../simulated/provider-packages.js';
import { REGISTRY } from './state.js';
import { firstLoss, layerDocuments } from './xpkg.js';

const run = promisify(execFile);

/** The Configuration's package (repository without tag). */
export const CONFIGURATION_PACKAGE = `${FUNCTION_REGISTRY}/modelplane`;

/** One package to build and push. */
export interface PackageSource {
  /** Production repository, e.g. `xpkg.upbound.io/upbound/provider-helm`. */
  repository: string;
  tag: string;
  /** Folder with crossplane.yaml and the package's objects. */
  root: string;
}

/** Where a production repository lives in the dev registry. */
export function devRepository(repository: string): string {
  return `${REGISTRY}/${repository.slice(repository.indexOf('/') + 1)}`;
}

function writeFolder(root: string, meta: KubeObject, files: Record<string, string> = {}): void {
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'crossplane.yaml'), toYaml(meta));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text);
}

/**
 * Writes every package folder under `dir`.
 * @param crds the provider CRD snapshot (simulated.ts providerCrdsDir)
 * @param providerKubernetes provider-kubernetes' own package folder and version (built by scripts/kube-build.sh)
 * @throws Error when crossplane.yaml depends on a provider simulated.ts does not know.
 */
export function writePackageFolders(dir: string, crds: string, providerKubernetes: { root: string; version: string }): PackageSource[] {
  const out: PackageSource[] = [];
  const { documents } = configurationDocuments();
  const [meta, ...objects] = documents;
  const configRoot = join(dir, 'modelplane');
  writeFolder(configRoot, meta!, { 'objects.yaml': objects.map((o) => `---\n${toYaml(o)}`).join('') });
  out.push({ repository: CONFIGURATION_PACKAGE, tag: PACKAGE_VERSION, root: configRoot });

  for (const folder of functionFolders()) {
    const root = join(dir, `function-${folder}`);
    writeFolder(root, functionPackage(folder));
    out.push({ repository: `${FUNCTION_REGISTRY}/function-${folder}`, tag: PACKAGE_VERSION, root });
  }

  const deps = ((meta!['spec'] as JsonObject)['dependsOn'] ?? []) as { kind?: string; package?: string; version?: string }[];
  for (const dep of deps.filter((d) => d.kind === 'Provider')) {
    const known = PROVIDER_PACKAGES.find((p) => p.package === dep.package);
    if (!known) throw new Error(`crossplane.yaml depends on ${dep.package}, which cli/simulated/provider-packages.ts does not simulate: add it there`);
    const name = basename(known.package);
    const root = join(dir, name);
    if (known.real) {
      rmSync(root, { recursive: true, force: true });
      cpSync(providerKubernetes.root, root, { recursive: true });
      out.push({ repository: known.package, tag: providerKubernetes.version, root });
      continue;
    }
    if (!/^v\d+\.\d+\.\d+$/.test(dep.version ?? '')) {
      throw new Error(`crossplane.yaml: ${dep.package} version ${dep.version}: a simulated provider needs an exact version (vX.Y.Z)`);
    }
    const files: Record<string, string> = {};
    for (const group of known.crdGroups) {
      for (const f of readdirSync(join(crds, group)).filter((x) => x.endsWith('.yaml')).sort()) {
        files[`${group}_${f}`] = readFileSync(join(crds, group, f), 'utf8');
      }
    }
    for (const f of known.extraCrds ?? []) files[f] = readFileSync(join(EXTRA_CRDS_DIR, f), 'utf8');
    writeFolder(
      root,
      {
        apiVersion: 'meta.pkg.crossplane.io/v1',
        kind: 'Provider',
        metadata: {
          name,
          annotations: {
            'meta.crossplane.io/description': `${name} for the Modelplane dev control plane: its CRDs, no runtime; its managed resources are simulated`,
          },
        },
        spec: {},
      },
      files,
    );
    out.push({ repository: known.package, tag: dep.version!, root });
  }
  return out;
}

/** The documents of a package folder: crossplane.yaml first, then every other YAML file in name order. */
function folderDocuments(root: string): KubeObject[] {
  const files = ['crossplane.yaml', ...readdirSync(root).filter((f) => /\.ya?ml$/.test(f) && f !== 'crossplane.yaml').sort()];
  return files.flatMap((f) =>
    parseAllDocuments(readFileSync(join(root, f), 'utf8'))
      .map((d) => d.toJS() as KubeObject | null)
      .filter((d): d is KubeObject => d !== null),
  );
}

const docKey = (o: KubeObject) => `${o.apiVersion} ${o.kind} ${o.metadata?.name ?? ''}`;

/**
 * What `crossplane xpkg build` lost of the folder's objects (xpkg.ts: a CLI
 * older than the API it packages drops fields it does not know), as
 * `<object>: <path>`, or undefined when the built layer keeps everything.
 */
export async function buildLoss(root: string, file: string): Promise<string | undefined> {
  const docs = (await layerDocuments(file)).filter((d): d is KubeObject => d !== null && typeof d === 'object');
  const built = new Map(docs.map((d) => [docKey(d), d]));
  for (const want of folderDocuments(root)) {
    const loss = firstLoss(want, built.get(docKey(want)));
    if (loss) return `${docKey(want)}: ${loss}`;
  }
  return undefined;
}

/**
 * Builds each folder with `crossplane xpkg build`, checks that the built
 * layer kept every field of every object ({@link buildLoss}), and pushes it
 * with `crossplane xpkg push` (trusting the registry's CA), two at a time.
 * @throws Error with the CLI's message when a build or push fails, or naming
 *   the lost field when the CLI dropped one (a CLI older than the API it
 *   packages: build tools/crossplane's pinned CLI with npm run crossplane:build).
 */
export async function buildAndPush(sources: PackageSource[], crossplane: string, caFile: string): Promise<void> {
  const env = { ...process.env, SSL_CERT_FILE: caFile };
  const one = async (s: PackageSource) => {
    const file = `${s.root}.xpkg`;
    const noExamples = join(s.root, '.no-examples');
    try {
      await run(crossplane, ['xpkg', 'build', '--package-root', s.root, '--examples-root', noExamples, '-o', file], { env });
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      throw new Error(`package ${s.repository}:${s.tag}: ${(e.stderr || e.message).trim()}`);
    }
    const loss = await buildLoss(s.root, file);
    if (loss) throw new Error(`package ${s.repository}:${s.tag}: crossplane xpkg build dropped ${loss} (a CLI older than the API it packages; npm run crossplane:build builds the pinned one)`);
    try {
      await run(crossplane, ['xpkg', 'push', '-f', file, `${devRepository(s.repository)}:${s.tag}`], { env });
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      throw new Error(`package ${s.repository}:${s.tag}: ${(e.stderr || e.message).trim()}`);
    }
  };
  const queue = [...sources];
  await Promise.all(
    [0, 1].map(async () => {
      for (let s = queue.shift(); s; s = queue.shift()) await one(s);
    }),
  );
}

/**
 * The CRD documents chart `name` installs (simulated.ts CHART_CRDS), read from the snapshot `crds`
 * (one CRD per file), else from our own stand-ins (cli/dev/crds: Traefik's Middleware, which the
 * snapshot lacks). A file in neither is left out.
 */
export function chartCrds(chart: string, crds: string): KubeObject[] {
  return (CHART_CRDS[chart] ?? [])
    .map((f) => [join(crds, f), join(EXTRA_CRDS_DIR, f)].find((p) => existsSync(p)))
    .filter((p): p is string => p !== undefined)
    .map((p) => parse(readFileSync(p, 'utf8')) as KubeObject);
}
