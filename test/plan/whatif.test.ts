/**
 * What-if in plan (docs/failover.md#what-if): `--lose CLUSTER...` and
 * `--check-survivable`, as goldens of the text and JSON a platform team reads
 * before an outage, with their exit codes. `UPDATE_GOLDENS=1` rewrites them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../cli/functions.js';
import { modelplane } from '../helpers/cli.js';

const QS = join(REPO_ROOT, 'examples/quickstart');
const PLATFORM = ['cluster-classes.yaml', 'clusters.yaml', 'inference-gateway.yaml'].map((f) => join(QS, f));
const THREE = [...PLATFORM, join(REPO_ROOT, 'test/plan/fixtures/qwen-3-replicas.yaml')];

/** The stdout must equal golden `name` (test/plan/golden/). */
function golden(name: string, stdout: string): void {
  const file = join(REPO_ROOT, 'test/plan/golden', name);
  if (process.env['UPDATE_GOLDENS'] === '1') writeFileSync(file, stdout);
  expect(stdout).toBe(readFileSync(file, 'utf8'));
}

describe('plan what-if', { timeout: 120_000 }, () => {
  it('--check-survivable on the quickstart: every single-cluster loss is survivable (exit 0)', async () => {
    const [text, json] = await Promise.all([modelplane('plan', QS, '--check-survivable'), modelplane('plan', QS, '--check-survivable', '-o', 'json')]);
    expect([text.code, json.code]).toEqual([0, 0]);
    golden('survivable-quickstart.txt', text.stdout);
    golden('survivable-quickstart.json', json.stdout);
  });

  it('--check-survivable with 3 replicas on room for 3: no loss is survivable, each says why (exit 4)', async () => {
    const [text, json] = await Promise.all([modelplane('plan', ...THREE, '--check-survivable'), modelplane('plan', ...THREE, '--check-survivable', '-o', 'json')]);
    expect([text.code, json.code]).toEqual([4, 4]);
    golden('survivable-3-replicas.txt', text.stdout);
    golden('survivable-3-replicas.json', json.stdout);
  });

  it('--lose eks-eu-central: its replica is re-placed on eks-us-west, the old one and its endpoint are gone (exit 0)', async () => {
    const r = await modelplane('plan', QS, '--lose', 'eks-eu-central');
    expect(r.code).toBe(0);
    golden('lose-eks-eu-central.txt', r.stdout);
  });

  it('--lose two of three clusters: FailoverBlocked, the lost replica kept in place (exit 4)', async () => {
    const r = await modelplane('plan', QS, '--lose', 'eks-eu-central', 'eks-us-west', '-o', 'json');
    expect(r.code).toBe(4);
    const report = JSON.parse(r.stdout);
    expect(report.problems).toEqual([
      'ModelDeployment default/qwen-demo: Progressing FailoverBlocked: Failover held: keeping 1 replica on Unavailable or drained clusters in place; 1 of 2 replicas scheduled; 3 clusters: 1 pool gpu-l4: needs 1 gpu on one node, 0 free, 2 health Unavailable since 2024-01-01T00:05:00Z',
    ]);
    expect(report.deployments[0].replicas.map((x: { cluster: string }) => x.cluster)).toEqual(['eks-us-east', 'eks-eu-central']);
    expect(report.services[0].endpoints.map((e: { name: string }) => e.name)).toEqual(['qwen-demo-92535']);
  });

  it('--lose a cluster that is not in the plan names the ones that are; --check-survivable refuses --lose', async () => {
    const [bad, both] = await Promise.all([modelplane('plan', QS, '--lose', 'nope'), modelplane('plan', QS, '--check-survivable', '--lose', 'eks-us-east')]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe('modelplane plan: --lose nope: no such InferenceCluster in the plan (it has eks-eu-central, eks-us-east, eks-us-west)\n');
    expect(both).toEqual({ code: 2, stdout: '', stderr: 'modelplane plan: --check-survivable loses every cluster in turn; it does not combine with --lose or --diff\n' });
  });
});
