/**
 * Runs the generated Argo CD health checks (deploy/argocd/argocd-cm-patch.yaml)
 * through tools/argocd-health: gopher-lua, the Lua engine Argo CD embeds,
 * called as Argo CD calls a health check (docs/argocd.md). The tool is built
 * with `go build` into .cache/bin on first use (and again when its source is
 * newer); without Go the tests skip with {@link SKIP_REASON}.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { configKey, PATCH_PATH, ROOT } from '../../scripts/argocd/emit.js';

/** Where the tool is built. */
export const BIN = join(ROOT, '.cache/bin/argocd-health');
const SRC = join(ROOT, 'tools/argocd-health');

function hasGo(): boolean {
  return spawnSync('go', ['version'], { stdio: 'ignore' }).status === 0;
}

function stale(): boolean {
  if (!existsSync(BIN)) return true;
  const built = statSync(BIN).mtimeMs;
  return ['main.go', 'go.mod', 'go.sum'].some((f) => statSync(join(SRC, f)).mtimeMs > built);
}

/** Why the harness tests are skipped, or undefined when they run. */
export const SKIP_REASON: string | undefined = !stale() || hasGo() ? undefined : "'go' is not on PATH: tools/argocd-health (gopher-lua) cannot be built";

/**
 * Builds the tool when missing or older than its source, into a file of this
 * process renamed into place, so test files building at once do not clash.
 */
export function ensureBuilt(): void {
  if (!stale()) return;
  const tmp = `${BIN}.${process.pid}`;
  execFileSync('go', ['build', '-o', tmp, '.'], { cwd: SRC, stdio: ['ignore', 'ignore', 'pipe'] });
  renameSync(tmp, BIN);
}

/** What Argo CD reports for one object: a health status and message, or the script's error. */
export interface Assessment {
  status?: string;
  message?: string;
  error?: string;
}

/** Runs the Lua `script` against each object, in one process. */
export function assessWith(script: string, objects: readonly unknown[]): Assessment[] {
  ensureBuilt();
  const dir = join(ROOT, '.cache/argocd');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `check-${process.pid}.lua`);
  writeFileSync(file, script);
  const out = spawnSync(BIN, [file], { input: JSON.stringify(objects), encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`argocd-health failed: ${out.stderr}`);
  return JSON.parse(out.stdout) as Assessment[];
}

/** The committed argocd-cm patch's keys and scripts. */
export function patchData(): Record<string, string> {
  return (parse(readFileSync(PATCH_PATH, 'utf8')) as { data: Record<string, string> }).data;
}

/** Runs the committed health check of `group`/`kind` against each object. */
export function assess(group: string, kind: string, objects: readonly unknown[]): Assessment[] {
  const script = patchData()[configKey({ group, kind })];
  if (script === undefined) throw new Error(`no ${configKey({ group, kind })} in the patch`);
  return assessWith(script, objects);
}
