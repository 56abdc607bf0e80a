/**
 * `modelplane plan` as a user runs it: exit codes, the JSON contract's keys,
 * and one line per invalid input, never a stack trace.
 */
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../cli/functions.js';
import { modelplane } from '../helpers/cli.js';


describe('modelplane plan (command line)', () => {
  it('prints the JSON contract with every key, exit 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mp-plan-cli-'));
    const r = await modelplane('plan', join(REPO_ROOT, '..', 'shared', 'corpus', 'seeds', 'vultr'), '--output', 'json', '--write', join(dir, 'out'));
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(Object.keys(report)).toEqual(['converged', 'rounds', 'problems', 'clusters', 'deployments', 'observability', 'caches', 'services', 'others', 'invalid', 'resources', 'state']);
    const [cluster] = report['clusters'] as Record<string, unknown>[];
    expect(Object.keys(cluster ?? {})).toEqual(['name', 'source', 'ready', 'gatewayAddress', 'pools', 'capabilities', 'health', 'lost', 'conditions']);
    const [pool] = (cluster?.['pools'] ?? []) as Record<string, unknown>[];
    expect(Object.keys(pool ?? {})).toEqual(['name', 'className', 'nodes', 'usedNodes', 'usedDevices', 'fabric']);
    const [deployment] = report['deployments'] as Record<string, unknown>[];
    expect(Object.keys(deployment ?? {})).toEqual([
      'namespace',
      'name',
      'desiredReplicas',
      'scheduledReplicas',
      'readyReplicas',
      'replicas',
      'conditions',
      'coldStart',
    ]);
    const [observed] = report['observability'] as { deployment: string; dashboard: string; podMonitors: Record<string, unknown>[] }[];
    expect(Object.keys(observed ?? {})).toEqual(['deployment', 'dashboard', 'podMonitors']);
    expect(observed?.dashboard).toBe(`${observed?.deployment.split('/')[1]}-dashboard`);
    expect(Object.keys(observed?.podMonitors[0] ?? {})).toEqual(['replica', 'cluster', 'podMonitor', 'endpoints']);
    expect(observed?.podMonitors[0]?.['podMonitor']).toBe(`${String(observed?.podMonitors[0]?.['replica'])}-metrics`);
    expect(observed?.podMonitors[0]?.['endpoints']).toBe(1);
    expect((report['resources'] as Record<string, number>)['vke.vultr.m.upbound.io/v1beta1/KubernetesNodePool']).toBe(1);
    expect(r.stderr).toMatch(/^wrote \d+ composed objects under .+\n$/);
    expect(readdirSync(join(dir, 'out'))).toContain('vultrcluster-modelplane-system-vultr-demo');
  });

  it('lists an invalid XR and an unknown kind, still plans the rest, and exits 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mp-plan-cli-'));
    const bad = join(dir, 'bad.yaml');
    writeFileSync(
      bad,
      'apiVersion: modelplane.ai/v1alpha1\nkind: InferenceClass\nmetadata: {name: nodevices}\nspec: {description: x}\n---\napiVersion: example.org/v1\nkind: Widget\nmetadata: {name: w}\n',
    );
    const r = await modelplane('plan', join(REPO_ROOT, 'examples/quickstart/cluster-classes.yaml'), bad);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`invalid: ${bad}:1 InferenceClass/nodevices: spec.devices: Required value\n`);
    expect(r.stdout).toContain(`skipped (not a plan input): ${bad}:6 example.org/v1/Widget w\n`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('a missing path is one line and exit 1', async () => {
    const r = await modelplane('plan', '/nonexistent/fleet');
    expect(r).toEqual({ code: 1, stdout: '', stderr: 'modelplane plan: /nonexistent/fleet: no such file or directory\n' });
  });
});
