/**
 * What an InferenceCluster composes besides the nested cloud XR
 * (docs/kinds/inferencecluster.md#how-a-cluster-is-composed): the ClusterProviderConfig that reaches
 * the workload cluster, the ServingStack, the Usages that order teardown, the
 * replica guard, and the pass-through of observed children on hold paths.
 *
 * Guarantees:
 * - Names: ClusterProviderConfig `child_name(<ic>, "cluster-kubeconfig")`,
 *   ServingStack `child_name(<ic>, "serving-stack")` in modelplane-system.
 * - ProviderConfigs, Usages and ClusterUsages are always marked ready (they
 *   carry no Ready condition of their own); everything else is ready only
 *   when observed Ready.
 * - A kept (passed-through) child never carries status or Crossplane's own
 *   `spec.crossplane` block of a nested XR, so re-applying it changes nothing.
 */
import type { DesiredResource, JsonObject, KubeObject, ObservedResource } from '../lib/function.js';
import { keepObserved } from '../lib/function.js';
import { childName, providerConfigName } from '../lib/names.js';
import {
  clusterProviderConfig,
  clusterUsage,
  HELM_API_VERSION,
  KUBERNETES_API_VERSION,
  type ProviderConfigCredentials,
  usage,
} from '../lib/objects.js';
import { stackProviderConfigName } from '../lib/serving-stack.js';
import { INFRA_API_VERSION, SYSTEM_NAMESPACE } from './nested-cluster.js';

/** Desired-resource keys. */
export const KEY_CPC = 'cluster-provider-config-kubernetes';
export const KEY_SERVING_STACK = 'serving-stack';
export const KEY_REPLICA_GUARD = 'usage-replicas';

/** Reason of the replica guard ClusterUsage. */
export const GUARD_REASON = 'ModelReplicas are scheduled to this InferenceCluster';

/** A secret entry of a nested XR's `status.secrets` or a ServingStack's `spec.secrets`. */
export interface SecretEntry {
  type: string;
  name: string;
  key: string;
  namespace?: string;
}

/** Name of the ClusterProviderConfig ModelReplicas and ModelCaches target (the library's, shared with `modelplane plan`). */
export { providerConfigName };

/** Name of the ServingStack. */
export function servingStackName(ic: string): string {
  return childName(ic, 'serving-stack');
}

/**
 * provider-kubernetes ClusterProviderConfig from a kubeconfig entry and an
 * optional identity entry; Secrets default to modelplane-system.
 */
export function clusterProviderConfigFor(ic: string, kubeconfig: SecretEntry, identity?: SecretEntry): KubeObject {
  const creds: ProviderConfigCredentials = {
    kubeconfig: { namespace: SYSTEM_NAMESPACE, name: kubeconfig.name, key: kubeconfig.key },
  };
  if (identity) {
    creds.identity = {
      type: identity.type,
      secretRef: { namespace: identity.namespace ?? SYSTEM_NAMESPACE, name: identity.name, key: identity.key },
    };
  }
  return clusterProviderConfig('kubernetes', { name: providerConfigName(ic) }, creds);
}

/**
 * The ServingStack with these secrets (and `nvidiaDriverRoot` when given; and
 * the InferenceCluster's `spec.gateway` hostname/tls as its `spec.gateway`, docs/front-door.md).
 */
export function servingStack(ic: string, secrets: SecretEntry[], nvidiaDriverRoot?: string, gateway?: JsonObject): KubeObject {
  const spec: JsonObject = { secrets: secrets.map((s) => ({ ...s })) };
  if (nvidiaDriverRoot) spec['nvidiaDriverRoot'] = nvidiaDriverRoot;
  if (gateway) spec['gateway'] = structuredClone(gateway);
  return {
    apiVersion: INFRA_API_VERSION,
    kind: 'ServingStack',
    metadata: { name: servingStackName(ic), namespace: SYSTEM_NAMESPACE },
    spec,
  };
}

/** `usage-<cloud>-by-backend`: the nested cluster XR outlives the ServingStack (so Helm can uninstall). */
export function backendUsage(kind: string): KubeObject {
  return usage({
    namespace: SYSTEM_NAMESPACE,
    of: { apiVersion: INFRA_API_VERSION, kind, resourceSelector: { matchControllerRef: true } },
    by: { apiVersion: INFRA_API_VERSION, kind: 'ServingStack', resourceSelector: { matchControllerRef: true } },
    replayDeletion: true,
  });
}

/**
 * `usage-<cloud>-by-stack-pc-<family>`: the nested cluster XR (whose cloud
 * cluster writes the kubeconfig Secret) outlives the ServingStack's
 * ProviderConfig of each provider family, which its own Usages keep until
 * every Release and Object using it is gone. The Usage by the ServingStack
 * alone holds only under foreground deletion: deleted in the background
 * (plain `kubectl delete`, or Crossplane replaying a refused deletion), the
 * ServingStack goes at once while its Objects still need the Secret to
 * uninstall (docs/workload-clusters.md#deleting-a-cluster-on-a-workload-api-server).
 */
export function stackProviderConfigUsages(ic: string, kind: string, block: string): Record<string, KubeObject> {
  const out: Record<string, KubeObject> = {};
  for (const family of ['helm', 'kubernetes'] as const) {
    out[`usage-${block}-by-stack-pc-${family}`] = usage({
      namespace: SYSTEM_NAMESPACE,
      of: { apiVersion: INFRA_API_VERSION, kind, resourceSelector: { matchControllerRef: true } },
      by: { apiVersion: family === 'helm' ? HELM_API_VERSION : KUBERNETES_API_VERSION, kind: 'ProviderConfig', resourceRef: { name: stackProviderConfigName(servingStackName(ic)) } },
      replayDeletion: true,
    });
  }
  return out;
}

/** `usage-replicas`: the InferenceCluster outlives every ModelReplica scheduled to it. */
export function replicaGuard(ic: string): KubeObject {
  return clusterUsage({
    of: { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceCluster', resourceRef: { name: ic } },
    reason: GUARD_REASON,
    replayDeletion: true,
  });
}

const ALWAYS_READY_KINDS = new Set(['ClusterProviderConfig', 'ProviderConfig', 'Usage', 'ClusterUsage']);

/**
 * Observed children passed through as desired, so nothing is deleted on a
 * hold path (docs/design.md#keep-what-exists). `only` restricts to some keys.
 */
export function keepChildren(observed: Record<string, ObservedResource>, only?: string[]): Record<string, DesiredResource> {
  const picked: Record<string, ObservedResource> = {};
  for (const key of only ?? Object.keys(observed)) {
    const o = observed[key];
    if (o) picked[key] = o;
  }
  const kept = keepObserved(picked);
  for (const d of Object.values(kept)) {
    const spec = d.resource['spec'];
    if (spec && typeof spec === 'object' && 'crossplane' in spec && String(d.resource.apiVersion).includes('modelplane.ai/')) {
      const { crossplane: _crossplane, ...rest } = spec as JsonObject;
      d.resource['spec'] = rest;
    }
    if (ALWAYS_READY_KINDS.has(d.resource.kind)) d.ready = true;
  }
  return kept;
}

/** One observed child kept, or `undefined` when not observed. */
export function keepChild(observed: Record<string, ObservedResource>, key: string): DesiredResource | undefined {
  return keepChildren(observed, [key])[key];
}
