/**
 * Capacity accounting in devices (docs/design.md#devices-not-nodes): what each
 * pool has left, node by node, after the replicas charged to it.
 *
 * Model:
 * - A pool has `nodes` identical nodes; each node offers, per device entry of
 *   its class (`status.gpuPools[].devices`, in published order), that entry's
 *   `count` devices when it is claimed through DRA. Synthetic devices are
 *   never claimed and count nothing.
 * - A pod fits a node when every one of its requests fits in what that node
 *   has left ({@link PodDemand}). A member's pods are packed one by one, first
 *   fit: the nodes already in use in the order they were first used, then an
 *   untouched node. Each pod lands on one node; nothing is split.
 * - Whole-node pods take an untouched node entirely: every claiming pod of a
 *   Leader + Worker gang (each gang pod on its own node, as before) and every
 *   claiming pod on a pool whose class is `exclusive` (`gpuPools[].exclusive`).
 *   This is also the reference's model for such pods
 *   (docs/kinds/modeldeployment.md#capacity).
 * - Observed ModelReplicas (other deployments', and ours that stay) are
 *   charged the same way from what they were stamped with: each
 *   `deviceRequests[]` entry goes to the first DRA device of the pool with the
 *   same `deviceClassName`, in arrival order (arrival.ts). A Ready one's
 *   charge may overcommit (a pool that shrank): a pod that fits nowhere takes
 *   an untouched node even when none is left ({@link PoolCapacity.force}),
 *   and an overcommitted pool takes nothing new; one that is not Ready and
 *   fits nowhere is over capacity and charges nothing.
 * - Placement trials are all-or-nothing: {@link PoolCapacity.place} either
 *   charges every pod it is given or none, and {@link PoolCapacity.undo}
 *   reverts a charge exactly, so a replica that does not fit whole leaves the
 *   ledger as it was.
 * Units: devices (per device entry of the class) and nodes.
 *
 * Issue 17 publishes the ledger in InferenceCluster status (ledger.ts): the
 * scheduler charges other deployments from it with this module's
 * {@link PoolCapacity}; {@link buildCapacity} (every replica of the fleet) is
 * kept for `modelplane plan`'s report and as the reference the ledger is
 * tested against (test/scheduler/ledger.test.ts).
 */
import { chargeSlots, type Slot } from './arrival.js';
import type { FleetCluster, ObservedReplica, Pool } from './model.js';

/** What one pod needs on its node: [device index in the pool's devices, count] of DRA devices. */
export interface PodDemand {
  devices: readonly (readonly [number, number])[];
  /** Takes an untouched node entirely (gang pods, exclusive pools). */
  whole: boolean;
}

/** One step of a charge, in the order applied (undo reverts in reverse). */
type Step = { kind: 'fresh' } | { kind: 'node'; node: number; demand: PodDemand };

/** A charge that {@link PoolCapacity.undo} can revert. */
export interface Charge {
  pool: PoolCapacity;
  steps: Step[];
}

/** Devices per node of a pool's class: DRA entries' count (absent, 0 or negative: 0), Synthetic 0. */
export function devicesPerNode(pool: Pool): number[] {
  return pool.devices.map((d) => ((d.claim ?? 'DRA') === 'DRA' && typeof d.count === 'number' && d.count > 0 ? Math.floor(d.count) : 0));
}

/** `pool <pool>: needs <n> <device> on one node, <f> free`. */
export function msgDevicesShort(pool: string, needs: number, device: string, free: number): string {
  return `pool ${pool}: needs ${needs} ${device} on one node, ${Math.max(0, free)} free`;
}

/** `insufficient nodes in pool <pool> (needs <n>, <f> free)`: whole-node pods, in the reference's wording (docs/kinds/modeldeployment.md#placing-new-replicas). */
export function msgNodesShort(pool: string, needs: number, free: number): string {
  return `insufficient nodes in pool ${pool} (needs ${needs}, ${Math.max(0, free)} free)`;
}

/** The free devices of one pool, node by node. */
export class PoolCapacity {
  readonly pool: Pool;
  /** Devices per node, indexed like `pool.devices`. */
  readonly perNode: readonly number[];
  /** Untouched nodes left; negative when observed replicas overcommit the pool. */
  #fresh: number;
  /** What each node in use has left, in the order the nodes were first used. */
  readonly #used: number[][] = [];

  constructor(pool: Pool) {
    this.pool = pool;
    this.perNode = devicesPerNode(pool);
    this.#fresh = pool.nodes;
  }

  /** Untouched nodes left (may be negative). */
  get freshNodes(): number {
    return this.#fresh;
  }

  /** Nodes with at least one device charged or taken whole. */
  get usedNodes(): number {
    return this.pool.nodes - this.#fresh;
  }

  /** Devices charged per device entry, summed over nodes. */
  usedDevices(): number[] {
    const out = this.perNode.map(() => 0);
    const whole = Math.max(0, this.usedNodes - this.#used.length);
    for (let i = 0; i < out.length; i++) {
      let n = this.perNode[i]! * whole;
      for (const node of this.#used) n += this.perNode[i]! - node[i]!;
      out[i] = n;
    }
    return out;
  }

  #fits(node: readonly number[], d: PodDemand): boolean {
    return d.devices.every(([i, n]) => node[i]! >= n);
  }

  /** The index of the first node in use that takes `d`, or -1. */
  #firstFit(d: PodDemand): number {
    if (d.whole) return -1;
    for (let i = 0; i < this.#used.length; i++) if (this.#fits(this.#used[i]!, d)) return i;
    return -1;
  }

  #apply(d: PodDemand, steps: Step[], force: boolean): boolean {
    const at = this.#firstFit(d);
    if (at >= 0) {
      const node = this.#used[at]!;
      for (const [i, n] of d.devices) node[i]! -= n;
      steps.push({ kind: 'node', node: at, demand: d });
      return true;
    }
    if (!force && (this.#fresh <= 0 || !this.#fits(this.perNode, d))) return false;
    const phantom = this.#fresh <= 0;
    this.#fresh--;
    // An overcommitting pod holds a node that does not exist: nothing is left on it.
    if (d.whole || phantom) steps.push({ kind: 'fresh' });
    else {
      const node = [...this.perNode];
      for (const [i, n] of d.devices) node[i]! -= n;
      this.#used.push(node);
      steps.push({ kind: 'node', node: -1, demand: d });
    }
    return true;
  }

  /** Charges every pod of `pods` or none; undefined when they do not all fit. */
  place(pods: readonly PodDemand[]): Charge | undefined {
    const steps: Step[] = [];
    for (const d of pods) {
      if (!this.#apply(d, steps, false)) {
        this.undo({ pool: this, steps });
        return undefined;
      }
    }
    return { pool: this, steps };
  }

  /** Charges an observed pod, overcommitting when it fits nowhere. */
  force(d: PodDemand): void {
    this.#apply(d, [], true);
  }

  /** Reverts a charge made by {@link place} (the last charges first). */
  undo(charge: Charge): void {
    for (let s = charge.steps.length - 1; s >= 0; s--) {
      const step = charge.steps[s]!;
      if (step.kind === 'fresh') this.#fresh++;
      else if (step.node < 0) {
        this.#used.pop();
        this.#fresh++;
      } else {
        const node = this.#used[step.node]!;
        for (const [i, n] of step.demand.devices) node[i]! += n;
      }
    }
  }

  /**
   * Why `pods` do not fit, as the first pod that does not: whole-node pods in
   * nodes, others naming the device short on every node
   * ({@link msgDevicesShort}). Call on the state {@link place} refused.
   */
  why(pods: readonly PodDemand[]): string {
    const steps: Step[] = [];
    let text = '';
    for (const d of pods) {
      if (this.#apply(d, steps, false)) continue;
      if (d.whole) {
        const needs = pods.filter((p) => p.whole).length;
        text = msgNodesShort(this.pool.name, needs, this.#freshBefore(steps));
      } else text = this.#deviceShort(d);
      break;
    }
    this.undo({ pool: this, steps });
    return text;
  }

  #freshBefore(steps: readonly Step[]): number {
    return this.#fresh + steps.filter((s) => s.kind === 'fresh' || s.node < 0).length;
  }

  #deviceShort(d: PodDemand): string {
    const nodes = this.#fresh > 0 ? [...this.#used, this.perNode] : this.#used;
    let pick: readonly [number, number] | undefined;
    let pickFree = 0;
    for (const [i, n] of d.devices) {
      const free = nodes.reduce((m, node) => Math.max(m, node[i]!), 0);
      if (pick === undefined || (free < n && pickFree >= pick[1])) {
        pick = [i, n];
        pickFree = free;
      }
    }
    const [i, n] = pick ?? [0, 0];
    return msgDevicesShort(this.pool.name, n, this.pool.devices[i]?.name ?? 'device', pickFree);
  }
}

/** Free capacity per cluster name, one {@link PoolCapacity} per published pool (pool order). */
export type Capacity = Map<string, PoolCapacity[]>;

/** The first DRA device of `pool` with `deviceClassName`, or -1. */
function deviceFor(pool: Pool, deviceClassName: string): number {
  return pool.devices.findIndex((d) => (d.claim ?? 'DRA') === 'DRA' && (d.deviceClassName ?? '') === deviceClassName);
}

/** The pods an observed replica's member holds on `pool`, as demands (empty when it claims nothing). */
export function observedPods(pool: Pool, m: ObservedReplica['engines'][number]['members'][number]): PodDemand[] {
  if (m.claims.length === 0 || m.pods === 0) return [];
  const devices: [number, number][] = [];
  for (const r of m.claims) {
    const i = deviceFor(pool, r.deviceClassName);
    if (i >= 0) devices.push([i, r.count]);
  }
  const d: PodDemand = { devices, whole: m.role !== 'Standalone' || pool.exclusive };
  return Array.from({ length: m.pods }, () => d);
}

/**
 * Builds the free capacity of every cluster in the fleet after charging every
 * replica `charged` accepts, pool by pool in arrival order (arrival.ts: Ready
 * ones as they run, the others only where they fit after every older one).
 * A member pinned to a pool the cluster does not publish charges nothing.
 */
export function buildCapacity(
  clusters: readonly FleetCluster[],
  replicas: readonly ObservedReplica[],
  charged: (r: ObservedReplica) => boolean,
): Capacity {
  const out: Capacity = new Map();
  const slots = new Map<PoolCapacity, Slot[]>();
  for (const c of clusters) out.set(c.name, c.pools.map((p) => new PoolCapacity(p)));
  for (const r of replicas) {
    const caps = out.get(r.clusterName);
    if (caps === undefined || r.engines.length === 0 || !charged(r)) continue;
    for (const cap of caps) {
      const pods: PodDemand[] = [];
      for (const e of r.engines) for (const m of e.members) if (m.nodePoolName === cap.pool.name) pods.push(...observedPods(cap.pool, m));
      if (pods.length === 0) continue;
      const list = slots.get(cap) ?? [];
      list.push({ placed: r.created, namespace: r.namespace, deployment: r.deployment, replica: r.name, pods, mode: r.ready ? 'force' : 'fit' });
      slots.set(cap, list);
    }
  }
  for (const [cap, list] of slots) chargeSlots(cap, list);
  return out;
}
