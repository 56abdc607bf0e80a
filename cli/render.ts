/**
 * `modelplane render XR COMPOSITION FUNCTIONS [flags]`: `crossplane
 * composition render` of CLI v2.3, reproduced (docs/composition.md#rendering).
 *
 * Exit codes: 0 rendered; 1 bad input (one line naming the file and field);
 * 3 a Fatal result (the partial output is still printed).
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { type JsonObject, type KubeObject, NOW_CONTEXT_KEY } from '../functions/lib/function.js';
import { type FunctionRuntime, GrpcRuntime, InProcessRuntime } from './functions.js';
import { loadManifests, loadOne, UserError } from './load.js';
import { checkComposition, type RenderInputs, type RenderOutput, render } from './render/engine.js';
import { formatRender } from './render/output.js';
import { withoutClusterNamespace } from './scope.js';
import { applyXrd } from './xrd.js';

/** Flags of `modelplane render`, as commander parses them. */
export interface RenderFlags {
  observedResources?: string;
  requiredResources?: string[];
  extraResources?: string;
  contextFiles?: string[];
  contextValues?: string[];
  functionCredentials?: string;
  includeFunctionResults?: boolean;
  includeFullXr?: boolean;
  includeContext?: boolean;
  xrd?: string;
  /** `--now`: the time durations are measured against (RFC 3339), as context key modelplane.ai/now. */
  now?: string;
  /** Run functions in this process instead of over gRPC. */
  inProcess?: boolean;
}

/** `--context-files k=path` / `--context-values k=json`: values beat files for the same key. */
export function parseContext(files: string[] = [], values: string[] = []): JsonObject {
  const context: JsonObject = {};
  const split = (flag: string, kv: string): [string, string] => {
    const at = kv.indexOf('=');
    if (at <= 0) throw new UserError(`${flag} ${kv}: want KEY=VALUE`);
    return [kv.slice(0, at), kv.slice(at + 1)];
  };
  for (const kv of files) {
    const [k, path] = split('--context-files', kv);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      throw new UserError(`--context-files ${k}: ${path}: cannot read file`);
    }
    try {
      context[k] = parseYaml(text);
    } catch (err) {
      throw new UserError(`--context-files ${k}: ${path}: invalid JSON or YAML: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  for (const kv of values) {
    const [k, v] = split('--context-values', kv);
    try {
      context[k] = parseYaml(v);
    } catch (err) {
      throw new UserError(`--context-values ${k}: invalid JSON or YAML: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  return context;
}

/** Reads the Function objects of a file or directory: name → Development target, if annotated. */
export function loadFunctions(path: string): { names: string[]; developmentTargets: Map<string, string> } {
  const docs = loadManifests(path).map((d) => d.object);
  const fns = docs.filter((d) => d.kind === 'Function' && String(d.apiVersion).startsWith('pkg.crossplane.io/'));
  if (fns.length === 0) throw new UserError(`${path}: no pkg.crossplane.io Function objects found`);
  const developmentTargets = new Map<string, string>();
  for (const fn of fns) {
    const a = fn.metadata?.annotations ?? {};
    if (a['render.crossplane.io/runtime'] === 'Development') {
      developmentTargets.set(fn.metadata?.name ?? '', a['render.crossplane.io/runtime-development-target'] ?? 'localhost:9443');
    }
  }
  return { names: fns.map((f) => f.metadata?.name ?? ''), developmentTargets };
}

/**
 * Every pipeline step's function must be among the Function objects given,
 * as `crossplane render` requires.
 * @throws UserError naming the step and the function
 */
export function checkFunctionsListed(composition: KubeObject, names: readonly string[], compositionPath: string, functionsPath: string): void {
  const steps = ((composition['spec'] as JsonObject | undefined)?.['pipeline'] ?? []) as { step?: string; functionRef?: { name?: string } }[];
  for (const [i, s] of steps.entries()) {
    const fn = s.functionRef?.name ?? '';
    if (!names.includes(fn)) {
      throw new UserError(`${compositionPath}: spec.pipeline[${i}] (step ${s.step ?? '?'}) uses function ${fn}, which ${functionsPath} does not list`);
    }
  }
}

/** Loads every input of a render from the command line. @throws UserError */
export function loadRenderInputs(xrPath: string, compositionPath: string, flags: RenderFlags): RenderInputs {
  // Cluster-scoped kinds given a namespace have it ignored, as the API server does.
  let xr = withoutClusterNamespace(loadOne(xrPath, 'XR'));
  if (flags.xrd) xr = applyXrd(xr, flags.xrd, xrPath);
  const composition = loadOne(compositionPath, 'Composition');
  const observed = flags.observedResources ? loadManifests(flags.observedResources).map((d) => withoutClusterNamespace(d.object)) : [];
  const requiredPaths = [...(flags.requiredResources ?? []), ...(flags.extraResources ? [flags.extraResources] : [])];
  const required = requiredPaths.flatMap((p) => loadManifests(p).map((d) => withoutClusterNamespace(d.object)));
  const credentials = flags.functionCredentials
    ? loadManifests(flags.functionCredentials)
        .map((d) => d.object)
        .filter((o: KubeObject) => o.kind === 'Secret')
    : [];
  return {
    xr,
    composition,
    observed,
    required,
    credentials,
    context: { ...parseContext(flags.contextFiles, flags.contextValues), ...(flags.now !== undefined ? { [NOW_CONTEXT_KEY]: flags.now } : {}) },
    compositionFile: compositionPath,
  };
}

/** Renders with the given runtime, always closing it. */
export async function renderWith(inputs: RenderInputs, runtime: FunctionRuntime): Promise<RenderOutput> {
  try {
    return await render(inputs, runtime);
  } finally {
    await runtime.close();
  }
}

/** The command: returns the exit code; output goes to `write`. */
export async function runRender(
  xrPath: string,
  compositionPath: string,
  functionsPath: string,
  flags: RenderFlags,
  write: (s: string) => void = (s) => process.stdout.write(s),
): Promise<number> {
  const inputs = loadRenderInputs(xrPath, compositionPath, flags);
  const { names, developmentTargets } = loadFunctions(functionsPath);
  checkComposition(inputs.xr, inputs.composition, compositionPath);
  checkFunctionsListed(inputs.composition, names, compositionPath, functionsPath);
  const runtime = flags.inProcess ? new InProcessRuntime() : new GrpcRuntime(developmentTargets);
  const out = await renderWith(inputs, runtime);
  write(
    formatRender(out, {
      includeFullXr: flags.includeFullXr ?? false,
      includeResults: flags.includeFunctionResults ?? false,
      includeContext: flags.includeContext ?? false,
      inputXr: inputs.xr,
    }),
  );
  if (out.fatal !== undefined) {
    process.stderr.write(`modelplane render: pipeline stopped on a Fatal result: ${out.fatal}\n`);
    return 3;
  }
  return 0;
}
