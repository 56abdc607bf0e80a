/**
 * `modelplane plan` end to end, each run a fresh process (as a user runs it):
 * on the quickstart, and on a generated fleet of 100 InferenceClusters (EKS
 * and Existing, 2–4 pools) with 50 ModelDeployments and 20 ModelServices.
 * Medians of wall time and peak RSS. Targets: quickstart <= 2 s, generated
 * fleet <= 20 s and <= 1 GB.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../cli/functions.js';
import { writeFleet } from './fleet.js';
import { pct } from './stats.js';

function median(xs: number[]): number {
  return pct(xs, 50);
}

/**
 * One `modelplane plan` in a child process: wall ms, peak RSS MiB, and the
 * summary. `env` is added to the child's environment (e.g. NODE_OPTIONS for a
 * CPU profile).
 */
export function planOnce(path: string, env: Record<string, string> = {}): { ms: number; rssMiB: number; summary: string } {
  const start = performance.now();
  const r = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '-e',
      `const { plan } = await import(${JSON.stringify(join(REPO_ROOT, 'cli/plan/planner.ts'))});
       const { buildReport } = await import(${JSON.stringify(join(REPO_ROOT, 'cli/plan/report.ts'))});
       const rep = buildReport(await plan([${JSON.stringify(path)}]));
       const placed = rep.deployments.reduce((a, d) => a + d.scheduledReplicas, 0);
       const wanted = rep.deployments.reduce((a, d) => a + d.desiredReplicas, 0);
       const objects = Object.values(rep.resources).reduce((a, b) => a + b, 0);
       console.log(JSON.stringify({ rss: process.resourceUsage().maxRSS, summary: \`converged=\${rep.converged} rounds=\${rep.rounds} clusters=\${rep.clusters.length} replicas=\${placed}/\${wanted} composed=\${objects}\` }));`,
    ],
    { cwd: REPO_ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, ...env } },
  );
  const ms = performance.now() - start;
  if (r.status !== 0) throw new Error(`plan failed: ${r.stderr}`);
  const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as { rss: number; summary: string };
  return { ms, rssMiB: out.rss / 1024, summary: out.summary };
}

function report(label: string, path: string, runs: number, target: string): void {
  const results = Array.from({ length: runs }, () => planOnce(path));
  console.log(
    `plan ${label}: wall median ${median(results.map((r) => r.ms)).toFixed(0)} ms, peak RSS median ${median(results.map((r) => r.rssMiB)).toFixed(0)} MiB ` +
      `over ${runs} runs; ${results[0]!.summary}  [target: ${target}]`,
  );
}

export default async function (): Promise<void> {
  report('examples/quickstart', join(REPO_ROOT, 'examples/quickstart'), 5, '<= 2 s');
  const dir = mkdtempSync(join(tmpdir(), 'mp-fleet-'));
  writeFleet(dir, { clusters: 100, deployments: 50, services: 20 });
  report('generated fleet (100 clusters, 50 deployments, 20 services)', dir, 3, '<= 20 s, <= 1 GB');
}
