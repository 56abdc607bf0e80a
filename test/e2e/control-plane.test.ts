/**
 * End to end on a real control plane: kube-apiserver, etcd and
 * Crossplane core built from the pinned Go modules, Modelplane installed from
 * its xpkgs, the seeds applied unchanged with kubectl, a real
 * provider-kubernetes writing to a second API server. Every assertion is on
 * real objects through `modelplane dev kubectl`.
 *
 * One control plane for the whole file, steps in order (each leaves the
 * fleet as the next expects). The simulated parts are the cloud providers,
 * provider-helm and the workload clusters' kubelet and gateway controllers
 * (cli/dev/runtime).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { REPO_ROOT } from '../../cli/functions.js';
import { middlewareName } from '../../functions/lib/key-validator.js';
import { frontDoorUnavailable, RIGHT, throughTraefik, validatorAsItsServiceAccount } from './front-door.js';
import { autoscaleForReal, autoscalingUnavailable } from './autoscaling.js';
import { backToHttp, overHttps, TLS_HOST } from './front-door-tls.js';
import { asAiGateway, KEY_A, KEY_B } from './ai-gateway.js';
import { workloadGpus } from './workload-gpus.js';
import { condition, describeE2E, E2E_DIR, eventually, items, kubectl, kubectlJson, modelplane, type Obj, SEEDS, snapshot, watchKubectl } from './harness.js';

const MIN = 60_000;
/** API keys of the front-door step (test values, never printed by the product). */
const RIGHT_KEY = 'sk-e2e-right';
const OTHER_KEY = 'sk-e2e-other';

/**
 * Where a replica's cold start went on the workload cluster, in time order: the
 * workloads', template's, pod's and claim's creation, the pod's condition
 * transitions, and the events in `default` (what a failed startup bound prints).
 */
function startupTimeline(replica: Obj, pod: Obj): string {
  const wl = { workload: true };
  const rows: string[] = [`replica status.startup ${JSON.stringify(replica.status?.['startup'])}`];
  const created = (kind: string) =>
    items([kind, '-n', 'default'], wl).map((o) => `${o.metadata.creationTimestamp ?? '?'} created ${kind} ${o.metadata.name}`);
  rows.push(...created('deployments'), ...created('replicasets'), ...created('resourceclaimtemplates'), ...created('resourceclaims'), ...created('pods'));
  for (const c of (pod.status?.['conditions'] ?? []) as { type: string; status: string; lastTransitionTime?: string }[]) {
    rows.push(`${c.lastTransitionTime ?? '?'} pod ${c.type}=${c.status}`);
  }
  for (const e of items(['events', '-n', 'default'], wl) as unknown as { firstTimestamp?: string; eventTime?: string; reason?: string; message?: string; count?: number; involvedObject?: { kind?: string; name?: string } }[]) {
    rows.push(`${e.firstTimestamp ?? e.eventTime ?? '?'} event ${e.involvedObject?.kind}/${e.involvedObject?.name} ${e.reason} x${e.count ?? 1}: ${e.message}`);
  }
  return rows.sort().join('\n');
}

/** What each event `dev quiet` saw written says: its object, reason and message (why the fleet was not quiet). */
function writtenEvents(quiet: string): string {
  return [...quiet.matchAll(/\/registry\/events\/([^/\s]+)\/(\S+)/g)]
    .map(([, ns, name]) => {
      const e = kubectl(['get', 'event', '-n', ns!, name!, '-o', 'jsonpath={.involvedObject.kind}/{.involvedObject.name} {.reason} x{.count} {.source.component}: {.message}']);
      return `${ns}/${name}: ${e.stdout || e.stderr.trim()}`;
    })
    .join('\n');
}

/** Placements of a ModelDeployment as `cluster/pool` (its status). */
function placements(ns: string, name: string): string[] | undefined {
  const md = kubectlJson<Obj>(['get', 'modeldeployment', '-n', ns, name]);
  const p = (md.status?.['placements'] ?? []) as { cluster: string; ready: boolean; engines: { pool: string }[] }[];
  return p.map((x) => `${x.cluster}/${x.engines.map((e) => e.pool).join('+')}${x.ready ? '' : ' (not ready)'}`).sort();
}

function serviceAddress(ns: string, name: string): string | undefined {
  const a = kubectlJson<Obj>(['get', 'modelservice', '-n', ns, name]).status?.['address'];
  return typeof a === 'string' ? a : undefined;
}

describeE2E('a real control plane: install, seeds, provider-kubernetes, scale, delete, bad input, settled', () => {
  beforeAll(() => {
    modelplane(['dev', 'down', '--purge']);
    // Four workload API servers: the Vultr seed's cluster, then dev-workload (Existing), dev-fallback and two of the demo's three EKS clusters run on one.
    const up = modelplane(['dev', 'up', '--workloads', '4'], { timeoutMs: 20 * MIN });
    if (up.code !== 0) throw new Error(`dev up failed (${up.code}):\n${up.stderr}\n${up.stdout}`);
  }, 25 * MIN);

  afterAll(() => {
    if (process.env['E2E_KEEP']) return; // leave it running to look at (modelplane dev --dir .cache/e2e kubectl ...)
    const down = modelplane(['dev', 'down', '--purge']);
    if (down.code !== 0) throw new Error(`dev down failed: ${down.stderr}`);
  }, 5 * MIN);

  it('installs as users do: the Configuration, every function and provider Installed and Healthy, every XRD Established, every Composition ValidPipeline', () => {
    const pkgs = [...items(['configurations']), ...items(['functions']), ...items(['providers'])];
    expect(pkgs.map((p) => p.metadata.name)).toContain('modelplane');
    expect(pkgs.map((p) => p.metadata.name)).toContain('upbound-provider-kubernetes');
    expect(pkgs.filter((p) => p.metadata.name.startsWith('modelplane-function-')).length).toBe(
      readFileSync(join(E2E_DIR, 'packages', 'modelplane', 'crossplane.yaml'), 'utf8').match(/function-/g)!.length,
    );
    for (const p of pkgs) {
      expect([p.metadata.name, condition(p, 'Installed'), condition(p, 'Healthy')]).toEqual([p.metadata.name, 'True', 'True']);
    }
    const xrds = items(['compositeresourcedefinitions']);
    expect(xrds.length).toBe(readdirSync(join(REPO_ROOT, 'apis'), { withFileTypes: true }).filter((d) => d.isDirectory()).length);
    for (const x of xrds) expect([x.metadata.name, condition(x, 'Established')]).toEqual([x.metadata.name, 'True']);
    const revisions = items(['compositionrevisions']);
    for (const c of items(['compositions'])) {
      const valid = revisions.filter(
        (r) => r.metadata.labels?.['crossplane.io/composition-name'] === c.metadata.name && condition(r, 'ValidPipeline') === 'True',
      );
      expect([c.metadata.name, valid.length > 0]).toEqual([c.metadata.name, true]);
    }
  }, 5 * MIN);

  it('the Vultr seeds apply unchanged: class and cluster Ready, qwen-7b on vultr-demo/gpu-a16, the service address', async () => {
    const apply = kubectl(['apply', '-f', join(SEEDS, 'vultr')]);
    expect(apply.stderr).toBe('');
    expect(apply.code).toBe(0);
    await eventually('qwen-7b placed and Ready', () => {
      const p = placements('ml-team', 'qwen-7b');
      return p?.length === 1 && p[0] === 'vultr-demo/gpu-a16' ? p : undefined;
    }, { state: snapshot });
    await eventually('qwen-7b address', () => (serviceAddress('ml-team', 'qwen-7b') === 'http://172.18.255.200/ml-team/qwen-7b' ? true : undefined), {
      state: snapshot,
    });
    expect(condition(kubectlJson<Obj>(['get', 'inferenceclass', 'a16-1x']), 'Ready')).toBe('True');
    const ic = kubectlJson<Obj>(['get', 'inferencecluster', 'vultr-demo']);
    expect(condition(ic, 'Ready')).toBe('True');
    expect(((ic.status?.['gpuPools'] ?? []) as { name: string; nodes: number }[]).map((p) => `${p.name}:${p.nodes}`)).toEqual(['gpu-a16:1']);
    await eventually('qwen-7b Ready', () => (condition(kubectlJson<Obj>(['get', 'md', '-n', 'ml-team', 'qwen-7b']), 'Ready') === 'True' ? true : undefined), {
      state: snapshot,
    });
    // The service is Ready once the gateway accepted its route with the replica's endpoint as a live backend (a step after the replica).
    await eventually('qwen-7b service Ready', () => (condition(kubectlJson<Obj>(['get', 'modelservice', '-n', 'ml-team', 'qwen-7b']), 'Ready') === 'True' ? true : undefined), {
      state: snapshot,
    });
    // The simulated Vultr cluster was handed workload API server 0 (no Existing cluster adopts it yet): the engine pod is
    // Kubernetes' own there, bound by kube-scheduler to the pool's node, its claim allocated the A16 by the DRA allocator.
    const wl = { workload: 0 };
    const pod = await eventually('the qwen-7b engine pod Running and Ready on workload 0', () => {
      const p = items(['pods', '-A'], wl).find((x) => x.metadata.name.startsWith('qwen-7b-') && Array.isArray((x.spec as Obj['spec'])?.['resourceClaims']));
      return p && p.status?.['phase'] === 'Running' && condition(p, 'Ready') === 'True' ? p : undefined;
    }, { timeoutMs: 3 * MIN, state: () => kubectl(['get', 'pods,resourceclaims,nodes', '-A', '-o', 'wide'], wl).stdout });
    expect((pod.spec as Obj['spec'])?.['nodeName']).toBe('vultr-demo-gpu-a16-0');
    const claimName = ((pod.status?.['resourceClaimStatuses'] ?? []) as { name: string; resourceClaimName: string }[]).find((c) => c.name === 'devices')?.resourceClaimName;
    const claim = kubectlJson<Obj>(['get', 'resourceclaim', '-n', pod.metadata.namespace!, claimName!], wl);
    expect((claim.status?.['allocation'] as { devices?: { results?: unknown[] } } | undefined)?.devices?.results).toEqual([
      { request: 'gpu', driver: 'gpu.nvidia.com', pool: 'vultr-demo-gpu-a16-0', device: 'gpu-0' },
    ]);
    const replica = items(['modelreplicas', '-n', 'ml-team']).find((r) => r.metadata.name.startsWith('qwen-7b-'))!;
    expect(replica.status?.['phase']).toBe('Serving');
    const startup = (replica.status?.['startup'] as { seconds?: number } | undefined)?.seconds;
    expect(startup).toBeGreaterThanOrEqual(10);
    expect(startup).toBeLessThanOrEqual(20);
  }, 10 * MIN);

  it('kubectl get shows every printer column with true values', () => {
    const row = (args: string[]) => kubectl(['get', ...args]).stdout.trim().split('\n').map((l) => l.split(/\s{2,}/));
    const [ich, icr] = row(['inferencecluster', 'vultr-demo']);
    expect(ich!.slice(0, 7)).toEqual(['NAME', 'SOURCE', 'GATEWAY', 'HEALTH', 'SINCE', 'SYNCED', 'READY']);
    expect(icr!.slice(0, 7)).toEqual(['vultr-demo', 'Vultr', expect.stringMatching(/^198\.51\.100\.\d+$/), 'Healthy', expect.stringMatching(/^\d+[smh]/), 'True', 'True']);
    const [gwh, gwr] = row(['inferencegateway', 'default']);
    expect(gwh!.slice(0, 5)).toEqual(['NAME', 'GATEWAY', 'ADDRESS', 'SYNCED', 'READY']);
    expect(gwr!.slice(0, 5)).toEqual(['default', 'Traefik', '172.18.255.200', 'True', 'True']);
    // By the header's columns, so an empty cell (COST: the seeds' classes carry no pricing) stays in its place.
    const [mdh, ...mdrows] = kubectl(['get', 'md', '-n', 'ml-team', 'qwen-7b']).stdout.split('\n').filter((l) => l.length > 0);
    const starts = [...mdh!.matchAll(/\S+/g)].map((m) => ({ name: m[0], at: m.index }));
    const mdr = starts.map((c, i) => mdrows[0]!.slice(c.at, starts[i + 1]?.at).trim());
    expect(starts.map((c) => c.name).slice(0, 6)).toEqual(['NAME', 'REPLICAS', 'COST', 'COLD-START-S', 'SYNCED', 'READY']);
    expect(mdr.slice(0, 6)).toEqual(['qwen-7b', '1/1', '', expect.stringMatching(/^\d+$/), 'True', 'True']);
    const [rh, rr] = row(['modelreplicas', '-n', 'ml-team']);
    expect(rh!.slice(0, 6)).toEqual(['NAME', 'CLUSTER', 'PHASE', 'SINCE', 'STARTUP-S', 'SYNCED']);
    expect([rr![1], rr![2], rr![5], rr![6]]).toEqual(['vultr-demo', 'Serving', 'True', 'True']);
    const [eh, er] = row(['modelendpoints', '-n', 'ml-team']);
    expect(eh!.slice(0, 4)).toEqual(['NAME', 'URL', 'SYNCED', 'READY']);
    expect(er![1]).toMatch(/^http:\/\/198\.51\.100\.\d+\/ml-team\/qwen-7b-[0-9a-f]{5}\/v1$/);
    const [sh, sr] = row(['modelservice', '-n', 'ml-team', 'qwen-7b']);
    expect(sh!.slice(0, 5)).toEqual(['NAME', 'ADDRESS', 'AUTH', 'SYNCED', 'READY']);
    expect(sr!.slice(0, 5)).toEqual(['qwen-7b', 'http://172.18.255.200/ml-team/qwen-7b', 'Anonymous', 'True', 'True']);
    const [vh, vr] = row(['vultrcluster', '-n', 'modelplane-system', 'vultr-demo']);
    expect(vh!.slice(0, 4)).toEqual(['NAME', 'REGION', 'SYNCED', 'READY']);
    expect(vr!.slice(0, 4)).toEqual(['vultr-demo', 'ewr', 'True', 'True']);
    const [sth, str] = row(['servingstacks', '-n', 'modelplane-system']);
    expect(sth!.slice(0, 4)).toEqual(['NAME', 'GATEWAY', 'SYNCED', 'READY']);
    expect(str![1]).toBe(icr![2]);
  }, 5 * MIN);

  it('deleting a ModelDeployment removes its replicas and endpoints', async () => {
    expect(kubectl(['delete', 'md', '-n', 'ml-team', 'qwen-7b', '--timeout=180s']).code).toBe(0);
    await eventually('replicas and endpoints gone', () =>
      items(['modelreplicas,modelendpoints', '-n', 'ml-team']).length === 0 ? true : undefined,
    );
    await eventually('the replica Objects gone', () =>
      items(['objects.kubernetes.m.crossplane.io', '-n', 'ml-team']).length === 0 ? true : undefined,
    );
  }, 5 * MIN);

  it('deleting an InferenceCluster with --cascade=foreground leaves nothing behind', async () => {
    const del = kubectl(['delete', 'inferencecluster', 'vultr-demo', '--cascade=foreground', '--timeout=240s']);
    expect(del.stderr).toBe('');
    expect(del.code).toBe(0);
    const left = () =>
      [...items(['managed', '-A']), ...items(['composite', '-A'])]
        .filter((o) => o.metadata.name.startsWith('vultr-demo'))
        .map((o) => o.metadata.name);
    await eventually('nothing of vultr-demo left', () => (left().length === 0 ? true : undefined), { state: () => left().join(', ') });
    expect(kubectl(['delete', 'modelservice', '-n', 'ml-team', 'qwen-7b']).code).toBe(0);
  }, 6 * MIN);

  it('an Existing cluster on the workload API server: the serving stack really created there by provider-kubernetes', async () => {
    const manifest = `apiVersion: modelplane.ai/v1alpha1
kind: InferenceCluster
metadata:
  name: dev-workload
  labels:
    modelplane.ai/env: dev
spec:
  cluster:
    source: Existing
    existing:
      secretRef:
        name: dev-workload-kubeconfig
  nodePools:
  - name: gpu-a16
    className: a16-1x
    nodeCount: 1
---
apiVersion: modelplane.ai/v1alpha1
kind: ModelDeployment
metadata:
  name: tiny
  namespace: ml-team
spec:
  replicas: 1
  template:
    spec:
      clusterSelector:
        matchLabels:
          modelplane.ai/env: dev
      engines:
      - name: tiny
        members:
        - role: Standalone
          nodeSelector:
            devices:
            - name: gpu
              count: 1
              selectors:
              - cel: device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("8Gi")) >= 0
          template:
            spec:
              containers:
              - name: engine
                image: vllm/vllm-openai:v0.23.0
                args: [--model=Qwen/Qwen2.5-0.5B-Instruct]
`;
    const file = join(E2E_DIR, 'existing.yaml');
    writeFileSync(file, manifest);
    const apply = kubectl(['apply', '-f', file]);
    expect(apply.code, apply.stderr).toBe(0);
    await eventually('dev-workload Ready', () => (condition(kubectlJson<Obj>(['get', 'inferencecluster', 'dev-workload']), 'Ready') === 'True' ? true : undefined), {
      timeoutMs: 8 * MIN,
      state: snapshot,
    });
    // On the workload API server itself, created by the real provider-kubernetes:
    const ns = kubectlJson<Obj>(['get', 'namespace', 'modelplane-system'], { workload: true });
    expect(ns.metadata.name).toBe('modelplane-system');
    const gw = kubectlJson<Obj>(['get', 'gateway', '-n', 'modelplane-system', 'inference-gateway'], { workload: true });
    expect(condition(gw, 'Programmed')).toBe('True');
    expect(kubectl(['get', 'crd', 'inferencepools.inference.networking.k8s.io'], { workload: true }).code).toBe(0);
    const objects = items(['objects.kubernetes.m.crossplane.io', '-n', 'modelplane-system']).filter((o) => o.metadata.name.startsWith('dev-workload'));
    expect(objects.length).toBeGreaterThan(0);
    for (const o of objects) {
      expect(o.metadata.annotations?.['crossplane.io/paused']).toBeUndefined();
      expect([o.metadata.name, condition(o, 'Synced'), condition(o, 'Ready')]).toEqual([o.metadata.name, 'True', 'True']);
    }
    await eventually('tiny placed on dev-workload and Ready', () => {
      const p = placements('ml-team', 'tiny');
      return p?.[0] === 'dev-workload/gpu-a16' ? p : undefined;
    }, { state: snapshot });
    // The engine's Deployment exists there for real, its status the real deployment controller's (pods run by kwok).
    const engines = items(['deployments', '-A'], { workload: true })
      .filter((d) => d.metadata.name.startsWith('tiny-'))
      .map((d) => `${d.metadata.name.replace(/^tiny-[0-9a-f]{5}-/, '').replace(/-[0-9a-f]{5}$/, '')} ${(d.status?.['availableReplicas'] as number | undefined) ?? 0}`)
      .sort();
    // The engine and its endpoint picker (tiny-<hash>-tiny-<hash>, tiny-<hash>-epp), available once kwok made their pods Ready.
    expect(engines).toEqual(['epp 1', 'tiny 1']);
  }, 12 * MIN);

  it('the workload cluster for real: kube-scheduler binds the engine pod, the DRA allocator gives its claim the A16 device, kwok runs it; phase and cold start from pod conditions; capacity agrees; the PDB holds a drain; a selector no device matches stays Pending', async () => {
    const wl = { workload: true };
    const enginePod = () => items(['pods', '-n', 'default'], wl).find((p) => p.metadata.name.startsWith('tiny-') && Array.isArray((p.spec as Obj['spec'])?.['resourceClaims']));
    const pod = await eventually('the engine pod Running and Ready', () => {
      const p = enginePod();
      return p && (p.status?.['phase'] as string) === 'Running' && condition(p, 'Ready') === 'True' ? p : undefined;
    }, { timeoutMs: 3 * MIN, state: () => kubectl(['get', 'pods,resourceclaims,nodes', '-A', '-o', 'wide'], wl).stdout });
    // Bound by kube-scheduler (no one else binds here) to the pool's one kwok node.
    expect((pod.spec as Obj['spec'])?.['nodeName']).toBe('dev-workload-gpu-a16-0');
    expect(condition(pod, 'PodScheduled')).toBe('True');
    const scheduled = items(['events', '-n', 'default', '--field-selector', `involvedObject.name=${pod.metadata.name},reason=Scheduled`], wl);
    expect(scheduled.map((e) => (e as unknown as { reportingComponent?: string }).reportingComponent)).toEqual(['default-scheduler']);
    // Its ResourceClaim, made from the composed template by the resourceclaim controller, allocated by the scheduler's DRA plugin.
    const claimName = ((pod.status?.['resourceClaimStatuses'] ?? []) as { name: string; resourceClaimName: string }[]).find((c) => c.name === 'devices')?.resourceClaimName;
    expect(claimName).toBeDefined();
    const claim = kubectlJson<Obj>(['get', 'resourceclaim', '-n', 'default', claimName!], wl);
    const results = (claim.status?.['allocation'] as { devices?: { results?: unknown[] } } | undefined)?.devices?.results;
    expect(results).toEqual([{ request: 'gpu', driver: 'gpu.nvidia.com', pool: 'dev-workload-gpu-a16-0', device: 'gpu-0' }]);
    // Phase and cold start from what the workload cluster reports: Serving, and the startup exactly the engine
    // Deployment's creation to its Available transition, which holds the 10-s model load. (Kubernetes' own
    // controllers add a few seconds more under load: the pod or its claim can be created before the
    // ServiceAccount or ResourceClaimTemplate, and waits out their retry backoff.)
    const replica = items(['modelreplicas', '-n', 'ml-team']).find((r) => r.metadata.name.startsWith('tiny-'))!;
    const startup = (replica.status?.['startup'] as { seconds?: number } | undefined)?.seconds;
    expect(replica.status?.['phase']).toBe('Serving');
    const engine = items(['deployments', '-n', 'default'], wl).find((d) => /^tiny-[0-9a-f]{5}-tiny-/.test(d.metadata.name))!;
    const available = engine.status?.conditions?.find((c) => c.type === 'Available' && c.status === 'True') as { lastTransitionTime?: string } | undefined;
    const reported = Math.floor((Date.parse(available?.lastTransitionTime ?? '') - Date.parse(engine.metadata.creationTimestamp ?? '')) / 1000);
    expect(startup, startupTimeline(replica, pod)).toBe(reported);
    expect(startup).toBeGreaterThanOrEqual(10);
    expect(startup, startupTimeline(replica, pod)).toBeLessThanOrEqual(40);

    // Capacity agrees: the pool's one device is taken, so a second replica is refused by the fleet scheduler, and no pod is Pending.
    expect(kubectl(['scale', 'md', '-n', 'ml-team', 'tiny', '--replicas=2']).code).toBe(0);
    await eventually('the second replica refused', () => {
      const md = kubectlJson<Obj>(['get', 'md', '-n', 'ml-team', 'tiny']);
      return (md.status?.['placements'] as unknown[] | undefined)?.length === 1 && condition(md, 'Ready') === 'False' ? md : undefined;
    }, { state: snapshot });
    await new Promise((r) => setTimeout(r, 5000));
    expect(items(['pods', '-A', '--field-selector', 'status.phase=Pending'], wl).map((p) => p.metadata.name)).toEqual([]);
    expect(kubectl(['scale', 'md', '-n', 'ml-team', 'tiny', '--replicas=1']).code).toBe(0);

    // A drain respects the engine's PodDisruptionBudget: the eviction is refused and the pod stays.
    const drain = kubectl(['drain', 'dev-workload-gpu-a16-0', '--ignore-daemonsets', '--delete-emptydir-data', '--timeout=15s'], wl);
    expect(drain.code).not.toBe(0);
    expect(drain.stdout + drain.stderr).toContain('disruption budget');
    expect(enginePod()?.metadata.name).toBe(pod.metadata.name);
    expect(kubectl(['uncordon', 'dev-workload-gpu-a16-0'], wl).code).toBe(0);

    // Forced onto the pool past the fleet scheduler: a claim no device satisfies stays Pending with the allocator's reason.
    const forced = `apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: too-big, namespace: default}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.nvidia.com
          selectors:
          - cel: {expression: 'device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("80Gi")) >= 0'}
---
apiVersion: v1
kind: Pod
metadata: {name: too-big, namespace: default}
spec:
  nodeSelector: {modelplane.ai/pool: gpu-a16}
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
  resourceClaims: [{name: devices, resourceClaimTemplateName: too-big}]
  containers: [{name: engine, image: vllm/vllm-openai:v0.23.0, resources: {claims: [{name: devices}]}}]
`;
    expect(kubectl(['apply', '-f', '-'], { ...wl, input: forced }).code).toBe(0);
    const why = await eventually('too-big Unschedulable', () => {
      const p = kubectlJson<Obj>(['get', 'pod', '-n', 'default', 'too-big'], wl);
      const c = ((p.status?.['conditions'] ?? []) as { type: string; reason?: string; message?: string }[]).find((x) => x.type === 'PodScheduled');
      return c?.reason === 'Unschedulable' ? c.message : undefined;
    });
    expect(why).toMatch(/cannot allocate all claims/);
    expect(kubectl(['delete', '-f', '-', '--wait=false'], { ...wl, input: forced }).code).toBe(0);
  }, 8 * MIN);

  it('an 8-GPU pool for real: 8 single-GPU replicas pack its node and a ninth is refused; a rolling update is make before break in the workload cluster; a gang runs under the real LeaderWorkerSet controller', async () => {
    await workloadGpus();
  }, 25 * MIN);

  it('a lost cluster: a blip moves nothing; past failover.after the replica is re-placed, Ready before the old one goes, the route never empty; recovery moves nothing back', async () => {
    const manifest = `apiVersion: modelplane.ai/v1alpha1
kind: InferenceCluster
metadata:
  name: dev-fallback
  labels:
    modelplane.ai/env: dev
spec:
  cluster:
    source: Vultr
    vultr:
      region: ewr
  nodePools:
  - name: gpu-a16
    className: a16-1x
    nodeCount: 1
---
apiVersion: modelplane.ai/v1alpha1
kind: ModelService
metadata:
  name: tiny
  namespace: ml-team
spec:
  endpoints:
  - selector:
      matchLabels:
        modelplane.ai/deployment: tiny
`;
    const file = join(E2E_DIR, 'failover.yaml');
    writeFileSync(file, manifest);
    expect(kubectl(['apply', '-f', file]).code).toBe(0);
    const health = (name: string) => (kubectlJson<Obj>(['get', 'inferencecluster', name]).status?.['health'] as { state?: string } | undefined)?.state;
    /** Backends of the tiny service's HTTPRoute; every check asserts it is never empty once it routes. */
    const backends = () => {
      const routes = items(['httproutes.gateway.networking.k8s.io', '-A']).filter((r) => r.metadata.name.startsWith('tiny-'));
      const rules = ((routes[0]?.['spec'] as Obj['spec'])?.['rules'] ?? []) as { backendRefs?: { name: string }[] }[];
      return rules.flatMap((r) => r.backendRefs ?? []).map((b) => b.name);
    };
    await eventually('dev-fallback Ready and the tiny route has a backend', () => (condition(kubectlJson<Obj>(['get', 'inferencecluster', 'dev-fallback']), 'Ready') === 'True' && backends().length > 0 ? true : undefined), { timeoutMs: 6 * MIN, state: snapshot });
    const route = () => {
      const b = backends();
      expect(b.length, 'the route always has a backend').toBeGreaterThan(0);
      return b;
    };

    // A blip: Unreachable, back before failover.after (3m): nothing moves.
    expect(kubectl(['patch', 'inferencecluster', 'dev-workload', '--type=merge', '-p', '{"spec":{"failover":{"after":"3m","recoverAfter":"10s"}}}']).code).toBe(0);
    expect(modelplane(['dev', '--dir', E2E_DIR, 'workload', 'stop']).code).toBe(0);
    await eventually('dev-workload Unreachable', () => (route() && health('dev-workload') === 'Unreachable' ? true : undefined), { timeoutMs: 3 * MIN, state: snapshot });
    expect(placements('ml-team', 'tiny')).toEqual(['dev-workload/gpu-a16 (not ready)']);
    expect(modelplane(['dev', '--dir', E2E_DIR, 'workload', 'start']).code).toBe(0);
    await eventually('dev-workload Healthy again', () => (route() && health('dev-workload') === 'Healthy' ? true : undefined), { timeoutMs: 3 * MIN, state: snapshot });
    await eventually('tiny Ready where it was', () => (placements('ml-team', 'tiny')?.join() === 'dev-workload/gpu-a16' ? true : undefined), { state: snapshot });

    // A loss: Unreachable for failover.after (20s) turns it Unavailable; the replacement is Ready before the old replica goes.
    expect(kubectl(['patch', 'inferencecluster', 'dev-workload', '--type=merge', '-p', '{"spec":{"failover":{"after":"20s","recoverAfter":"10s"}}}']).code).toBe(0);
    expect(modelplane(['dev', '--dir', E2E_DIR, 'workload', 'stop']).code).toBe(0);
    let restart = 1;
    const seen: string[] = [];
    // Every version of the deployment's placements: the both-at-once state can last one reconcile, shorter than a poll.
    const watch = watchKubectl(['get', 'modeldeployment', '-n', 'ml-team', 'tiny', '--watch', '-o', 'jsonpath={range .status.placements[*]}{.cluster}={.ready} {end}{"\\n"}']);
    try {
      await eventually('tiny re-placed on dev-fallback and the old replica gone', () => {
        route();
        const p = placements('ml-team', 'tiny') ?? [];
        if (seen.at(-1) !== p.join()) seen.push(p.join());
        // make before break: the old replica stays while the new one is not Ready
        if (p.includes('dev-fallback/gpu-a16 (not ready)')) expect(p.some((x) => x.startsWith('dev-workload/'))).toBe(true);
        return p.join() === 'dev-fallback/gpu-a16' ? true : undefined;
      }, { timeoutMs: 6 * MIN, state: () => `${seen.join(' | ')}\n${snapshot()}` });
      expect(health('dev-workload')).toBe('Unavailable');
      // both ran at once: the old one went only after the replacement was placed and Ready
      const both = (x: string) => x.includes('dev-fallback') && x.includes('dev-workload');
      expect(seen.some(both) || watch.lines.some(both), `${seen.join(' | ')}\nwatched: ${watch.lines.join(' | ')}\nwatch stderr: ${watch.errors.join(' | ')}`).toBe(true);
      // and never the replacement alone before it was Ready
      expect(watch.lines.filter((l) => l.includes('dev-fallback=false') && !l.includes('dev-workload')), watch.lines.join(' | ')).toEqual([]);
      // The ModelService hears of the removed endpoint through its watch, a moment after the deployment.
      await eventually('the tiny route down to the replacement', () => (route().length === 1 ? true : undefined), { timeoutMs: 60_000, state: () => backends().join(', ') });
    } finally {
      // Back even when an assertion above failed, so the steps after it see a whole fleet.
      watch.stop();
      restart = modelplane(['dev', '--dir', E2E_DIR, 'workload', 'start']).code;
    }

    // Back: Healthy after recoverAfter, and nothing moves back.
    expect(restart).toBe(0);
    await eventually('dev-workload Healthy again', () => (health('dev-workload') === 'Healthy' ? true : undefined), { timeoutMs: 3 * MIN, state: snapshot });
    await new Promise((r) => setTimeout(r, 15_000));
    expect(placements('ml-team', 'tiny')).toEqual(['dev-fallback/gpu-a16']);
  }, 20 * MIN);

  it('a team quota: the second replica stops at the InferenceQuota (QuotaExceeded) though a node is free; kubectl get shows its usage', async () => {
    const manifest = `apiVersion: v1
kind: Namespace
metadata:
  name: team-capped
---
apiVersion: modelplane.ai/v1alpha1
kind: InferenceQuota
metadata:
  name: gpus
  namespace: team-capped
spec:
  limits:
  - devices: 1
---
apiVersion: modelplane.ai/v1alpha1
kind: InferenceCluster
metadata:
  name: dev-quota
  labels:
    modelplane.ai/env: quota
spec:
  cluster:
    source: Vultr
    vultr:
      region: ewr
  nodePools:
  - name: gpu-a16
    className: a16-1x
    nodeCount: 2
---
apiVersion: modelplane.ai/v1alpha1
kind: ModelDeployment
metadata:
  name: capped
  namespace: team-capped
spec:
  replicas: 2
  template:
    spec:
      clusterSelector:
        matchLabels:
          modelplane.ai/env: quota
      engines:
      - name: tiny
        members:
        - role: Standalone
          nodeSelector:
            devices:
            - name: gpu
              count: 1
              selectors:
              - cel: device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("8Gi")) >= 0
          template:
            spec:
              containers:
              - name: engine
                image: vllm/vllm-openai:v0.23.0
                args: [--model=Qwen/Qwen2.5-0.5B-Instruct]
`;
    const file = join(E2E_DIR, 'quota.yaml');
    writeFileSync(file, manifest);
    const apply = kubectl(['apply', '-f', file]);
    expect(apply.code, apply.stderr).toBe(0);
    const scheduled = () => kubectlJson<Obj>(['get', 'modeldeployment', '-n', 'team-capped', 'capped']).status?.conditions?.find((c) => c.type === 'ReplicasScheduled');
    await eventually('capped: one replica on dev-quota, the second refused by the quota', () => {
      const p = placements('team-capped', 'capped');
      return p?.length === 1 && p[0]?.startsWith('dev-quota/') && scheduled()?.reason === 'QuotaExceeded' ? true : undefined;
    }, { timeoutMs: 8 * MIN, state: () => `${JSON.stringify(scheduled())}\n${snapshot()}` });
    expect(scheduled()?.message).toBe('1 of 2 replicas scheduled; 1 cluster: 1 InferenceQuota team-capped/gpus limits[0]: 1 device; the namespace holds 1 and this replica needs 1');
    await eventually('the quota reports its usage', () => {
      const q = kubectl(['get', 'inferencequota', '-n', 'team-capped', 'gpus', '-o', 'jsonpath={.status.summary}']);
      return q.stdout === '1/1 devices' ? true : undefined;
    }, { timeoutMs: 3 * MIN, state: snapshot });
    // Gone again, so the settled fleet below is whole. The deployment first: while its replica is scheduled there, the
    // cluster's Usage makes core's webhook refuse to delete it (`ModelReplicas are scheduled to this InferenceCluster`).
    const refused = kubectl(['delete', 'inferencecluster', 'dev-quota', '--wait=false']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('ModelReplicas are scheduled to this InferenceCluster');
    // Foreground: back once its replicas' Objects are gone from dev-quota too, so the cluster's provider config outlives them.
    expect(kubectl(['delete', 'md', '-n', 'team-capped', 'capped', '--cascade=foreground', '--timeout=3m']).code).toBe(0);
    // The guard goes on the cluster's next reconcile after its last replica, not with the deployment.
    await eventually("dev-quota's replica guard gone", () => {
      const guards = items(['clusterusages']).filter((u) => (u.spec?.['of'] as { resourceRef?: { name?: string } } | undefined)?.resourceRef?.name === 'dev-quota');
      return guards.length === 0 ? true : undefined;
    }, { timeoutMs: 3 * MIN, state: () => kubectl(['get', 'clusterusages']).stdout });
    // In the background, as a plain `kubectl delete` (and as core replays the deletion refused above): the serving
    // stack still uninstalls, since the cloud cluster (and so its kubeconfig Secret) outlives the stack's ProviderConfigs.
    const del = kubectl(['delete', '-f', file, '--ignore-not-found', '--timeout=5m']);
    expect(del.code, del.stderr).toBe(0);
    const leftOver = () =>
      kubectl(['get', 'objects.kubernetes.m.crossplane.io,releases.helm.m.crossplane.io', '-n', 'modelplane-system', '-o', 'name'])
        .stdout.split('\n')
        .filter((l) => l.includes('/dev-quota-'));
    await eventually("dev-quota's serving stack uninstalled: none of its Objects or Releases left", () => (leftOver().length === 0 ? true : undefined), {
      timeoutMs: 5 * MIN,
      state: () => `${leftOver().join('\n')}\n${kubectl(['get', 'events', '-n', 'modelplane-system', '--field-selector', 'reason=CannotConnectToProvider']).stdout}`,
    });
    // Its workload API server is free again before the demo's clusters ask for one.
    const handout = () => readFileSync(join(E2E_DIR, 'workload-handout.json'), 'utf8');
    await eventually("dev-quota's workload API server free again", () => (handout().includes('"dev-quota"') ? undefined : true), { state: handout });
  }, 15 * MIN);

  it('the demo seeds apply unchanged: two Ready replicas on two of the three EKS clusters, one address routing to both', async () => {
    const apply = kubectl(['apply', '-f', join(SEEDS, 'demo')]);
    expect(apply.code, apply.stderr).toBe(0);
    // Core v2.4 runs the scheduler as soon as a cluster turns Ready, and the
    // simulated providers decide the order the three do; a placed replica is
    // never moved for a cluster that turns Ready later. So the pair is any two
    // distinct clusters (`modelplane plan`, which sees all three Ready, says
    // eks-eu-central and eks-us-east), each on its one GPU pool.
    const pools = ['eks-eu-central/gpu-l40s', 'eks-us-east/gpu-l4', 'eks-us-west/gpu-l40s'];
    const placed = await eventually('qwen-demo placed', () => {
      const p = placements('default', 'qwen-demo');
      const clusters = new Set(p?.map((x) => x.split('/')[0]));
      return p?.length === 2 && clusters.size === 2 && p.every((x) => pools.includes(x)) ? p : undefined;
    }, { timeoutMs: 8 * MIN, state: snapshot });
    await eventually('qwen address and two backends', () => {
      if (serviceAddress('default', 'qwen') !== 'http://172.18.255.200/default/qwen') return undefined;
      const routes = items(['httproutes', '-n', 'default']);
      const refs = routes.flatMap((r) => ((r.spec?.['rules'] ?? []) as { backendRefs?: unknown[] }[]).flatMap((x) => x.backendRefs ?? []));
      return refs.length === 2 ? true : undefined;
    }, { state: snapshot });
    // Workload servers 2 and 3 were free when the demo's clusters were made (0: dev-workload, 1: dev-fallback), so two of
    // the three run on one: at least one replica's engine pod is Kubernetes' own, bound and allocated there.
    const handout = JSON.parse(readFileSync(join(E2E_DIR, 'workload-handout.json'), 'utf8')) as Record<string, { index: number; cluster?: string }>;
    const serverOf = (cluster: string) => Object.values(handout).find((g) => g.cluster === cluster)?.index;
    expect(pools.map((p) => serverOf(p.split('/')[0]!)).filter((i) => i !== undefined).sort()).toEqual([2, 3]);
    const real = placed.filter((x) => serverOf(x.split('/')[0]!) !== undefined);
    expect(real.length).toBeGreaterThanOrEqual(1);
    for (const x of real) {
      const [cluster, pool] = x.split('/') as [string, string];
      const wl = { workload: serverOf(cluster)! };
      const pod = await eventually(`the qwen-demo engine pod on ${cluster} Running and Ready`, () => {
        const p = items(['pods', '-n', 'default'], wl).find((o) => o.metadata.name.startsWith('qwen-demo-') && Array.isArray((o.spec as Obj['spec'])?.['resourceClaims']));
        return p && p.status?.['phase'] === 'Running' && condition(p, 'Ready') === 'True' ? p : undefined;
      }, { timeoutMs: 3 * MIN, state: () => kubectl(['get', 'pods,resourceclaims,nodes', '-A', '-o', 'wide'], wl).stdout });
      const node = (pod.spec as Obj['spec'])?.['nodeName'] as string;
      expect(node).toMatch(new RegExp(`^${cluster}-${pool}-\\d+$`));
      const claimName = ((pod.status?.['resourceClaimStatuses'] ?? []) as { name: string; resourceClaimName: string }[]).find((c) => c.name === 'devices')?.resourceClaimName;
      const claim = kubectlJson<Obj>(['get', 'resourceclaim', '-n', 'default', claimName!], wl);
      const results = (claim.status?.['allocation'] as { devices?: { results?: { driver: string; pool: string }[] } } | undefined)?.devices?.results ?? [];
      expect(results.map((r) => `${r.driver} ${r.pool}`)).toEqual([`gpu.nvidia.com ${node}`]);
    }
  }, 10 * MIN);

  it('the front door: an APIKey service, and the key validator reading its Secret through the Role the service composed, and no other', async () => {
    const svc = 'qwen-keyed';
    const manifest = `apiVersion: v1
kind: Secret
metadata:
  name: qwen-keys
stringData:
  ci: ${RIGHT_KEY}
---
apiVersion: v1
kind: Secret
metadata:
  name: other-keys
stringData:
  ci: ${OTHER_KEY}
---
apiVersion: modelplane.ai/v1alpha1
kind: ModelService
metadata:
  name: ${svc}
spec:
  endpoints:
  - selector:
      matchLabels:
        modelplane.ai/deployment: qwen-demo
  auth:
    type: APIKey
    apiKeys:
      secretRef:
        name: qwen-keys
`;
    const apply = kubectl(['apply', '-f', '-'], { input: manifest });
    expect(apply.code, apply.stderr).toBe(0);
    await eventually('qwen-keyed Authenticated APIKey', () => {
      const ms = kubectlJson<Obj>(['get', 'modelservice', svc]);
      return ms.status?.['auth'] === 'APIKey' && condition(ms, 'Authenticated') === 'True' ? true : undefined;
    }, { state: snapshot });
    const role = middlewareName(svc);
    await eventually('its Middleware, Role and RoleBinding', () =>
      kubectl(['get', `middleware.traefik.io/${role}`, `role/${role}`, `rolebinding/${role}`]).code === 0 ? true : undefined,
    );
    const deploy = kubectlJson<Obj>(['get', 'deployment', '-n', 'modelplane-system', 'modelplane-key-validator']);
    expect(condition(deploy, 'Available')).toBe('True');
    // The validator as its pod runs it: the ServiceAccount's own token, nothing more.
    const { answers, log, stderr } = await validatorAsItsServiceAccount([
      ['noKey', '/default/qwen-keys'],
      ['wrongKey', '/default/qwen-keys', 'sk-wrong'],
      ['rightKey', '/default/qwen-keys', RIGHT_KEY],
      ['notItsSecret', '/default/other-keys', OTHER_KEY],
    ]);
    // The validator's log (one line per decision, never a key) says why when an answer differs.
    expect(answers, log).toStrictEqual({ noKey: 401, wrongKey: 401, rightKey: 200, notItsSecret: 401 });
    expect(log).toContain('"unreadable":"GET /api/v1/namespaces/default/secrets/other-keys: 403"');
    expect(log.includes(RIGHT_KEY) || log.includes(OTHER_KEY)).toBe(false);
    expect(stderr).toBe('');
  }, 10 * MIN);

  it('kubectl scale md/qwen-demo --replicas=3, then 0, changes placements', async () => {
    expect(kubectl(['scale', 'md/qwen-demo', '--replicas=3']).code).toBe(0);
    await eventually('three placements', () => {
      const p = placements('default', 'qwen-demo');
      return p?.length === 3 && p.every((x) => !x.endsWith('(not ready)')) ? p : undefined;
    }, { state: snapshot }).then((p) => expect(p).toEqual(['eks-eu-central/gpu-l40s', 'eks-us-east/gpu-l4', 'eks-us-west/gpu-l40s']));
    expect(kubectl(['scale', 'md/qwen-demo', '--replicas=0']).code).toBe(0);
    await eventually('scaled to zero', () => {
      const md = kubectlJson<Obj>(['get', 'md', 'qwen-demo']);
      const scheduled = md.status?.conditions?.find((c) => c.type === 'ReplicasScheduled');
      return placements('default', 'qwen-demo')?.length === 0 && scheduled?.reason === 'ScaledToZero' && condition(md, 'Ready') === 'True' ? true : undefined;
    }, { state: snapshot });
    await eventually('replicas gone', () => (items(['modelreplicas', '-n', 'default']).length === 0 ? true : undefined));
    expect(kubectl(['scale', 'md/qwen-demo', '--replicas=2']).code).toBe(0);
    await eventually('two again', () => (placements('default', 'qwen-demo')?.filter((x) => !x.endsWith('(not ready)')).length === 2 ? true : undefined), {
      state: snapshot,
    });
  }, 10 * MIN);

  it('bad input: the API server refuses an invalid XR naming the field, and the offline validator gives the same verdict', () => {
    const file = join(E2E_DIR, 'invalid.yaml');
    writeFileSync(
      file,
      `apiVersion: modelplane.ai/v1alpha1
kind: InferenceCluster
metadata:
  name: broken
spec:
  cluster:
    source: EKS
  nodePools:
  - name: gpu
    className: l4-1x-g6
    nodeCount: 1
`,
    );
    const message = 'spec.cluster.eks is required when spec.cluster.source is EKS.';
    const server = kubectl(['apply', '-f', file]);
    expect(server.code).toBe(1);
    expect(server.stderr).toContain('spec.cluster');
    expect(server.stderr).toContain(message);
    const offline = modelplane(['plan', file]);
    expect(offline.code).toBe(1);
    expect(offline.stdout + offline.stderr).toContain(message);
    expect(items(['inferenceclusters']).map((o) => o.metadata.name)).not.toContain('broken');
  }, 5 * MIN);

  it('a settled fleet writes nothing for 2 minutes and no XR reports WatchCircuitOpen', async () => {
    // Settled: every XR Ready, then 2 minutes without a write, with no wait for a poll: core (v2.4) watches
    // the required resources each function asks for (a ModelService's ModelEndpoints, a scheduler's
    // clusters), so the scale back to 2 just above has reached every route and ledger by the time each XR
    // is Ready. A fleet that still writes fails here, naming what it writes.
    const unready = () => items(['composite', '-A']).filter((o) => condition(o, 'Ready') !== 'True').map((o) => o.metadata.name);
    await eventually('every XR Ready', () => (unready().length === 0 ? true : undefined), { timeoutMs: 4 * MIN, state: () => unready().join(', ') });
    // Every cluster, simulated or real, reachable: its probe observed (a simulated cluster's is paused, and says nothing of a loss).
    const health = items(['inferenceclusters']).map((o) => `${o.metadata.name} ${(o.status?.['health'] as { state?: string } | undefined)?.state}`);
    expect(health.filter((h) => !h.endsWith(' Healthy'))).toEqual([]);
    const backends = () =>
      items(['httproutes', '-n', 'default', '-l', 'crossplane.io/composite=qwen'])
        .flatMap((r) => ((r.spec?.['rules'] ?? []) as { backendRefs?: unknown[] }[]).flatMap((x) => x.backendRefs ?? [])).length;
    await eventually('both backends of qwen in its route', () => (backends() === 2 ? true : undefined), { timeoutMs: 30_000, state: () => `${backends()} backends` });
    // The workload clusters' own graceful terminations finished (a pod removed at the end of its grace
    // period, then its ResourceClaim; a PodDisruptionBudget's status follows): Kubernetes' controllers and
    // kwok closing out an earlier step, not the fleet.
    const terminating = () =>
      [0, 1, 2, 3].flatMap((workload) =>
        items(['pods,resourceclaims', '-A'], { workload })
          .filter((o) => o.metadata.deletionTimestamp !== undefined)
          .map((o) => `workload ${workload}: ${o.kind} ${o.metadata.namespace}/${o.metadata.name}`),
      );
    await eventually('nothing terminating on the workload clusters', () => (terminating().length === 0 ? true : undefined), { timeoutMs: 6 * MIN, state: () => terminating().join(', ') });
    // provider-kubernetes re-reads an unwatched Object's remote object once a minute (--poll=1m): a PodDisruptionBudget's
    // status that changed with those pods reaches its Object by then.
    await new Promise((r) => setTimeout(r, 65_000));
    const q = modelplane(['dev', 'quiet', '--seconds', '120'], { timeoutMs: 4 * MIN });
    expect(q.stdout, `${q.stdout}\n${writtenEvents(q.stdout)}`).toMatch(/^quiet: nothing written in 120s/);
    expect(q.code).toBe(0);
    const open = items(['composite', '-A'])
      .filter((o) => condition(o, 'Responsive') === 'False')
      .map((o) => `${o.metadata.name}: ${o.status?.conditions?.find((c) => c.type === 'Responsive')?.message}`);
    expect(open).toEqual([]);
  }, 20 * MIN);

  // Last: a real Traefik writes Gateway and HTTPRoute status, which the dev runtime also simulates.
  it.skipIf(frontDoorUnavailable() !== undefined)(
    `the 401 for real: Traefik's Gateway API and CRD providers route by the composed objects; no key, a wrong key → 401, the right key → the stub endpoint, without the key${frontDoorUnavailable() ? ` (skipped: ${frontDoorUnavailable()})` : ''}`,
    async () => {
      const r = await throughTraefik();
      expect({ noKey: r.noKey, wrongKey: r.wrongKey, rightKey: r.rightKey, reached: r.reached }, r.logs).toStrictEqual({
        noKey: { status: 401, challenge: 'Bearer realm="modelplane"' },
        wrongKey: 401,
        rightKey: { status: 200, object: 'chat.completion' },
        reached: [{ path: '/default/keyed-stub/v1/chat/completions', authorization: null, caller: 'default/stub-keys/ci' }],
      });
      expect(r.logs.includes(RIGHT)).toBe(false);
    },
    10 * MIN,
  );

  // After the 401 step, on its keyed service: the front door over HTTPS (docs/front-door.md).
  it.skipIf(frontDoorUnavailable() !== undefined)(
    `HTTPS for real: a dev-CA certificate for ${TLS_HOST} in a kubernetes.io/tls Secret, the gateway's spec.tls.secretRef + hostname; Traefik serves the keyed service over HTTPS (200, the certificate's CN) and answers plain HTTP with a 301 to https; patched back${frontDoorUnavailable() ? ` (skipped: ${frontDoorUnavailable()})` : ''}`,
    async () => {
      const r = await overHttps();
      const after = await backToHttp();
      expect({ address: r.address, https: r.https, status: r.http.status }, r.logs).toStrictEqual({
        address: `https://${TLS_HOST}/default/keyed-stub`,
        https: { status: 200, object: 'chat.completion', peerCN: TLS_HOST, authorized: true },
        status: 301,
      });
      expect(r.http.location ?? '', r.logs).toMatch(new RegExp(`^https://${TLS_HOST.replaceAll('.', '\\.')}(:443)?/default/keyed-stub/v1/models$`));
      expect(after).toMatch(/^http:\/\/[^/]+\/default\/keyed-stub$/);
      expect(r.logs.includes(RIGHT)).toBe(false);
    },
    10 * MIN,
  );

  // Last: two teams' scoped keys, /v1/models per key, a rate limit and the usage log (docs/ai-gateway.md).
  it.skipIf(frontDoorUnavailable() !== undefined)(
    `the AI gateway for real: each team's key calls and lists only its own service (403 on the other's), the third request in a second of a key limited to 2/s gets 429 with Retry-After, the caller reaches the endpoint and Traefik's access log and metrics, a 429 or 503 backend overflows to the next priority, and the usage tap counts tokens (JSON and streamed) and refuses a spent token budget with 429${frontDoorUnavailable() ? ` (skipped: ${frontDoorUnavailable()})` : ''}`,
    async () => {
      const r = await asAiGateway();
      expect({ calls: r.calls, models: r.models, burst: r.burst.statuses }, r.logs).toStrictEqual({
        calls: { 'a->chat': 200, 'a->code': 403, 'b->code': 200, 'b->chat': 403 },
        // Open services (auth None) are listed for every key.
        models: { a: ['teams/chat', 'teams/overflow-429', 'teams/overflow-503', 'teams/tokens'], b: ['teams/code', 'teams/overflow-429', 'teams/overflow-503'] },
        burst: [200, 200, 429],
      });
      // Overflow to priority 1: every request served; on 429 the busy backend is asked each time, on 503 three times, then ejected.
      expect(r.overflow, r.logs).toStrictEqual({
        'overflow-429': { statuses: [200, 200, 200, 200, 200], busy: 5, stub: 5 },
        'overflow-503': { statuses: [200, 200, 200, 200, 200], busy: 3, stub: 5 },
      });
      // Usage: the access log line of a served request names caller, router, service, backend, status and duration.
      expect(Object.keys(r.usageLine ?? {}).filter((k) => ['request_X-Modelplane-Caller', 'RouterName', 'ServiceName', 'ServiceURL', 'DownstreamStatus', 'Duration'].includes(k)).sort(), r.logs).toStrictEqual(
        ['DownstreamStatus', 'Duration', 'RouterName', 'ServiceName', 'ServiceURL', 'request_X-Modelplane-Caller'],
      );
      // Prometheus: team A's served requests counted by caller on the service (after the key check set the header).
      expect(r.metrics.some((l) => l.includes('code="200"')), r.metrics.join('\n')).toBe(true);
      expect(r.burst.retryAfter ?? '', r.logs).toMatch(/^[0-9]+$/);
      // Every served request carried its caller to the endpoint, and the access log names it.
      const callerOf = (path: string) => (path.startsWith('/teams/chat/') ? 'teams/team-a/ci' : 'teams/team-b/laptop');
      expect(r.reached.length).toBeGreaterThanOrEqual(4);
      expect(r.reached.filter((x) => x.caller !== callerOf(x.path)), r.logs).toEqual([]);
      expect(r.usage.length, r.logs).toBe(r.reached.length);
      expect(r.usage.filter(([path, caller]) => caller !== callerOf(path)), r.logs).toEqual([]);
      expect(r.logs.includes(KEY_A) || r.logs.includes(KEY_B)).toBe(false);
      // Tokens through the usage tap (50 per minute; the stub reports 10 + 20 per answer): the first counted request
      // and a streamed one are served, the next is refused; one line each, with the caller and the tokens.
      const t = r.tokens;
      expect({ stream: t.stream, limited: { ...t.limited, retryAfter: /^[0-9]+$/.test(t.limited.retryAfter ?? '') } }, r.logs).toStrictEqual({
        stream: { status: 200, done: true },
        limited: { status: 429, retryAfter: true, code: 'tokens_per_minute_exceeded' },
      });
      const pick = (l: Record<string, unknown>) => [l['caller'], l['status'], l['stream'], l['promptTokens'], l['completionTokens'], l['totalTokens'], l['limited']];
      expect(t.lines.map(pick), r.logs).toStrictEqual([
        ['teams/team-a/ci', 200, false, 10, 20, 30, undefined],
        ['teams/team-a/ci', 200, true, 10, 20, 30, undefined],
        ['teams/team-a/ci', 429, false, undefined, undefined, undefined, true],
      ]);
      // Traefik's line of the metered route joins the first by its request id and names the backend that answered.
      expect([t.joined?.['DownstreamStatus'], typeof t.joined?.['ServiceURL'], t.joined?.['request_X-Modelplane-Caller']], r.logs).toStrictEqual([200, 'string', 'teams/team-a/ci']);
      expect(t.metrics, r.logs).toStrictEqual([
        'modelplane_gateway_tokens_total{caller="teams/team-a/ci",service="teams/tokens",type="prompt"} 20',
        'modelplane_gateway_tokens_total{caller="teams/team-a/ci",service="teams/tokens",type="completion"} 40',
        'modelplane_gateway_token_limited_total{caller="teams/team-a/ci",service="teams/tokens"} 1',
      ]);
    },
    10 * MIN,
  );
  // Last: KEDA, Prometheus and the HPA for real: 0 → 1 on the first request, 1 → 3 under load, down after the window (docs/autoscaling.md).
  it.skipIf(autoscalingUnavailable() !== undefined)(
    `autoscaling for real: at zero the first request gets 503 with Retry-After and wakes the deployment (KEDA 0 → 1), load makes the HPA ask for 3, and after the window it goes back to 1 and 0${autoscalingUnavailable() ? ` (skipped: ${autoscalingUnavailable()})` : ''}`,
    async () => {
      const r = await autoscaleForReal();
      expect(r.atZero, r.logs).toStrictEqual({ ready: 'True', summary: '0..4 ScaledToZero', standby: true, routing: 'ScaledToZero' });
      expect(r.first, r.logs).toStrictEqual({ status: 503, retryAfter: '30', code: 'scaled_to_zero' });
      expect({ replicas: r.woke.replicas, served: r.woke.served }, r.logs).toStrictEqual({ replicas: 1, served: 200 });
      expect(r.woke.lastScaleFromZero?.['seconds'], JSON.stringify(r.woke)).toBeGreaterThan(0);
      expect(r.underLoad).toStrictEqual({ replicas: 3, ready: 3 });
      expect(r.after).toStrictEqual({ down: 1, zero: 0, retryAfter: String(30 + Number(r.woke.lastScaleFromZero?.['seconds'])) });
      // The first step's event (reason Scaling; core prefixes the pipeline step). Later steps' events are emitted
      // too, but client-go's per-object spam filter (a burst of 25) may drop them on an XR this busy: the scale-up
      // to 3 is asserted from spec and status above.
      expect(r.events.some((e) => e.startsWith('Scaling: Pipeline step "schedule-model-deployment": Scaling from 0 to 1 replicas')), r.events.join('\n')).toBe(true);
    },
    30 * MIN,
  );
});
