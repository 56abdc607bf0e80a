/**
 * Placement policy and quotas in plan (docs/placement-policy.md,
 * docs/quotas.md) on examples/tiered-fleet: reserved first with overflow,
 * the minOnDemand floor through the loss of the Spot cluster, the fleet's
 * hourly cost, drain-back to the reserved tier once a deployment there is
 * deleted (`--state`), and a team stopped at its quota (QuotaExceeded).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../cli/functions.js';
import { modelplane } from '../helpers/cli.js';

const FLEET = join(REPO_ROOT, 'examples/tiered-fleet');
const BATCH = join(REPO_ROOT, 'test/plan/fixtures/tiered-batch-reserved.yaml');

interface Report {
  problems: string[];
  cost?: { fleet: string; clusters: { name: string; hourly: string }[]; deployments: { name: string; hourly: string }[] };
  deployments: { namespace: string; name: string; replicas: { cluster: string }[]; conditions: { type: string; status: string; reason: string; message: string }[] }[];
}

const where = (r: Report, name: string) => r.deployments.find((d) => d.name === name)!.replicas.map((x) => x.cluster).sort();
const cond = (r: Report, name: string, type: string) => r.deployments.find((d) => d.name === name)!.conditions.find((c) => c.type === type);
const QUOTA = '1 of 2 replicas scheduled; 3 clusters: 2 pool gpu-l40s: needs 1 gpu on one node, 0 free, 1 InferenceQuota team-search/gpus limits[0]: 1 device; the namespace holds 1 and this replica needs 1';

describe('plan: placement policy and quotas on examples/tiered-fleet', { timeout: 180_000 }, () => {
  it('reserved first, then on demand, then Spot; team-search stopped at its quota; the cost per cluster, deployment and fleet', async () => {
    const r = await modelplane('plan', FLEET, '--allow-partial', '-o', 'json');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as Report;
    expect(where(report, 'chat')).toEqual(['eks-on-demand', 'eks-on-demand', 'eks-reserved', 'eks-reserved', 'eks-spot', 'eks-spot']);
    expect(where(report, 'embed')).toEqual(['eks-spot']);
    expect(cond(report, 'embed', 'ReplicasScheduled')).toMatchObject({ status: 'False', reason: 'QuotaExceeded', message: QUOTA });
    expect(report.cost).toEqual({
      fleet: '8.37 USD/h',
      clusters: [
        { name: 'eks-on-demand', hourly: '3.72 USD/h' },
        { name: 'eks-reserved', hourly: '2.40 USD/h' },
        { name: 'eks-spot', hourly: '2.25 USD/h' },
      ],
      deployments: [
        { name: 'team-chat/chat', hourly: '7.62 USD/h' },
        { name: 'team-search/embed', hourly: '0.75 USD/h' },
      ],
    });
    const text = await modelplane('plan', FLEET);
    expect(text.code).toBe(4);
    expect(text.stdout).toContain('│ fleet      │                   │ 8.37 USD/h │');
  });

  it('--lose eks-spot: minOnDemand holds (4 replicas off Spot), the Spot replicas stay where they run with nowhere to go', async () => {
    const r = await modelplane('plan', FLEET, '--lose', 'eks-spot', '--allow-partial', '-o', 'json');
    const report = JSON.parse(r.stdout) as Report;
    const chat = where(report, 'chat');
    expect(chat.filter((c) => c !== 'eks-spot')).toEqual(['eks-on-demand', 'eks-on-demand', 'eks-reserved', 'eks-reserved']);
    expect(chat.filter((c) => c === 'eks-spot')).toHaveLength(2);
    expect(cond(report, 'chat', 'Progressing')).toMatchObject({ status: 'False', reason: 'FailoverBlocked' });
  });

  it('--state: with the batch deployment gone, chat drains back to the reserved tier, and --diff says what it saves', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mp-tiers-'));
    const before = await modelplane('plan', FLEET, BATCH, '--allow-partial', '-o', 'json');
    const report = JSON.parse(before.stdout) as Report;
    expect(where(report, 'batch')).toEqual(['eks-reserved', 'eks-reserved']);
    // The floor (3 off Spot) leaves the sixth replica unplaced while reserved is taken.
    expect(where(report, 'chat')).toEqual(['eks-on-demand', 'eks-on-demand', 'eks-spot', 'eks-spot', 'eks-spot']);
    const state = join(dir, 'state.json');
    writeFileSync(state, before.stdout);
    const after = JSON.parse((await modelplane('plan', FLEET, '--state', state, '--allow-partial', '-o', 'json')).stdout) as Report;
    expect(where(after, 'chat')).toEqual(['eks-on-demand', 'eks-on-demand', 'eks-reserved', 'eks-reserved', 'eks-spot', 'eks-spot']);
    const diff = await modelplane('plan', FLEET, '--state', state, '--diff', '--allow-partial');
    expect(diff.stdout.split('\n')).toContain('cost: 9.12 USD/h -> 8.37 USD/h');
  });
});
