/**
 * Validation conformance: the real `crossplane resource validate` (CLI v2.5), with our XRDs (apis/*\/definition.yaml)
 * and the real provider/platform CRDs (../shared/crds) as extensions, must accept:
 * - every manifest under examples/ (XRs, Compositions, Functions, observed and
 *   required resources; goldens: their composed resources whose CRD is in
 *   ../shared/crds);
 * - every seed manifest under ../shared/corpus/seeds/;
 * - every render example's real output with -x (the XR with spec and status,
 *   and its composed resources whose CRD is in ../shared/crds);
 * - our XRDs and Compositions themselves (against Crossplane's own CRDs).
 * A failure is a bug in our XRDs, examples or functions. A kind of ours (or of
 * a group in ../shared/crds) without a schema is a failure too; core
 * Kubernetes kinds (Secret, ConfigMap, ...) have none here and are listed as
 * not checked.
 *
 * Crossplane's own kinds are checked against the CRDs of the core release we
 * build, from the offline cache `npm run crossplane:build` seeds (validate would
 * otherwise pull the Crossplane image from a registry).
 *
 * Skips (one line) when the binaries are not built: `npm run crossplane:build` (needs Go).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  CLI,
  exampleArgs,
  ROOT,
  type Run,
  skipUnlessBuilt,
  realRender,
  renderExamples,
  run,
  type Served,
  SHARED,
  serveFunctions,
  VALIDATE_CACHE,
} from './harness.js';

type Obj = Record<string, unknown>;

const describeIfBuilt = skipUnlessBuilt('validation conformance');

function yamlFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const e of readdirSync(dir).sort()) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out.push(...yamlFiles(p));
    else if (/\.ya?ml$/.test(e)) out.push(p);
  }
  return out;
}

function docs(text: string): Obj[] {
  return parseAllDocuments(text)
    .map((d) => d.toJS() as Obj | null)
    .filter((d): d is Obj => d !== null && typeof d === 'object');
}

const xrds = readdirSync(join(ROOT, 'apis'))
  .map((d) => join(ROOT, 'apis', d, 'definition.yaml'))
  .filter((f) => existsSync(f));
const crdDir = join(SHARED, 'crds');

/** Groups whose kinds must have a schema: ours (XRDs) and those of ../shared/crds. */
const checkedGroups = new Set<string>([
  ...xrds.flatMap((f) => docs(readFileSync(f, 'utf8')).map((d) => String((d.spec as Obj | undefined)?.group ?? ''))),
  ...(existsSync(crdDir) ? readdirSync(crdDir).filter((d) => statSync(join(crdDir, d)).isDirectory()) : []),
  'apiextensions.crossplane.io',
  'pkg.crossplane.io',
  'ops.crossplane.io',
  'protection.crossplane.io',
]);

/** GVK strings (`group/version, Kind=K`) of every CRD in ../shared/crds. */
const sharedCrdGvks = new Set<string>();
for (const f of yamlFiles(crdDir)) {
  for (const crd of docs(readFileSync(f, 'utf8'))) {
    const spec = crd.spec as { group: string; names: { kind: string }; versions: { name: string }[] } | undefined;
    if (crd.kind !== 'CustomResourceDefinition' || !spec) continue;
    for (const v of spec.versions) sharedCrdGvks.add(`${spec.group}/${v.name}, Kind=${spec.names.kind}`);
  }
}
const gvkOf = (o: Obj) => `${String(o.apiVersion)}, Kind=${String(o.kind)}`;

async function validate(resources: string[]): Promise<Run & { problems: string[]; unchecked: string[] }> {
  const image = readFileSync(join(VALIDATE_CACHE, '.image'), 'utf8').trim();
  const r = await run(CLI, [
    'resource',
    'validate',
    [...xrds, crdDir].join(','),
    resources.join(','),
    '--cache-dir',
    VALIDATE_CACHE,
    '--crossplane-image',
    image,
    '--skip-success-results',
  ]);
  const problems: string[] = [];
  const unchecked: string[] = [];
  for (const line of r.stdout.split('\n')) {
    const missing = /^\[!\] could not find CRD\/XRD for: (.*)$/.exec(line);
    if (missing) {
      // `/, Kind=` is an empty document (only comments), not a resource.
      if (missing[1] === '/, Kind=') continue;
      const gv = missing[1]!.split(', Kind=')[0]!;
      const group = gv.includes('/') ? gv.split('/')[0]! : '';
      (checkedGroups.has(group) ? problems : unchecked).push(line);
    } else if (line.startsWith('[x]') || line.startsWith('[!]')) {
      problems.push(line);
    }
  }
  if (r.code !== 0 && problems.length === 0) problems.push(`validate exited ${r.code}: ${r.stderr.trim()}`);
  return { ...r, problems, unchecked };
}

function expectValid(label: string, res: Awaited<ReturnType<typeof validate>>) {
  if (res.unchecked.length > 0) console.log(`${label}: not checked (no schema offline): ${[...new Set(res.unchecked)].join('; ')}`);
  expect(res.problems, `${label}: crossplane validate reported problems:\n${res.problems.join('\n')}\n${res.stderr}`).toEqual([]);
  expect(res.stdout).toMatch(/Total \d+ resources/);
}

const tmp = mkdtempSync(join(tmpdir(), 'mp-validate-'));
let tmpN = 0;
function tmpFile(name: string, objects: Obj[]): string {
  const f = join(tmp, `${tmpN++}-${name}.yaml`);
  writeFileSync(f, objects.map((o) => `---\n${stringify(o)}`).join(''));
  return f;
}

/** The composed resources of a render stream (after the XR) whose CRD is in ../shared/crds. */
function composedWithCrd(stream: string): Obj[] {
  return docs(stream)
    .slice(1)
    .filter((d) => sharedCrdGvks.has(gvkOf(d)));
}

describeIfBuilt('validation conformance: crossplane validate accepts our manifests', () => {
  let served: Served;
  beforeAll(async () => {
    served = await serveFunctions();
  });
  afterAll(async () => {
    await served?.stop();
  });

  const exampleFiles = yamlFiles(join(ROOT, 'examples'));
  const inputs = exampleFiles.filter((f) => !f.endsWith('/expected.yaml'));
  const goldens = exampleFiles.filter((f) => f.endsWith('/expected.yaml'));

  it('examples/: every input manifest', async () => {
    expect(inputs.length).toBeGreaterThan(0);
    expectValid('examples', await validate(inputs));
  });

  it('examples/*/expected.yaml: composed resources whose CRD is in ../shared/crds', async () => {
    const files = goldens
      .map((g) => ({ g, objs: composedWithCrd(readFileSync(g, 'utf8')) }))
      .filter((x) => x.objs.length > 0)
      .map((x) => tmpFile(relative(ROOT, x.g).replaceAll('/', '_'), x.objs));
    if (files.length === 0) {
      console.log('goldens: no composed resource with a CRD in ../shared/crds yet');
      return;
    }
    expectValid('goldens', await validate(files));
  });

  it('../shared/corpus/seeds: every seed manifest', async () => {
    const seeds = yamlFiles(join(SHARED, 'corpus/seeds'));
    expect(seeds.length).toBeGreaterThan(0);
    expectValid('seeds', await validate(seeds));
  });

  it('render -x of every example: the XR (spec and status) and its composed resources', async () => {
    const files: string[] = [];
    const renderFailures: string[] = [];
    for (const ex of renderExamples()) {
      const r = await realRender(ex.xr, ex.composition, served.functionsFile, [...exampleArgs(ex), '-x']);
      const all = docs(r.stdout);
      if (r.code !== 0 || all.length === 0) {
        renderFailures.push(`${ex.name}: ${r.stderr.trim()}`);
        continue;
      }
      files.push(tmpFile(`render-${ex.name}`, [all[0]!, ...composedWithCrd(r.stdout)]));
    }
    const res = files.length > 0 ? await validate(files) : undefined;
    expect(renderFailures, `the real render failed for:\n${renderFailures.join('\n')}`).toEqual([]);
    expect(files.length).toBeGreaterThan(0);
    if (res) expectValid('render -x', res);
  });

  it('apis/*/definition.yaml and compositions/: against Crossplane’s own CRDs', async () => {
    const files = [...xrds, ...yamlFiles(join(ROOT, 'compositions'))];
    expectValid('XRDs and Compositions', await validate(files));
  });
});

