/**
 * Building the Configuration package contents (docs/composition.md#package-metadata,
 * docs/composition.md#how-a-package-is-built).
 *
 * `buildConfigurationPackage()` returns the YAML stream that is the single
 * `package.yaml` of the xpkg base layer: the meta Configuration (from
 * crossplane.yaml, with one Function dependency per folder under functions/),
 * then every XRD and Composition (and the ManagedResourceActivationPolicy),
 * in path order. `functionPackage(folder)` is the meta Function of one image.
 *
 * Checks, each a UserError naming the file: XRD names are `<plural>.<group>`
 * and every Composition targets the referenceable version of an XRD in the
 * package. A Composition whose functionRef is not (yet) one of our functions
 * is left out and listed in `skipped`: shipping it would only fail at runtime.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { JsonObject, KubeObject } from '../functions/lib/function.js';
import { functionFolders, functionName, REPO_ROOT } from './functions.js';
import { UserError } from './load.js';
import { toYaml } from './render/output.js';
import { FUNCTION_REGISTRY, PACKAGE_VERSION } from '../functions/lib/package.js';

export { FUNCTION_REGISTRY, PACKAGE_VERSION } from '../functions/lib/package.js';

function readDocs(path: string): KubeObject[] {
  return parseAllDocuments(readFileSync(path, 'utf8'))
    .map((d) => d.toJS() as KubeObject | null)
    .filter((d): d is KubeObject => d !== null);
}

/** The meta Function of one function image. */
export function functionPackage(folder: string): KubeObject {
  return {
    apiVersion: 'meta.pkg.crossplane.io/v1',
    kind: 'Function',
    metadata: {
      name: `function-${folder}`,
      annotations: {
        'meta.crossplane.io/maintainer': 'Modelplane <dev@modelplane.ai>',
        'meta.crossplane.io/source': 'github.com/modelplaneai/modelplane',
        'meta.crossplane.io/license': 'Apache-2.0',
        'meta.crossplane.io/description': `Modelplane composition function ${folder}`,
      },
    },
    spec: { crossplane: { version: '>=v2.3.0' }, capabilities: ['composition'] },
  };
}

function packageFiles(root: string): string[] {
  const out: string[] = [];
  const apis = join(root, 'apis');
  if (existsSync(apis)) {
    for (const entry of readdirSync(apis).sort()) {
      const def = join(apis, entry, 'definition.yaml');
      if (existsSync(def)) out.push(def);
      else if (entry.endsWith('.yaml')) out.push(join(apis, entry));
    }
  }
  const comps = join(root, 'compositions');
  if (existsSync(comps)) out.push(...readdirSync(comps).filter((f) => f.endsWith('.yaml')).sort().map((f) => join(comps, f)));
  return out;
}

/**
 * The documents of package.yaml, meta first.
 * @throws UserError naming the file of a failed check.
 */
export function configurationDocuments(root = REPO_ROOT): { documents: KubeObject[]; skipped: string[] } {
  const meta = readDocs(join(root, 'crossplane.yaml'))[0];
  if (meta?.kind !== 'Configuration') throw new UserError('crossplane.yaml: want one meta.pkg.crossplane.io/v1 Configuration');
  const spec = meta['spec'] as { dependsOn?: JsonObject[] };
  spec.dependsOn = [
    ...(spec.dependsOn ?? []),
    ...functionFolders().map((f) => ({
      apiVersion: 'pkg.crossplane.io/v1',
      kind: 'Function',
      package: `${FUNCTION_REGISTRY}/function-${f}`,
      version: PACKAGE_VERSION,
    })),
  ];
  const objects: { file: string; obj: KubeObject }[] = packageFiles(root).flatMap((file) => readDocs(file).map((obj) => ({ file, obj })));
  const referenceable = new Map<string, string>();
  for (const { file, obj } of objects) {
    if (obj.kind !== 'CompositeResourceDefinition') continue;
    const s = obj['spec'] as { group: string; names: { plural: string; kind: string }; versions: { name: string; referenceable?: boolean }[] };
    if (obj.metadata?.name !== `${s.names.plural}.${s.group}`) {
      throw new UserError(`${file}: metadata.name is ${obj.metadata?.name}, want ${s.names.plural}.${s.group}`);
    }
    const ref = s.versions.find((v) => v.referenceable);
    if (!ref) throw new UserError(`${file}: no version is referenceable`);
    referenceable.set(`${s.group}/${ref.name}/${s.names.kind}`, file);
  }
  const ours = new Set(functionFolders().map(functionName));
  const skipped: string[] = [];
  const kept = objects.filter(({ file, obj }) => {
    if (obj.kind !== 'Composition') return true;
    const s = obj['spec'] as { compositeTypeRef: { apiVersion: string; kind: string }; pipeline?: { functionRef: { name: string } }[] };
    const key = `${s.compositeTypeRef.apiVersion}/${s.compositeTypeRef.kind}`;
    if (!referenceable.has(key)) throw new UserError(`${file}: spec.compositeTypeRef ${key} is not the referenceable version of any XRD in apis/`);
    const missing = (s.pipeline ?? []).map((p) => p.functionRef.name).filter((n) => !ours.has(n));
    if (missing.length > 0) {
      skipped.push(`${relative(root, file)}: function ${missing.join(', ')} is not built yet`);
      return false;
    }
    return true;
  });
  return { documents: [meta, ...kept.map((o) => o.obj)], skipped };
}

/** package.yaml as a YAML stream, and the Compositions left out. */
export function buildConfigurationPackage(root = REPO_ROOT): { yaml: string; skipped: string[] } {
  const { documents, skipped } = configurationDocuments(root);
  return { yaml: documents.map((d) => `---\n${toYaml(d)}`).join(''), skipped };
}
