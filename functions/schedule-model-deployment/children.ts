/**
 * The composed children of a ModelDeployment: one ModelReplica per placed
 * replica and one ModelEndpoint per Ready replica (docs/kinds/modeldeployment.md#the-modelreplica,
 * docs/kinds/modeldeployment.md#the-modelendpoint).
 * The one conversion from scheduler types to API shapes.
 *
 * Guarantees:
 * - Keys and names follow the reference so an installation can switch
 *   implementations without replacing running replicas: key
 *   `replica-<cluster>-<index>` / `endpoint-<cluster>-<index>`, name
 *   `opaqueName(<deployment>, <cluster>, <index>)`, namespace of the XR.
 * - Labels: the template's labels, then the managed ones
 *   (`modelplane.ai/deployment`, `modelplane.ai/cluster`,
 *   `modelplane.ai/replica-index`), which always win; the endpoint carries
 *   exactly the replica's labels.
 * - A replica's engines follow the placement's engine order; each member
 *   carries its role, pool, verbatim template, its resolved DRA requests only
 *   when it claims some, and its worker block only when the deployment's has one.
 */
import type { JsonObject, KubeObject } from '../lib/function.js';
import { opaqueName } from '../lib/names.js';
import type { DeploymentSpec } from './deployment.js';
import { DEPLOYMENT_LABEL } from '../lib/names.js';
import { LABEL_CLUSTER, LABEL_INDEX } from '../lib/fleet/fleet.js';
import type { Candidate } from '../lib/fleet/model.js';

/** API version of the ModelReplica and ModelEndpoint kinds. */
export const API_VERSION = 'modelplane.ai/v1alpha1';

/** Desired-resource key of a replica. */
export function replicaKey(c: Pick<Candidate, 'cluster' | 'index'>): string {
  return `replica-${c.cluster}-${c.index}`;
}

/** Desired-resource key of a replica's endpoint. */
export function endpointKey(c: Pick<Candidate, 'cluster' | 'index'>): string {
  return `endpoint-${c.cluster}-${c.index}`;
}

/** The ModelReplica name of a placement: `opaqueName(deployment, cluster, index)`. */
export function replicaName(d: DeploymentSpec, c: Pick<Candidate, 'cluster' | 'index'>): string {
  return opaqueName(d.name, c.cluster, String(c.index));
}

/** Labels of a replica and its endpoint: template labels, then the managed ones. */
export function replicaLabels(d: DeploymentSpec, c: Pick<Candidate, 'cluster' | 'index'>): Record<string, string> {
  return { ...d.labels, [DEPLOYMENT_LABEL]: d.name, [LABEL_CLUSTER]: c.cluster, [LABEL_INDEX]: String(c.index) };
}

/** The ModelReplica for one placed replica. */
export function composeReplica(d: DeploymentSpec, c: Candidate): KubeObject {
  const engines = c.engines.map((placement) => {
    const engine = d.engines.find((e) => e.name === placement.name)!;
    const out: JsonObject = { name: engine.name, copies: engine.copies };
    if (engine.phase) out['phase'] = engine.phase;
    out['members'] = placement.members.map((m, i) => {
      const spec = engine.members[i]!;
      const member: JsonObject = { role: m.role, nodePoolName: m.pool, template: structuredClone(spec.template) };
      if (m.requests.length > 0) {
        member['deviceRequests'] = m.requests.map((r) => ({
          name: r.name,
          deviceClassName: r.deviceClassName,
          count: r.count,
          selectors: r.selectors.map((cel) => ({ cel })),
        }));
      }
      if (spec.workerNodes !== undefined) member['worker'] = { nodes: spec.workerNodes };
      return member;
    });
    return out;
  });
  const spec: JsonObject = { clusterName: c.cluster, engines };
  if (d.cacheRef !== undefined) spec['modelCacheRef'] = { name: d.cacheRef };
  if (d.serving !== undefined) spec['serving'] = { ...d.serving };
  return {
    apiVersion: API_VERSION,
    kind: 'ModelReplica',
    metadata: { name: replicaName(d, c), namespace: d.namespace, labels: replicaLabels(d, c) },
    spec,
  };
}

/**
 * The ModelEndpoint routing to a Ready replica through its cluster's gateway:
 * url `http://<gateway>/<namespace>/<replica>/v1`, rewritePath `/<namespace>/<replica>/`.
 */
export function composeEndpoint(d: DeploymentSpec, c: Candidate): KubeObject {
  const name = replicaName(d, c);
  return {
    apiVersion: API_VERSION,
    kind: 'ModelEndpoint',
    metadata: { name, namespace: d.namespace, labels: replicaLabels(d, c) },
    spec: {
      rewritePath: `/${d.namespace}/${name}/`,
      url: `http://${c.gatewayAddress}/${d.namespace}/${name}/v1`,
    },
  };
}
