/**
 * Fleet scheduler benchmark (`npm run bench -- scheduler`): RunFunction of
 * schedule-model-deployment over real gRPC on loopback, for fleets of 10, 100
 * and 1,000 InferenceClusters (4 pools each, 4 GPU classes) and deployments
 * of 1, 10 and 100 replicas: a Leader + Worker gang whose members use 3
 * distinct CEL selectors.
 *
 * Three scenarios per size: `fresh` (nothing placed yet: every replica is
 * filled), `steady` (every replica exists, observed Ready: retain only,
 * endpoints composed), the call Crossplane repeats every poll, and
 * `rollout` (8-GPU pools, single-GPU replicas packed by devices, every
 * replica of the previous engine Ready and retiring, maxSurge 25%: the call
 * keeps them all and places the surge). Clusters publish an EFA fabric so
 * the gang places.
 *
 * Printed per size: end-to-end p50/p95 (ms, from sending the encoded request
 * to receiving the encoded response: the function's gRPC server, protobuf
 * decode, compose, encode and the loopback transfer; the client's own
 * protobuf work is done outside the timing, as Crossplane does it in Go), the
 * p50 of `schedule()` alone in this process (the scheduling.ts phases), and
 * at the end the function process's RSS (VmRSS and peak VmHWM) and the
 * 100 → 1,000 cluster time ratio. Targets are printed beside the figures;
 * nothing is asserted (bench/run.ts).
 *
 * The function runs as production runs it (Dockerfile): TypeScript compiled
 * by tsc (tsconfig.build.json, into .cache/bench-dist, incremental) and
 * started with plain node. `SCHEDULER_BENCH_TSX=1` runs it through tsx
 * instead (no compile step; about 50 MiB more RSS for the in-process
 * transpiler).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FunctionRunnerServiceService, Ready, RunFunctionRequest, RunFunctionResponse } from '@crossplane-org/function-sdk-typescript';
import * as grpc from '@grpc/grpc-js';
import { REPO_ROOT, spawnFunction } from '../cli/functions.js';
import type { JsonObject, KubeObject } from '../functions/lib/function.js';
import { celMatcher } from '../functions/schedule-model-deployment/cel-matcher.js';
import { composeWith } from '../functions/schedule-model-deployment/compose.js';
import { readDeployment } from '../functions/schedule-model-deployment/deployment.js';
import { readFleet, readReplicas } from '../functions/schedule-model-deployment/fleet.js';
import { schedule } from '../functions/schedule-model-deployment/scheduling.js';

const API = 'modelplane.ai/v1alpha1';
/** `SCHEDULER_BENCH_FLEETS=1000` (comma-separated) runs only those fleet sizes. */
const FLEETS = (process.env['SCHEDULER_BENCH_FLEETS'] ?? '10,100,1000').split(',').map(Number);
const REPLICAS = [1, 10, 100];

const SELECTORS = {
  leader: 'device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("40Gi")) >= 0',
  worker: [
    'device.attributes["gpu.nvidia.com"].architecture == "Hopper"',
    'device.attributes["gpu.nvidia.com"].cudaComputeCapability.isGreaterThan(semver("8.9.0"))',
  ],
};

/** Four GPU classes as InferenceClass devices with defaults applied. */
const CLASSES: JsonObject[][] = [
  ['H100', 'Hopper', '81559Mi', '9.0.0'],
  ['H200', 'Hopper', '143771Mi', '9.0.0'],
  ['L40S', 'Ada Lovelace', '46068Mi', '8.9.0'],
  ['L4', 'Ada Lovelace', '23034Mi', '8.9.0'],
].map(([, arch, memory, cc]) => [
  {
    name: 'gpu',
    claim: 'DRA',
    driver: 'gpu.nvidia.com',
    deviceClassName: 'gpu.nvidia.com',
    count: 8,
    attributes: { architecture: { string: arch }, cudaComputeCapability: { version: cc } },
    capacity: { memory: { value: memory } },
  },
]);

function cluster(i: number): KubeObject {
  const name = `cluster-${String(i).padStart(4, '0')}`;
  return {
    apiVersion: API,
    kind: 'InferenceCluster',
    metadata: { name, labels: { 'modelplane.ai/region': `r${i % 7}` } },
    spec: { cluster: { source: 'EKS', eks: { region: 'us-east-1' } } },
    status: {
      conditions: [{ type: 'Ready', status: 'True', reason: 'Available' }],
      providerConfigRef: { name: `${name}-pc` },
      namespace: 'modelplane-system',
      gateway: { address: `10.${(i >> 8) & 255}.${i & 255}.1` },
      capabilities: { rwxCacheStorageClass: { reason: 'none' }, multiNodeFabric: 'EFA', nodeAutoscaling: 'None', gpuStack: 'Composed' },
      gpuPools: CLASSES.map((devices, p) => ({ name: `pool-${p}`, nodes: 10, fabric: 'EFA', devices })),
    },
  };
}

function deployment(replicas: number): KubeObject {
  const template = { spec: { containers: [{ name: 'engine', image: 'vllm/vllm-openai:v0.23.0', args: ['--model=Qwen/Qwen3-32B'] }] } };
  return {
    apiVersion: API,
    kind: 'ModelDeployment',
    metadata: { name: 'bench', namespace: 'ml-team' },
    spec: {
      replicas,
      template: {
        spec: {
          engines: [
            {
              name: 'main',
              members: [
                { role: 'Leader', nodeSelector: { devices: [{ name: 'gpu', selectors: [{ cel: SELECTORS.leader }] }] }, template },
                {
                  role: 'Worker',
                  worker: { nodes: 1 },
                  nodeSelector: { devices: [{ name: 'gpu', selectors: SELECTORS.worker.map((cel) => ({ cel })) }] },
                  template,
                },
              ],
            },
          ],
        },
      },
    },
  };
}

/**
 * A single-GPU Standalone deployment (packed onto the 8-GPU nodes by
 * devices) whose engine is now `next`: every existing replica runs engine
 * `main` and must move, so the call is a rollout in progress (maxSurge 25%).
 */
function rolloutDeployment(replicas: number, engineName: string): KubeObject {
  const template = { spec: { containers: [{ name: 'engine', image: 'vllm/vllm-openai:v0.23.0', args: ['--model=Qwen/Qwen3-8B'] }] } };
  return {
    apiVersion: API,
    kind: 'ModelDeployment',
    metadata: { name: 'bench', namespace: 'ml-team' },
    spec: {
      replicas,
      strategy: { rollingUpdate: { maxSurge: '25%' } },
      template: {
        spec: {
          engines: [{ name: engineName, members: [{ role: 'Standalone', nodeSelector: { devices: [{ name: 'gpu', selectors: [{ cel: SELECTORS.leader }] }] }, template }] }],
        },
      },
    },
  };
}

interface Scenario {
  xr: KubeObject;
  clusters: KubeObject[];
  replicas: KubeObject[];
  observed: Record<string, KubeObject>;
}

/** The steady state: what the function composed on a fresh call, observed Ready. */
function steady(s: Scenario): Scenario {
  const out = composeWith({ composite: s.xr, observed: {}, desired: {}, required: { clusters: s.clusters, 'all-replicas': [] }, context: {}, credentials: {} }, celMatcher);
  const observed: Record<string, KubeObject> = {};
  const replicas: KubeObject[] = [];
  for (const [key, r] of Object.entries(out.resources)) {
    const obj = { ...structuredClone(r.resource), status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Available' }] } };
    observed[key] = obj;
    replicas.push(obj);
  }
  return { ...s, replicas, observed };
}

function request(s: Scenario): RunFunctionRequest {
  const items = (objs: KubeObject[]) => ({ items: objs.map((o) => ({ resource: o, connectionDetails: {}, ready: Ready.READY_UNSPECIFIED })) });
  const resources: Record<string, { resource: KubeObject; connectionDetails: Record<string, Buffer>; ready: Ready }> = {};
  for (const [k, o] of Object.entries(s.observed)) resources[k] = { resource: o, connectionDetails: {}, ready: Ready.READY_UNSPECIFIED };
  return RunFunctionRequest.fromPartial({
    meta: { tag: 'bench' },
    observed: { composite: { resource: s.xr, connectionDetails: {}, ready: Ready.READY_UNSPECIFIED }, resources },
    desired: { resources: {} },
    context: {},
    requiredResources: { clusters: items(s.clusters), 'all-replicas': items(s.replicas) },
  });
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

/** CPU time (user + system) the process has used, in ms (from /proc/<pid>/stat, 100 Hz ticks). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function vm(pid: number): { rss: number; hwm: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(text)?.[1] ?? 0) / 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

const RUN = FunctionRunnerServiceService.runFunction.path;
const raw = (b: Buffer) => b;

/** One RunFunction with pre-encoded request bytes; resolves with the response bytes. */
function call(client: grpc.Client, bytes: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    client.makeUnaryRequest(RUN, raw, raw, bytes, { deadline: Date.now() + 60_000 }, (err, rsp) => (err || !rsp ? reject(err) : resolve(rsp))),
  );
}

async function timeGrpc(
  client: grpc.Client,
  pid: number,
  req: RunFunctionRequest,
  n: number,
): Promise<{ times: number[]; cpu: number; rsp: RunFunctionResponse }> {
  const bytes = Buffer.from(RunFunctionRequest.encode(req).finish());
  let out = await call(client, bytes);
  for (let i = 0; i < 3; i++) out = await call(client, bytes);
  const times: number[] = [];
  const cpu0 = cpuMs(pid);
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    out = await call(client, bytes);
    times.push(performance.now() - t);
  }
  return { times, cpu: (cpuMs(pid) - cpu0) / n, rsp: RunFunctionResponse.decode(out) };
}

function timeSchedule(s: Scenario, n: number): number[] {
  const read = readDeployment(s.xr);
  if (!read.ok) throw new Error(read.errors.join('; '));
  const fleet = readFleet(s.clusters);
  const replicas = readReplicas(s.replicas);
  const times: number[] = [];
  for (let i = 0; i < n + 3; i++) {
    const t = performance.now();
    schedule({ deployment: read.deployment, fleet, replicas, fill: true, matcher: celMatcher });
    if (i >= 3) times.push(performance.now() - t);
  }
  return times;
}

const f = (ms: number) => ms.toFixed(1).padStart(7);

/** Compiles the functions with tsc into .cache/bench-dist and starts this one with node; resolves with its port. */
function startCompiled(): Promise<{ child: ChildProcess; port: number }> {
  const out = join(REPO_ROOT, '.cache', 'bench-dist');
  execFileSync(
    process.execPath,
    [join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json', '--outDir', out, '--incremental', '--tsBuildInfoFile', join(out, '.tsbuildinfo')],
    { cwd: REPO_ROOT, stdio: 'inherit' },
  );
  const main = join(out, 'functions', 'schedule-model-deployment', 'main.js');
  const child = spawn(process.execPath, [main, '--insecure', '--address', '127.0.0.1:0'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let log = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      const port = /"port":(\d+)/.exec(log)?.[1];
      if (port !== undefined) resolve({ child, port: Number(port) });
    });
    child.on('exit', (code) => reject(new Error(`${main} exited with ${code}`)));
  });
}

export default async function (): Promise<void> {
  const tsx = process.env['SCHEDULER_BENCH_TSX'] === '1';
  const { child, port } = tsx ? await spawnFunction('schedule-model-deployment') : await startCompiled();
  process.stdout.write(`function runtime: ${tsx ? 'tsx (TypeScript transpiled in process)' : 'node on tsc output, as in the image'}\n`);
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), {
    'grpc.max_receive_message_length': 64 * 1024 * 1024,
    'grpc.max_send_message_length': 64 * 1024 * 1024,
  });
  const p50 = new Map<string, number>();
  try {
    process.stdout.write('scenario  clusters replicas  placed   e2e p50   e2e p95  fn CPU/call  schedule() p50   (ms)\n');
    for (const mode of ['fresh', 'steady', 'rollout'] as const) {
      for (const n of FLEETS) {
        const clusters = Array.from({ length: n }, (_, i) => cluster(i));
        for (const r of REPLICAS) {
          let s: Scenario = { xr: deployment(r), clusters, replicas: [], observed: {} };
          if (mode === 'steady') s = steady(s);
          if (mode === 'rollout') s = { ...steady({ xr: rolloutDeployment(r, 'main'), clusters, replicas: [], observed: {} }), xr: rolloutDeployment(r, 'next') };
          const iterations = n >= 1000 ? 20 : 50;
          const { times, cpu, rsp } = await timeGrpc(client, child.pid!, request(s), iterations);
          const placed = Object.keys(rsp.desired?.resources ?? {}).filter((k) => k.startsWith('replica-')).length;
          const sched = timeSchedule(s, iterations);
          p50.set(`${mode}/${n}/${r}`, pct(times, 50));
          process.stdout.write(
            `${mode.padEnd(9)} ${String(n).padStart(8)} ${String(r).padStart(8)} ${String(placed).padStart(7)} ${f(pct(times, 50))}   ${f(pct(times, 95))}      ${f(cpu)}   ${f(pct(sched, 50))}\n`,
          );
        }
      }
    }
    const mem = vm(child.pid!);
    process.stdout.write(`function RSS: ${mem.rss.toFixed(0)} MiB now, ${mem.hwm.toFixed(0)} MiB peak (target <= 200 MB)\n`);
    for (const mode of ['fresh', 'steady', 'rollout']) {
      if (!p50.has(`${mode}/1000/100`) || !p50.has(`${mode}/100/100`)) continue;
      const ratio = p50.get(`${mode}/1000/100`)! / p50.get(`${mode}/100/100`)!;
      process.stdout.write(`${mode}: 100 -> 1,000 clusters at 100 replicas, e2e p50 ratio ${ratio.toFixed(1)} (target <= 12)\n`);
    }
    process.stdout.write('targets: 1,000 clusters x 100 replicas e2e p50 <= 150 ms, schedule() <= 30 ms\n');
  } finally {
    client.close();
    child.kill('SIGTERM');
  }
}
