/**
 * `modelplane plan` and `modelplane selector` as a CI gate: each exit code
 * (0 clean, 1 invalid input, 2 usage, 4 planned with problems) with the exact
 * problem list printed before the tables, and the truthful READY a cluster,
 * service or endpoint reports when it does not serve what was asked.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../cli/functions.js';
import { modelplane } from '../helpers/cli.js';

const QS = join(REPO_ROOT, 'examples/quickstart');
const FIX = join(REPO_ROOT, 'test/plan/fixtures');
/** The quickstart platform (classes, clusters, gateway) without its model. */
const PLATFORM = ['cluster-classes.yaml', 'clusters.yaml', 'inference-gateway.yaml'].map((f) => join(QS, f));

/** The lines of the Problems section (without its indent), or [] when there is none. */
function problemsOf(stdout: string): string[] {
  const m = /\nProblems \(\d+\)\n((?: {2}.*\n)+)/.exec(stdout);
  return m ? m[1]!.trimEnd().split('\n').map((l) => l.slice(2)) : [];
}

describe('modelplane plan exit codes', { timeout: 120_000 }, () => {
  it('the quickstart is clean: exit 0, no Problems section', async () => {
    const r = await modelplane('plan', QS);
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith('Plan: converged in 21 rounds\n\nClusters\n')).toBe(true);
    expect(r.stderr).toBe('');
  });

  it('not converged: exit 4, listed first', async () => {
    const r = await modelplane('plan', QS, '--rounds', '3');
    expect(r.code).toBe(4);
    expect(r.stdout.startsWith('Plan: not converged after 6 rounds (raise --rounds to let it settle)\n\nProblems (')).toBe(true);
    expect(problemsOf(r.stdout)[0]).toBe('not converged after 6 rounds (raise --rounds to let it settle)');
  });

  it('3 of 5 replicas placed: exit 4 with the why-not; --allow-partial accepts it (exit 0)', async () => {
    const [strict, partial] = await Promise.all([
      modelplane('plan', ...PLATFORM, join(FIX, 'qwen-5-replicas.yaml'), '--output', 'json'),
      modelplane('plan', ...PLATFORM, join(FIX, 'qwen-5-replicas.yaml'), '--allow-partial', '--output', 'json'),
    ]);
    expect(strict.code).toBe(4);
    expect(JSON.parse(strict.stdout).problems).toEqual([
      'ModelDeployment default/qwen-demo: 3 of 5 replicas scheduled; 3 clusters: 2 pool gpu-l40s: needs 1 gpu on one node, 0 free, 1 pool gpu-l4: needs 1 gpu on one node, 0 free (--allow-partial accepts this)',
    ]);
    expect(partial.code).toBe(0);
    expect(JSON.parse(partial.stdout).problems).toEqual([]);
  });

  it('an Existing cluster without its kubeconfig Secret: not ready, no replica, exit 4', async () => {
    const r = await modelplane('plan', QS, join(FIX, 'byo-no-secret.yaml'), '--output', 'json');
    expect(r.code).toBe(4);
    const report = JSON.parse(r.stdout);
    expect(report.problems).toEqual([
      "InferenceCluster byo-no-secret: ClusterReady KubeconfigSecretNotFound: Secret modelplane-system/byo-kubeconfig not found (spec.cluster.existing.secretRef); create it with the cluster's kubeconfig under key kubeconfig",
    ]);
    const byo = report.clusters.find((c: { name: string }) => c.name === 'byo-no-secret');
    expect(byo.ready).toBe(false);
    expect(byo.conditions.filter((c: { type: string }) => c.type === 'ClusterReady' || c.type === 'Ready')).toEqual([
      {
        type: 'ClusterReady',
        status: 'False',
        reason: 'KubeconfigSecretNotFound',
        message: "Secret modelplane-system/byo-kubeconfig not found (spec.cluster.existing.secretRef); create it with the cluster's kubeconfig under key kubeconfig",
      },
      { type: 'Ready', status: 'False', reason: 'Creating', message: '' },
    ]);
    expect(report.deployments[0].replicas.map((x: { cluster: string }) => x.cluster)).toEqual(['eks-us-east', 'eks-eu-central']);
  });

  it('a ModelEndpoint with an invalid URL is not Ready: exit 4', async () => {
    const r = await modelplane('plan', ...PLATFORM, join(FIX, 'endpoint-bad-url.yaml'), '--output', 'json');
    expect(r.code).toBe(4);
    const report = JSON.parse(r.stdout);
    expect(report.problems).toEqual(['ModelEndpoint default/broken: RoutingReady InvalidURL: Invalid spec.url: http://api.example.com:99999/v1']);
    expect(report.others.find((o: { kind: string }) => o.kind === 'ModelEndpoint')).toMatchObject({ name: 'broken', ready: false });
  });

  it('a selector that errors on every device says why in the why-not, not "no device satisfies"', async () => {
    const r = await modelplane('plan', ...PLATFORM, join(FIX, 'selector-typo.yaml'), '--output', 'json');
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stdout).problems).toEqual([
      'ModelDeployment default/qwen-demo: 0 of 2 replicas scheduled; 3 clusters: 3 no pool matches engine "qwen" (gpu: selectors[0] failed on device gpu: no such key: sharingStrategy) (--allow-partial accepts this)',
      'ModelService default/qwen: EndpointsResolved NoEndpoints: No ModelEndpoints matched the configured selectors',
    ]);
  });

  it('usage errors exit 2', async () => {
    const [flag, value, missing] = await Promise.all([
      modelplane('plan', QS, '--bogus'),
      modelplane('plan', QS, '--rounds', 'x'),
      modelplane('plan'),
    ]);
    expect(flag.code).toBe(2);
    expect(flag.stderr.split('\n')[0]).toBe("error: unknown option '--bogus'");
    expect(value.code).toBe(2);
    expect(value.stderr.split('\n')[0]).toBe("error: option '--rounds <n>' argument 'x' is invalid. want a whole number 1-1000");
    expect(missing.code).toBe(2);
    expect(missing.stderr.split('\n')[0]).toBe("error: missing required argument 'paths'");
  });

  it('--help documents the exit codes and exits 0', async () => {
    const r = await modelplane('plan', '--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      [
        'Exit codes:',
        '  0  converged, every replica placed, every cluster, gateway and service Ready',
        '  1  invalid input (listed and left out), or a file that cannot be read',
        '  2  usage: unknown flag, bad flag value, missing argument',
        '  4  planned with problems, listed first: not converged, reconcile errors,',
        '     unplaced replicas (see --allow-partial), False conditions, not Ready',
      ].join('\n'),
    );
  });
});

describe('modelplane plan drops nothing silently at load', { timeout: 120_000 }, () => {
  it('every bad file and document is listed, each with its reason; the rest is planned; exit 1', async () => {
    const classes = join(QS, 'cluster-classes.yaml');
    const bad = join(FIX, 'bad');
    const r = await modelplane('plan', classes, bad);
    expect(r.code).toBe(1);
    const dup = 'the API server keeps one object per kind, namespace and name (the last apply wins), so neither is planned: rename or remove one';
    expect(problemsOf(r.stdout)).toEqual([
      `invalid: ${bad}/flow.yaml:3: invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]`,
      `invalid: ${bad}/nested.yaml:1: invalid YAML: Nested mappings are not allowed in compact mappings`,
      `invalid: ${classes}:2 InferenceClass/l4-1x-g6: InferenceClass l4-1x-g6 is defined again at ${bad}/clusters.yaml:33; ${dup}`,
      `invalid: ${bad}/clusters.yaml:3 InferenceCluster/typo: spec.cluster.eks.region: Required value; spec.cluster.eks.regoin: field not declared in schema (did you mean "region"?)`,
      `invalid: ${bad}/clusters.yaml:18 InferenceCluster/gen-: metadata.name: Required value: generateName ("gen-") is not supported: the API server would append a random suffix, so neither a plan nor kubectl apply can tell which object is meant; set metadata.name`,
      `invalid: ${bad}/clusters.yaml:33 InferenceClass/l4-1x-g6: InferenceClass l4-1x-g6 is defined again at ${classes}:2; ${dup}`,
    ]);
    // the class that is not duplicated is still planned
    expect(JSON.parse((await modelplane('plan', classes, bad, '-o', 'json')).stdout).others).toEqual([
      expect.objectContaining({ kind: 'InferenceClass', name: 'l40s-1x-g6e', ready: true }),
    ]);
  });
});

describe('modelplane plan --state: plans against the current fleet', { timeout: 180_000 }, () => {
  it('adding a cluster keeps the replicas and addresses of an earlier --write; --diff lists only what changes', async () => {
    const extra = join(FIX, 'extra-cluster.yaml');
    const out = join(mkdtempSync(join(tmpdir(), 'mp-state-')), 'fleet');
    const first = await modelplane('plan', QS, '--write', out, '-o', 'json');
    expect(first.code).toBe(0);
    const [fresh, kept, same, diff] = await Promise.all([
      modelplane('plan', QS, extra, '-o', 'json'),
      modelplane('plan', QS, extra, '--state', out, '-o', 'json'),
      modelplane('plan', QS, '--state', out, '--diff'),
      modelplane('plan', QS, extra, '--state', out, '--diff'),
    ]);
    const placed = (r: { stdout: string }) =>
      JSON.parse(r.stdout).deployments[0].replicas.map((x: { name: string; cluster: string }) => `${x.name} ${x.cluster}`);
    const gateways = (r: { stdout: string }) =>
      JSON.parse(r.stdout).clusters.map((c: { name: string; gatewayAddress: string }) => `${c.name} ${c.gatewayAddress}`);
    // from nothing, the new cluster takes a replica and renumbers the gateways
    expect(placed(fresh)).toEqual(['qwen-demo-0651c eks-ap-south', 'qwen-demo-d88f9 eks-eu-central']);
    // against the state, the replicas stay and so do the addresses; the new cluster gets the next one
    expect(placed(kept)).toEqual(placed(first));
    expect(gateways(kept)).toEqual(['eks-ap-south 198.51.100.4', ...gateways(first)]);
    expect(same).toEqual({ code: 0, stdout: '0 to create, 0 to change, 0 to delete\n', stderr: '' });
    expect(diff.code).toBe(0);
    const lines = diff.stdout.trimEnd().split('\n');
    // The new cluster's objects, and the fleet view's Release, which now federates it too (docs/autoscaling.md#the-fleet-signal).
    expect(lines.at(-1)).toBe('97 to create, 1 to change, 0 to delete');
    expect(lines.slice(0, -1).filter((l) => !l.startsWith('+ '))).toEqual([expect.stringMatching(/^~ helm\.m\.crossplane\.io\/v1beta1 Release modelplane-system\/default-/)]);
    expect(lines.slice(0, -1).filter((l) => l.startsWith('+ ')).every((l) => l.includes('eks-ap-south'))).toBe(true);

    // The same from the plan's own JSON: its `state` key is what --write wrote.
    const json = join(out, '..', 'plan.json');
    writeFileSync(json, first.stdout);
    const [keptJson, sameJson, diffJson] = await Promise.all([
      modelplane('plan', QS, extra, '--state', json, '-o', 'json'),
      modelplane('plan', QS, '--state', json, '--diff'),
      modelplane('plan', QS, extra, '--state', json, '--diff'),
    ]);
    expect(placed(keptJson)).toEqual(placed(first));
    expect(gateways(keptJson)).toEqual(gateways(kept));
    expect(sameJson).toEqual(same);
    expect(diffJson.stdout).toBe(diff.stdout);
  });

  it('a --state document that is neither an object nor plan output is an error naming the file, not skipped', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'mp-state-')), 'report.json');
    writeFileSync(file, JSON.stringify({ converged: true, clusters: [] }));
    const r = await modelplane('plan', QS, '--state', file, '--diff');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `--state: ${file}:1: neither a Kubernetes object (no kind) nor the output of modelplane plan -o json|yaml (no state); give the plan output, a --write directory or kubectl get -o yaml output`,
    );
  });

  it('--diff without --state is a usage error naming the fix', async () => {
    const r = await modelplane('plan', QS, '--diff');
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: 'modelplane plan: --diff needs --state: the earlier plan -o json output, --write directory or kubectl get -o yaml output to compare with\n',
    });
  });
});

describe('modelplane selector exit codes', { timeout: 60_000 }, () => {
  it('a selector that errors on some device is not a clean match: exit 4, the devices named', async () => {
    const r = await modelplane(
      'selector',
      'device.attributes["gpu.nvidia.com"].sharingStrategy == "MPS"',
      '--class',
      join(QS, 'cluster-classes.yaml'),
    );
    expect(r).toEqual({
      code: 4,
      stdout: [
        'CLASS        DEVICE  RESULT',
        "l4-1x-g6     gpu     error: no such key: sharingStrategy",
        "l40s-1x-g6e  gpu     error: no such key: sharingStrategy",
        '',
      ].join('\n'),
      stderr: 'modelplane selector: the selector failed on 2 of 2 devices (l4-1x-g6/gpu, l40s-1x-g6e/gpu)\n',
    });
  });
});
