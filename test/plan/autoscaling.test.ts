/**
 * `modelplane plan` on an autoscaled deployment (docs/autoscaling.md#in-a-plan):
 * the bounds, KEDA's state and whether the fleet places the maximum, and a
 * problem (exit 4) when it cannot.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../cli/functions.js';
import { modelplane } from '../helpers/cli.js';

const QS = join(REPO_ROOT, 'examples/quickstart');
const PLATFORM = ['cluster-classes.yaml', 'clusters.yaml', 'inference-gateway.yaml'].map((f) => join(QS, f));
const EXAMPLE = join(REPO_ROOT, 'examples/autoscaling/model.yaml');
const scratch = mkdtempSync(join(tmpdir(), 'plan-autoscaling-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('plan: autoscaling', () => {
  it('shows the bounds, that KEDA has not reported, and that the three one-GPU pools place the maximum of 3', async () => {
    const [text, json] = await Promise.all([modelplane('plan', ...PLATFORM, EXAMPLE), modelplane('plan', ...PLATFORM, EXAMPLE, '-o', 'json')]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('  default/qwen-autoscaled: autoscaling 0..3 WaitingForKEDA; at maxReplicas the fleet places 3/3\n');
    const report = JSON.parse(json.stdout) as { problems: string[]; deployments: { name: string; autoscaling?: unknown }[] };
    expect(report.problems).toEqual([]);
    expect(report.deployments.find((d) => d.name === 'qwen-autoscaled')?.autoscaling).toEqual({ minReplicas: 0, maxReplicas: 3, summary: '0..3 WaitingForKEDA', autoscaler: 'KEDA', placedAtMax: 3 });
  });

  it('is a problem (exit 4) when the fleet cannot place maxReplicas', async () => {
    const four = join(scratch, 'four.yaml');
    writeFileSync(four, readFileSync(EXAMPLE, 'utf8').replace('maxReplicas: 3', 'maxReplicas: 4'));
    const r = await modelplane('plan', ...PLATFORM, four);
    expect(r.code).toBe(4);
    expect(r.stdout).toContain(
      'Problems (1)\n  ModelDeployment default/qwen-autoscaled: spec.autoscaling.maxReplicas is 4 but the fleet places 3 at peak (3 of 4 replicas scheduled; 3 clusters: 2 pool gpu-l40s: needs 1 gpu on one node, 0 free, 1 pool gpu-l4: needs 1 gpu on one node, 0 free); add capacity or lower maxReplicas\n',
    );
    expect(r.stdout).toContain('at maxReplicas the fleet places 3/4');
  });

  it('keeps what already runs at peak: beside the quickstart deployment (2 of the 3 GPUs) the maximum of 3 places 1', async () => {
    const r = await modelplane('plan', QS, EXAMPLE);
    expect(r.code).toBe(4);
    expect(r.stdout).toContain(
      '  ModelDeployment default/qwen-autoscaled: spec.autoscaling.maxReplicas is 3 but the fleet places 1 at peak (1 of 3 replicas scheduled; 3 clusters: 2 pool gpu-l40s: needs 1 gpu on one node, 0 free, 1 pool gpu-l4: needs 1 gpu on one node, 0 free); add capacity or lower maxReplicas\n',
    );
    expect(r.stdout).toContain('  default/qwen-demo: ');
    expect(r.stdout).not.toContain('qwen-demo: spec.autoscaling');
  });

  it('says a spec.replicas outside the bounds', async () => {
    const seven = join(scratch, 'seven.yaml');
    writeFileSync(seven, readFileSync(EXAMPLE, 'utf8').replace('replicas: 1\n', 'replicas: 0\n').replace('minReplicas: 0', 'minReplicas: 1'));
    const r = await modelplane('plan', ...PLATFORM, seven);
    expect(r.stdout).toContain('default/qwen-autoscaled: autoscaling 1..3 WaitingForKEDA; at maxReplicas the fleet places 3/3; spec.replicas 0 is outside the bounds (KEDA sets it back)\n');
  });

  it('under the HPA autoscaler: the bounds it holds (minReplicas 0 is 1), and that it does not scale from zero', async () => {
    const gateway = join(scratch, 'gateway-hpa.yaml');
    writeFileSync(gateway, `${readFileSync(PLATFORM[2]!, 'utf8')}  autoscaling:\n    autoscaler: HPA\n`);
    const atZero = join(scratch, 'zero.yaml');
    writeFileSync(atZero, readFileSync(EXAMPLE, 'utf8').replace('replicas: 1\n', 'replicas: 0\n'));
    const args = [PLATFORM[0]!, PLATFORM[1]!, gateway, atZero];
    const [text, json] = await Promise.all([modelplane('plan', ...args), modelplane('plan', ...args, '-o', 'json')]);
    expect(text.stdout).toContain(
      'default/qwen-autoscaled: autoscaling 1..3 WaitingForHPA; at maxReplicas the fleet places 3/3; spec.replicas 0 is outside the bounds (the HorizontalPodAutoscaler does not scale from zero: scale it by hand)\n',
    );
    const report = JSON.parse(json.stdout) as { problems: string[]; deployments: { name: string; autoscaling?: unknown }[] };
    expect(report.deployments.find((d) => d.name === 'qwen-autoscaled')?.autoscaling).toEqual({ minReplicas: 1, maxReplicas: 3, summary: '1..3 WaitingForHPA', autoscaler: 'HPA', placedAtMax: 3 });
    expect(text.code).toBe(4);
    expect(report.problems[0]).toBe(
      "ModelDeployment default/qwen-autoscaled: ReplicasReady ScaledToZero: spec.replicas is 0 and the HorizontalPodAutoscaler does not scale from zero, so no replica will start: kubectl scale modeldeployment/qwen-autoscaled -n default --replicas 1 (spec.autoscaling under HPA is 1..3), or set the InferenceGateway's autoscaler to KEDA",
    );
  });
});
