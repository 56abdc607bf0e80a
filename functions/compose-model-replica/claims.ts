/**
 * ResourceClaimTemplates (`resource.k8s.io/v1`, Kubernetes DRA) from the
 * device requests the scheduler resolved (docs/kinds/modelreplica.md#device-claims).
 *
 * Guarantees: one template per claiming member, named child_name(replica,
 * engine, role, "devices"), in the remote namespace; one `exactly` request per
 * resolved device request, in order, with its DeviceClass, its count (always
 * written, default 1) and its CEL selectors verbatim (omitted when none).
 * DRA ANDs the selectors of one request, as the scheduler did when it matched.
 */
import type { JsonObject, KubeObject } from '../lib/function.js';
import { claims, claimTemplateName } from './pod.js';
import { type Member, REMOTE_NAMESPACE } from './types.js';

/** The desired key of a member's claim template: `resource-claim-<engine>-<role>`. */
export function claimKey(engine: string, m: Member): string {
  return `resource-claim-${engine}-${(m.role ?? 'Standalone').toLowerCase()}`;
}

/** The ResourceClaimTemplate of a claiming member. */
export function claimTemplate(replica: string, engine: string, m: Member): KubeObject {
  const requests = (m.deviceRequests ?? []).map((r): JsonObject => {
    const exactly: JsonObject = { deviceClassName: r.deviceClassName, count: r.count ?? 1 };
    const selectors = (r.selectors ?? []).filter((s) => s.cel !== '').map((s) => ({ cel: { expression: s.cel } }));
    if (selectors.length > 0) exactly['selectors'] = selectors;
    return { name: r.name, exactly };
  });
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaimTemplate',
    metadata: { name: claimTemplateName(replica, engine, m), namespace: REMOTE_NAMESPACE },
    spec: { spec: { devices: { requests } } },
  };
}

/** The claim templates of an engine's claiming `members`, in member order, by desired key ({@link claimKey}). */
export function claimTemplates(replica: string, engine: string, members: readonly Member[]): { key: string; manifest: KubeObject }[] {
  return members.filter(claims).map((m) => ({ key: claimKey(engine, m), manifest: claimTemplate(replica, engine, m) }));
}
