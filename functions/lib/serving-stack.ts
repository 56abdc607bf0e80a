/**
 * Where the serving stack (compose-serving-stack, docs/kinds/servingstack.md) puts the
 * pieces other functions address on a workload cluster: shared so that a
 * NetworkPolicy of compose-model-replica names the namespaces the stack
 * actually installs into instead of guessing them.
 */

import { childName } from './names.js';

/**
 * The name of a ServingStack's two ProviderConfigs (provider-kubernetes and
 * provider-helm, both in the stack's namespace): `child_name(<stack>, "cluster")`.
 * The InferenceCluster names them in the Usages that keep its cloud cluster
 * until they are gone (docs/workload-clusters.md#deleting-a-cluster-on-a-workload-api-server).
 */
export function stackProviderConfigName(stack: string): string {
  return childName(stack, 'cluster');
}

/** Envoy Gateway's namespace; it runs the inference Gateway's proxy pods there too. */
export const ENVOY_GATEWAY_NAMESPACE = 'envoy-gateway-system';
/** Pod label of Envoy Gateway's proxy pods (the one the stack's Prometheus scrape config keeps). */
export const ENVOY_PROXY_POD_LABELS = { 'app.kubernetes.io/component': 'proxy' } as const;
/** kube-prometheus-stack's namespace. */
export const MONITORING_NAMESPACE = 'monitoring';
/** Pod label the Prometheus operator puts on the Prometheus server pods. */
export const PROMETHEUS_POD_LABELS = { 'app.kubernetes.io/name': 'prometheus' } as const;
/** Label every namespace carries with its own name (Kubernetes ≥ 1.22, NamespaceDefaultLabelName). */
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

/**
 * The path of each serving stack's federate route on its inference gateway:
 * its Prometheus's `/federate`, which the control plane's fleet view scrapes
 * (docs/autoscaling.md#the-fleet-signal).
 */
export const FEDERATE_PATH = '/modelplane/federate';
