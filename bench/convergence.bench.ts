/**
 * Convergence on a real control plane (`npm run bench -- convergence`): how
 * long the fleet takes to react, measured on `modelplane dev up` (Crossplane
 * core, the real API server, our functions over mTLS, the simulated
 * providers of cli/dev/runtime). Every latency is taken from watch events as
 * they arrive (bench/dev-watch.ts), not from the API's one-second timestamps.
 *
 * Printed, each beside its target:
 * 1. the Vultr seeds and the fleet demo, from `kubectl apply` to every XR
 *    Ready (seconds), with the simulated providers' pacing floor shown apart:
 *    the dev runtime writes at most 20 managed resources of one composite at
 *    once and then 1 per second (cli/dev/runtime/queue.ts Pacer), so a
 *    composite of N managed resources cannot be Ready before N - 20 seconds;
 * 2. a new ModelReplica Ready → its backend in the ModelService's HTTPRoute
 *    (p50 over `kubectl scale md qwen-demo --replicas 3` rounds; ≤ 5 s), and
 *    the scale command → the third backend;
 * 3. the same replica created → the cluster's ledger
 *    (`status.gpuPools[].used.holders`) charges its deployment one more pod,
 *    which is what the next deployment's scheduler reads (≤ 5 s);
 * 4. a fleet of CONVERGENCE_FLEET (default `20x100`: 20 Vultr clusters of
 *    CONVERGENCE_NODES GPUs, default 10, and 100 one-GPU deployments): time to settle, RunFunction calls per
 *    XR (core's `function_run_function_request_total`), real API writes per
 *    XR (etcd key versions, as `modelplane dev quiet` counts them) until
 *    settled (the first 30 s without a write after every XR is Ready), the
 *    replicas on the busiest cluster against its GPUs, and the settled fleet
 *    must write nothing for 2 minutes;
 * 5. no XR's circuit breaker opened (core's `circuit_breaker_opens_total`
 *    stays 0, so `Responsive` was never False), with the burst `dev up`
 *    gives core (cli/dev/components.ts CIRCUIT_BREAKER_BURST).
 *
 * Needs what the e2e suite needs (the Go-built control plane, root for the
 * network namespace, the provider CRD snapshot); otherwise it says why and returns.
 * Its control plane lives in `.cache/bench-convergence` and is stopped at
 * the end. CONVERGENCE_ROUNDS (default 5) sets the scale rounds;
 * CONVERGENCE_FLEET=0 skips the fleet.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CIRCUIT_BREAKER_BURST, missingBinaries } from '../cli/dev/components.js';
import { netnsUnsupportedReason } from '../cli/dev/processes.js';
import { isHousekeeping, writesBetween } from '../cli/dev/quiet.js';
import { REPO_ROOT } from '../cli/functions.js';
import { counterSum, coreMetrics, DevWatch, devKubectl, etcdVersions, samples, type WatchedObject } from './dev-watch.js';
import { fleetManifests } from './convergence-fleet.js';
import { pct } from './stats.js';

const DIR = join(REPO_ROOT, '.cache', 'bench-convergence');
const SEEDS = resolve(REPO_ROOT, '..', 'shared', 'corpus', 'seeds');
const CRDS = resolve(REPO_ROOT, '..', 'shared', 'crds');
const ROUNDS = Number(process.env['CONVERGENCE_ROUNDS'] ?? 5);
const FLEET = process.env['CONVERGENCE_FLEET'] ?? '20x100';
/** GPUs (one-GPU nodes) per fleet cluster, `CONVERGENCE_NODES` (default 10: room for every deployment twice over). */
const NODES = Number(process.env['CONVERGENCE_NODES'] ?? 10);

function unavailable(): string | undefined {
  const missing = missingBinaries();
  if (missing.length > 0) return `control plane not built (e.g. ${missing[0]}): bash scripts/kube-build.sh && npm run crossplane:build`;
  const ns = netnsUnsupportedReason();
  if (ns) return `dev up ${ns}`;
  if (!existsSync(join(CRDS, 'eks.aws.m.upbound.io'))) return `provider CRD snapshot not found at ${CRDS}`;
  return undefined;
}

function modelplane(args: string[], timeoutMs = 30 * 60_000): { code: number; out: string } {
  const r = spawnSync(process.execPath, [join(REPO_ROOT, 'bin', 'modelplane.js'), ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, MODELPLANE_DEV_DIR: DIR },
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status ?? 1, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

const cond = (o: WatchedObject | undefined, type: string) => o?.status?.conditions?.find((c) => c.type === type)?.status;
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

interface Composite extends WatchedObject {
  kind: string;
}

/** Every XR of ours (`kubectl get modelplane -A`: the category every XRD of ours declares). */
function composites(): Composite[] {
  return (JSON.parse(devKubectl(DIR, ['get', 'modelplane', '-A', '-o', 'json'])) as { items: Composite[] }).items;
}

/** The simulated providers' pacing floor: the slowest composite's managed resources beyond 20, at 1 per second. */
function pacingFloorSeconds(): number {
  const managed = (JSON.parse(devKubectl(DIR, ['get', 'managed', '-A', '-o', 'json'])) as { items: { metadata: { ownerReferences?: { uid: string; controller?: boolean }[] } }[] }).items;
  const per = new Map<string, number>();
  for (const m of managed) {
    const owner = m.metadata.ownerReferences?.find((r) => r.controller)?.uid ?? '';
    per.set(owner, (per.get(owner) ?? 0) + 1);
  }
  return Math.max(0, ...[...per.values()].map((n) => n - 20));
}

/**
 * Polls (every `everyMs`) until every XR exists as applied and is Ready; the
 * time it took, from `t0`. A list the API server times out on (a loaded
 * fleet) is tried again on the next poll.
 */
async function untilAllReady(what: string, t0: number, expectAtLeast: number, timeoutMs = 20 * 60_000, everyMs = 250): Promise<number> {
  for (;;) {
    let xs: Composite[];
    try {
      xs = composites();
    } catch (err) {
      if (performance.now() - t0 > timeoutMs) throw err;
      await new Promise((r) => setTimeout(r, everyMs));
      continue;
    }
    const unready = xs.filter((x) => cond(x, 'Ready') !== 'True');
    if (xs.length >= expectAtLeast && unready.length === 0) return performance.now() - t0;
    if (performance.now() - t0 > timeoutMs) {
      throw new Error(`${what}: not every XR Ready in ${s(timeoutMs)}: ${unready.map((x) => `${x.kind}/${x.metadata.name}`).slice(0, 10).join(', ')}`);
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * The circuit breaker since `dev up`, from core's own counters
 * (`circuit_breaker_opens_total`, `circuit_breaker_events_total` by result):
 * an open breaker sets the XR's Responsive=False, and its count is what
 * "never opened" means; the events say how many watch events it let through
 * or dropped. Also the XRs Responsive=False right now.
 */
function circuitBreaker(): { opens: number; events: string; unresponsive: number } {
  const metrics = coreMetrics(DIR);
  const byResult = new Map<string, number>();
  for (const { labels, value } of samples(metrics, 'circuit_breaker_events_total')) {
    const result = /result="([^"]+)"/.exec(labels)?.[1] ?? '';
    byResult.set(result, (byResult.get(result) ?? 0) + value);
  }
  const events = [...byResult].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k} ${v}`).join(', ');
  const unresponsive = composites().filter((x) => cond(x, 'Responsive') === 'False').length;
  return { opens: counterSum(metrics, 'circuit_breaker_opens_total'), events: events || 'none', unresponsive };
}

function breakerLine(): void {
  const b = circuitBreaker();
  line('XR circuit breaker: opens since dev up (Responsive=False now)', `${b.opens} (${b.unresponsive})`, `0 (burst ${CIRCUIT_BREAKER_BURST}; watch events: ${b.events})`);
}

/** The HTTPRoute the fleet demo's ModelService `default/qwen` composes. */
function isQwenRoute(o: WatchedObject): boolean {
  return o.metadata.namespace === 'default' && o.metadata.labels?.['crossplane.io/composite'] === 'qwen';
}

function backendCount(routes: WatchedObject): number {
  const rules = (routes.spec?.['rules'] ?? []) as { backendRefs?: unknown[] }[];
  return rules.reduce((n, r) => n + (r.backendRefs?.length ?? 0), 0);
}

/** The pods a cluster's ledger charges to one deployment, over its pools (`status.gpuPools[].used.holders[].pods[].count`). */
function heldPods(cluster: WatchedObject | undefined, ns: string, deployment: string): number {
  type Holder = { namespace: string; deployment: string; pods?: { count: number }[] };
  const pools = (cluster?.status?.['gpuPools'] ?? []) as { used?: { holders?: Holder[] } }[];
  let n = 0;
  for (const p of pools) {
    for (const h of p.used?.holders ?? []) if (h.namespace === ns && h.deployment === deployment) for (const r of h.pods ?? []) n += r.count;
  }
  return n;
}

/** The pods the clusters' latest ledgers (`names`) charge to the fleet demo's qwen-demo. */
function totalHeld(watch: DevWatch, names: Iterable<string>): number {
  let n = 0;
  for (const name of names) n += heldPods(latest(watch, name), 'default', 'qwen-demo');
  return n;
}

/** The last object a watch saw under `name`. */
function latest(watch: DevWatch, name: string): WatchedObject | undefined {
  for (let i = watch.events.length - 1; i >= 0; i--) if (watch.events[i]!.object.metadata.name === name) return watch.events[i]!.object;
  return undefined;
}

function line(label: string, value: string, target: string): void {
  process.stdout.write(`${label.padEnd(58)} ${value.padStart(12)}   ${target}\n`);
}

/** Rounds of scale 2 → 3 → 2 on the fleet demo: Ready → route, and create → ledger, per round. */
async function scaleRounds(): Promise<{ route: number[]; ledger: number[]; scale: number[] }> {
  const replicas = new DevWatch(DIR, 'modelreplicas.modelplane.ai');
  const routes = new DevWatch(DIR, 'httproutes.gateway.networking.k8s.io');
  const clusters = new DevWatch(DIR, 'inferenceclusters.modelplane.ai');
  const route: number[] = [];
  const ledger: number[] = [];
  const scale: number[] = [];
  try {
    await new Promise((r) => setTimeout(r, 2000)); // the watches' initial lists
    for (let i = 0; i < ROUNDS; i++) {
      const before = new Set(replicas.events.map((e) => e.object.metadata.uid));
      const names = new Set(clusters.events.map((e) => e.object.metadata.name));
      const heldBefore = new Map([...names].map((n) => [n, heldPods(latest(clusters, n), 'default', 'qwen-demo')]));
      const t0 = performance.now();
      devKubectl(DIR, ['scale', 'md/qwen-demo', '-n', 'default', '--replicas=3']);
      let uid = '';
      let cluster = '';
      const created = await replicas.until('the third replica', (o) => {
        if (o.metadata.labels?.['modelplane.ai/deployment'] !== 'qwen-demo' || before.has(o.metadata.uid)) return false;
        uid = o.metadata.uid ?? '';
        cluster = String(o.spec?.['clusterName'] ?? '');
        return true;
      }, 300_000, t0);
      const ready = await replicas.until('the third replica Ready', (o) => o.metadata.uid === uid && cond(o, 'Ready') === 'True', 600_000, t0);
      const held = heldBefore.get(cluster) ?? 0;
      const [inRoute, inLedger] = await Promise.all([
        routes.until('three backends', (o) => isQwenRoute(o) && backendCount(o) === 3, 300_000, t0),
        clusters.until(`${cluster} ledger charges the new replica`, (o, e) => e.at >= created && o.metadata.name === cluster && heldPods(o, 'default', 'qwen-demo') > held, 300_000, t0),
      ]);
      route.push(Math.max(0, inRoute - ready));
      ledger.push(Math.max(0, inLedger - created));
      scale.push(inRoute - t0);
      process.stdout.write(`  round ${i + 1}: replica on ${cluster}: created→ledger ${s(inLedger - created)}, Ready→route ${s(inRoute - ready)} (scale→Ready ${s(ready - t0)})\n`);
      const t1 = performance.now();
      devKubectl(DIR, ['scale', 'md/qwen-demo', '-n', 'default', '--replicas=2']);
      await routes.until('two backends again', (o) => isQwenRoute(o) && backendCount(o) === 2, 300_000, t1);
      // Scaling in may retire another cluster's replica: wait until the fleet's ledgers charge qwen-demo what they did before.
      const total = [...heldBefore.values()].reduce((a, b) => a + b, 0);
      for (const t = performance.now(); totalHeld(clusters, names) > total; await new Promise((r) => setTimeout(r, 250))) {
        if (performance.now() - t > 300_000) throw new Error(`the ledgers still charge qwen-demo more than ${total} pods 300 s after scaling in`);
      }
    }
  } finally {
    replicas.stop();
    routes.stop();
    clusters.stop();
  }
  return { route, ledger, scale };
}

/** The fleet scenario: settle time, calls and writes per XR, then a 2-minute quiet window. */
async function fleet(clusters: number, deployments: number): Promise<void> {
  const dir = join(DIR, 'fleet');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'fleet.yaml');
  writeFileSync(file, fleetManifests(clusters, deployments, NODES));
  const calls0 = counterSum(coreMetrics(DIR), 'function_run_function_request_total');
  const etcd0 = etcdVersions(DIR);
  const xrs0 = composites().length;
  const t0 = performance.now();
  devKubectl(DIR, ['apply', '-f', file]);
  // Each cluster composes its provider XR (VultrCluster) and serving stack, each deployment at least one replica and its endpoint.
  // Polled every 5 s: listing every XR of a fleet this size is itself a load on the API server.
  const ready = await untilAllReady(`fleet ${clusters}x${deployments}`, t0, xrs0 + clusters * 3 + deployments * 3, 60 * 60_000, 5000);
  // Settled: the first 30-s window without a write to the API, after every XR is Ready (endpoints, routes and ledgers follow Ready).
  let settled = Number.NaN;
  while (Number.isNaN(settled) && performance.now() - t0 < 90 * 60_000) {
    const from = performance.now();
    if (modelplane(['dev', 'quiet', '--seconds', '30'], 5 * 60_000).code === 0) settled = from - t0;
  }
  const xrs = composites().length - xrs0;
  const calls = counterSum(coreMetrics(DIR), 'function_run_function_request_total') - calls0;
  const written = writesBetween(etcd0, etcdVersions(DIR)).filter((w) => !isHousekeeping(w.key));
  const writes = written.reduce((n, w) => n + w.writes, 0);
  const events = written.filter((w) => w.key.startsWith('/registry/events/')).reduce((n, w) => n + w.writes, 0);
  line(`fleet ${clusters} clusters (${NODES} GPUs each) x ${deployments} deployments: every XR Ready`, s(ready), 'report');
  line('  settled (the first 30 s without an API write, from apply)', s(settled), 'report');
  line(`  XRs composed by it`, String(xrs), '');
  line(`  RunFunction calls per XR (until settled)`, (calls / xrs).toFixed(1), 'report');
  line(`  API writes per XR (until settled; of which Events)`, `${(writes / xrs).toFixed(1)} (${(events / xrs).toFixed(1)})`, 'report');
  const placed = new Map<string, number>();
  for (const r of (JSON.parse(devKubectl(DIR, ['get', 'modelreplicas', '-n', 'fleet', '-o', 'json'])) as { items: WatchedObject[] }).items) {
    const on = String(r.spec?.['clusterName'] ?? '');
    placed.set(on, (placed.get(on) ?? 0) + 1);
  }
  const [busiest, most] = [...placed].sort(([a, x], [b, y]) => y - x || a.localeCompare(b))[0] ?? ['-', 0];
  line(`  replicas on the busiest cluster (${busiest}; ${placed.size} clusters used)`, String(most), `<= ${NODES} (its GPUs)`);
  const quiet = modelplane(['dev', 'quiet', '--seconds', '120'], 5 * 60_000);
  line('  settled: writes in the next 2 minutes', quiet.code === 0 ? '0' : 'some', '0');
  if (quiet.code !== 0) process.stdout.write(quiet.out.split('\n').slice(0, 15).map((l) => `    ${l}\n`).join(''));
}

export default async function main(): Promise<void> {
  const why = unavailable();
  if (why) {
    process.stdout.write(`convergence: skipped: ${why}\n`);
    return;
  }
  modelplane(['dev', 'down', '--purge']);
  const up0 = performance.now();
  const up = modelplane(['dev', 'up']);
  if (up.code !== 0) throw new Error(`dev up failed:\n${up.out}`);
  process.stdout.write(`dev up in ${s(performance.now() - up0)} (core ${coreVersion()}, circuit breaker burst ${CIRCUIT_BREAKER_BURST})\n\n`);
  try {
    const base = composites().length;
    let t0 = performance.now();
    devKubectl(DIR, ['apply', '-f', join(SEEDS, 'vultr')]);
    const vultr = await untilAllReady('Vultr seeds', t0, base + 5);
    line('Vultr seeds: kubectl apply → every XR Ready', s(vultr), 'report');
    line('  of which the simulated providers\' pacing floor', `${pacingFloorSeconds()} s`, '');
    const afterVultr = composites().length;
    t0 = performance.now();
    devKubectl(DIR, ['apply', '-f', join(SEEDS, 'demo')]);
    const routes = new DevWatch(DIR, 'httproutes.gateway.networking.k8s.io');
    const twoBackends = routes.until('two backends', (o) => isQwenRoute(o) && backendCount(o) === 2, 20 * 60_000);
    const demo = await untilAllReady('fleet demo', t0, afterVultr + 8);
    const backends = (await twoBackends) - t0;
    routes.stop();
    line('fleet demo: kubectl apply → every XR Ready', s(demo), 'report');
    line('fleet demo: kubectl apply → two backends in the route', s(backends), 'report (core v2.3.4: 116 s)');
    line('  of which the simulated providers\' pacing floor', `${pacingFloorSeconds()} s`, '');
    const { route, ledger, scale } = await scaleRounds();
    line(`kubectl scale --replicas 3 → third backend in the route (p50 of ${scale.length})`, s(pct(scale, 50)), 'report (core v2.3.4: 58 s)');
    line(`new replica Ready → backend in the HTTPRoute (p50 of ${route.length})`, s(pct(route, 50)), '≤ 5 s p50 (core v2.3.4: up to 60 s)');
    line(`replica placed → the cluster's ledger lists it (p50 of ${ledger.length})`, s(pct(ledger, 50)), '≤ 5 s p50');
    breakerLine();
    if (FLEET !== '0') {
      const [c, d] = FLEET.split('x').map(Number);
      await fleet(c!, d!);
      breakerLine();
    }
  } finally {
    if (!process.env['CONVERGENCE_KEEP']) modelplane(['dev', 'down', '--purge']);
  }
}

function coreVersion(): string {
  const r = spawnSync(join(REPO_ROOT, '.cache', 'bin', 'crossplane-core'), ['--version'], { encoding: 'utf8' });
  return (r.stdout || r.stderr).trim().split('\n')[0] ?? '?';
}
