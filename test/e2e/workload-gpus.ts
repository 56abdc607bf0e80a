/**
 * The e2e step that checks the fleet scheduler against Kubernetes' own on a
 * workload API server (docs/workload-clusters.md): an 8-GPU pool added to
 * the Existing cluster `dev-workload`, then
 *
 * - a selector no device satisfies: the deployment stays unplaced;
 * - packing: 8 single-GPU replicas land on its one node, kube-scheduler binds
 *   all 8 engine pods there and the DRA allocator gives them gpu-0..gpu-7;
 *   a ninth is refused by the fleet scheduler and no pod is ever Pending;
 * - a rolling update (a new engine argument) is make before break in the
 *   workload cluster too: at every moment a kubectl watch saw, at least the
 *   asked-for number of engine pods were Ready and not terminating;
 * - a gang (Leader + one Worker) is run by the real LeaderWorkerSet
 *   controller: its StatefulSets and pods, each on its own node of a
 *   two-node pool, the pod webhook's leader address, both claims allocated,
 *   the set Available and the replica Serving.
 *
 * The pool is taken away again at the end, so the later steps see the
 * cluster as the earlier ones left it.
 */
import { expect } from 'vitest';
import { condition, eventually, items, kubectl, kubectlJson, type Obj, snapshot, watchKubectl } from './harness.js';

const MIN = 60_000;
const wl = { workload: 0 };

export const CLASS = `apiVersion: modelplane.ai/v1alpha1
kind: InferenceClass
metadata:
  name: h100-8x-dev
spec:
  description: "8x H100 80GB (a kwok node on the dev workload API server)"
  devices:
  - name: gpu
    driver: gpu.nvidia.com
    deviceClassName: gpu.nvidia.com
    count: 8
    attributes:
      architecture: { string: Hopper }
    capacity:
      memory: { value: "81559Mi" }
`;

/** dev-workload's pools with `h100` nodes of the 8-GPU class (0: none). */
export const POOLS = (h100: number) =>
  JSON.stringify({
    spec: {
      nodePools: [
        { name: 'gpu-a16', className: 'a16-1x', nodeCount: 1 },
        ...(h100 > 0 ? [{ name: 'gpu-h100', className: 'h100-8x-dev', nodeCount: h100 }] : []),
      ],
    },
  });

/**
 * A Standalone (or Leader + Worker) deployment of single-GPU members on Hopper, on the dev clusters, in
 * ml-team; `spec` is more of its spec, YAML indented two spaces (e.g. an `autoscaling:` block).
 */
export function deployment(name: string, replicas: number, opts: { arg?: string; gang?: boolean; spec?: string } = {}): string {
  const member = (role: string) => `        - role: ${role}
${role === 'Worker' ? '          worker:\n            nodes: 1\n' : ''}          nodeSelector:
            devices:
            - name: gpu
              count: 1
              selectors:
              - cel: device.attributes["gpu.nvidia.com"].architecture == "Hopper"
          template:
            spec:
              containers:
              - name: engine
                image: vllm/vllm-openai:v0.23.0
                args: [--model=Qwen/Qwen2.5-0.5B-Instruct${opts.arg ? `, ${opts.arg}` : ''}]
`;
  return `apiVersion: modelplane.ai/v1alpha1
kind: ModelDeployment
metadata:
  name: ${name}
  namespace: ml-team
spec:
  replicas: ${replicas}
${opts.spec ?? ''}  template:
    spec:
      clusterSelector:
        matchLabels:
          modelplane.ai/env: dev
      engines:
      - name: ${name}
        members:
${opts.gang ? member('Leader') + member('Worker') : member('Standalone')}`;
}

/** The engine pods of deployment `name` on the workload API server (its endpoint pickers left out). */
function enginePods(name: string): Obj[] {
  return items(['pods', '-n', 'default'], wl).filter((p) => p.metadata.name.startsWith(`${name}-`) && Array.isArray((p.spec as Obj['spec'])?.['resourceClaims']));
}

/** The devices allocated to `pod`'s claim `devices`, as `pool/device`. */
function allocated(pod: Obj): string[] {
  const claim = ((pod.status?.['resourceClaimStatuses'] ?? []) as { name: string; resourceClaimName: string }[]).find((c) => c.name === 'devices')?.resourceClaimName;
  if (!claim) return [];
  const c = kubectlJson<Obj>(['get', 'resourceclaim', '-n', 'default', claim], wl);
  return ((c.status?.['allocation'] as { devices?: { results?: { pool: string; device: string }[] } } | undefined)?.devices?.results ?? []).map((r) => `${r.pool}/${r.device}`);
}

const md = (name: string) => kubectlJson<Obj>(['get', 'md', '-n', 'ml-team', name]);
const placed = (name: string) => ((md(name).status?.['placements'] ?? []) as { cluster: string; ready?: boolean; engines: { pool: string }[] }[]);
const ready = (p: Obj) => p.status?.['phase'] === 'Running' && condition(p, 'Ready') === 'True' && !p.metadata.deletionTimestamp;
const apply = (yaml: string) => {
  const r = kubectl(['apply', '-f', '-'], { input: yaml });
  expect(r.code, r.stderr).toBe(0);
};

/** Runs the step (see the module comment). */
export async function workloadGpus(): Promise<void> {
  apply(CLASS);
  expect(kubectl(['patch', 'inferencecluster', 'dev-workload', '--type=merge', '-p', POOLS(1)]).code).toBe(0);
  await eventually('the 8-GPU node and its slice published', () => {
    const slices = items(['resourceslices'], wl).filter((s) => s.metadata.name.startsWith('dev-workload-gpu-h100-0'));
    return slices.length > 0 && kubectl(['get', 'node', 'dev-workload-gpu-h100-0'], wl).code === 0 ? true : undefined;
  });

  // A selector no device of the fleet satisfies: unplaced by the fleet scheduler, so nothing reaches the workload cluster.
  apply(deployment('nomatch', 1).replace('device.attributes["gpu.nvidia.com"].architecture == "Hopper"', 'device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("200Gi")) >= 0'));
  const unplaced = await eventually('nomatch: no replica scheduled', () => {
    const c = (md('nomatch').status?.conditions ?? []).find((x) => x.type === 'ReplicasScheduled');
    return c?.status === 'False' ? c : undefined;
  }, { state: snapshot });
  expect(unplaced.message).toMatch(/^0 of 1 replicas scheduled/);
  expect(placed('nomatch')).toEqual([]);
  expect(items(['pods', '-A'], wl).filter((p) => p.metadata.name.startsWith('nomatch-'))).toEqual([]);
  expect(kubectl(['delete', 'md', '-n', 'ml-team', 'nomatch']).code).toBe(0);

  // Packing: 8 single-GPU replicas on the one 8-GPU node, each pod bound by kube-scheduler, the claims gpu-0..gpu-7.
  apply(deployment('pack', 8));
  await eventually('pack: 8 replicas placed on gpu-h100 and Ready', () => {
    const p = placed('pack');
    return p.length === 8 && p.every((x) => x.cluster === 'dev-workload' && x.engines[0]?.pool === 'gpu-h100') && condition(md('pack'), 'Ready') === 'True' ? p : undefined;
  }, { timeoutMs: 8 * MIN, state: snapshot });
  const pods = await eventually('pack: 8 engine pods Running and Ready', () => {
    const ps = enginePods('pack');
    return ps.length === 8 && ps.every(ready) ? ps : undefined;
  }, { timeoutMs: 3 * MIN, state: () => kubectl(['get', 'pods,resourceclaims', '-n', 'default', '-o', 'wide'], wl).stdout });
  expect([...new Set(pods.map((p) => (p.spec as Obj['spec'])?.['nodeName']))]).toEqual(['dev-workload-gpu-h100-0']);
  expect(pods.flatMap(allocated).sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((i) => `dev-workload-gpu-h100-0/gpu-${i}`));

  // The ledger's last device is taken: a ninth replica is refused by the fleet scheduler, and no pod is Pending.
  expect(kubectl(['scale', 'md', '-n', 'ml-team', 'pack', '--replicas=9']).code).toBe(0);
  await eventually('pack: the ninth replica refused', () => {
    const m = md('pack');
    return m.metadata && (m.status?.['placements'] as unknown[] | undefined)?.length === 8 && condition(m, 'Ready') === 'False' ? true : undefined;
  }, { state: snapshot });
  await new Promise((r) => setTimeout(r, 5000));
  expect(items(['pods', '-A', '--field-selector', 'status.phase=Pending'], wl).map((p) => p.metadata.name)).toEqual([]);

  // A rolling update of 2 replicas: at every moment the watch saw, 2 engine pods Ready and not terminating.
  expect(kubectl(['scale', 'md', '-n', 'ml-team', 'pack', '--replicas=2']).code).toBe(0);
  const two = await eventually('pack: 2 engine pods left', () => {
    const ps = enginePods('pack');
    return ps.length === 2 && ps.every(ready) && placed('pack').length === 2 ? ps : undefined;
  }, { timeoutMs: 3 * MIN, state: snapshot });
  const watch = watchKubectl(
    ['get', 'pods', '-n', 'default', '--watch', '-o', 'jsonpath={.metadata.name} {.status.conditions[?(@.type=="Ready")].status} {.metadata.deletionTimestamp}{"\\n"}'],
    wl,
  );
  try {
    apply(deployment('pack', 2, { arg: '--max-model-len=4096' }));
    await eventually('pack: 2 new engine pods Ready, the old ones gone', () => {
      const ps = enginePods('pack');
      return ps.length === 2 && ps.every(ready) && ps.every((p) => !two.some((o) => o.metadata.name === p.metadata.name)) ? ps : undefined;
    }, { timeoutMs: 6 * MIN, state: snapshot });
  } finally {
    watch.stop();
  }
  const state = new Map<string, boolean>();
  let least = Number.POSITIVE_INFINITY;
  for (const line of watch.lines) {
    const [name, readyStatus, deleting] = line.split(' ');
    if (!name || !/^pack-[0-9a-f]{5}-pack-/.test(name)) continue;
    state.set(name, readyStatus === 'True' && !deleting);
    if (state.size >= 2) least = Math.min(least, [...state.values()].filter(Boolean).length);
  }
  expect(least, watch.lines.join(' | ')).toBe(2);
  expect(kubectl(['delete', 'md', '-n', 'ml-team', 'pack', '--timeout=180s']).code).toBe(0);

  // A gang: the real LeaderWorkerSet controller makes its StatefulSets, its pod webhook gives the worker the leader's
  // address, and each pod is on its own node, as the ledger charged it (two nodes of the pool now).
  expect(kubectl(['patch', 'inferencecluster', 'dev-workload', '--type=merge', '-p', POOLS(2)]).code).toBe(0);
  await eventually('the second 8-GPU node published', () => (kubectl(['get', 'node', 'dev-workload-gpu-h100-1'], wl).code === 0 ? true : undefined));
  apply(deployment('gang', 1, { gang: true }));
  await eventually('gang placed and Ready', () => (condition(md('gang'), 'Ready') === 'True' ? true : undefined), { timeoutMs: 6 * MIN, state: snapshot });
  const lws = items(['leaderworkersets', '-n', 'default'], wl).filter((l) => l.metadata.name.startsWith('gang-'));
  expect(lws.map((l) => condition(l, 'Available'))).toEqual(['True']);
  const sets = items(['statefulsets', '-n', 'default'], wl).map((s) => s.metadata.name).filter((n) => n.startsWith(lws[0]!.metadata.name));
  expect(sets.sort()).toEqual([lws[0]!.metadata.name, `${lws[0]!.metadata.name}-0`]);
  const gang = enginePods('gang');
  expect(gang.map((p) => p.metadata.name).sort()).toEqual([`${lws[0]!.metadata.name}-0`, `${lws[0]!.metadata.name}-0-1`]);
  for (const p of gang) {
    expect(ready(p)).toBe(true);
    expect(allocated(p)).toEqual([expect.stringMatching(new RegExp(`^${(p.spec as Obj['spec'])?.['nodeName']}/gpu-[0-7]$`))]);
  }
  expect(gang.map((p) => (p.spec as Obj['spec'])?.['nodeName']).sort()).toEqual(['dev-workload-gpu-h100-0', 'dev-workload-gpu-h100-1']);
  const worker = gang.find((p) => p.metadata.name.endsWith('-0-1'))!;
  const env = ((worker.spec as { containers: { env?: { name: string; value?: string }[] }[] }).containers[0]!.env ?? []).map((e) => e.name);
  expect(env).toContain('LWS_LEADER_ADDRESS');
  expect(items(['modelreplicas', '-n', 'ml-team']).filter((r) => r.metadata.name.startsWith('gang-')).map((r) => r.status?.['phase'])).toEqual(['Serving']);
  expect(kubectl(['delete', 'md', '-n', 'ml-team', 'gang', '--timeout=180s']).code).toBe(0);

  // The pool goes again once nothing is placed on it.
  await eventually('nothing left on gpu-h100', () => (enginePods('pack').length + enginePods('gang').length === 0 ? true : undefined), { timeoutMs: 3 * MIN });
  expect(kubectl(['patch', 'inferencecluster', 'dev-workload', '--type=merge', '-p', POOLS(0)]).code).toBe(0);
  await eventually('the 8-GPU nodes gone', () => (items(['nodes'], wl).some((n) => n.metadata.name.startsWith('dev-workload-gpu-h100-')) ? undefined : true));
  expect(kubectl(['delete', 'inferenceclass', 'h100-8x-dev']).code).toBe(0);
}
