/**
 * Packaging: `npm run package` writes a package.yaml that parses back to the
 * meta Configuration, every XRD and every Composition whose functions exist;
 * each function gets its meta Function; the Dockerfile builds one image per
 * function with the script in ENTRYPOINT, as non-root (checked as text: no
 * container engine here).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { functionFolders, REPO_ROOT } from '../../cli/functions.js';
import { FUNCTION_NODE_FLAGS } from '../../cli/node-flags.js';
import type { KubeObject } from '../../functions/lib/function.js';

let docs: KubeObject[];
let stdout: string;

beforeAll(() => {
  stdout = execFileSync(process.execPath, ['--import', 'tsx', 'scripts/package.ts'], { cwd: REPO_ROOT, encoding: 'utf8' });
  docs = parseAllDocuments(readFileSync(join(REPO_ROOT, '_output/package.yaml'), 'utf8')).map((d) => d.toJS() as KubeObject);
});

describe('npm run package', () => {
  it('starts with the meta Configuration requiring Crossplane >=v2.3.0', () => {
    const meta = docs[0]!;
    expect(meta.apiVersion).toBe('meta.pkg.crossplane.io/v1');
    expect(meta.kind).toBe('Configuration');
    expect(meta.metadata?.name).toBe('modelplane');
    expect((meta['spec'] as { crossplane: { version: string } }).crossplane.version).toBe('>=v2.3.0');
  });

  it('depends on every provider of the spec and on each of our functions', () => {
    const deps = (docs[0]!['spec'] as { dependsOn: { kind: string; package: string; version: string }[] }).dependsOn;
    const providers = deps.filter((d) => d.kind === 'Provider').map((d) => `${d.package.split('/').pop()}@${d.version}`);
    expect(providers).toEqual([
      'provider-aws-eks@v2.6.0',
      'provider-aws-ec2@v2.6.0',
      'provider-aws-iam@v2.6.0',
      'provider-aws-efs@v2.6.0',
      'provider-gcp-container@v2.6.0',
      'provider-gcp-compute@v2.6.0',
      'provider-gcp-cloudplatform@v2.6.0',
      'provider-family-gcp@v2.6.0',
      'provider-azure-containerservice@v2.6.0',
      'provider-azure-network@v2.6.0',
      'provider-family-azure@v2.6.0',
      'provider-nebius@v1.0.1',
      'provider-vultr@v1.0.0',
      'provider-helm@v1.4.0',
      'provider-kubernetes@>=v1.3.0',
    ]);
    const fns = deps.filter((d) => d.kind === 'Function').map((d) => d.package);
    expect(fns).toEqual(functionFolders().map((f) => `xpkg.modelplane.ai/modelplane/function-${f}`));
  });

  it('holds only XRDs, Compositions and the activation policy after the meta', () => {
    const kinds = new Set(docs.slice(1).map((d) => d.kind));
    for (const k of kinds) expect(['CompositeResourceDefinition', 'Composition', 'ManagedResourceActivationPolicy']).toContain(k);
    expect(docs.some((d) => d.kind === 'CompositeResourceDefinition' && d.metadata?.name === 'inferenceclasses.modelplane.ai')).toBe(true);
    expect(docs.some((d) => d.kind === 'Composition' && d.metadata?.name === 'inferenceclasses.modelplane.ai')).toBe(true);
  });

  it('ships a Composition only when all its functions exist, and says which it left out', () => {
    const ours = new Set(functionFolders().map((f) => `modelplane-function-${f}`));
    for (const c of docs.filter((d) => d.kind === 'Composition')) {
      for (const step of (c['spec'] as { pipeline: { functionRef: { name: string } }[] }).pipeline) {
        expect(ours.has(step.functionRef.name), step.functionRef.name).toBe(true);
      }
    }
    for (const line of stdout.split('\n').filter((l) => l.startsWith('left out '))) {
      expect(line).toMatch(/^left out compositions\/[a-z]+\.yaml: function modelplane-function-[a-z-]+ is not built yet$/);
    }
  });

  it('ships every Composition under compositions/ (nothing is left out) and every XRD under apis/', () => {
    const compositions = readdirSync(join(REPO_ROOT, 'compositions')).filter((f) => f.endsWith('.yaml')).map((f) => f.replace(/\.yaml$/, ''));
    const shipped = docs.filter((d) => d.kind === 'Composition').map((d) => d.metadata?.name?.split('.')[0]);
    expect(shipped).toEqual(compositions.sort());
    expect(shipped).toEqual(expect.arrayContaining(['eksclusters', 'gkeclusters', 'aksclusters', 'nebiusclusters', 'vultrclusters']));
    expect(docs.filter((d) => d.kind === 'CompositeResourceDefinition')).toHaveLength(compositions.length);
    expect(stdout).not.toContain('left out');
  });

  it("names in its readme every cloud it provisions and the capabilities contract", () => {
    const readme = String(docs[0]!.metadata?.annotations?.['meta.crossplane.io/readme']);
    for (const word of ['AWS EKS', 'Google GKE', 'Azure AKS', 'Nebius mk8s', 'Vultr VKE', 'existing cluster', 'status.capabilities']) {
      expect(readme).toContain(word);
    }
  });

  it('writes a meta Function with the composition capability for each function', () => {
    for (const folder of functionFolders()) {
      const [fn] = parseAllDocuments(readFileSync(join(REPO_ROOT, '_output/functions', folder, 'package.yaml'), 'utf8')).map(
        (d) => d.toJS() as KubeObject,
      );
      expect(fn?.apiVersion).toBe('meta.pkg.crossplane.io/v1');
      expect(fn?.kind).toBe('Function');
      expect(fn?.metadata?.name).toBe(`function-${folder}`);
      expect(fn?.['spec']).toEqual({ crossplane: { version: '>=v2.3.0' }, capabilities: ['composition'] });
    }
  });
});

describe('Dockerfile', () => {
  const text = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
  it('builds on node:20 and runs on distroless Node 20 as non-root', () => {
    expect(text).toMatch(/^ARG NODE_VERSION=20$/m);
    expect(text).toMatch(/^FROM node:\$\{NODE_VERSION\}-bookworm AS build$/m);
    expect(text).toMatch(/^FROM gcr\.io\/distroless\/nodejs\$\{NODE_VERSION\}-debian12:nonroot AS image$/m);
    expect(text).toMatch(/^USER nonroot:nonroot$/m);
  });
  it('puts the script in ENTRYPOINT so --insecure can be appended, with the Node flags every function process runs with, and takes FUNCTION as a build arg', () => {
    expect(FUNCTION_NODE_FLAGS).toEqual(['--no-memory-reducer', '--min-semi-space-size=16']);
    expect(text).toMatch(/^ENTRYPOINT \["\/nodejs\/bin\/node", "--no-memory-reducer", "--min-semi-space-size=16", "\/function\/main\.js"\]$/m);
    expect(text).toContain(`ENTRYPOINT ${JSON.stringify(['/nodejs/bin/node', ...FUNCTION_NODE_FLAGS, '/function/main.js']).replaceAll(',', ', ')}\n`);
    expect(text).toMatch(/^CMD \[\]$/m);
    expect(text).toMatch(/^ARG FUNCTION$/m);
    expect(text).toContain('printf "import \'./dist/functions/%s/main.js\';\\n" "$FUNCTION" > /function/main.js');
  });
});

describe('ManagedResourceActivationPolicy', () => {
  it('ships in the package and activates every CRD under ../shared/crds that is a managed resource we compose', () => {
    const mrap = docs.find((d) => d.kind === 'ManagedResourceActivationPolicy');
    const activate = ((mrap?.['spec'] ?? {}) as { activate?: string[] }).activate ?? [];
    expect(activate).toHaveLength(45);
    expect(new Set(activate).size).toBe(45);
    const crds = join(REPO_ROOT, '..', 'shared', 'crds');
    for (const name of activate) {
      const [plural, ...group] = name.split('.');
      expect(existsSync(join(crds, group.join('.'), `${plural}.yaml`)), `${name} has no CRD under ../shared/crds`).toBe(true);
    }
  });
});
