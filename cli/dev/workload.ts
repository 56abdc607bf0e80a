/**
 * `modelplane dev workload stop | start`: take the dev workload API server
 * away and bring it back, which is what a lost cluster looks like to the
 * fleet (docs/failover.md#on-the-real-control-plane). The Existing
 * InferenceCluster on it turns Unreachable once provider-kubernetes' probe
 * fails, and Unavailable after its `failover.after`.
 *
 * Guarantees: `stop` stops the recorded pid (SIGTERM, then SIGKILL) and
 * keeps its etcd data (it shares the control plane's etcd under
 * `/workload`); `start` runs it again inside the control plane's network
 * namespace with the same flags, records the new pid and returns once it
 * answers `/readyz`. Both are idempotent.
 */
import { UserError } from '../load.js';
import { apiserverArgs } from './components.js';
import { Kube } from './kube.js';
import { runInside } from './lifecycle.js';
import { startComponent, stopPid, waitUntil } from './processes.js';
import { alive, devPaths, PORTS, readState, workloadServer, writeState } from './state.js';
import { REPO_ROOT } from '../functions.js';

const NAME = 'workload-apiserver';

function recorded(dir: string) {
  const state = readState(dir);
  if (!state) throw new UserError(`no dev control plane from ${dir} (modelplane dev up starts one)`);
  if (!state.workloadSecret) throw new UserError('this dev control plane has no workload API server (it was started with --no-workload)');
  return { state, component: state.components.find((c) => c.name === NAME) };
}

/** `dev workload stop`. */
export async function stopWorkload(dir: string): Promise<number> {
  const { component } = recorded(dir);
  if (component && alive(component.pid)) await stopPid(component.pid);
  process.stderr.write(`dev workload stop: the workload API server is stopped (its data is kept; dev workload start brings it back)\n`);
  return 0;
}

/** `dev workload start` (from any shell: it re-runs itself inside the namespace). */
export async function startWorkload(dir: string, inside: boolean): Promise<number> {
  const { state, component } = recorded(dir);
  if (!inside) return runInside(dir, ['dev', '--dir', dir, 'workload', 'start', '--inside']);
  const p = devPaths(dir);
  if (!component || !alive(component.pid)) {
    const started = startComponent(p.logs, NAME, apiserverArgs(p, workloadServer(p, 0)), { listens: `https://127.0.0.1:${PORTS.workloadApiserver}`, cwd: REPO_ROOT });
    writeState(dir, { ...state, components: [...state.components.filter((c) => c.name !== NAME), started] });
    const wl = Kube.fromFile(p.workloadKubeconfig);
    await waitUntil('workload kube-apiserver', async () => (await wl.request<string>('GET', '/readyz')) === 'ok', { timeoutMs: 90_000, component: started });
  }
  process.stderr.write('dev workload start: the workload API server answers\n');
  return 0;
}
