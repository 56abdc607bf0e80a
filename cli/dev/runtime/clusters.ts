/**
 * The controllers a real API server of the dev control plane lacks: no
 * kubelet runs the control plane's pods, no gateway controller programs
 * Gateways, no load balancer hands out addresses, no volume provisioner
 * runs on the workload cluster. For the kinds our functions read the status
 * of, this writes the status those controllers would, from the table
 * `modelplane plan` uses (cli/simulated/providers.ts `clusterStatus`): the key
 * validator's Deployment available, a Gateway programmed with an address,
 * an HTTPRoute accepted, a LoadBalancer Service its ingress IP.
 *
 * Runs against the control plane (its gateway objects) and against each real
 * workload API server. Writes only when the status differs (times ignored).
 */
import type { JsonObject, KubeObject } from '../../../functions/lib/function.js';
import { clusterStatus } from '../../simulated/providers.js';
import type { Kube, KindInformer } from '../kube.js';
import type { Addresses, Pool } from './addresses.js';
import { type Condition, conditionsOf, hasConditions, mergeConditions } from './conditions.js';
import { ObjectQueue } from './queue.js';

/**
 * Kinds whose status the workload cluster lacks a controller for: a volume
 * provisioner, a cloud load balancer and a gateway controller do not run
 * there. Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs,
 * LeaderWorkerSets and their pods are the real controllers', scheduler's and
 * kwok's (components.ts WORKLOAD_CONTROLLERS, lws.ts, kwok.ts).
 */
export const WORKLOAD_KINDS: readonly [string, string][] = [
  ['v1', 'PersistentVolumeClaim'],
  ['v1', 'Service'],
  ['gateway.networking.k8s.io/v1', 'GatewayClass'],
  ['gateway.networking.k8s.io/v1', 'Gateway'],
  ['gateway.networking.k8s.io/v1', 'HTTPRoute'],
];

/** Kinds on the control plane: its gateway (while no real gateway controller runs there) and the key validator's Deployment (no kubelet runs its pods). */
export const CONTROL_PLANE_KINDS: readonly [string, string][] = [
  ['apps/v1', 'Deployment'],
  ['v1', 'Service'],
  ['gateway.networking.k8s.io/v1', 'GatewayClass'],
  ['gateway.networking.k8s.io/v1', 'Gateway'],
  ['gateway.networking.k8s.io/v1', 'HTTPRoute'],
];

function withoutTimes(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutTimes);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (k !== 'lastTransitionTime') out[k] = withoutTimes(x);
    return out;
  }
  return v;
}

/** Simulated cluster controllers for one API server. */
export class ClusterSimulator {
  private readonly informers: KindInformer[] = [];
  private readonly queue = new ObjectQueue((o) => this.reconcile(o));
  private stopped = false;

  constructor(
    private readonly kube: Kube,
    private readonly opts: { name: string; pool: Pool; kinds: readonly [string, string][]; addresses: Addresses; log: (line: string) => void },
  ) {}

  /** Starts a watch per kind; a kind not served yet (CRD to come) is retried every 3 s. */
  start(): void {
    for (const [apiVersion, kind] of this.opts.kinds) void this.watch(apiVersion, kind);
  }

  private async watch(apiVersion: string, kind: string): Promise<void> {
    while (!this.stopped) {
      try {
        this.informers.push(await this.kube.informer(apiVersion, kind, (o) => this.queue.add(o), (o) => this.queue.forget(o)));
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 3000));
      }
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const i of this.informers) await i.stop();
  }

  private async reconcile(obj: KubeObject): Promise<KubeObject | undefined> {
    if (obj.metadata?.deletionTimestamp) return undefined;
    const owner = `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
    const want = clusterStatus(obj, owner, { address: (o) => this.opts.addresses.address(this.opts.pool, `${this.opts.name} ${o}`) });
    if (!want || Object.keys(want).length === 0) return undefined;
    const current = (obj['status'] ?? {}) as JsonObject;
    const differs = Object.entries(want).some(([k, v]) =>
      k === 'conditions'
        ? !hasConditions(conditionsOf(current), v as unknown as Condition[])
        : JSON.stringify(withoutTimes(current[k])) !== JSON.stringify(withoutTimes(v)),
    );
    if (!differs) return undefined;
    const status: JsonObject = { ...want };
    if (Array.isArray(want['conditions'])) {
      status['conditions'] = mergeConditions(conditionsOf(current), want['conditions'] as unknown as Condition[], new Date().toISOString()) as unknown as JsonObject[];
    }
    try {
      const after = await this.kube.patchStatus(obj, status);
      this.opts.log(`${this.opts.name}: ${obj.kind} ${owner}: status written (simulated controllers)`);
      return after;
    } catch (err) {
      if (!/ 404 | 409 /.test(` ${(err as Error).message} `)) this.opts.log(`${this.opts.name}: ${obj.kind} ${owner}: ${(err as Error).message}`);
      return undefined;
    }
  }
}
