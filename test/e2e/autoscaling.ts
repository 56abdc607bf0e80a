/**
 * Autoscaling for real (docs/autoscaling.md), the e2e suite's last step, on
 * the dev control plane with KEDA v2.20.2 (operator and metrics adapter) and
 * Prometheus built from their Go modules (npm run keda:build) and started by
 * `dev up`, the HPA controller of the control plane's kube-controller-manager
 * and the API server's aggregation layer, under real Traefik
 * (front-door.ts withTraefik):
 *
 * - `autoscaled` (minReplicas 0, maxReplicas 4, inFlightPerReplica 2, a 30-s
 *   scale-down window, Prometheus on loopback) at zero: Ready ScaledToZero,
 *   its standby endpoint routed, the ModelService RoutingReady ScaledToZero;
 * - the first request through Traefik gets the validator's 503 with
 *   Retry-After; the demand it records wakes the deployment: KEDA writes
 *   spec.replicas 1, the scheduler places it, kwok runs it, the first Ready
 *   endpoint replaces the standby and the next request reaches the engine;
 *   status.autoscaling.lastScaleFromZero measures the way back;
 * - a bounded loop keeps 6 requests in flight at the engine stub (each held
 *   a few seconds); its vLLM gauges, scraped by Prometheus, make the HPA ask
 *   for 3 (6 / 2), placed and Ready;
 * - the loop ends; after the window the replicas go down to 1, and once no
 *   demand is left, to 0; a request then gets Retry-After 30 s plus the way
 *   back just measured.
 *
 * Changed for loopback, and only that: the engine stub listens on the
 * workload cluster's gateway address (added to the namespace's loopback
 * device), since the replicas' pods are kwok's and run nothing; it labels its
 * own series `deployment`, `deployment_namespace` and `replica`, as the
 * replicas' PodMonitors would.
 * The InferenceGateway's validatorURL is the validator's non-loopback address
 * for the step (the standby's EndpointSlice may not name 127/8), patched back.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEV_PROMETHEUS_ADDRESS, kedaPaths, kedaUnavailable } from '../../cli/dev/keda.js';
import { inNetns } from '../../cli/dev/processes.js';
import { devPaths, readState } from '../../cli/dev/state.js';
import { frontDoorUnavailable, VALIDATOR_HOST, VALIDATOR_PORT, WEB_PORT, withTraefik } from './front-door.js';
import { condition, E2E_DIR, eventually, items, kubectl, kubectlJson, type Obj } from './harness.js';
import { CLASS, deployment, POOLS } from './workload-gpus.js';

const MIN = 60_000;
const NS = 'ml-team';
const NAME = 'autoscaled';
const ENGINE_PORT = 80;
/** How long the engine stub holds each request, ms. */
const HOLD_MS = 3000;
/** Requests the load loop keeps in flight. */
const CONCURRENCY = 6;

/** Why the step cannot run here, if it cannot. */
export function autoscalingUnavailable(): string | undefined {
  return frontDoorUnavailable() ?? kedaUnavailable();
}

const MANIFESTS = `${deployment(NAME, 0, {
  spec: `  autoscaling:
    minReplicas: 0
    maxReplicas: 4
    metrics: {inFlightPerReplica: 2}
    scaleDownStabilizationSeconds: 30
    prometheusAddress: ${DEV_PROMETHEUS_ADDRESS}
`,
})}---
apiVersion: modelplane.ai/v1alpha1
kind: ModelService
metadata:
  name: ${NAME}
  namespace: ${NS}
spec:
  endpoints: [{selector: {matchLabels: {modelplane.ai/deployment: ${NAME}}}}]
`;

/**
 * The engine stub: holds each request HOLD_MS, and exposes the in-flight requests of every live replica (the
 * names in the JSON file `live`, which the step keeps current) as vLLM's gauges, labelled as each replica's
 * PodMonitor labels them: as one scrape target per replica pod would, a replica's series come with it and go
 * with it.
 */
const ENGINE = (host: string, live: string) => `
const http = require('node:http');
const fs = require('node:fs');
const inFlight = new Map();
const liveReplicas = () => { try { return JSON.parse(fs.readFileSync(${JSON.stringify(live)}, 'utf8')); } catch { return []; } };
http.createServer((req, res) => {
  if (req.url === '/metrics') {
    const lines = [];
    for (const replica of liveReplicas().sort()) {
      const n = inFlight.get(replica) || 0;
      const labels = '{deployment="${NAME}",deployment_namespace="${NS}",replica="' + replica + '"}';
      lines.push('vllm:num_requests_running' + labels + ' ' + n, 'vllm:num_requests_waiting' + labels + ' 0');
    }
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
    return res.end(lines.join('\\n') + '\\n');
  }
  const replica = (req.url.split('/')[2] || 'unknown');
  inFlight.set(replica, (inFlight.get(replica) || 0) + 1);
  req.resume();
  setTimeout(() => {
    inFlight.set(replica, inFlight.get(replica) - 1);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ object: 'chat.completion', replica }));
  }, ${HOLD_MS});
}).listen(${ENGINE_PORT}, '${host}', () => process.stdout.write('listening\\n'));
`;

/** What the step saw. */
export interface Autoscaled {
  atZero: { ready: string | undefined; summary: unknown; standby: boolean; routing: string | undefined };
  first: { status: number; retryAfter: string | null; code: string | undefined };
  woke: { replicas: number; served: number; lastScaleFromZero: Record<string, unknown> | undefined };
  underLoad: { replicas: number; ready: number };
  after: { down: number; zero: number; retryAfter: string | null };
  events: string[];
  logs: string;
}

const md = () => kubectlJson<Obj>(['get', 'md', '-n', NS, NAME]);
const specReplicas = () => Number((md().spec as Record<string, unknown> | undefined)?.['replicas'] ?? -1);
const readyReplicas = () => Number((md().status?.['replicas'] as { ready?: number } | undefined)?.ready ?? 0);

/** One request through Traefik from inside the namespace: its status, Retry-After and error code. */
function ask(netns: number): { status: number; retryAfter: string | null; code?: string } {
  const url = `http://127.0.0.1:${WEB_PORT}/${NS}/${NAME}/v1/chat/completions`;
  const script = `fetch(${JSON.stringify(url)}, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":"m","messages":[]}' })
    .then(async (r) => { let code; try { code = JSON.parse(await r.text()).error?.code; } catch {} console.log(JSON.stringify({ status: r.status, retryAfter: r.headers.get('retry-after'), code })); })
    .catch(() => console.log(JSON.stringify({ status: 0, retryAfter: null })))`;
  const a = inNetns(netns, [process.execPath, '-e', script]);
  return JSON.parse(execFileSync(a[0]!, a.slice(1), { encoding: 'utf8' }).trim()) as { status: number; retryAfter: string | null; code?: string };
}

/** The bounded load loop: CONCURRENCY requests in flight through Traefik for `seconds`, inside the namespace. */
function loadLoop(netns: number, seconds: number): ChildProcess {
  const url = `http://127.0.0.1:${WEB_PORT}/${NS}/${NAME}/v1/chat/completions`;
  const script = `const end = Date.now() + ${seconds * 1000};
const one = () => Date.now() < end ? fetch(${JSON.stringify(url)}, { method: 'POST', body: '{}' }).then((r) => r.text()).catch(() => {}).then(one) : Promise.resolve();
Promise.all(Array.from({ length: ${CONCURRENCY} }, one)).then(() => process.exit(0));`;
  const a = inNetns(netns, [process.execPath, '-e', script]);
  return spawn(a[0]!, a.slice(1), { stdio: 'ignore' });
}

const patchGateway = (validatorURL: string) => {
  for (const g of kubectlJson<{ items: Obj[] }>(['get', 'inferencegateways']).items) {
    const r = kubectl(['patch', 'inferencegateway', g.metadata.name, '--type', 'merge', '-p', JSON.stringify({ spec: { auth: { validatorURL } } })]);
    if (r.code !== 0) throw new Error(`patch gateway: ${r.stderr}`);
  }
};

/** Runs the step; what it started is stopped and what it applied removed before it returns. */
export async function autoscaleForReal(): Promise<Autoscaled> {
  const netns = readState(E2E_DIR)!.netns;
  const addr = String((kubectlJson<Obj>(['get', 'inferencecluster', 'dev-workload']).status?.['gateway'] as { address?: string } | undefined)?.address ?? '');
  if (addr === '') throw new Error('dev-workload publishes no gateway address');
  const lo = inNetns(netns, ['ip', 'addr', 'replace', `${addr}/32`, 'dev', 'lo']);
  execFileSync(lo[0]!, lo.slice(1));
  // Prometheus scrapes the validator (the demand at zero) and the engine stub (file service discovery, keda.ts).
  writeFileSync(
    join(kedaPaths(devPaths(E2E_DIR)).prometheusTargets, 'autoscaling.json'),
    JSON.stringify([{ targets: [`127.0.0.1:${VALIDATOR_PORT}`], labels: { job: 'key-validator' } }, { targets: [`${addr}:${ENGINE_PORT}`], labels: { job: 'engine' } }]),
  );
  const apply = (yaml: string) => {
    const r = kubectl(['apply', '-f', '-'], { input: yaml });
    if (r.code !== 0) throw new Error(`apply: ${r.stderr}`);
  };
  apply(CLASS);
  // Two 8-GPU nodes: earlier steps' deployments may still hold the first node's GPUs.
  const pools = kubectl(['patch', 'inferencecluster', 'dev-workload', '--type', 'merge', '-p', POOLS(2)]);
  if (pools.code !== 0) throw new Error(`pools: ${pools.stderr}`);
  patchGateway(`http://${VALIDATOR_HOST}:${VALIDATOR_PORT}`);
  const engineLog = { text: '' };
  const live = join(E2E_DIR, 'autoscaling-live-replicas.json');
  const writeLive = () => {
    const names = items(['modelreplicas', '-n', NS, '-l', `modelplane.ai/deployment=${NAME}`])
      .filter((r) => r.metadata.deletionTimestamp === undefined)
      .map((r) => r.metadata.name);
    writeFileSync(live, JSON.stringify(names));
  };
  writeLive();
  const liveEvery = setInterval(writeLive, 3000);
  const a = inNetns(netns, [process.execPath, '-e', ENGINE(addr, live)]);
  const engine = spawn(a[0]!, a.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
  engine.stdout!.on('data', (d: Buffer) => (engineLog.text += d.toString()));
  engine.stderr!.on('data', (d: Buffer) => (engineLog.text += d.toString()));
  let load: ChildProcess | undefined;
  try {
    return await withTraefik({ websecure: false }, async ({ log }) => {
      const logs = () => `${log.text}\n[engine] ${engineLog.text}`;
      apply(MANIFESTS);
      const state = () => JSON.stringify({ md: md().status, spec: specReplicas() });
      await eventually('autoscaled at zero: Ready, ScaledObject Ready, the service routing to the standby', () => {
        const d = md();
        const svc = kubectlJson<Obj>(['get', 'modelservice', '-n', NS, NAME]);
        const routing = (svc.status?.['conditions'] as { type: string; reason?: string }[] | undefined)?.find((c) => c.type === 'RoutingReady')?.reason;
        return condition(d, 'Ready') === 'True' && String((d.status?.['autoscaling'] as { summary?: string } | undefined)?.summary).endsWith('ScaledToZero') && routing === 'ScaledToZero'
          ? true
          : undefined;
      }, { timeoutMs: 5 * MIN, state });
      const d0 = md();
      const svc = kubectlJson<Obj>(['get', 'modelservice', '-n', NS, NAME]);
      const atZero = {
        ready: condition(d0, 'Ready'),
        summary: (d0.status?.['autoscaling'] as { summary?: string } | undefined)?.summary,
        standby: kubectl(['get', 'modelendpoint', '-n', NS, `${NAME}-standby`]).code === 0,
        routing: (svc.status?.['conditions'] as { type: string; reason?: string }[] | undefined)?.find((c) => c.type === 'RoutingReady')?.reason,
      };
      // Traefik routes the standby once its providers synced: the validator's 503.
      const first = await eventually('the first request gets the 503 of a deployment at zero', () => {
        const r = ask(netns);
        return r.status === 503 && r.code === 'scaled_to_zero' ? r : undefined;
      }, { timeoutMs: 2 * MIN, state: logs });

      // 0 → 1: KEDA reads the demand, writes spec.replicas; the first Ready endpoint replaces the standby.
      await eventually('KEDA scales autoscaled 0 → 1', () => (specReplicas() === 1 ? true : undefined), { timeoutMs: 3 * MIN, state: () => `${state()}\n${logs()}` });
      const served = await eventually('the replica serves the next request', () => {
        const r = ask(netns);
        return r.status === 200 ? r.status : undefined;
      }, { timeoutMs: 5 * MIN, state });
      // Measured in the reconcile where the standby gives way, which may come a moment after the first 200.
      const lastScaleFromZero = () => (md().status?.['autoscaling'] as { lastScaleFromZero?: Record<string, unknown> } | undefined)?.lastScaleFromZero;
      const measured = await eventually('the way back measured in status', lastScaleFromZero, { timeoutMs: 2 * MIN, state });
      const woke = { replicas: specReplicas(), served, lastScaleFromZero: measured };

      // 1 → 3 under load: 6 in flight, 2 per replica.
      load = loadLoop(netns, 240);
      await eventually('the HPA asks for 3 under load, placed and Ready', () => (specReplicas() === 3 && readyReplicas() === 3 ? true : undefined), {
        timeoutMs: 4 * MIN,
        state: () => `${state()}\n${kubectl(['get', 'hpa', '-n', NS, '-o', 'yaml']).stdout}`,
      });
      const underLoad = { replicas: specReplicas(), ready: readyReplicas() };
      load.kill('SIGTERM');
      // Down after the 30-s window, one replica a minute; then to zero once no demand is left (2 min) and the cooldown passed.
      const down = await eventually('back down to 1 after the window', () => (specReplicas() === 1 ? 1 : undefined), { timeoutMs: 5 * MIN, state });
      const zero = await eventually('back to 0 without demand', () => (specReplicas() === 0 ? 0 : undefined), { timeoutMs: 6 * MIN, state });
      // At zero again, the standby asks clients to wait the wake-up plus the way back just measured.
      const again = await eventually('at zero again, the 503 of the standby', () => {
        const r = ask(netns);
        return r.status === 503 && r.code === 'scaled_to_zero' ? r : undefined;
      }, { timeoutMs: 2 * MIN, state: logs });
      const events = kubectl(['get', 'events', '-n', NS, '--field-selector', `involvedObject.name=${NAME}`, '-o', 'jsonpath={range .items[*]}{.reason}{": "}{.message}{"\\n"}{end}'])
        .stdout.split('\n')
        .filter((l) => l.startsWith('Scaling'));
      return { atZero, first: { status: first.status, retryAfter: first.retryAfter, code: first.code }, woke, underLoad, after: { down, zero, retryAfter: again.retryAfter }, events, logs: logs() };
    });
  } finally {
    clearInterval(liveEvery);
    load?.kill('SIGKILL');
    engine.kill('SIGKILL');
    kubectl(['delete', 'modelservice,md', '-n', NS, NAME, '--wait=true', '--timeout=120s']);
    patchGateway(`http://127.0.0.1:${VALIDATOR_PORT}`);
    kubectl(['patch', 'inferencecluster', 'dev-workload', '--type', 'merge', '-p', POOLS(0)]);
  }
}
