/**
 * The nodes of the dev workload cluster. No kubelet and no GPU run here, so
 * what a platform team brings with an Existing cluster (its GPU nodes,
 * labelled `modelplane.ai/pool=<pool>`, running the NVIDIA DRA driver) is
 * published from the InferenceCluster and its InferenceClasses, and kwok
 * plays the kubelets (kwok.ts); kube-scheduler and kube-controller-manager on
 * that API server are the real ones (docs/workload-clusters.md).
 *
 * For every InferenceCluster whose kubeconfig reaches a workload API server
 * (an Existing cluster's Secret, or a simulated cloud cluster's connection
 * Secret given that server: handout.ts), {@link workloadNodes} gives:
 * - per node pool, `nodeCount` Nodes `<cluster>-<pool>-<i>` annotated
 *   `kwok.x-k8s.io/node: fake` (kwok manages them), labelled
 *   `modelplane.ai/pool`, and on a pool whose class has DRA devices tainted
 *   `nvidia.com/gpu=true:NoSchedule` as every cloud function taints GPU pools;
 * - one untainted system Node `<cluster>-system-0` (what every cluster has
 *   beside its GPU pools: where the endpoint pickers run);
 * - per GPU node and driver, a `resource.k8s.io/v1` ResourceSlice as the
 *   driver publishes one (its own pool named after the node, generation 1,
 *   one slice): the class's devices `count` times, named `<device>-<i>`,
 *   with the class's attributes and capacity exactly as declared;
 * - per DeviceClass the class names, the DeviceClass the driver's chart
 *   installs: every device of that driver.
 *
 * {@link NodePublisher} applies them (server-side apply, field manager
 * `modelplane-dev-nodes`) when the desired set changes, and deletes the
 * Nodes and ResourceSlices it made that are no longer desired (a pool scaled
 * down, a cluster deleted). A class not known yet publishes no devices for
 * its pools; nothing is deleted while the control plane's informers have not
 * listed both kinds.
 */
import { createHash } from 'node:crypto';
import { POOL_LABEL, SYSTEM_NAMESPACE } from '../../../functions/lib/names.js';
import type { JsonObject, KubeObject } from '../../../functions/lib/function.js';
import type { InferenceClassDevice } from '../../../functions/lib/generated/inferenceclasses.js';
import { GPU_TOLERATION } from '../../../functions/lib/workload.js';
import type { Kube, KindInformer } from '../kube.js';
import { KWOK_NODE_ANNOTATION } from '../kwok.js';
import type { WorkloadHandout } from './handout.js';
import { cloudPreinstalled, GPU_PRESENT_LABEL } from './preinstalled.js';
import type { Targets } from './targets.js';

const API = 'modelplane.ai/v1alpha1';
/** Label on every object {@link NodePublisher} makes: the InferenceCluster it is for. */
export const DEV_NODE_LABEL = 'modelplane.ai/dev-cluster';
const FIELD_MANAGER = 'modelplane-dev-nodes';
/** The taint every cloud function puts on GPU pools (`nvidia.com/gpu=true:NoSchedule`), the one every model pod tolerates. */
export const GPU_TAINT = { key: GPU_TOLERATION['key'] as string, value: 'true', effect: GPU_TOLERATION['effect'] as string } as const;

/** An InferenceClass device, as the XRD admits it (defaults not applied: a manifest read from the API server has them). */
type ClassDevice = Partial<Pick<InferenceClassDevice, 'claim' | 'count'>> & Omit<InferenceClassDevice, 'claim' | 'count'>;

/** What one InferenceCluster puts on the workload API server. */
export interface WorkloadNodes {
  nodes: KubeObject[];
  slices: KubeObject[];
  deviceClasses: KubeObject[];
  /** What the cluster's cloud pre-installs (preinstalled.ts): applied, never deleted. */
  preinstalled: KubeObject[];
}

function classDevices(cls: KubeObject | undefined): ClassDevice[] {
  const devices = (cls?.['spec'] as JsonObject | undefined)?.['devices'];
  return (Array.isArray(devices) ? (devices as unknown as ClassDevice[]) : []).filter((d) => (d.claim ?? 'DRA') === 'DRA' && typeof d.driver === 'string');
}

function node(cluster: string, name: string, pool: string, gpu: boolean): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        [DEV_NODE_LABEL]: cluster,
        [POOL_LABEL]: pool,
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        type: 'kwok',
        ...(gpu ? { [GPU_PRESENT_LABEL]: 'true' } : {}),
      },
      annotations: { [KWOK_NODE_ANNOTATION]: 'fake' },
    },
    spec: gpu ? { taints: [{ ...GPU_TAINT }] } : {},
  };
}

/** A DNS-1123 name part for a driver (`gpu.nvidia.com` → `gpu-nvidia-com`). */
function driverPart(driver: string): string {
  return driver.toLowerCase().replace(/[^a-z0-9-]/g, '-');
}

/**
 * What InferenceCluster `cluster` puts on the workload API server, from its
 * `spec.nodePools` and the InferenceClasses by name (`classes`).
 */
export function workloadNodes(cluster: KubeObject, classes: ReadonlyMap<string, KubeObject>): WorkloadNodes {
  const clusterName = cluster.metadata?.name ?? '';
  const pools = ((cluster['spec'] as JsonObject | undefined)?.['nodePools'] ?? []) as { name?: string; className?: string; nodeCount?: number }[];
  const out: WorkloadNodes = { nodes: [node(clusterName, `${clusterName}-system-0`, 'system', false)], slices: [], deviceClasses: [], preinstalled: cloudPreinstalled(cluster) };
  const deviceClasses = new Map<string, string>();
  for (const pool of Array.isArray(pools) ? pools : []) {
    if (!pool?.name) continue;
    const devices = classDevices(classes.get(pool.className ?? ''));
    const drivers = [...new Set(devices.map((d) => d.driver))].sort();
    for (const d of devices) if (d.deviceClassName) deviceClasses.set(d.deviceClassName, d.driver);
    for (let i = 0; i < (pool.nodeCount ?? 1); i++) {
      const name = `${clusterName}-${pool.name}-${i}`;
      out.nodes.push(node(clusterName, name, pool.name, devices.length > 0));
      for (const driver of drivers) {
        const sliceDevices = devices
          .filter((d) => d.driver === driver)
          .flatMap((d) =>
            Array.from({ length: d.count ?? 1 }, (_, n) => {
              const device: JsonObject = { name: `${d.name}-${n}` };
              if (d.attributes) device['attributes'] = d.attributes as JsonObject;
              if (d.capacity) device['capacity'] = d.capacity as JsonObject;
              return device;
            }),
          );
        out.slices.push({
          apiVersion: 'resource.k8s.io/v1',
          kind: 'ResourceSlice',
          metadata: { name: `${name}-${driverPart(driver)}`, labels: { [DEV_NODE_LABEL]: clusterName } },
          spec: { driver, nodeName: name, pool: { name, generation: 1, resourceSliceCount: 1 }, devices: sliceDevices },
        });
      }
    }
  }
  for (const [name, driver] of [...deviceClasses].sort(([a], [b]) => a.localeCompare(b))) {
    out.deviceClasses.push({
      apiVersion: 'resource.k8s.io/v1',
      kind: 'DeviceClass',
      metadata: { name },
      spec: { selectors: [{ cel: { expression: `device.driver == ${JSON.stringify(driver)}` } }] },
    });
  }
  return out;
}

/** Publishes {@link workloadNodes} on one workload API server; see the module comment. */
export class NodePublisher {
  private clusters?: KindInformer;
  private classes?: KindInformer;
  private stopped = false;
  private timer?: NodeJS.Timeout;
  private running = false;
  private again = false;
  /** Hash of the last set applied whole. */
  private applied = '';

  /**
   * @param index this server's index (state.ts workloadServer)
   * @param handout which simulated cloud clusters were given which server
   */
  constructor(
    private readonly controlPlane: Kube,
    private readonly workload: Kube,
    private readonly targets: Targets,
    private readonly log: (line: string) => void,
    private readonly index = 0,
    private readonly handout?: WorkloadHandout,
  ) {}

  /** Starts watching; publishes on every change and every 10 s (a Secret or the workload server that came back). */
  start(): void {
    void this.watch('InferenceCluster', (i) => {
      this.clusters = i;
    });
    void this.watch('InferenceClass', (i) => {
      this.classes = i;
    });
    this.timer = setInterval(() => this.kick(), 10_000);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.clusters?.stop();
    await this.classes?.stop();
  }

  private async watch(kind: string, set: (i: KindInformer) => void): Promise<void> {
    while (!this.stopped) {
      try {
        set(await this.controlPlane.informer(API, kind, () => this.kick(), () => this.kick()));
        this.kick();
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 2000));
      }
    }
  }

  private kick(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.publish()
      .catch((err: Error) => {
        this.applied = ''; // try the whole set again next time
        if (!/ECONNREFUSED|fetch failed/.test(err.message)) this.log(`workload nodes: ${err.message}`);
      })
      .finally(() => {
        this.running = false;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /**
   * Whether an InferenceCluster's kubeconfig reaches this workload API server:
   * an Existing cluster's `existing.secretRef`; a simulated cloud cluster
   * when this server was handed to it (handout.ts), from the moment its
   * connection Secret is written (its nodes exist before anything reads
   * them, as a cloud's). Undefined while a Secret is not readable (what was
   * published for the cluster stays).
   */
  private async onWorkload(cluster: KubeObject): Promise<boolean | undefined> {
    const c = (cluster['spec'] as JsonObject | undefined)?.['cluster'] as { source?: string; existing?: { secretRef?: { name?: string; key?: string } } } | undefined;
    // A simulated cloud cluster: on this server when it was given this one (handout.ts).
    if (c?.source !== 'Existing') return this.handout?.serverOf(cluster.metadata?.name ?? '') === this.index;
    const ref = c.existing?.secretRef;
    if (!ref?.name) return false;
    const target = await this.targets.ofConfig({
      apiVersion: 'kubernetes.m.crossplane.io/v1alpha1',
      kind: 'ClusterProviderConfig',
      metadata: { name: ref.name },
      spec: { credentials: { source: 'Secret', secretRef: { namespace: SYSTEM_NAMESPACE, name: ref.name, key: ref.key ?? 'kubeconfig' } } },
    });
    if (target === undefined) return undefined;
    return !target.simulated && target.server === this.workload.serverUrl;
  }

  private async publish(): Promise<void> {
    if (!this.clusters || !this.classes) return;
    const classes = new Map((this.classes.list() as KubeObject[]).map((c) => [c.metadata?.name ?? '', c]));
    const want: WorkloadNodes = { nodes: [], slices: [], deviceClasses: [], preinstalled: [] };
    const clusters = (this.clusters.list() as KubeObject[]).filter((c) => !c.metadata?.deletionTimestamp);
    /** Clusters whose Secret is not readable now: what was published for them stays. */
    const unknown = new Set<string>();
    for (const cluster of clusters.sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''))) {
      const on = await this.onWorkload(cluster);
      if (on === undefined) unknown.add(cluster.metadata?.name ?? '');
      if (on !== true) continue;
      const w = workloadNodes(cluster, classes);
      want.nodes.push(...w.nodes);
      want.slices.push(...w.slices);
      for (const dc of w.deviceClasses) if (!want.deviceClasses.some((x) => x.metadata?.name === dc.metadata?.name)) want.deviceClasses.push(dc);
      for (const o of w.preinstalled) if (!want.preinstalled.some((x) => x.kind === o.kind && x.metadata?.name === o.metadata?.name)) want.preinstalled.push(o);
    }
    const hash = createHash('sha256').update(JSON.stringify([want, [...unknown]])).digest('hex');
    if (hash === this.applied) return;
    for (const o of [...want.preinstalled, ...want.deviceClasses, ...want.nodes, ...want.slices]) await this.workload.apply(o, FIELD_MANAGER);
    // What we made before and is no longer wanted: slices first, then their nodes.
    for (const [apiVersion, kind, wanted] of [
      ['resource.k8s.io/v1', 'ResourceSlice', want.slices],
      ['v1', 'Node', want.nodes],
    ] as const) {
      const names = new Set(wanted.map((o) => o.metadata?.name));
      for (const o of await this.workload.list(apiVersion, kind)) {
        const owner = o.metadata?.labels?.[DEV_NODE_LABEL];
        if (owner === undefined || unknown.has(owner) || names.has(o.metadata?.name)) continue;
        await this.workload.delete(o);
        this.log(`workload nodes: ${kind} ${o.metadata?.name} deleted (its pool or cluster is gone)`);
      }
    }
    this.applied = hash;
    this.log(`workload nodes: ${want.nodes.length} node(s), ${want.slices.length} ResourceSlice(s), ${want.deviceClasses.length} DeviceClass(es) published`);
  }
}
