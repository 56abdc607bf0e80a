/**
 * What the scheduler knows of its own composed children beyond what the
 * `own-replicas` list says: a ModelReplica under desired key
 * `replica-<cluster>-<index>` in `observed.resources` is ours by
 * construction (Crossplane passes a function only the composed resources of
 * its XR), and the key is its (cluster, index) identity (children.ts).
 *
 * Guarantees:
 * - Ownership and identity of our observed replicas never hang on labels or
 *   fields that can be garbage: the `own-replicas` item of one of them (same
 *   name, and the XR's namespace or a namespace that cannot be read) and the
 *   observed copy itself read as this deployment's, at the key's cluster and
 *   index, whatever their `modelplane.ai/*` labels, `spec.clusterName` or
 *   `metadata.namespace` say (docs/design.md#keep-what-exists: nothing already composed
 *   is deleted because an input cannot be read).
 * - Every other item is read as it is (fleet.ts `readReplica`), so other
 *   deployments' replicas still hold their devices.
 * - Ready only when both copies say so: the `own-replicas` item and the
 *   observed copy are read at different moments, and a replacement the list
 *   already sees Ready while the observed copy does not would let the
 *   replica it replaces go one reconcile before `status.placements` (and the
 *   ModelService) see it Ready (make before break, docs/failover.md).
 * - Output sorted by (namespace, name), as fleet.ts `readReplicas`.
 * - The readiness of a replica that is neither Ready True nor Ready False
 *   (`readinessGap`): its status, conditions or Ready condition missing,
 *   Unknown or garbage, named by field.
 */
import { getPath, type KubeObject, type ObservedResource, readCondition } from '../lib/function.js';
import type { DeploymentSpec } from './deployment.js';
import { readReplica } from '../lib/fleet/fleet.js';
import type { ObservedReplica } from '../lib/fleet/model.js';

/** The (cluster, index) of a desired key `replica-<cluster>-<index>`, or undefined for any other key. */
export function parseReplicaKey(key: string): { cluster: string; index: number } | undefined {
  const m = /^replica-(.+)-(0|[1-9]\d{0,8})$/.exec(key);
  return m === null ? undefined : { cluster: m[1]!, index: Number(m[2]) };
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function byNamespacedName(a: ObservedReplica, b: ObservedReplica): number {
  const ka = `${a.namespace}/${a.name}`;
  const kb = `${b.namespace}/${b.name}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/**
 * The replicas the scheduler places around: the `own-replicas` items, ours
 * among them (and ours the list lags behind on) read with the identity of
 * their observed key. Sorted by (namespace, name).
 */
export function fleetReplicas(items: readonly KubeObject[], observed: Readonly<Record<string, ObservedResource>>, d: DeploymentSpec): ObservedReplica[] {
  // Our observed replicas by name; a name that cannot be read matches no item.
  const ours = new Map<string, { key: string; cluster: string; index: number; obj: KubeObject }>();
  for (const key of Object.keys(observed).sort()) {
    const id = parseReplicaKey(key);
    const obj = observed[key]!.resource;
    if (id === undefined || obj.kind !== 'ModelReplica') continue;
    const name = str(getPath(obj, 'metadata', 'name'));
    ours.set(name ?? `\u0000${key}`, { key, ...id, obj });
  }
  const claim = (r: ObservedReplica, id: { cluster: string; index: number }): ObservedReplica => ({
    ...r,
    namespace: d.namespace,
    deployment: d.name,
    clusterName: id.cluster,
    index: id.index,
  });
  const matched = new Set<string>();
  const out: ObservedReplica[] = [];
  for (const item of items) {
    const name = str(getPath(item, 'metadata', 'name'));
    const ns = str(getPath(item, 'metadata', 'namespace'));
    const mine = name === undefined ? undefined : ours.get(name);
    if (mine !== undefined && (ns === undefined || ns === d.namespace)) {
      matched.add(mine.key);
      const r = readReplica(item);
      out.push(claim({ ...r, ready: r.ready && readReplica(mine.obj).ready }, mine));
    } else out.push(readReplica(item));
  }
  for (const mine of ours.values()) {
    if (matched.has(mine.key)) continue;
    const r = readReplica(mine.obj);
    out.push(claim({ ...r, name: r.name || (str(getPath(mine.obj, 'metadata', 'name')) ?? '') }, mine));
  }
  return out.sort(byNamespacedName);
}

/**
 * Why an observed replica reports neither Ready True nor Ready False, as
 * `{field, problem}`, or undefined when it reports one of them (or is not
 * observed): `status is absent`, `status.conditions is absent`,
 * `status.conditions has no Ready condition`, `status.conditions says Ready
 * Unknown`, or what lib/function.ts readCondition finds unreadable.
 */
export function readinessGap(obj: KubeObject | undefined): { field: string; problem: string } | undefined {
  if (obj === undefined) return undefined;
  const r = readCondition(obj, 'Ready');
  switch (r.state) {
    case 'True':
    case 'False':
      return undefined;
    case 'unreadable':
      return { field: r.field, problem: r.problem };
    case 'Unknown':
      return { field: 'status.conditions', problem: 'says Ready Unknown' };
    default: {
      const status = obj['status'];
      if (status === undefined) return { field: 'status', problem: 'is absent' };
      if (getPath(obj, 'status', 'conditions') === undefined) return { field: 'status.conditions', problem: 'is absent' };
      return { field: 'status.conditions', problem: 'has no Ready condition' };
    }
  }
}
