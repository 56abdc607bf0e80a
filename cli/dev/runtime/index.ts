/**
 * The dev runtime: one long-running process of the dev control plane that
 * plays what cannot be real on this machine, each part in its own module:
 *
 * - package-runtime.ts: Crossplane's package runtime for `External` packages
 *   (function endpoints, TLS Secret, RuntimeHealthy);
 * - managed.ts: the simulated cloud providers and provider-helm;
 * - clusters.ts: the kubelet, gateway and load-balancer controllers that the
 *   control plane and the workload API server lack;
 * - nodes.ts: the workload clusters' GPU nodes (kwok plays their kubelets)
 *   and the ResourceSlices their DRA driver would publish;
 * - handout.ts: which simulated cloud cluster runs on which workload API
 *   server.
 *
 * Every write is one line on stdout (`logs/runtime.log`), so a settled
 * control plane shows a quiet log. Stops on SIGTERM/SIGINT.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { functionPorts } from '../../serve.js';
import { Kube } from '../kube.js';
import { simulatedGroups } from '../../simulated/provider-packages.js';
import { devPaths, PORTS, readState, workloadServers } from '../state.js';
import { WorkloadHandout } from './handout.js';
import { Addresses } from './addresses.js';
import { CONTROL_PLANE_KINDS, ClusterSimulator, WORKLOAD_KINDS } from './clusters.js';
import { ManagedSimulator } from './managed.js';
import { NodePublisher } from './nodes.js';
import { PackageRuntime } from './package-runtime.js';
import { Targets } from './targets.js';

/** Name of the TLS Secret (in crossplane-system) with our functions' server certificate. */
export const FUNCTIONS_TLS_SECRET = 'modelplane-functions-tls';
/** The Provider that really runs (its revision is healthy once its probe answers). */
export const PROVIDER_KUBERNETES = 'upbound-provider-kubernetes';

async function httpOk(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
  return res.ok;
}

/** Runs until signalled. @param crds the provider CRD snapshot (chart CRDs come from it). */
export async function runRuntime(dir: string, crds: string): Promise<void> {
  const paths = devPaths(dir);
  const log = (line: string) => process.stdout.write(`${new Date().toISOString()} ${line}\n`);
  const cp = Kube.fromFile(paths.runtimeKubeconfig);

  let metallbRange: string | undefined;
  const refreshGateways = async () => {
    try {
      const gws = await cp.list('modelplane.ai/v1alpha1', 'InferenceGateway');
      const pools = gws.map((g) => (g['spec'] as { traefik?: { metallb?: { addressPool?: string } } } | undefined)?.traefik?.metallb?.addressPool);
      metallbRange = pools.find((p): p is string => typeof p === 'string');
    } catch {
      // the XRD is not installed yet
    }
  };
  await refreshGateways();
  const gatewayTimer = setInterval(() => void refreshGateways(), 3000);
  const addresses = new Addresses(join(dir, 'addresses.json'), () => metallbRange);

  const packages = new PackageRuntime(cp, {
    functionPorts: functionPorts(PORTS.functions),
    tlsSecretName: FUNCTIONS_TLS_SECRET,
    realProviders: new Map([[PROVIDER_KUBERNETES, () => httpOk(`http://127.0.0.1:${PORTS.providerKubernetesHealth}/readyz`)]]),
    log,
  });
  const targets = new Targets(cp);
  const servers = workloadServers(paths, readState(dir)).filter((w) => existsSync(w.kubeconfig));
  const handout = new WorkloadHandout(
    join(dir, 'workload-handout.json'),
    servers.map((w) => ({ index: w.index, kubeconfig: readFileSync(w.kubeconfig, 'utf8') })),
  );
  const managed = new ManagedSimulator(cp, { groups: simulatedGroups(), crds, addresses, targets, handout, log });
  const clusters = [new ClusterSimulator(cp, { name: 'control-plane', pool: 'control-plane', kinds: CONTROL_PLANE_KINDS, addresses, log })];
  const nodes: NodePublisher[] = [];
  for (const w of servers) {
    const wl = Kube.fromFile(w.kubeconfig);
    clusters.push(new ClusterSimulator(wl, { name: w.name, pool: 'workload', kinds: WORKLOAD_KINDS, addresses, log }));
    nodes.push(new NodePublisher(cp, wl, targets, log, w.index, handout));
  }

  await packages.start();
  await managed.start();
  for (const c of clusters) c.start();
  for (const n of nodes) n.start();
  log('dev runtime ready: package runtime, simulated providers, simulated cluster controllers');

  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  clearInterval(gatewayTimer);
  await Promise.allSettled([packages.stop(), managed.stop(), ...clusters.map((c) => c.stop()), ...nodes.map((n) => n.stop())]);
  process.exit(0);
}
