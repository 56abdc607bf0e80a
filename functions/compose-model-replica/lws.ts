/**
 * The llm-d backend: a Leader + Worker engine becomes a LeaderWorkerSet
 * (`leaderworkerset.x-k8s.io/v1`, LWS v0.8.0) (docs/kinds/modelreplica.md#the-llm-d-backend).
 *
 * Guarantees:
 * - Group size is 1 + the Worker's `worker.nodes` (1 + 1 when absent); one
 *   group per engine copy.
 * - Both templates get the leader address and rank as the first two env vars
 *   (`MODELPLANE_LEADER_ADDRESS=$(LWS_LEADER_ADDRESS)`,
 *   `MODELPLANE_RANK=$(LWS_WORKER_INDEX)`), then the user's env; commands are
 *   passed verbatim and no bootstrap flags are added.
 * - Each member's pods are pinned to that member's own pool; a claimless
 *   member (a coordinator-only leader) gets no claim template, no
 *   resourceClaims and no container claims, but is still pinned and tolerated.
 * - Only the leader serves: it alone carries the serving label, port 8000,
 *   the readiness, startup and liveness probes and the preStop wait; every
 *   pod gets the drain grace period (lifecycle.ts); the worker template carries only the worker
 *   member's own metadata (omitted when empty).
 * - The cache is mounted on both templates; `--model=/mnt/models` is added to
 *   the leader only.
 * - Each pod of a group that claims devices is on its own node, as the fleet
 *   scheduler's ledger charges it (a whole node per gang pod,
 *   docs/workload-clusters.md#a-gangs-pods-one-per-node): its template carries label
 *   `modelplane.ai/gang-devices: "true"` and a required pod anti-affinity on
 *   `kubernetes.io/hostname` against the pods so labelled of its own group
 *   (`matchLabelKeys: [leaderworkerset.sigs.k8s.io/group-key]`, the key the
 *   LeaderWorkerSet pod webhook sets). Without it kube-scheduler packs a
 *   group's pods onto one node when its devices suffice. A claimless member
 *   gets neither.
 */
import type { JsonObject, KubeObject } from '../lib/function.js';
import { childName } from '../lib/names.js';
import { claimTemplates } from './claims.js';
import { type Lifecycle, withDrain, withHealth } from './lifecycle.js';
import { type Workload, workloadKey } from './native.js';
import {
  claimResources,
  claims,
  containerMounts,
  engineArgs,
  engineContainer,
  healthProbe,
  memberPodSpec,
  podMetadata,
  podTemplate,
  userEnv,
  workloadMetadata,
} from './pod.js';
import { ENGINE_PORT, type Engine, LWS_ROLE_LABEL, type Member, REMOTE_NAMESPACE, type Replica, roleOf, SERVING_LABEL } from './types.js';

/** Label of the gang pods that claim devices (each on its own node). */
export const GANG_DEVICES_LABEL = 'modelplane.ai/gang-devices';

/** LeaderWorkerSet's label with the LeaderWorkerSet's name (set on every pod by its pod webhook). */
export const LWS_NAME_LABEL = 'leaderworkerset.sigs.k8s.io/name';

/** LeaderWorkerSet's label with a value unique to each group (set on every pod by its pod webhook). */
export const LWS_GROUP_KEY_LABEL = 'leaderworkerset.sigs.k8s.io/group-key';

/** The required anti-affinity that keeps a group's device-claiming pods on distinct nodes. */
function ownNode(): JsonObject {
  return {
    podAntiAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: [
        {
          labelSelector: { matchLabels: { [GANG_DEVICES_LABEL]: 'true' } },
          matchLabelKeys: [LWS_GROUP_KEY_LABEL],
          topologyKey: 'kubernetes.io/hostname',
        },
      ],
    },
  };
}

/** The env aliases every gang pod gets first, in this order. */
export const GANG_ENV = [
  { name: 'MODELPLANE_LEADER_ADDRESS', value: '$(LWS_LEADER_ADDRESS)' },
  { name: 'MODELPLANE_RANK', value: '$(LWS_WORKER_INDEX)' },
] as const;

function podSpec(replica: Replica, engine: Engine, m: Member, leader: boolean, lc: Lifecycle): JsonObject {
  const c = engineContainer(m);
  const container: JsonObject = { name: 'engine', image: c.image, volumeMounts: containerMounts(replica) };
  if (claims(m)) container['resources'] = claimResources();
  if (c.command !== undefined) container['command'] = [...c.command];
  const args = engineArgs(c, leader && replica.spec.modelCacheRef !== undefined);
  if (args.length > 0) container['args'] = args;
  container['env'] = [...GANG_ENV.map((e) => ({ ...e })), ...userEnv(c)];
  if (leader) {
    container['ports'] = [{ containerPort: ENGINE_PORT }];
    container['readinessProbe'] = healthProbe(ENGINE_PORT);
    withHealth(container, ENGINE_PORT, lc);
  }
  const spec = memberPodSpec(replica, engine, m, container);
  if (claims(m)) spec['affinity'] = ownNode();
  withDrain(spec, lc);
  return spec;
}

/**
 * The LeaderWorkerSet of a Leader + Worker engine, with its claim templates;
 * `lc` gives the leader's probes and every pod's drain (lifecycle.ts).
 */
export function lwsWorkload(replica: Replica, engine: Engine, lc: Lifecycle): Workload {
  const leader = engine.members.find((m) => roleOf(m) === 'Leader') ?? engine.members[0]!;
  const worker = engine.members.find((m) => roleOf(m) === 'Worker');
  const name = childName(replica.name, engine.name);

  const gangDevices = (m: Member) => (claims(m) ? { [GANG_DEVICES_LABEL]: 'true' } : {});
  const leaderMeta = podMetadata(leader.template.metadata, {
    [SERVING_LABEL]: replica.name,
    [LWS_ROLE_LABEL]: 'leader',
    ...gangDevices(leader),
  });
  const leaderTemplate = podTemplate(leaderMeta, podSpec(replica, engine, leader, true, lc));
  const lwt: JsonObject = { size: 1 + (worker?.worker?.nodes ?? 1), leaderTemplate };
  if (worker) {
    const workerMeta = podMetadata(worker.template.metadata, gangDevices(worker));
    lwt['workerTemplate'] = podTemplate(workerMeta, podSpec(replica, engine, worker, false, lc));
  }
  const manifest: KubeObject = {
    apiVersion: 'leaderworkerset.x-k8s.io/v1',
    kind: 'LeaderWorkerSet',
    metadata: workloadMetadata(name, REMOTE_NAMESPACE, leader.template.metadata),
    spec: { replicas: engine.copies ?? 1, leaderWorkerTemplate: lwt },
  };
  return {
    engine,
    key: workloadKey(engine),
    manifest,
    servingPod: leaderTemplate,
    servingMember: leader,
    claims: claimTemplates(replica.name, engine.name, worker ? [leader, worker] : [leader]),
  };
}
