/**
 * `modelplane dev up`: a real control plane on this machine, with no cloud.
 *
 * Outside the namespace: build what is missing (the Go tools under tools/;
 * says so and how long it may take), write the certificates and kubeconfigs,
 * create the private network namespace. Then the same command runs again
 * inside it (`--inside`) and starts, each as a detached process recorded in
 * `state.json`: etcd, kube-apiserver and kube-controller-manager (for the
 * control plane, and for each workload API server, which also gets
 * kube-scheduler and kwok: workload 0 is the one an Existing InferenceCluster
 * can point at, and `--workloads N` adds N-1 more, which runtime/handout.ts
 * gives to simulated cloud clusters), the OCI registry, our functions (`modelplane serve` over mTLS),
 * the dev runtime (package runtime, simulated providers and cluster
 * controllers), Crossplane core and provider-kubernetes; builds and pushes
 * the packages, installs the Configuration and waits until it is Healthy.
 *
 * A failure stops everything it started (nothing is left running) unless
 * `--keep` is given, and names the log to read.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { KubeObject } from '../../functions/lib/function.js';
import { functionFolders, REPO_ROOT } from '../functions.js';
import { UserError } from '../load.js';
import {
  AUDIT_POLICY,
  apiserverArgs,
  CROSSPLANE_CRDS,
  controllerManagerArgs,
  coreArgs,
  etcdArgs,
  missingBinaries,
  modelplaneArgs,
  serveArgs,
  PROVIDER_KUBERNETES_PACKAGE,
  providerKubernetesArgs,
  registryArgs,
  BIN,
  KWOK_STAGES,
  kwokArgs,
  lwsArgs,
  schedulerArgs,
} from './components.js';
import { DEFAULT_MODEL_LOAD_SECONDS, kwokConfig } from './kwok.js';
import { LWS_CRD, lwsConfig, lwsWebhookConfigurations } from './lws.js';
import { admissionObjects, coreWebhookConfiguration } from './admission.js';
import { installObjects, waitInstalled } from './install.js';
import { Kube } from './kube.js';
import { buildAndPush, writePackageFolders } from './packages.js';
import { kubeconfig, Pki } from './pki.js';
import { createNetns, inNetns, netnsUnsupportedReason, startComponent, waitUntil } from './processes.js';
import { conditionsOf } from './runtime/conditions.js';
import { FUNCTIONS_TLS_SECRET } from './runtime/index.js';
import { KEDA_SCALED_OBJECT_CRD, providerCrdsDir } from '../simulated/provider-packages.js';
import { alive, type ComponentState, type DevPaths, type DevState, devPaths, PORTS, readState, WORKLOAD_SECRET, workloadServer, writeState } from './state.js';
import { stopAll } from './lifecycle.js';
import { KEDA_PORTS, kedaAdapterArgs, kedaCrdFiles, kedaEnv, kedaObjects, kedaOperatorArgs, kedaUnavailable, prometheusArgs, writeKedaFiles } from './keda.js';

/** Options of `dev up`. */
export interface UpOptions {
  dir: string;
  providerCrds?: string;
  /** Start the workload API server (for Existing clusters). @default true */
  workload?: boolean;
  /** How many workload API servers to start (ignored when `workload` is false). @default 1 */
  workloads?: number;
  /** Leave what started running when something fails. */
  keep?: boolean;
  /** Seconds an engine pod on the workload cluster takes from Running to Ready (kwok.ts). @default 10 */
  modelLoadSeconds?: number;
}


const say = (line: string) => process.stderr.write(`dev up: ${line}\n`);

function buildMissing(): void {
  const missing = missingBinaries();
  const hasGo = spawnSync('sh', ['-c', 'command -v go']).status === 0;
  if (!hasGo) {
    if (missing.length > 0) throw new UserError(`missing ${missing.join(', ')}; they are built from tools/ with Go (>= 1.26), which is not on PATH`);
    return;
  }
  if (missing.length > 0) say(`building the control plane from the Go modules in tools/ (${missing.length} missing; cold: 15-30 min on 2 cores)`);
  for (const script of ['scripts/kube-build.sh', 'scripts/crossplane-build.sh']) {
    const r = spawnSync('bash', [join(REPO_ROOT, script)], { stdio: ['ignore', 'inherit', 'inherit'] });
    if (r.status !== 0) throw new UserError(`${script} failed (exit ${r.status})`);
  }
}

/** How many workload API servers `opts` asks for. */
export function workloadCount(opts: Pick<UpOptions, 'workload' | 'workloads'>): number {
  return opts.workload === false ? 0 : (opts.workloads ?? 1);
}

/** Workload servers beyond any count `dev up` accepts, whose files a smaller count removes. */
const MAX_WORKLOADS = 8;

async function writeCredentials(p: DevPaths, workloads: number): Promise<void> {
  const pki = new Pki(p.pki);
  await pki.serviceAccountKeys();
  const local = { ips: ['127.0.0.1'], dns: ['localhost'] };
  await pki.leaf({ name: 'apiserver', cn: 'kube-apiserver', ...local, dns: ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc'] });
  const admin = await pki.leaf({ name: 'admin', cn: 'modelplane-dev-admin', org: 'system:masters' });
  // system:masters too: its garbage collector must read and patch every custom resource (with its own
  // service-account credentials it would, with this user alone it cannot).
  const kcm = await pki.leaf({ name: 'kcm-admin', cn: 'system:kube-controller-manager', org: 'system:masters' });
  // The aggregation layer's client (components.ts apiserverArgs): the identity the API server proxies as.
  await pki.leaf({ name: 'front-proxy-client', cn: 'front-proxy-client' });
  await pki.leaf({ name: 'registry', cn: 'registry', ...local });
  const fn = await pki.leaf({ name: 'functions', cn: 'modelplane-functions', ...local });
  const core = await pki.leaf({ name: 'core', cn: 'crossplane' });
  const coreWebhook = await pki.leaf({ name: 'core-webhook', cn: 'crossplane-webhook', ...local });
  const webhook = await pki.leaf({ name: 'provider-kubernetes', cn: 'provider-kubernetes', ...local });
  const cp = `https://127.0.0.1:${PORTS.apiserver}`;
  writeFileSync(p.kubeconfig, kubeconfig({ name: 'modelplane-dev', server: cp, ca: pki.caCrt, cert: admin, embed: false }));
  writeFileSync(p.controllerManagerKubeconfig, kubeconfig({ name: 'modelplane-dev', server: cp, ca: pki.caCrt, cert: kcm, embed: false }));
  for (const [file, cn] of [
    [p.coreKubeconfig, 'crossplane-core'],
    [p.providerKubernetesKubeconfig, 'provider-kubernetes'],
    [p.runtimeKubeconfig, 'modelplane-dev-runtime'],
  ] as const) {
    const cert = await pki.leaf({ name: `user-${cn}`, cn, org: 'system:masters' });
    writeFileSync(file, kubeconfig({ name: 'modelplane-dev', server: cp, ca: pki.caCrt, cert, embed: false }));
  }
  if (workloads > 0) await pki.leaf({ name: 'workload-apiserver', cn: 'kube-apiserver', ...local });
  const workloadWebhooks = await pki.leaf({ name: 'workload-webhooks', cn: 'workload-webhooks', ...local });
  for (let i = 0; i < MAX_WORKLOADS; i++) {
    const w = workloadServer(p, i);
    if (i >= workloads) {
      for (const f of [w.kubeconfig, w.controllerManagerKubeconfig, w.schedulerKubeconfig, w.kwokKubeconfig]) rmSync(f, { force: true });
      continue;
    }
    const server = `https://127.0.0.1:${w.apiserverPort}`;
    const name = `dev-${w.name}`;
    writeFileSync(w.kubeconfig, kubeconfig({ name, server, ca: pki.caCrt, cert: admin, embed: true }));
    writeFileSync(w.controllerManagerKubeconfig, kubeconfig({ name, server, ca: pki.caCrt, cert: kcm, embed: false }));
    for (const [file, cn] of [
      [w.schedulerKubeconfig, 'system:kube-scheduler'],
      [w.kwokKubeconfig, 'kwok'],
    ] as const) {
      const cert = await pki.leaf({ name: `user-${cn.replace(/:/g, '-')}`, cn, org: 'system:masters' });
      writeFileSync(file, kubeconfig({ name, server, ca: pki.caCrt, cert, embed: false }));
    }
  }
  const certDir = (dir: string, files: { crt: string; key: string }) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'ca.crt'), readFileSync(pki.caCrt));
    writeFileSync(join(dir, 'tls.crt'), readFileSync(files.crt));
    writeFileSync(join(dir, 'tls.key'), readFileSync(files.key), { mode: 0o600 });
  };
  certDir(p.coreClientCerts, core);
  certDir(p.coreServerCerts, coreWebhook);
  certDir(p.workloadWebhookCerts, workloadWebhooks);
  certDir(p.functionCerts, fn);
  certDir(p.providerKubernetesCerts, webhook);
  writeFileSync(join(p.dir, 'audit-policy.yaml'), AUDIT_POLICY);
}

/** `dev up` outside the namespace. @returns the exit code. */
export async function up(opts: UpOptions): Promise<number> {
  const p = devPaths(opts.dir);
  const prior = readState(opts.dir);
  if (prior && alive(prior.netns)) {
    if (prior.ready) {
      say(`already up (${opts.dir}); modelplane dev status shows it, modelplane dev down stops it`);
      return 0;
    }
    say('a previous dev up did not finish: stopping what it started');
    await stopAll(opts.dir, prior);
  }
  const reason = netnsUnsupportedReason();
  if (reason) throw new UserError(`dev up ${reason}`);
  buildMissing();
  const crds = providerCrdsDir(opts.providerCrds);
  mkdirSync(p.dir, { recursive: true });
  const workloads = workloadCount(opts);
  if (!Number.isInteger(workloads) || workloads < 0 || workloads > MAX_WORKLOADS) throw new UserError(`--workloads: expected a whole number from 1 to ${MAX_WORKLOADS}, got ${opts.workloads}`);
  await writeCredentials(p, workloads);
  const netns = createNetns();
  writeState(opts.dir, { netns, components: [], startedAt: new Date().toISOString(), workloads });
  const args = ['dev', 'up', '--inside', '--dir', opts.dir, '--provider-crds', crds, '--workloads', String(Math.max(1, workloads))];
  if (opts.workload === false) args.push('--no-workload');
  if (opts.keep) args.push('--keep');
  if (opts.modelLoadSeconds !== undefined) args.push('--model-load', String(opts.modelLoadSeconds));
  const r = spawnSync(inNetns(netns, modelplaneArgs(...args))[0]!, inNetns(netns, modelplaneArgs(...args)).slice(1), { stdio: 'inherit' });
  if (r.status !== 0 && !opts.keep) {
    await stopAll(opts.dir, readState(opts.dir));
    say(`failed; stopped everything it started (logs in ${p.logs}; --keep leaves it running)`);
  }
  return r.status ?? 1;
}

/** Records a started component in state.json. */
function record(dir: string, c: ComponentState): ComponentState {
  const state = readState(dir)!;
  state.components.push(c);
  writeState(dir, state);
  return c;
}

async function httpReady(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
  return res.ok;
}

function logHas(c: ComponentState, text: string): () => Promise<boolean> {
  return async () => existsSync(c.log) && readFileSync(c.log, 'utf8').includes(text);
}

function kubectl(p: DevPaths, args: string[], input?: string): void {
  const r = spawnSync(join(BIN, 'kubectl'), ['--kubeconfig', p.kubeconfig, ...args], { input, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')}: ${(r.stderr || r.stdout).trim()}`);
}

/** `dev up --inside`: runs in the namespace; starts and installs everything. @returns the exit code. */
export async function upInside(opts: UpOptions & { providerCrds: string }): Promise<number> {
  const p = devPaths(opts.dir);
  const workloads = Array.from({ length: workloadCount(opts) }, (_, i) => workloadServer(p, i));
  const workload = workloads.length > 0;
  const t0 = Date.now();
  const step = (what: string) => say(`${what} (${((Date.now() - t0) / 1000).toFixed(1)}s)`);
  const start = (name: string, argv: string[], listens: string, env?: NodeJS.ProcessEnv) =>
    record(opts.dir, startComponent(p.logs, name, argv, { listens, cwd: REPO_ROOT, ...(env ? { env } : {}) }));
  try {
    for (const d of [p.etcd, p.xpkgCache, p.blobs]) mkdirSync(d, { recursive: true });
    const etcd = start('etcd', etcdArgs(p), `127.0.0.1:${PORTS.etcdClient}`);
    await waitUntil('etcd', () => httpReady(`http://127.0.0.1:${PORTS.etcdClient}/health`), { timeoutMs: 30_000, component: etcd });
    const cp = Kube.fromFile(p.kubeconfig);
    const api = start('kube-apiserver', apiserverArgs(p), `https://127.0.0.1:${PORTS.apiserver}`);
    const wapis = workloads.map((w) => start(`${w.name}-apiserver`, apiserverArgs(p, w), `https://127.0.0.1:${w.apiserverPort}`));
    await waitUntil('kube-apiserver', async () => (await cp.request<string>('GET', '/readyz')) === 'ok', { timeoutMs: 90_000, component: api });
    start('kube-controller-manager', controllerManagerArgs(p), `127.0.0.1:${PORTS.controllerManager}`);
    if (workload) writeFileSync(p.kwokConfig, kwokConfig(KWOK_STAGES, opts.modelLoadSeconds ?? DEFAULT_MODEL_LOAD_SECONDS));
    const ca = readFileSync(join(p.pki, 'ca.crt'), 'utf8');
    const lwsCrd = workload ? (parse(readFileSync(LWS_CRD, 'utf8')) as KubeObject) : undefined;
    for (const [i, w] of workloads.entries()) {
      const wl = Kube.fromFile(w.kubeconfig);
      await waitUntil(`${w.name} kube-apiserver`, async () => (await wl.request<string>('GET', '/readyz')) === 'ok', { timeoutMs: 90_000, component: wapis[i]! });
      start(`${w.name}-controller-manager`, controllerManagerArgs(p, w), `127.0.0.1:${w.controllerManagerPort}`);
      start(`${w.name}-scheduler`, schedulerArgs(w), `127.0.0.1:${w.schedulerPort}`);
      start(`${w.name}-kwok`, kwokArgs(p, w), `127.0.0.1:${w.kwokPort}`);
      // The LeaderWorkerSet controller, after its CRD and with its webhooks (lws.ts).
      await wl.apply(lwsCrd!, 'modelplane-dev');
      for (const o of lwsWebhookConfigurations(w, ca)) await wl.apply(o, 'modelplane-dev');
      writeFileSync(w.lwsConfig, lwsConfig(w, p.workloadWebhookCerts));
      start(`${w.name}-lws`, lwsArgs(w), `127.0.0.1:${w.lwsWebhookPort} (webhooks)`, { KUBECONFIG: w.controllerManagerKubeconfig });
    }
    step(`API servers ready (the control plane's and ${workloads.length} workload)`);

    for (const ns of ['crossplane-system', 'modelplane-system']) await cp.createIfAbsent({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    kubectl(p, ['apply', '--server-side', '--force-conflicts', '-f', CROSSPLANE_CRDS]);
    // KEDA's ScaledObject CRD, so a ModelDeployment with spec.autoscaling composes its ScaledObject for real
    // (docs/autoscaling.md); KEDA itself does not run here yet.
    kubectl(p, ['apply', '--server-side', '--force-conflicts', '-f', KEDA_SCALED_OBJECT_CRD]);
    const b64 = (f: string) => readFileSync(join(p.functionCerts, f)).toString('base64');
    await cp.apply(
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: FUNCTIONS_TLS_SECRET, namespace: 'crossplane-system' },
        type: 'kubernetes.io/tls',
        data: { 'tls.crt': b64('tls.crt'), 'tls.key': b64('tls.key'), 'ca.crt': b64('ca.crt') },
      },
      'modelplane-dev',
    );
    for (const o of admissionObjects()) await cp.apply(o, 'modelplane-dev');
    step('Crossplane CRDs applied');

    const registry = start('registry', registryArgs(p), `https://127.0.0.1:${PORTS.registry}`);
    await waitUntil('registry', logHas(registry, 'serving'), { timeoutMs: 20_000, component: registry });
    const pkVersion = readFileSync(join(PROVIDER_KUBERNETES_PACKAGE, 'version'), 'utf8').trim();
    const sources = writePackageFolders(p.packages, opts.providerCrds, { root: join(PROVIDER_KUBERNETES_PACKAGE, 'package'), version: pkVersion });
    await buildAndPush(sources, join(BIN, 'crossplane'), join(p.pki, 'ca.crt'));
    step(`${sources.length} packages built with crossplane xpkg build and pushed to the registry`);

    const last = PORTS.functions + functionFolders().length - 1;
    const fns = start('functions', serveArgs('--all', '--detached', '--base-port', String(PORTS.functions), '--tls-certs-dir', p.functionCerts), `127.0.0.1:${PORTS.functions}-${last} (mTLS)`);
    const runtime = start('runtime', modelplaneArgs('dev', 'runtime', '--dir', opts.dir, '--provider-crds', opts.providerCrds), 'no port (a controller)');
    await waitUntil('functions', logHas(fns, 'serving '), { timeoutMs: 60_000, component: fns });
    await waitUntil('dev runtime', logHas(runtime, 'dev runtime ready'), { timeoutMs: 60_000, component: runtime });
    const core = start('crossplane', coreArgs(p), `127.0.0.1:${PORTS.coreMetrics} (metrics), :${PORTS.coreHealth} (probes)`, {
      KUBECONFIG: p.coreKubeconfig,
    });
    await waitUntil('Crossplane core', () => httpReady(`http://127.0.0.1:${PORTS.coreHealth}/readyz`), { timeoutMs: 60_000, component: core });
    await cp.apply(coreWebhookConfiguration(PORTS.coreWebhook, ca), 'modelplane-dev');
    step('functions, dev runtime and Crossplane core running');
    await startKeda(p, cp, ca, start);

    for (const o of installObjects()) await cp.apply(o, 'modelplane-dev');
    // The kinds our compositions use Established before it starts (the package's other managed
    // resources are only CRDs once an activation policy activates them): a controller whose kind is
    // not served yet can stall the provider's start-up.
    const pkCrds = ['objects', 'providerconfigs', 'clusterproviderconfigs'].map((plural) => `${plural}.kubernetes.m.crossplane.io`);
    await waitUntil(
      'provider-kubernetes CRDs',
      async () => {
        for (const name of pkCrds) {
          const crd = await cp.get('apiextensions.k8s.io/v1', 'CustomResourceDefinition', name);
          if (!conditionsOf(crd?.['status']).some((c) => c.type === 'Established' && c.status === 'True')) return false;
        }
        return true;
      },
      // Core installs the Configuration's dependencies one after another (about 15 s each on a
      // loaded 2-core machine, 14 providers before provider-kubernetes): allow ten minutes.
      { timeoutMs: 600_000, everyMs: 1000 },
    );
    start('provider-kubernetes', providerKubernetesArgs(), `127.0.0.1:${PORTS.providerKubernetesHealth} (probes)`, {
      KUBECONFIG: p.providerKubernetesKubeconfig,
      TLS_SERVER_CERTS_DIR: p.providerKubernetesCerts,
    });
    await waitInstalled(cp, 600_000);
    step('Configuration modelplane installed and Healthy, with its functions and providers');

    if (workload) {
      const secret: KubeObject = {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: WORKLOAD_SECRET.name, namespace: WORKLOAD_SECRET.namespace },
        data: { [WORKLOAD_SECRET.key]: readFileSync(p.workloadKubeconfig).toString('base64') },
      };
      await cp.apply(secret, 'modelplane-dev');
    }
    const state = readState(opts.dir) as DevState;
    state.ready = true;
    if (workload) state.workloadSecret = { namespace: WORKLOAD_SECRET.namespace, name: WORKLOAD_SECRET.name };
    writeState(opts.dir, state);
    process.stdout.write(summary(opts.dir, state, (Date.now() - t0) / 1000));
    return 0;
  } catch (err) {
    process.stderr.write(`dev up: ${(err as Error).message}\n`);
    return 1;
  }
}

/**
 * KEDA (operator and metrics adapter) and Prometheus, when scripts/keda-build.sh
 * built them (keda.ts); otherwise says why, and an autoscaled deployment's
 * ScaledObject is composed with nothing driving it.
 */
async function startKeda(p: DevPaths, cp: Kube, ca: string, start: (name: string, argv: string[], listens: string, env?: NodeJS.ProcessEnv) => ComponentState): Promise<void> {
  const why = kedaUnavailable();
  if (why !== undefined) {
    say(`${why}: an autoscaled ModelDeployment composes its ScaledObject, and nothing drives it (kubectl scale does)`);
    return;
  }
  await writeKedaFiles(p);
  kubectl(p, ['apply', '--server-side', '--force-conflicts', '-f', kedaCrdFiles()]);
  for (const o of kedaObjects(ca)) await cp.apply(o, 'modelplane-dev');
  start('prometheus', prometheusArgs(p), `127.0.0.1:${KEDA_PORTS.prometheus}`);
  const env = kedaEnv(p);
  start('keda-operator', kedaOperatorArgs(p), `127.0.0.1:${KEDA_PORTS.operatorGrpc} (gRPC metrics service)`, env);
  const adapter = start('keda-adapter', kedaAdapterArgs(p), `127.0.0.1:${KEDA_PORTS.adapter} (external.metrics.k8s.io)`, env);
  await waitUntil(
    'KEDA metrics adapter behind the aggregator',
    async () => {
      const svc = await cp.get('apiregistration.k8s.io/v1', 'APIService', 'v1beta1.external.metrics.k8s.io');
      return conditionsOf(svc?.['status']).some((c) => c.type === 'Available' && c.status === 'True');
    },
    { timeoutMs: 120_000, everyMs: 1000, component: adapter },
  );
  say('KEDA and Prometheus running: external.metrics.k8s.io Available');
}

/** What `dev up` prints when done: how to reach the control plane. */
export function summary(dir: string, state: DevState, seconds: number): string {
  const lines = [
    `Modelplane dev control plane up in ${seconds.toFixed(0)}s (${state.components.length} processes, network namespace of pid ${state.netns}).`,
    '',
    '  modelplane dev kubectl get pkg                   # the Configuration, functions and providers',
    '  modelplane dev kubectl apply -f examples/quickstart/   # the fleet demo; any Modelplane manifests apply',
    '  modelplane dev kubectl get md,modelservices -A',
    '  modelplane dev status | modelplane dev down',
    '',
    `Everything listens on 127.0.0.1 inside that namespace; from another shell, use modelplane dev kubectl (dir ${dir}),`,
    `or: nsenter -t ${state.netns} -n kubectl --kubeconfig ${devPaths(dir).kubeconfig} ...`,
  ];
  if (state.workloadSecret) {
    lines.push(
      `A workload API server stands in for an existing cluster: its kubeconfig is Secret ${state.workloadSecret.namespace}/${state.workloadSecret.name}`,
      '(source: Existing, existing.secretRef.name: dev-workload-kubeconfig); Objects there are applied by the real provider-kubernetes.',
      `${state.workloads ?? 1} workload API server(s) run kube-scheduler, kube-controller-manager, kwok and the LeaderWorkerSet controller; a simulated cloud cluster (EKS, GKE, AKS, Nebius, Vultr)`,
      'gets a free one as its kubeconfig, workload 0 while no Existing cluster adopts it: modelplane dev --workload[=N] kubectl get pods -A',
    );
  }
  lines.push('Managed resources of the cloud providers and provider-helm are simulated (annotated modelplane.ai/simulated where paused).', '');
  return `${lines.join('\n')}\n`;
}
