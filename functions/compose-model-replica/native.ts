/**
 * The native backend: a Standalone engine becomes an `apps/v1` Deployment
 * (docs/kinds/modelreplica.md#native-backend).
 *
 * Guarantees: the Deployment is named child_name(replica, engine), runs
 * `copies` pods selected by `modelplane.ai/workload`, and every pod carries
 * the serving label (so the InferencePool finds it), is pinned to its pool,
 * tolerates the GPU taint and claims its devices through the member's
 * ResourceClaimTemplate. `args` is always written (possibly empty).
 */
import type { JsonObject, KubeObject } from '../lib/function.js';
import { childName } from '../lib/names.js';
import { claimTemplates } from './claims.js';
import { type Lifecycle, withDrain, withHealth } from './lifecycle.js';
import {
  claimResources,
  claims,
  containerMounts,
  engineArgs,
  engineContainer,
  healthProbe,
  memberPodSpec,
  type PodTemplate,
  podMetadata,
  podTemplate,
  userEnv,
  workloadMetadata,
} from './pod.js';
import { ENGINE_PORT, type Engine, type Member, REMOTE_NAMESPACE, type Replica, roleOf, SERVING_LABEL, WORKLOAD_LABEL } from './types.js';

/** A composed engine workload and the pieces routing decorates. */
export interface Workload {
  engine: Engine;
  /** Desired key: `model-serving-<engine>`. */
  key: string;
  /** The Deployment or LeaderWorkerSet. */
  manifest: KubeObject;
  /** The pod template that serves traffic (Deployment template, LWS leader template), inside `manifest`. */
  servingPod: PodTemplate;
  /** The member whose pods serve traffic. */
  servingMember: Member;
  /** The member claim templates, by desired key. */
  claims: { key: string; manifest: KubeObject }[];
}

/** The desired key of an engine's workload. */
export function workloadKey(engine: Engine): string {
  return `model-serving-${engine.name}`;
}

/**
 * The Deployment of a Standalone engine, with its claim template; `lc` gives
 * its probes and drain (lifecycle.ts).
 */
export function nativeWorkload(replica: Replica, engine: Engine, lc: Lifecycle): Workload {
  const member = engine.members.find((m) => roleOf(m) === 'Standalone') ?? engine.members[0]!;
  const name = childName(replica.name, engine.name);
  const c = engineContainer(member);
  const container: JsonObject = {
    name: 'engine',
    image: c.image,
    args: engineArgs(c, replica.spec.modelCacheRef !== undefined),
    ports: [{ containerPort: ENGINE_PORT }],
    volumeMounts: containerMounts(replica),
    readinessProbe: healthProbe(ENGINE_PORT),
  };
  withHealth(container, ENGINE_PORT, lc);
  if (claims(member)) container['resources'] = claimResources();
  if (c.command !== undefined) container['command'] = [...c.command];
  if (c.env !== undefined) container['env'] = userEnv(c);

  const meta = podMetadata(member.template.metadata, { [SERVING_LABEL]: replica.name, [WORKLOAD_LABEL]: name });
  const spec = memberPodSpec(replica, engine, member, container);
  withDrain(spec, lc);
  const template = podTemplate(meta, spec);
  const manifest: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: workloadMetadata(name, REMOTE_NAMESPACE, member.template.metadata),
    spec: {
      replicas: engine.copies ?? 1,
      selector: { matchLabels: { [WORKLOAD_LABEL]: name } },
      template,
    },
  };
  return {
    engine,
    key: workloadKey(engine),
    manifest,
    servingPod: template,
    servingMember: member,
    claims: claimTemplates(replica.name, engine.name, [member]),
  };
}
