/**
 * Argo CD health rules, one entry per XR kind Modelplane serves
 * (docs/argocd.md). `npm run argocd:generate` turns them into one
 * `resource.customizations.health.<group>_<kind>` key per kind: the shared
 * script deploy/argocd/health.lua preceded by the kind's rules as a Lua table.
 *
 * The condition types and reasons come from the functions' own exported
 * constants wherever a function exports them, so a renamed reason breaks the
 * build instead of silently turning a state Progressing.
 *
 * What the shared script does with them, in order (docs/argocd.md):
 * 1. no `status.conditions` yet → Progressing, `waiting`;
 * 2. `Synced` False (the function failed: ReconcileError) → Degraded;
 * 3. the kind's `rules`, first match wins;
 * 4. `Ready` True → Healthy, with the message of `healthy` when set;
 * 5. otherwise Progressing, with Ready's message.
 */
import {
  REASON_INVALID_NODE_POOL,
  REASON_INVALID_SPEC,
  SPEC_VALID,
} from '../../functions/lib/cloud-cluster.js';
import { REASON_INVALID_NETWORKING } from '../../functions/compose-eks-cluster/validate.js';
import { Accepted as CLASS_ACCEPTED, Reason as CLASS } from '../../functions/compose-inference-class/compose.js';
import { Reason as QUOTA, Usage } from '../../functions/compose-inference-quota/compose.js';
import { ArtifactReady, ClustersMatched, Reason as CACHE } from '../../functions/compose-model-cache/compose.js';
import { Reason as ENDPOINT, RoutingReady as ENDPOINT_ROUTING } from '../../functions/compose-model-endpoint/compose.js';
import { ModelAccepted, ModelReady, Reason as REPLICA } from '../../functions/compose-model-replica/compose.js';
import { AuthReason, Authenticated } from '../../functions/compose-model-service/auth.js';
import { EndpointsResolved, Reason as SERVICE, RewritePathsValid, RoutingReady } from '../../functions/compose-model-service/compose.js';
import { COLD_START_REASON, TYPE_COLD_START } from '../../functions/schedule-model-deployment/coldstart.js';
import { MSG_SCALED_TO_ZERO, REASON, TYPE_CACHE, TYPE_PROGRESSING, TYPE_READY, TYPE_SCHEDULED } from '../../functions/schedule-model-deployment/status.js';

/** The Argo CD health statuses a rule may give. */
export type Health = 'Healthy' | 'Progressing' | 'Degraded' | 'Suspended';

/** Matches condition `type` (with `status`, and one of `reasons`, when given). */
export interface ConditionTest {
  type: string;
  status?: 'True' | 'False' | 'Unknown';
  reasons?: readonly string[];
}

/** Matches a string status field, e.g. `status.phase`, equal to `equals`. */
export interface FieldTest {
  field: readonly string[];
  equals: string;
}

/**
 * One rule: when every test in `when` matches, the XR's health is `health`.
 * The message is the first matched condition's message, else the string at
 * `messageField`, else `text`, else `<Type> is <Status>: <Reason>`.
 */
export interface Rule {
  health: Health;
  when: readonly (ConditionTest | FieldTest)[];
  messageField?: readonly string[];
  text?: string;
}

/** Where the Healthy message comes from: a condition's message or a status field. */
export type HealthyMessage = { condition: string } | { field: readonly string[] };

/** The rules of one XR kind. */
export interface KindRules {
  group: string;
  kind: string;
  /** Progressing message before the XR has any condition. */
  waiting: string;
  rules: readonly Rule[];
  healthy?: HealthyMessage;
}

const MP = 'modelplane.ai';
const INFRA = 'infrastructure.modelplane.ai';

const when = (type: string, status: 'True' | 'False' | 'Unknown', ...reasons: string[]): ConditionTest =>
  reasons.length > 0 ? { type, status, reasons } : { type, status };
const degraded = (...tests: (ConditionTest | FieldTest)[]): Rule => ({ health: 'Degraded', when: tests });
const progressing = (...tests: (ConditionTest | FieldTest)[]): Rule => ({ health: 'Progressing', when: tests });

/** A cloud cluster kind (AKS, EKS, GKE, Nebius, Vultr): SpecValid False is Degraded; the rest is its composed resources' Ready. */
function cloudCluster(kind: string, ...reasons: string[]): KindRules {
  return {
    group: INFRA,
    kind,
    waiting: `Waiting for the ${kind}'s function to report status`,
    rules: [degraded(when(SPEC_VALID, 'False', REASON_INVALID_SPEC, REASON_INVALID_NODE_POOL, ...reasons))],
  };
}

/** Every XR kind, in the order the docs table lists them. */
export const KINDS: readonly KindRules[] = [
  cloudCluster('AKSCluster'),
  cloudCluster('EKSCluster', REASON_INVALID_NETWORKING),
  cloudCluster('GKECluster'),
  cloudCluster('NebiusCluster'),
  cloudCluster('VultrCluster'),
  {
    group: INFRA,
    kind: 'ServingStack',
    waiting: "Waiting for the ServingStack's function to report status",
    rules: [degraded(when('Accepted', 'False', 'InvalidSpec'))],
  },
  {
    group: MP,
    kind: 'InferenceClass',
    waiting: "Waiting for the InferenceClass's function to report status",
    rules: [degraded(when(CLASS_ACCEPTED, 'False', CLASS.InvalidSpec, 'InvalidQuantity'))],
  },
  {
    group: MP,
    kind: 'InferenceCluster',
    waiting: "Waiting for the InferenceCluster's function to report status",
    rules: [
      degraded(when('ClusterReady', 'False', 'InvalidSpec', 'ClassNotFound', 'InvalidClass', 'KubeconfigSecretNotFound', 'KubeconfigKeyNotFound')),
      { health: 'Degraded', when: [{ field: ['status', 'health', 'state'], equals: 'Unavailable' }], messageField: ['status', 'health', 'message'] },
      { health: 'Degraded', when: [{ field: ['status', 'health', 'state'], equals: 'Unreachable' }], messageField: ['status', 'health', 'message'] },
      { health: 'Degraded', when: [{ field: ['status', 'health', 'state'], equals: 'Degraded' }], messageField: ['status', 'health', 'message'] },
      { health: 'Suspended', when: [{ field: ['status', 'health', 'state'], equals: 'Draining' }], messageField: ['status', 'health', 'message'] },
      { health: 'Progressing', when: [{ field: ['status', 'health', 'state'], equals: 'Provisioning' }], messageField: ['status', 'health', 'message'] },
      progressing(when('ClusterReady', 'False')),
      progressing(when('BackendReady', 'False')),
    ],
    healthy: { field: ['status', 'health', 'message'] },
  },
  {
    group: MP,
    kind: 'InferenceGateway',
    waiting: "Waiting for the InferenceGateway's function to report status",
    rules: [degraded(when('ControllerReady', 'False', 'InvalidSpec')), progressing(when('ControllerReady', 'False'))],
  },
  {
    group: MP,
    kind: 'InferenceQuota',
    waiting: "Waiting for the InferenceQuota's function to report status",
    rules: [degraded(when(Usage, 'False', QUOTA.InvalidSpec)), degraded(when(Usage, 'True', QUOTA.OverQuota))],
    healthy: { field: ['status', 'summary'] },
  },
  {
    group: MP,
    kind: 'ModelCache',
    waiting: "Waiting for the ModelCache's function to report status",
    rules: [
      degraded(when(ClustersMatched, 'False', CACHE.NoClusters, CACHE.NoSupportedClusters)),
      degraded(when(ArtifactReady, 'False', CACHE.AuthSecretMissing, CACHE.Failed, CACHE.InvalidSpec)),
      progressing(when(ArtifactReady, 'False', CACHE.Partial, CACHE.Hydrating)),
    ],
    healthy: { condition: ClustersMatched },
  },
  {
    group: MP,
    kind: 'ModelDeployment',
    waiting: "Waiting for the ModelDeployment's scheduler to report status",
    rules: [
      degraded(when(TYPE_SCHEDULED, 'False', REASON.InvalidSpec, REASON.InvalidNodeSelector, REASON.NoClusters, REASON.InsufficientCapacity, REASON.QuotaExceeded)),
      degraded(when(TYPE_PROGRESSING, 'False', REASON.RolloutBlocked, REASON.FailoverBlocked, REASON.PolicyMoveBlocked)),
      degraded(when(TYPE_CACHE, 'False', REASON.ModelCacheNotFound)),
      degraded(when(TYPE_COLD_START, 'False', COLD_START_REASON.InvalidBar)),
      degraded(when(TYPE_COLD_START, 'False', COLD_START_REASON.SlowerThanBar), when(TYPE_READY, 'False')),
      // At zero under the HPA autoscaler nothing brings it back: its ReplicasReady says the kubectl scale that does.
      degraded(when(TYPE_READY, 'False', REASON.ScaledToZero)),
      { health: 'Healthy', when: [when(TYPE_SCHEDULED, 'True', REASON.ScaledToZero)], text: MSG_SCALED_TO_ZERO },
      progressing(when(TYPE_PROGRESSING, 'True', REASON.RollingUpdate, REASON.Failover, REASON.PolicyMove, REASON.OverCapacity)),
      progressing(when(TYPE_CACHE, 'False', REASON.ModelCacheUnresolved)),
      progressing(when(TYPE_SCHEDULED, 'False')),
      progressing(when(TYPE_READY, 'False')),
    ],
    healthy: { condition: TYPE_READY },
  },
  {
    group: MP,
    kind: 'ModelEndpoint',
    waiting: "Waiting for the ModelEndpoint's function to report status",
    rules: [degraded(when(ENDPOINT_ROUTING, 'False', ENDPOINT.InvalidURL, 'InvalidSpec')), progressing(when(ENDPOINT_ROUTING, 'False'))],
  },
  {
    group: MP,
    kind: 'ModelReplica',
    waiting: "Waiting for the ModelReplica's function to report status",
    rules: [
      degraded(when(ModelAccepted, 'False', REPLICA.InvalidSpec)),
      {
        health: 'Degraded',
        when: [{ field: ['status', 'phase'], equals: 'Degraded' }],
        text: 'Degraded: the replica served, and now not every engine workload is available',
      },
      {
        health: 'Progressing',
        when: [{ field: ['status', 'phase'], equals: 'Starting' }],
        text: 'Starting: pulling the image, downloading weights or loading the model',
      },
      progressing(when(ModelAccepted, 'False')),
      progressing(when(ModelReady, 'False')),
    ],
    healthy: { condition: ModelReady },
  },
  {
    group: MP,
    kind: 'ModelService',
    waiting: "Waiting for the ModelService's function to report status",
    rules: [
      degraded(when(EndpointsResolved, 'False', SERVICE.NoEndpoints, SERVICE.InvalidSpec)),
      degraded(when(RewritePathsValid, 'False')),
      degraded(when(RoutingReady, 'False', SERVICE.GatewayNotFound)),
      degraded(when(Authenticated, 'False', AuthReason.KeySecretNotFound, AuthReason.KeySecretEmpty)),
      progressing(when(RoutingReady, 'False')),
    ],
    healthy: { condition: EndpointsResolved },
  },
];
