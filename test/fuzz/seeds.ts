/**
 * The fuzzer's seeds: real RunFunctionRequests, recorded while rendering
 * every example under `examples/` (each render input folder) and planning
 * the plan inputs there (`examples/quickstart/`, the whole fleet), so every
 * function has requests from every stage of its life: the first call before
 * any requirement is fetched, the calls after, and converged calls with
 * observed children carrying status.
 *
 * Guarantees:
 * - Every request is the wire form (protobuf round trip), a private copy the
 *   mutators may change.
 * - Seeds are deduplicated (the tag, which plan does not compute, is
 *   ignored) and listed in a stable order: by function, then by first
 *   appearance, which follows the sorted example folders.
 * - Every function under `functions/` with a `main.ts` is covered, or
 *   {@link collectSeeds} throws naming the functions without a seed.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { RunFunctionRequest, type RunFunctionResponse } from '@crossplane-org/function-sdk-typescript';
import { renderExample, renderExamples } from '../../cli/examples.js';
import { DirectRuntime, folderOf, functionFolders, REPO_ROOT } from '../../cli/functions.js';
import { plan } from '../../cli/plan/planner.js';

/** One recorded request. */
export interface Seed {
  /** Function folder, e.g. `compose-model-endpoint`. */
  fn: string;
  /** Where it was recorded: `render <example>` or `plan <folder>`, with the call number. */
  source: string;
  request: RunFunctionRequest;
}

/** Records the wire form of every request of our functions. */
class RecordingRuntime extends DirectRuntime {
  readonly seen: Seed[] = [];
  source = '';
  private calls = 0;

  override async run(name: string, req: RunFunctionRequest): Promise<RunFunctionResponse> {
    const fn = folderOf(name);
    if (fn !== undefined) {
      const request = RunFunctionRequest.decode(RunFunctionRequest.encode(req).finish());
      this.seen.push({ fn, source: `${this.source} call ${++this.calls}`, request });
    }
    return super.run(name, req);
  }
}

/** Example folders that are plan inputs (manifests without a composition.yaml). */
export function planExamples(root = join(REPO_ROOT, 'examples')): string[] {
  return readdirSync(root)
    .sort()
    .map((d) => join(root, d))
    .filter((d) => !existsSync(join(d, 'composition.yaml')) && readdirSync(d).some((f) => f.endsWith('.yaml')));
}

let cached: Promise<Map<string, Seed[]>> | undefined;

/**
 * Every seed, by function folder (cached per process).
 * @throws Error naming the functions no example exercises
 */
export function collectSeeds(): Promise<Map<string, Seed[]>> {
  cached ??= record();
  return cached;
}

async function record(): Promise<Map<string, Seed[]>> {
  const rt = new RecordingRuntime();
  for (const dir of renderExamples()) {
    rt.source = `render ${dir.slice(REPO_ROOT.length + 1)}`;
    await renderExample(dir, rt);
  }
  for (const dir of planExamples()) {
    rt.source = `plan ${dir.slice(REPO_ROOT.length + 1)}`;
    await plan([dir], { runtime: rt });
  }
  const out = new Map<string, Seed[]>(functionFolders().map((f) => [f, []]));
  const keys = new Set<string>();
  for (const s of rt.seen) {
    const key = `${s.fn}\n${JSON.stringify(RunFunctionRequest.toJSON({ ...s.request, meta: { tag: '', capabilities: [] } }))}`;
    if (keys.has(key)) continue;
    keys.add(key);
    out.get(s.fn)?.push(s);
  }
  const missing = [...out].filter(([, seeds]) => seeds.length === 0).map(([f]) => f);
  if (missing.length > 0) throw new Error(`no example exercises ${missing.join(', ')}: add one under examples/`);
  return out;
}
