/**
 * The NetworkPolicy of each engine workload of a replica
 * (docs/design.md#production-runtime), on the
 * workload cluster, in `default` beside the workload: `networking.k8s.io/v1`,
 * named after the workload, desired key `network-policy-<engine>`.
 *
 * Guarantees:
 * - It selects the workload's pods (Deployment: `modelplane.ai/workload`;
 *   LeaderWorkerSet: `leaderworkerset.sigs.k8s.io/name`, leaders and workers)
 *   and governs Ingress only (egress stays open: weights, images, NIXL peers).
 * - Allowed in, and nothing else (a selected pod denies all other ingress):
 *   1. every pod of the replica's own workloads, all ports (its gang: leader
 *      ↔ workers; prefill ↔ decode and the pd-sidecar in PrefillDecode);
 *   2. the replica's endpoint picker pods (`app: <replica>-epp`), TCP 8000
 *      (it reads the engines' metrics there);
 *   3. the inference Gateway's Envoy proxy pods
 *      (`app.kubernetes.io/component: proxy` in `envoy-gateway-system`), TCP 8000;
 *   4. the monitoring stack's Prometheus (`app.kubernetes.io/name: prometheus`
 *      in `monitoring`), TCP 8000.
 *   The namespaces are the ones compose-serving-stack installs into
 *   (functions/lib/serving-stack.ts), matched by `kubernetes.io/metadata.name`.
 * Source: Kubernetes "Network Policies" (peers within one `from` item are
 * ANDed: namespaceSelector + podSelector).
 */
import type { KubeObject } from '../lib/function.js';
import {
  ENVOY_GATEWAY_NAMESPACE,
  ENVOY_PROXY_POD_LABELS,
  MONITORING_NAMESPACE,
  NAMESPACE_NAME_LABEL,
  PROMETHEUS_POD_LABELS,
} from '../lib/serving-stack.js';
import { eppName } from './epp.js';
import { LWS_NAME_LABEL } from './lifecycle.js';
import { ENGINE_PORT, REMOTE_NAMESPACE, WORKLOAD_LABEL } from './types.js';

/** The pod selector of a composed workload's pods. */
export function workloadPods(w: { kind: string; name: string }): Record<string, string> {
  return w.kind === 'LeaderWorkerSet' ? { [LWS_NAME_LABEL]: w.name } : { [WORKLOAD_LABEL]: w.name };
}

/**
 * The NetworkPolicy of workload `self` of replica `replica`, whose workloads
 * (including `self`) are `all`.
 */
export function networkPolicy(replica: string, self: { kind: string; name: string }, all: { kind: string; name: string }[]): KubeObject {
  const enginePort = [{ protocol: 'TCP', port: ENGINE_PORT }];
  const inNamespace = (ns: string, labels: Readonly<Record<string, string>>) => ({
    namespaceSelector: { matchLabels: { [NAMESPACE_NAME_LABEL]: ns } },
    podSelector: { matchLabels: { ...labels } },
  });
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: self.name, namespace: REMOTE_NAMESPACE },
    spec: {
      podSelector: { matchLabels: workloadPods(self) },
      policyTypes: ['Ingress'],
      ingress: [
        { from: all.map((w) => ({ podSelector: { matchLabels: workloadPods(w) } })) },
        { from: [{ podSelector: { matchLabels: { app: eppName(replica) } } }], ports: enginePort },
        { from: [inNamespace(ENVOY_GATEWAY_NAMESPACE, ENVOY_PROXY_POD_LABELS)], ports: enginePort },
        { from: [inNamespace(MONITORING_NAMESPACE, PROMETHEUS_POD_LABELS)], ports: enginePort },
      ],
    },
  };
}
