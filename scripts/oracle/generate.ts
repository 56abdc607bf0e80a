/**
 * `npm run oracle`: asks the Kubernetes oracle (test/oracle, Go) every
 * question in scripts/oracle/cases.ts and grammar.ts and writes the answers:
 * the DRA selector, Quantity and Semver cases to the CEL package's fixture
 * (packages/cel/test/fixtures/cel-oracle.json), the CRD validation-rule
 * cases to test/fixtures/crd-oracle.json (or both into `--out DIR`).
 *
 * The Go program is built once into .cache/oracle/oracle and rebuilt when its
 * sources are newer than the binary. Requires `go` on PATH for that build.
 * Exit status: 0 written, 1 on any failure (message on stderr).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  acceptanceQuestions,
  type CelQuestion,
  QUANTITY_EXTRAS,
  QUANTITY_NUMBERS,
  QUANTITY_SUFFIXES,
  quantityQuestions,
  SEED_SELECTORS,
  SEMVER_INPUTS,
  semverQuestions,
} from './cases.js';
import {
  formatQuestions,
  ipQuestions,
  libraryQuestions,
  limitQuestions,
  syntaxQuestions,
  timeQuestions,
  urlQuestions,
} from './cases-libraries.js';
import { stringFormatQuestions } from './cases-format.js';
import { DEVICES, GOOD_DEVICES } from './devices.js';
import { crdQuestions, questionSchema } from './cases-crd.js';
import { formatFixture, type OracleAnswer, type OracleCase, type OracleFixture, splitFixture } from './fixture.js';
import { randomSelectors } from './grammar.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const oracleDir = join(root, 'test', 'oracle');
const binary = join(root, '.cache', 'oracle', 'oracle');

/** Builds .cache/oracle/oracle when it is missing or older than the Go sources. */
export function ensureOracle(): string {
  const sources = ['main.go', 'crd.go', 'go.mod', 'go.sum'].map((f) => statSync(join(oracleDir, f)).mtimeMs);
  if (existsSync(binary) && statSync(binary).mtimeMs >= Math.max(...sources)) return binary;
  mkdirSync(dirname(binary), { recursive: true });
  const started = Date.now();
  process.stderr.write('building the Kubernetes oracle (go build) …\n');
  execFileSync('go', ['build', '-o', binary, '.'], { cwd: oracleDir, stdio: ['ignore', 'inherit', 'inherit'] });
  process.stderr.write(`built in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  return binary;
}

/** Every question, with stable ids. */
export function allCases(): OracleCase[] {
  const cases: OracleCase[] = [];
  const cel = (prefix: string, qs: readonly CelQuestion[]) =>
    qs.forEach((q, i) => {
      cases.push({ id: `${prefix}-${i + 1}`, kind: 'cel', expression: q.expression, device: q.device });
    });
  SEED_SELECTORS.forEach((expression, i) => {
    for (const device of Object.keys(DEVICES)) cases.push({ id: `seed-${i + 1}-${device}`, kind: 'cel', expression, device });
  });
  cel('accept', acceptanceQuestions());
  cel('quantity-cel', quantityQuestions());
  cel('semver-cel', semverQuestions());
  cel('library', libraryQuestions());
  cel('limits', limitQuestions());
  cel('syntax', syntaxQuestions());
  cel('time', timeQuestions());
  cel('ip', ipQuestions());
  cel('url', urlQuestions());
  cel('format', formatQuestions());
  cel('strformat', stringFormatQuestions());
  const random = randomSelectors(700, 20250601);
  random.forEach((expression, i) => {
    cases.push({ id: `grammar-${i + 1}-a`, kind: 'cel', expression, device: GOOD_DEVICES[i % GOOD_DEVICES.length]! });
    cases.push({ id: `grammar-${i + 1}-b`, kind: 'cel', expression, device: GOOD_DEVICES[(i * 5 + 3) % GOOD_DEVICES.length]! });
  });
  const quantityInputs = new Set<string>();
  for (const n of QUANTITY_NUMBERS) for (const s of QUANTITY_SUFFIXES) quantityInputs.add(n + s);
  for (const x of QUANTITY_EXTRAS) quantityInputs.add(x);
  [...quantityInputs].forEach((input, i) => {
    cases.push({ id: `quantity-${i + 1}`, kind: 'quantity', input });
  });
  SEMVER_INPUTS.forEach((input, i) => {
    cases.push({ id: `semver-${i + 1}`, kind: 'semver', input });
    cases.push({ id: `semver-${i + 1}-normalized`, kind: 'semver', input, normalize: true });
  });
  crdQuestions().forEach(({ group, ...q }, i) => {
    cases.push({ id: `crd-${group}-${i + 1}`, kind: 'crd', ...q });
  });
  return cases;
}

/** Devices as the Go program reads them (only driver, attributes, capacity). */
function goDevices(): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(DEVICES).map(([name, d]) => [name, { driver: d.driver ?? '', attributes: d.attributes ?? {}, capacity: d.capacity ?? {} }]),
  );
}

/** Module versions from test/oracle/go.mod. */
function moduleVersions(): Record<string, string> {
  const gomod = readFileSync(join(oracleDir, 'go.mod'), 'utf8');
  const versions: Record<string, string> = {};
  for (const mod of [
    'k8s.io/dynamic-resource-allocation',
    'k8s.io/apimachinery',
    'k8s.io/apiserver',
    'k8s.io/apiextensions-apiserver',
    'github.com/google/cel-go',
    'github.com/blang/semver/v4',
  ]) {
    const m = new RegExp(`${mod.replace(/[.]/g, '\\.')} (v\\S+)`).exec(gomod);
    if (m) versions[mod] = m[1]!;
  }
  return versions;
}

/** Runs the oracle on the cases; returns the fixture. */
export function runOracle(cases: readonly OracleCase[], bin = ensureOracle()): OracleFixture {
  const dir = mkdtempSync(join(tmpdir(), 'cel-oracle-'));
  const input = join(dir, 'cases.json');
  // A last question asks which compatibility version the environment was built for.
  const environmentQuestion = { id: 'environment', kind: 'environment' };
  // CRD cases carry their schema inline for Go; the fixture keeps the reference.
  const goCases = cases.map((c) =>
    c.kind === 'crd'
      ? { id: c.id, kind: 'crd', crd: { schema: questionSchema(c), object: c.object, oldObject: c.oldObject } }
      : c,
  );
  writeFileSync(input, JSON.stringify({ devices: goDevices(), cases: [...goCases, environmentQuestion] }));
  const out = execFileSync(bin, [input], { maxBuffer: 512 * 1024 * 1024, encoding: 'utf8' });
  const answers = JSON.parse(out) as OracleAnswer[];
  if (answers.length !== cases.length + 1) throw new Error(`oracle answered ${answers.length} of ${cases.length + 1} questions`);
  const environment = answers.pop()!;
  return {
    kubernetes: { ...moduleVersions(), environment: `NewExpressions, compatibility version ${String(environment.value)}` },
    devices: DEVICES,
    cases: cases.map((c, i) => {
      const a = answers[i]!;
      if (a.id !== c.id) throw new Error(`answer ${i} is for ${a.id}, expected ${c.id}`);
      // Go iterates maps in random order, so the runtime cost and which error an
      // evaluation hits first can change from run to run: keep only what is stable.
      const { id: _id, actualCost: _cost, ...expect } = a;
      if (expect.stage === 'eval') delete (expect as { error?: string }).error;
      return { ...c, expect: { id: c.id, ...expect } };
    }),
  };
}

/** Where each fixture is committed, relative to the repository root. */
export const FIXTURES = {
  cel: join('packages', 'cel', 'test', 'fixtures', 'cel-oracle.json'),
  crd: join('test', 'fixtures', 'crd-oracle.json'),
} as const;

function main(): void {
  const { values } = parseArgs({ options: { out: { type: 'string' }, oracle: { type: 'string' } } });
  const fixture = runOracle(allCases(), values.oracle ?? ensureOracle());
  const parts = splitFixture(fixture);
  for (const key of ['cel', 'crd'] as const) {
    const out = values.out === undefined ? join(root, FIXTURES[key]) : join(values.out, basename(FIXTURES[key]));
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, formatFixture(parts[key]));
    const byKind = new Map<string, number>();
    for (const c of parts[key].cases) byKind.set(c.kind, (byKind.get(c.kind) ?? 0) + 1);
    process.stdout.write(`${parts[key].cases.length} cases (${[...byKind].map(([k, n]) => `${n} ${k}`).join(', ')}) written to ${out}\n`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    main();
  } catch (e) {
    process.stderr.write(`oracle: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  }
}
