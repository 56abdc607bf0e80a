/**
 * The scheduler's internal domain types
 * (docs/design.md#domain-types-inside-api-shapes-at-the-edge: `Candidate`,
 * `Placement`, `Ledger` inside the scheduler; one conversion to API shapes at
 * the edge, in `children.ts` and `status.ts`).
 *
 * Guarantees: every type here is plain, immutable-by-convention data built
 * once per call by `deployment.ts` (the ModelDeployment) and `fleet.ts` (the
 * InferenceClusters and ModelReplicas); nothing here refers to protobuf, the
 * SDK or a CEL implementation.
 */
import type { JsonObject, KubeObject } from '../function.js';
import type { InferenceClusterStatusGpuPoolDevice } from '../generated/inferenceclusters.js';
import type { HealthState } from '../health.js';

/** A member's role in its engine (ModelDeployment `members[].role`). @default 'Standalone' */
export type Role = 'Standalone' | 'Leader' | 'Worker';

/** A device of one node of a pool, as an InferenceCluster publishes it in `status.gpuPools[].devices`. */
export type PoolDevice = InferenceClusterStatusGpuPoolDevice;

/** One `nodeSelector.devices[]` entry of a member: what each pod of the member needs on its node. */
export interface DeviceRequestSpec {
  /** Request name, unique within the member (`gpu`). */
  name: string;
  /** Devices per pod (per node). @default 1 */
  count: number;
  /** The non-empty `cel` strings of `selectors[]`, in order; all must hold (logical AND). */
  selectors: string[];
  /** Field path of each selector, e.g. `spec.template.spec.engines[0].members[0].nodeSelector.devices[0].selectors[0]`. */
  selectorPaths: string[];
}

/** A member of an engine, compiled from the deployment (docs/kinds/modeldeployment.md#compiling-selectors). */
export interface MemberSpec {
  role: Role;
  /** Pods per copy: `worker.nodes` for a Worker with a worker block, else 1. */
  pods: number;
  /** Node cost of the member when it claims devices: pods × engine copies (nodes). */
  nodes: number;
  /** The member's device requests; empty when it has no nodeSelector. */
  requests: DeviceRequestSpec[];
  /** `worker.nodes` as written, when the member has a worker block. */
  workerNodes?: number;
  /** The member's pod template, verbatim. */
  template: JsonObject;
}

/** An engine of the deployment: all its members run on one pool. */
export interface EngineSpec {
  name: string;
  /** Copies of the engine per replica. @default 1 */
  copies: number;
  phase?: 'Prefill' | 'Decode';
  members: MemberSpec[];
  /** True for a Leader + Worker gang, which needs a pool with a multi-node fabric. */
  gang: boolean;
}

/** A toleration of InferenceCluster taints (Kubernetes core/v1 Toleration semantics, effects limited to NoSchedule/NoExecute). */
export interface Toleration {
  key?: string;
  /** @default 'Equal' */
  operator: 'Exists' | 'Equal';
  value?: string;
  /** Empty tolerates every effect. */
  effect?: 'NoSchedule' | 'NoExecute';
}

/** An InferenceCluster taint (`spec.taints[]`). */
export interface Taint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'NoExecute';
}

/** A GPU pool of a cluster (`status.gpuPools[]`). */
/** A pool's capacity type (`status.gpuPools[].capacityType`; absent reads OnDemand): docs/placement-policy.md. */
export type CapacityType = 'OnDemand' | 'Spot' | 'Reserved';

export interface Pool {
  name: string;
  /** `gpuPools[].className`, when published (InferenceQuota class limits, docs/quotas.md). */
  className?: string;
  /** `gpuPools[].capacityType`, OnDemand when absent or unknown. */
  capacityType: CapacityType;
  /** `gpuPools[].price`: one node for one hour, in micro-units of `currency`; undefined when unpriced or malformed. */
  price?: { currency: string; micros: number };
  /** Node budget, floored at 0 (absent or negative means 0). Unit: nodes. */
  nodes: number;
  /**
   * True when the pool can take Leader + Worker gangs: its nodes are on a
   * fabric (`gpuPools[].fabric`) in a cluster whose `status.capabilities`
   * offer one (docs/design.md#multi-node-needs-a-fabric,
   * docs/design.md#declared-capabilities).
   */
  multiNode: boolean;
  /** The devices of one node, in published order (placement takes the first that fits). */
  devices: PoolDevice[];
  /** `gpuPools[].exclusive`: a pod claiming any device takes a whole node (capacity.ts). */
  exclusive: boolean;
  /**
   * The capacity ledger the cluster published (`gpuPools[].used`, ledger.ts):
   * what every deployment's replicas hold here. Undefined when not published yet.
   */
  used?: PoolLedger;
}

/** A pool's published capacity ledger, read into charges (ledger.ts). */
export interface PoolLedger {
  /** By owning deployment, sorted by (namespace, deployment). */
  holders: LedgerHolder[];
}

/**
 * A run of identical pods of one replica: `count` pods, each claiming
 * `devices` ([index in the pool's devices, count]) on one node, or a whole node.
 */
export interface LedgerRun {
  count: number;
  devices: (readonly [number, number])[];
  whole: boolean;
  /** The ModelReplica these pods belong to (absent in a ledger published before it was recorded). */
  replica?: string;
  /** Its `metadata.creationTimestamp`: its place in the arrival order (arrival.ts). */
  placed?: string;
  /** The replica found no room after every older one: its pods are Pending and hold nothing (arrival.ts). */
  overCapacity?: boolean;
}

/** One deployment's holding in a pool: its claiming pods, replica by replica in arrival order. */
export interface LedgerHolder {
  namespace: string;
  deployment: string;
  runs: LedgerRun[];
}

/** An InferenceCluster as the scheduler sees it. */
export interface FleetCluster {
  name: string;
  /** `metadata.labels` (for `spec.placement.tiers[].clusterSelector`), {} when none. */
  labels: Record<string, string>;
  /** Condition Ready=True. */
  ready: boolean;
  /** `status.gateway.address`, "" when not published. */
  gatewayAddress: string;
  taints: Taint[];
  /** Pools in published order (the order placement tries them in). */
  pools: Pool[];
  /**
   * Set when the cluster's status is there but cannot be read (it fails the
   * XRD's status schema): the field and the problem. Such a cluster takes no
   * new replica, and ours on it are held as they are.
   */
  unreadable?: string;
  /**
   * Set when what decides whether our replicas there may go is missing or
   * cannot be read although the rest of the status can: no status, no
   * `status.gpuPools`, or a Ready condition that is absent, Unknown or
   * garbage (the field and the problem). A replica of ours there that no
   * longer fits is held as it is instead of being dropped as "not Ready"
   * or "pool gone" (scheduling.ts); a replica that fits stays current.
   */
  unknown?: string;
  /**
   * `status.health` as published (lib/health.ts, docs/failover.md), or
   * undefined when the cluster publishes none (then its Ready condition
   * alone decides, as before health existed).
   */
  health?: { state: HealthState; since: string; message: string };
  /** `spec.drain: true`: its replicas are re-placed, make before break, and it takes none. */
  drain?: boolean;
}

/** A member of a ModelReplica as observed (what it was stamped with at placement). */
export interface ObservedMember {
  role: Role;
  /** "" when unset. */
  nodePoolName: string;
  /** Pods it runs: pods × copies as stamped (a Worker's `worker.nodes`, else 1). */
  pods: number;
  /** Its stamped `deviceRequests` (what each pod claims); empty when it claims nothing. */
  claims: { deviceClassName: string; count: number }[];
}

/** An engine of an observed ModelReplica. */
export interface ObservedEngine {
  name: string;
  members: ObservedMember[];
}

/** A ModelReplica as read from the `own-replicas` requirement or an observed key (its deployment and namespace as its labels say). */
export interface ObservedReplica {
  name: string;
  namespace: string;
  /** Label `modelplane.ai/deployment`, "" when missing. */
  deployment: string;
  /** `spec.clusterName`, "" when missing. */
  clusterName: string;
  /** Condition Ready=True on the ModelReplica. */
  ready: boolean;
  /** The object as read (a replica kept at its previous spec is composed from it). */
  source: KubeObject;
  /** Label `modelplane.ai/replica-index` as an integer; 0 when missing or not an integer. */
  index: number;
  /** `metadata.creationTimestamp`, "" when missing: its place in a pool's arrival order (arrival.ts). */
  created: string;
  engines: ObservedEngine[];
}

/** A DRA request resolved against a pool: what the ModelReplica's member claims. */
export interface ResolvedRequest {
  name: string;
  /** The matched device's `deviceClassName`, "" when it has none. */
  deviceClassName: string;
  /** Index of the matched device in the pool's `devices` (what capacity.ts charges). */
  device: number;
  count: number;
  /** The request's CEL selectors, verbatim, in order. */
  selectors: string[];
}

/** Where one member runs and what it claims there. */
export interface MemberPlacement {
  role: Role;
  pool: string;
  /** Claimable (DRA) requests only; empty when the member rides along claimless. */
  requests: ResolvedRequest[];
}

/** Where one engine runs: all its members on one pool (members in deployment order). */
export interface EnginePlacement {
  name: string;
  members: MemberPlacement[];
}

/** One placed replica: a (cluster, index) identity and its engines' placements. */
export interface Candidate {
  cluster: string;
  /** Per-cluster index: the smallest free one when newly placed. */
  index: number;
  /** The cluster's gateway address, "" when it has none. */
  gatewayAddress: string;
  engines: EnginePlacement[];
  /** True when kept from an existing replica, false when placed by this call. */
  retained: boolean;
  /** Its part in a rollout (scheduling.ts): `current` unless a rollout is under way. */
  role: RolloutRole;
  /** True when it is observed Ready. */
  ready: boolean;
  /** For a `retiring` replica: the observed object, composed as it is (its previous spec). */
  previous?: KubeObject;
  /**
   * Set when the replica is held as it was observed because its cluster's
   * published state cannot be read (why): it is passed through unchanged,
   * never recomposed from pools that cannot be read.
   */
  held?: string;
  /**
   * Set on a `retiring` replica that is over capacity (arrival.ts): the pool
   * where it found no room after older replicas, so its pods are Pending; it
   * is replaced elsewhere and goes once the replacement is Ready.
   */
  overCapacity?: string;
  /**
   * Set on a `retiring` replica whose cluster is Unavailable or drained
   * (docs/failover.md): why it is re-placed. It goes only once enough Ready
   * replicas run elsewhere, never before.
   */
  failover?: string;
  /**
   * Set on a `retiring` replica that placement policy moves
   * (docs/placement-policy.md): drain-back to a better tier, or a Spot
   * replica replaced on a non-Spot pool for `minOnDemand`. Like failover, it
   * goes only once `replicas` Ready ones run without it.
   */
  policy?: string;
  /** The `spec.placement.tiers` index its pools are in (set when the deployment has tiers). */
  tier?: number;
  /**
   * Set when the control plane cannot see the replica's cluster (health
   * Unreachable or Unavailable): the replica is not counted Ready whatever
   * it last reported, and its endpoint is kept as it is while Unreachable.
   */
  unseen?: HealthState;
}

/**
 * A replica's part in a rollout: `current` runs the current spec; `surge` runs
 * it but is not Ready while replicas of the previous spec still run;
 * `retiring` runs the previous spec until a Ready replacement exists.
 */
export type RolloutRole = 'current' | 'surge' | 'retiring';
