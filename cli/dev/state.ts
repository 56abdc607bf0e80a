/**
 * Where a dev control plane keeps what it started: one directory (default
 * `.cache/dev/` in the repository, `--dir` or `MODELPLANE_DEV_DIR` to
 * choose) with `state.json` (the network namespace and every process, by
 * pid), `pki/`, `logs/`, `etcd/`, `packages/` and the kubeconfigs.
 *
 * The ports below are inside the control plane's private network namespace,
 * so they never collide with the host's or another control plane's.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { REPO_ROOT } from '../functions.js';

/** Fixed ports inside the namespace. */
export const PORTS = {
  etcdClient: 2379,
  etcdPeer: 2380,
  apiserver: 6443,
  workloadApiserver: 7443,
  controllerManager: 10257,
  workloadControllerManager: 10258,
  workloadScheduler: 10259,
  /** kwok's server (its metrics and the kubelet API it fakes). */
  kwok: 10247,
  /**
   * Workload API servers 1..N-1 (`dev up --workloads N`): API server at
   * workloadApiserver + i; controller manager, scheduler and kwok at
   * extraWorkloads + 3i, + 3i + 1, + 3i + 2.
   */
  extraWorkloads: 11000,
  /**
   * The LeaderWorkerSet controller of workload API server i: its webhook
   * server at lws + 2i, its health probes at lws + 2i + 1.
   */
  lws: 12000,
  registry: 5000,
  /** First function; the others follow in folder order. */
  functions: 9443,
  /** Crossplane core's metrics and health ports (fixed by core). */
  coreMetrics: 8080,
  coreHealth: 8081,
  providerKubernetesWebhook: 9600,
  /** Crossplane core's webhook server (its Usage protection; core's default 9443 is our first function's). */
  coreWebhook: 9610,
  providerKubernetesMetrics: 8090,
  providerKubernetesHealth: 8091,
} as const;

/** The registry every package is pushed to, and pulled from by core. */
export const REGISTRY = `127.0.0.1:${PORTS.registry}`;

/** One process the control plane started. */
export interface ComponentState {
  name: string;
  pid: number;
  log: string;
  /** What it serves, for `dev status`. */
  listens: string;
}

/** Everything `dev down` needs to stop a control plane. */
export interface DevState {
  /** Pid of the process holding the private network namespace (`unshare -n`). */
  netns: number;
  components: ComponentState[];
  startedAt: string;
  /** Set once `dev up` finished installing. */
  ready?: boolean;
  /** The Existing-cluster kubeconfig Secret of the workload API server. */
  workloadSecret?: { namespace: string; name: string };
  /** How many workload API servers run ({@link workloadServer}); absent: 1 when workloadSecret is set. */
  workloads?: number;
}

/**
 * One workload API server of a dev control plane, with its controller
 * manager, scheduler and kwok. Index 0 is the workload API server (the one
 * `dev kubectl --workload` and `dev workload stop|start` act on, and the
 * Existing-cluster Secret points at); `dev up --workloads N` adds 1..N-1.
 * Each keeps its objects under its own etcd prefix of the one etcd.
 */
export interface WorkloadServer {
  index: number;
  /** `workload`, `workload-1`, ...: the prefix of its components' names and logs. */
  name: string;
  apiserverPort: number;
  controllerManagerPort: number;
  schedulerPort: number;
  kwokPort: number;
  etcdPrefix: string;
  /** Admin kubeconfig (certificates embedded: it is what a connection Secret carries). */
  kubeconfig: string;
  controllerManagerKubeconfig: string;
  schedulerKubeconfig: string;
  kwokKubeconfig: string;
  /** Its LeaderWorkerSet controller's webhook and health ports, and its configuration file (components.ts lwsConfig). */
  lwsWebhookPort: number;
  lwsHealthPort: number;
  lwsConfig: string;
}

/** Workload API server `index` of the control plane at `p` (ports inside its network namespace). */
export function workloadServer(p: DevPaths, index: number): WorkloadServer {
  if (index === 0) {
    return {
      index,
      name: 'workload',
      apiserverPort: PORTS.workloadApiserver,
      controllerManagerPort: PORTS.workloadControllerManager,
      schedulerPort: PORTS.workloadScheduler,
      kwokPort: PORTS.kwok,
      etcdPrefix: '/workload',
      kubeconfig: p.workloadKubeconfig,
      controllerManagerKubeconfig: p.workloadControllerManagerKubeconfig,
      schedulerKubeconfig: p.workloadSchedulerKubeconfig,
      kwokKubeconfig: p.workloadKwokKubeconfig,
      ...lwsOf(p, index, 'workload'),
    };
  }
  const name = `workload-${index}`;
  return {
    index,
    name,
    apiserverPort: PORTS.workloadApiserver + index,
    controllerManagerPort: PORTS.extraWorkloads + 3 * index,
    schedulerPort: PORTS.extraWorkloads + 3 * index + 1,
    kwokPort: PORTS.extraWorkloads + 3 * index + 2,
    etcdPrefix: `/${name}`,
    kubeconfig: join(p.dir, `${name}.kubeconfig`),
    controllerManagerKubeconfig: join(p.dir, `${name}-kcm.kubeconfig`),
    schedulerKubeconfig: join(p.dir, `${name}-scheduler.kubeconfig`),
    kwokKubeconfig: join(p.dir, `${name}-kwok.kubeconfig`),
    ...lwsOf(p, index, name),
  };
}

function lwsOf(p: DevPaths, index: number, name: string): Pick<WorkloadServer, 'lwsWebhookPort' | 'lwsHealthPort' | 'lwsConfig'> {
  return { lwsWebhookPort: PORTS.lws + 2 * index, lwsHealthPort: PORTS.lws + 2 * index + 1, lwsConfig: join(p.dir, `${name}-lws.yaml`) };
}

/** The workload API servers a control plane runs, by its state (none before `dev up` recorded them). */
export function workloadServers(p: DevPaths, state: DevState | undefined): WorkloadServer[] {
  const n = state?.workloads ?? (state?.workloadSecret ? 1 : 0);
  return Array.from({ length: n }, (_, i) => workloadServer(p, i));
}

/** The directory of a control plane. */
export function devDir(dir?: string): string {
  return resolve(dir ?? process.env['MODELPLANE_DEV_DIR'] ?? join(REPO_ROOT, '.cache', 'dev'));
}

/** Paths inside a control plane's directory. */
export function devPaths(dir: string) {
  return {
    dir,
    state: join(dir, 'state.json'),
    pki: join(dir, 'pki'),
    logs: join(dir, 'logs'),
    etcd: join(dir, 'etcd'),
    packages: join(dir, 'packages'),
    xpkgCache: join(dir, 'xpkg-cache'),
    blobs: join(dir, 'registry'),
    /** admin kubeconfig of the control plane (file paths; what `dev kubectl` uses). */
    kubeconfig: join(dir, 'kubeconfig'),
    controllerManagerKubeconfig: join(dir, 'kcm.kubeconfig'),
    /** Each controller its own user (all system:masters), so the audit log says who wrote what. */
    coreKubeconfig: join(dir, 'crossplane.kubeconfig'),
    providerKubernetesKubeconfig: join(dir, 'provider-kubernetes.kubeconfig'),
    runtimeKubeconfig: join(dir, 'runtime.kubeconfig'),
    workloadKubeconfig: join(dir, 'workload.kubeconfig'),
    workloadControllerManagerKubeconfig: join(dir, 'workload-kcm.kubeconfig'),
    workloadSchedulerKubeconfig: join(dir, 'workload-scheduler.kubeconfig'),
    workloadKwokKubeconfig: join(dir, 'workload-kwok.kubeconfig'),
    /** kwok's configuration: its node stages and our pod stages (kwok.ts). */
    kwokConfig: join(dir, 'kwok.yaml'),
    /** Crossplane core's client certificate directory (ca.crt, tls.crt, tls.key). */
    coreClientCerts: join(dir, 'core-client-certs'),
    /** Crossplane core's webhook server certificate directory (tls.crt, tls.key for 127.0.0.1). */
    coreServerCerts: join(dir, 'core-server-certs'),
    /** Our functions' server certificate directory (ca.crt, tls.crt, tls.key). */
    functionCerts: join(dir, 'function-certs'),
    providerKubernetesCerts: join(dir, 'provider-kubernetes-certs'),
    /** The webhook servers' certificate directory on the workload API servers (the LeaderWorkerSet controllers'; tls.crt, tls.key for 127.0.0.1). */
    workloadWebhookCerts: join(dir, 'workload-webhook-certs'),
  };
}

export type DevPaths = ReturnType<typeof devPaths>;

/** The Existing-cluster kubeconfig Secret `dev up` writes for workload API server 0. */
export const WORKLOAD_SECRET = { namespace: 'modelplane-system', name: 'dev-workload-kubeconfig', key: 'kubeconfig' } as const;

/** The saved state, or undefined when nothing was started from `dir`. */
export function readState(dir: string): DevState | undefined {
  const file = devPaths(dir).state;
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as DevState;
}

/** Saves the state (the directory is created). */
export function writeState(dir: string, state: DevState): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(devPaths(dir).state, `${JSON.stringify(state, null, 2)}\n`);
}

/** True when a process with this pid exists (and is not a zombie). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}
