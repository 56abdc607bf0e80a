/**
 * The real `crossplane xpkg build` (CLI v2.5.0, tools/crossplane) keeps every
 * field of what it packages, subresources of an XRD included (CLI v2.2.1
 * dropped them, and with them `kubectl scale`), and the loss check of
 * cli/dev/packages.ts names a field the CLI does drop. Skips, saying so,
 * where the CLI is not built.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { BIN } from '../../cli/dev/components.js';
import { buildLoss } from '../../cli/dev/packages.js';
import { layerDocuments } from '../../cli/dev/xpkg.js';
import { REPO_ROOT } from '../../cli/functions.js';

/** The part of an XRD these tests read and change. */
interface Xrd {
  spec: { versions: ({ subresources?: { scale?: unknown } } & Record<string, unknown>)[] };
}

const CLI = join(BIN, 'crossplane');
const built = existsSync(CLI);

/** A Configuration folder holding the ModelDeployment XRD (changed by `edit`), built with the real CLI. */
function buildConfiguration(edit: (xrd: Xrd) => void = () => {}): { root: string; file: string } {
  const root = mkdtempSync(join(tmpdir(), 'xpkg-build-'));
  writeFileSync(join(root, 'crossplane.yaml'), stringify({ apiVersion: 'meta.pkg.crossplane.io/v1', kind: 'Configuration', metadata: { name: 'c' }, spec: { crossplane: { version: '>=v2.4.0' } } }));
  const xrd = parse(readFileSync(join(REPO_ROOT, 'apis', 'modeldeployments', 'definition.yaml'), 'utf8')) as Xrd;
  edit(xrd);
  writeFileSync(join(root, 'xrd.yaml'), stringify(xrd));
  mkdirSync(join(root, '.no-examples'));
  const file = `${root}.xpkg`;
  execFileSync(CLI, ['xpkg', 'build', '--package-root', root, '--examples-root', join(root, '.no-examples'), '-o', file], { stdio: 'pipe' });
  return { root, file };
}

describe.skipIf(!built)(`crossplane xpkg build${built ? '' : ' (skipped: the real CLI is not built: npm run crossplane:build, needs Go)'}`, () => {
  it('keeps the XRD whole, its scale subresource included', async () => {
    const { root, file } = buildConfiguration();
    expect(await buildLoss(root, file)).toBeUndefined();
    const xrd = (await layerDocuments(file)).find((d) => (d as { kind?: string }).kind === 'CompositeResourceDefinition') as Xrd;
    expect(xrd.spec.versions[0]?.subresources?.scale).toEqual({ specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas.total', labelSelectorPath: '.status.selector' });
  }, 60_000);

  it('the loss check names a field the CLI drops', async () => {
    const { root, file } = buildConfiguration((xrd) => {
      xrd.spec.versions[0]!['notAField'] = true;
    });
    expect(await buildLoss(root, file)).toBe('apiextensions.crossplane.io/v2 CompositeResourceDefinition modeldeployments.modelplane.ai: .spec.versions[0].notAField');
  }, 60_000);
});
