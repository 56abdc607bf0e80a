/**
 * Which simulated cloud cluster runs on which workload API server of the dev
 * control plane (`dev up --workloads N`, docs/workload-clusters.md).
 *
 * No cloud can be reached here, so an EKS, GKE, AKS, Nebius or Vultr cluster
 * is simulated: its managed resources are written Ready (managed.ts). When a
 * workload API server is free, the simulated provider writes that server's
 * kubeconfig into the cluster's connection Secret instead of a simulated one
 * (`*.plan.modelplane.invalid`): provider-kubernetes then really applies the
 * serving stack and the engine workloads there, and kube-scheduler, the
 * controllers and kwok run them, as on an Existing cluster.
 *
 * Guarantees:
 * - A connection Secret (`<namespace>/<name>`) keeps the server it was given
 *   for as long as its managed resource exists, across restarts of the
 *   runtime (kept in `workload-handout.json`); a deleted cluster's server is
 *   free again (its serving stack was uninstalled first: the nested cluster
 *   XR outlives its ServingStack by a Usage).
 * - Servers are given lowest free first. A server is not free while a
 *   connection Secret holds it, nor while the caller says it is adopted
 *   otherwise: workload 0 while an Existing InferenceCluster names the
 *   Secret `dev up` writes for it (`dev-workload-kubeconfig`), since two
 *   clusters on one API server would overwrite each other's serving stack.
 *   So with one workload server (the default) the first cloud cluster gets
 *   it when no Existing cluster does.
 * - None free: the Secret is the simulated kubeconfig, as without workloads.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/** A workload API server that can be handed out: its index and admin kubeconfig (certificates embedded). */
export interface HandoutServer {
  index: number;
  kubeconfig: string;
}

/** Managed resource kinds whose connection Secret is a cluster's kubeconfig (EKS ClusterAuth; GKE and Nebius Cluster; AKS KubernetesCluster; Vultr Kubernetes). */
export const CLUSTER_KUBECONFIG_KINDS = ['ClusterAuth', 'Cluster', 'KubernetesCluster', 'Kubernetes'] as const;

/** What one connection Secret was given. */
interface Given {
  index: number;
  /** The InferenceCluster the Secret's cluster belongs to, when known. */
  cluster?: string;
}

/** Hands out workload API servers; see the module comment. */
export class WorkloadHandout {
  /** What each connection Secret `<namespace>/<name>` was given. */
  private readonly held: Record<string, Given>;
  /** By index. */
  private readonly servers: readonly HandoutServer[];

  /**
   * @param file where the hand-out is kept
   * @param servers the workload API servers
   */
  constructor(
    private readonly file: string,
    servers: readonly HandoutServer[],
  ) {
    this.servers = [...servers].sort((a, b) => a.index - b.index);
    this.held = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, Given>) : {};
  }

  /**
   * The server of connection Secret `key` (given now if one is free), or
   * undefined: the cluster stays simulated. `cluster`: the InferenceCluster
   * it is for (what {@link serverOf} answers by). `adopted`: servers in use
   * outside the hand-out, never given (one already held stays held).
   */
  take(key: string, cluster?: string, adopted: ReadonlySet<number> = new Set()): HandoutServer | undefined {
    const known = this.held[key];
    if (known !== undefined) return this.servers.find((s) => s.index === known.index);
    const taken = new Set(Object.values(this.held).map((g) => g.index));
    for (const s of this.servers) {
      if (adopted.has(s.index) || taken.has(s.index)) continue;
      this.held[key] = cluster === undefined ? { index: s.index } : { index: s.index, cluster };
      this.save();
      return s;
    }
    return undefined;
  }

  /** The server InferenceCluster `cluster` was given, if any. */
  serverOf(cluster: string): number | undefined {
    return Object.values(this.held).find((g) => g.cluster === cluster)?.index;
  }

  /** Frees the server of connection Secret `key` (its cluster was deleted). */
  release(key: string): number | undefined {
    const given = this.held[key];
    if (given === undefined) return undefined;
    delete this.held[key];
    this.save();
    return given.index;
  }

  private save(): void {
    const sorted = Object.fromEntries(Object.entries(this.held).sort(([a], [b]) => a.localeCompare(b)));
    writeFileSync(this.file, `${JSON.stringify(sorted, null, 2)}\n`);
  }
}
