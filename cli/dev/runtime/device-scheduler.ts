/**
 * The simulated clusters' device scheduling: whether an engine workload's
 * pods would be bound on their cluster, for the simulated providers
 * (managed.ts) to report a workload Available only when its devices are
 * really free. No kube-scheduler runs on a simulated cluster, so its verdict
 * is taken from the InferenceCluster's capacity ledger
 * (`status.gpuPools[].used`), which charges the replicas on the cluster as
 * its scheduler binds pods: Ready ones first, then the others oldest first,
 * and marks a replica that finds no room `overCapacity`
 * (docs/concepts.md#capacity-across-deployments;
 * functions/lib/fleet/arrival.ts).
 *
 * An engine workload (a Deployment or LeaderWorkerSet of a ModelReplica
 * whose pods claim devices, `resourceClaims`) is:
 * - schedulable when its replica's runs are in the ledger and none is over
 *   capacity;
 * - Pending otherwise, with why: over capacity in a pool, or not charged by
 *   its cluster yet (just placed: the ledger follows in about a second).
 * A workload that claims nothing is never held. Until the ModelReplica and
 * InferenceCluster kinds are served, nothing is held.
 */
import type { JsonObject, KubeObject } from '../../../functions/lib/function.js';
import { podTemplates } from '../../simulated/providers.js';
import type { Kube, KindInformer } from '../kube.js';

const API = 'modelplane.ai/v1alpha1';

/** Whether a workload manifest's pods claim devices (a pod-level `resourceClaims` entry). */
export function claimsDevices(manifest: KubeObject): boolean {
  if (manifest.kind !== 'Deployment' && manifest.kind !== 'LeaderWorkerSet') return false;
  return podTemplates(manifest).some((t) => {
    const claims = (t['spec'] as JsonObject | undefined)?.['resourceClaims'];
    return Array.isArray(claims) && claims.length > 0;
  });
}

/**
 * The ModelReplica that composed `obj`: its controller reference's name, ""
 * when it has none (the label crossplane.io/composite names the root XR of
 * the tree, the ModelDeployment, not the replica).
 */
export function owningReplica(obj: KubeObject): string {
  const owners = (obj.metadata?.['ownerReferences'] ?? []) as { kind?: string; name?: string; controller?: boolean }[];
  return (Array.isArray(owners) ? owners : []).find((o) => o?.controller === true && o.kind === 'ModelReplica')?.name ?? '';
}

/**
 * Why replica `replica` (namespace/name, deployment) is not bound on the
 * cluster whose published pools are `gpuPools`, or undefined when it is.
 */
export function ledgerVerdict(gpuPools: unknown, replica: { namespace: string; name: string; deployment: string }): string | undefined {
  let charged = false;
  for (const p of Array.isArray(gpuPools) ? (gpuPools as JsonObject[]) : []) {
    const holders = ((p?.['used'] as JsonObject | undefined)?.['holders'] ?? []) as JsonObject[];
    for (const h of Array.isArray(holders) ? holders : []) {
      if (h?.['namespace'] !== replica.namespace || h?.['deployment'] !== replica.deployment) continue;
      for (const run of Array.isArray(h['pods']) ? (h['pods'] as JsonObject[]) : []) {
        if (run?.['replica'] !== replica.name) continue;
        if (run['overCapacity'] === true) return `0/${String(p['nodes'] ?? '?')} nodes of pool ${String(p['name'])} have the devices free (its ledger: over capacity)`;
        charged = true;
      }
    }
  }
  return charged ? undefined : 'not charged by its cluster yet';
}

/** Watches ModelReplicas and InferenceClusters and answers {@link DeviceScheduler.pending}. */
export class DeviceScheduler {
  private replicas?: KindInformer;
  private clusters?: KindInformer;
  private stopped = false;

  /** @param onLedger called when an InferenceCluster changes (its ledger may free a workload). */
  constructor(
    private readonly kube: Kube,
    private readonly onLedger: () => void,
  ) {}

  /** Starts watching in the background, retrying until the kinds are served. */
  start(): void {
    void this.watch('ModelReplica', (i) => {
      this.replicas = i;
    });
    void this.watch('InferenceCluster', (i) => {
      this.clusters = i;
    });
  }

  private async watch(kind: string, set: (i: KindInformer) => void): Promise<void> {
    while (!this.stopped) {
      try {
        const onChange = kind === 'InferenceCluster' ? () => this.onLedger() : () => {};
        set(await this.kube.informer(API, kind, onChange));
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 2000));
      }
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.replicas?.stop();
    await this.clusters?.stop();
  }

  /**
   * Why the engine workload an Object (`obj`, composed by a ModelReplica)
   * carries would stay Pending on its cluster, or undefined when it would
   * be bound (or is no engine workload claiming devices).
   */
  pending(obj: KubeObject): string | undefined {
    const manifest = ((obj['spec'] as JsonObject | undefined)?.['forProvider'] as JsonObject | undefined)?.['manifest'] as KubeObject | undefined;
    if (manifest === undefined || !claimsDevices(manifest) || this.replicas === undefined || this.clusters === undefined) return undefined;
    const namespace = obj.metadata?.namespace ?? '';
    const name = owningReplica(obj);
    const replica = this.replicas.get(name, namespace) as KubeObject | undefined;
    if (replica === undefined) return 'its ModelReplica is not known yet';
    const clusterName = String((replica['spec'] as JsonObject | undefined)?.['clusterName'] ?? '');
    const cluster = this.clusters.get(clusterName) as KubeObject | undefined;
    if (cluster === undefined) return `its InferenceCluster ${clusterName} is not known yet`;
    const deployment = replica.metadata?.labels?.['modelplane.ai/deployment'] ?? '';
    return ledgerVerdict((cluster['status'] as JsonObject | undefined)?.['gpuPools'], { namespace, name, deployment });
  }
}
