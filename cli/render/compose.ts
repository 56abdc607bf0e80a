/**
 * After the pipeline: turns the final desired state into the objects render
 * prints (docs/composition.md#names-and-metadata-of-composed-resources,
 * docs/composition.md#output-format, docs/composition.md#what-our-harness-reproduces).
 *
 * Composed resources: name/namespace/generateName forced from the observed
 * resource with the same key; the namespace of a namespaced XR forced;
 * `generateName: <composite label>-`; the composition-resource-name
 * annotation, the composite label and a controller ownerReference; the
 * deterministic name; an RFC 1123 check. The XR: the final desired status,
 * the functions' conditions, then `Synced` and `Ready`.
 */
import { Ready, type Resource, type RunFunctionRequest } from '@crossplane-org/function-sdk-typescript';
import type { Condition, JsonObject, KubeObject } from '../../functions/lib/function.js';
import {
  COMPOSITE_LABEL,
  checkName,
  composedName,
  RESOURCE_NAME_ANNOTATION,
  readyCondition,
  stampCondition,
} from './xr.js';

/** Inputs of {@link postProcess}. */
export interface PostProcessInput {
  /** The prepared XR (with UID and labels). */
  xr: KubeObject;
  desired: RunFunctionRequest['desired'];
  observedByName: Record<string, Resource>;
  conditions: Condition[];
  uid: string;
  fatal?: string;
}

/** The printed XR, composed resources (sorted by resource name) and their readiness. */
export function postProcess(input: PostProcessInput): { xr: KubeObject; composed: KubeObject[]; readiness: Record<string, boolean> } {
  const { xr, desired, observedByName, uid } = input;
  const xrName = xr.metadata?.name ?? '';
  const xrNamespace = xr.metadata?.namespace;
  const compositeLabel = xr.metadata?.labels?.[COMPOSITE_LABEL] || xrName;
  const composed: KubeObject[] = [];
  const readiness: Record<string, boolean> = {};
  const resources = input.fatal === undefined ? (desired?.resources ?? {}) : {};

  for (const key of Object.keys(resources).sort()) {
    const entry = resources[key]!;
    // Only metadata is rewritten: a shallow copy keeps the function's object intact.
    const obj = { ...((entry.resource ?? {}) as KubeObject) };
    const meta = { ...(obj.metadata ?? {}) };
    const observedMeta = (observedByName[key]?.resource as KubeObject | undefined)?.metadata;
    if (observedMeta) {
      if (observedMeta.name !== undefined) meta.name = observedMeta.name;
      if (observedMeta.namespace !== undefined) meta.namespace = observedMeta.namespace;
      if (observedMeta.generateName !== undefined) meta.generateName = observedMeta.generateName;
    }
    if (xrNamespace) meta.namespace = xrNamespace;
    if (!meta.name && !meta.generateName) meta.generateName = `${compositeLabel}-`;
    meta.annotations = { ...(meta.annotations ?? {}), [RESOURCE_NAME_ANNOTATION]: key };
    meta.labels = { ...(meta.labels ?? {}), [COMPOSITE_LABEL]: compositeLabel };
    meta['ownerReferences'] = [
      { apiVersion: xr.apiVersion, blockOwnerDeletion: true, controller: true, kind: xr.kind, name: xrName, uid },
    ];
    if (!meta.name) meta.name = composedName(meta.generateName ?? '', uid, key);
    checkName(meta.name, key);
    obj.metadata = meta;
    composed.push(obj);
    readiness[key] = entry.ready === Ready.READY_TRUE;
  }

  const status: JsonObject = { ...((((desired?.composite?.resource ?? {}) as JsonObject)['status'] ?? {}) as JsonObject) };
  // The real reconciler sets Responsive (its watch circuit breaker) first, before the functions' conditions.
  const conditions: JsonObject[] = [
    stampCondition({ type: 'Responsive', status: 'True', reason: 'WatchCircuitClosed' }),
    ...input.conditions.map(stampCondition),
  ];
  if (input.fatal !== undefined) {
    conditions.push(stampCondition({ type: 'Synced', status: 'False', reason: 'ReconcileError', message: input.fatal }));
  } else {
    conditions.push(stampCondition({ type: 'Synced', status: 'True', reason: 'ReconcileSuccess' }));
    const override = desired?.composite?.ready;
    const unready = Object.keys(readiness).filter((k) => !readiness[k]);
    conditions.push(
      stampCondition(
        readyCondition(unready, override === Ready.READY_TRUE ? true : override === Ready.READY_FALSE ? false : undefined),
      ),
    );
  }
  status['conditions'] = conditions;

  const printed: KubeObject = {
    apiVersion: xr.apiVersion,
    kind: xr.kind,
    metadata: { name: xrName, ...(xrNamespace ? { namespace: xrNamespace } : {}) },
  };
  if (input.fatal === undefined) {
    // As Crossplane's UpdateResourceRefs: every desired resource (an empty list when none), the namespace
    // kept only for a cluster-scoped XR, sorted by apiVersion+kind+name+namespace concatenated.
    const refs = composed.map((o) => ({
      apiVersion: o.apiVersion ?? '',
      kind: o.kind ?? '',
      name: o.metadata?.name ?? '',
      ...(!xrNamespace && o.metadata?.namespace ? { namespace: o.metadata.namespace } : {}),
    }));
    const refKey = (r: (typeof refs)[number]) => `${r.apiVersion}${r.kind}${r.name}${r.namespace ?? ''}`;
    refs.sort((a, b) => (refKey(a) < refKey(b) ? -1 : refKey(a) > refKey(b) ? 1 : 0));
    printed['spec'] = { crossplane: { resourceRefs: refs } };
  }
  printed['status'] = status;
  return { xr: printed, composed, readiness };
}
