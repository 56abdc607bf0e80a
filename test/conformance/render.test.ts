/**
 * Render conformance: for every example with an XR, a Composition and a
 * functions file, the real Crossplane v2.3 render (engine: `crossplane-core
 * internal render`) and `modelplane render` must print the same YAML stream,
 * byte for byte, when both call the same function servers (`modelplane serve
 * --all`, Development runtime). Differences fail with a unified diff unless
 * test/conformance/allow-list.yaml lists them with a reason.
 *
 * Variants:
 * - default: the example's own flags (-o observed, -e required,
 *   --function-credentials); the golden expected.yaml must equal this output;
 * - full: plus -x -r -c and --xrd apis/<plural>/definition.yaml (the XR's XRD).
 *
 * Skips (one line) when the binaries are not built: `npm run crossplane:build` (needs Go).
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { compareStreams, describeAllowList, loadAllowList, renderMismatchMessage } from './compare.js';
import {
  type Example,
  exampleArgs,
  ourRender,
  ROOT,
  skipUnlessBuilt,
  realRender,
  REAL_RENDER,
  renderExamples,
  type Served,
  serveFunctions,
} from './harness.js';

const describeIfBuilt = skipUnlessBuilt('render conformance', { log: true });
const examples = renderExamples();
const allowed = loadAllowList();

const variants: { name: string; flags: (ex: Example) => string[] }[] = [
  { name: 'default', flags: (ex) => exampleArgs(ex) },
  { name: 'full', flags: (ex) => [...exampleArgs(ex, { xrd: true }), '-x', '-r', '-c'] },
];

describeIfBuilt('render conformance: modelplane render == crossplane composition render', () => {
  let served: Served;

  beforeAll(async () => {
    console.log(describeAllowList(allowed));
    console.log(`real render: ${REAL_RENDER.map((p) => relative(ROOT, p)).join(' ')}`);
    served = await serveFunctions();
  });
  afterAll(async () => {
    await served?.stop();
  });

  it('finds the examples', () => {
    expect(examples.length, 'no render example under examples/').toBeGreaterThan(0);
  });

  for (const ex of examples) {
    for (const variant of variants) {
      it(`${ex.name} (${variant.name})`, async () => {
        const flags = variant.flags(ex);
        const [real, ours] = await Promise.all([
          realRender(ex.xr, ex.composition, served.functionsFile, flags),
          ourRender(ex.xr, ex.composition, served.functionsFile, flags),
        ]);
        const how = `inputs: ${relative(ROOT, ex.dir)} ${flags.map((f) => (f.startsWith('/') ? relative(ROOT, f) : f)).join(' ')}`;
        expect(real.code, `real render failed (${how}):\n${real.stderr}`).not.toBe(1);
        expect(ours.code, `exit codes differ (${how}); real: ${real.code}, ours: ${ours.code}\n${ours.stderr}`).toBe(real.code);
        const cmp = compareStreams(real.stdout, ours.stdout, { example: ex.name, variant: variant.name, allowed });
        if (!cmp.equal) {
          expect.fail(renderMismatchMessage(ex.name, variant.name, how, cmp.diff));
        }
        if (variant.name === 'default' && ex.expected) {
          const golden = readFileSync(ex.expected, 'utf8');
          const g = compareStreams(real.stdout, golden, {
            example: ex.name,
            variant: 'golden',
            allowed: [],
            labels: ['crossplane (real)', relative(ROOT, ex.expected)],
          });
          if (!g.equal) {
            expect.fail(`${relative(ROOT, ex.expected)} is not what the real crossplane render prints (${how}).\n${g.diff}`);
          }
        }
      });
    }
  }
});

