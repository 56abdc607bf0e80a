/**
 * The example folder convention: `examples/<name>/` is one render input when
 * it has `xr.yaml`, `composition.yaml` and `functions.yaml`, with optional
 * `observed.yaml` (observed composed resources), `required.yaml` (required
 * resources) and `credentials.yaml` (Secrets), and its golden `expected.yaml`.
 * Folders without a composition are plan inputs, not render inputs.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './functions.js';
import { checkFunctionsListed, type RenderFlags, loadFunctions, loadRenderInputs, renderWith } from './render.js';
import type { FunctionRuntime } from './functions.js';
import { formatRender } from './render/output.js';

/** Absolute paths of every example folder that is a render input, sorted. */
export function renderExamples(root = join(REPO_ROOT, 'examples')): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .sort()
    .map((d) => join(root, d))
    .filter((d) => ['xr.yaml', 'composition.yaml', 'functions.yaml'].every((f) => existsSync(join(d, f))));
}

/** The `modelplane render` flags an example folder implies. */
export function exampleFlags(dir: string): RenderFlags {
  const flags: RenderFlags = {};
  if (existsSync(join(dir, 'observed.yaml'))) flags.observedResources = join(dir, 'observed.yaml');
  if (existsSync(join(dir, 'required.yaml'))) flags.requiredResources = [join(dir, 'required.yaml')];
  if (existsSync(join(dir, 'credentials.yaml'))) flags.functionCredentials = join(dir, 'credentials.yaml');
  return flags;
}

/** Renders an example folder with a runtime (not closed here) to its YAML stream. */
export async function renderExample(dir: string, runtime: FunctionRuntime): Promise<{ yaml: string; fatal?: string }> {
  const inputs = loadRenderInputs(join(dir, 'xr.yaml'), join(dir, 'composition.yaml'), exampleFlags(dir));
  checkFunctionsListed(inputs.composition, loadFunctions(join(dir, 'functions.yaml')).names, 'composition.yaml', 'functions.yaml');
  const out = await renderWith(inputs, { run: (n, r) => runtime.run(n, r), close: async () => {} });
  return { yaml: formatRender(out), ...(out.fatal !== undefined ? { fatal: out.fatal } : {}) };
}
