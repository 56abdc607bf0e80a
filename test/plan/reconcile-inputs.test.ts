/**
 * inputsUnchanged (cli/plan/reconcile.ts): an XR is reconciled again exactly
 * when something its last reconcile read changed: its own object, one of its
 * composed resources, or what one of its required-resource selectors matched
 * (an object changed, or one more or one fewer matches). A change to an
 * object it never read does not count.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../functions/lib/function.js';
import { inputsUnchanged, type ReconcileInputs } from '../../cli/plan/reconcile.js';
import { keyOf } from '../../cli/objects.js';
import { ObjectStore } from '../../cli/plan/store.js';
import { isClusterScoped } from '../../cli/scope.js';

const cluster = (name: string, labels: Record<string, string> = {}, status: object = {}): KubeObject => ({
  apiVersion: 'modelplane.ai/v1alpha1',
  kind: 'InferenceCluster',
  metadata: { name, labels },
  spec: {},
  status,
});

describe('inputsUnchanged', () => {
  let store: ObjectStore;
  let xrKey: string;
  let deps: ReconcileInputs;
  beforeEach(() => {
    store = new ObjectStore(isClusterScoped);
    store.put(cluster('a', { region: 'eu' }));
    store.put(cluster('b', { region: 'us' }));
    const xr = store.put({ apiVersion: 'modelplane.ai/v1alpha1', kind: 'ModelDeployment', metadata: { name: 'm', namespace: 'ml' }, spec: {} });
    xrKey = keyOf(xr);
    const sel = { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceCluster', matchLabels: { labels: { region: 'eu' } } };
    deps = {
      xr: store.modRevision(xrKey),
      children: new Map(),
      reads: [{ id: JSON.stringify(sel), sel, groupKind: 'modelplane.ai/InferenceCluster', at: store.revision, matched: store.resolve(sel) }],
    };
  });

  it('is unchanged when nothing was written', () => {
    expect(inputsUnchanged(store, xrKey, deps)).toBe(true);
  });
  it('ignores a change to a cluster the selector does not match', () => {
    store.put(cluster('b', { region: 'us' }, { phase: 'x' }));
    expect(inputsUnchanged(store, xrKey, deps)).toBe(true);
  });
  it('sees a change to a matched cluster', () => {
    store.put(cluster('a', { region: 'eu' }, { phase: 'x' }));
    expect(inputsUnchanged(store, xrKey, deps)).toBe(false);
  });
  it('sees a cluster that starts to match', () => {
    store.put(cluster('b', { region: 'eu' }));
    expect(inputsUnchanged(store, xrKey, deps)).toBe(false);
  });
  it('sees a matched cluster deleted', () => {
    store.delete(keyOf(cluster('a')));
    expect(inputsUnchanged(store, xrKey, deps)).toBe(false);
  });
  it('sees its own object written', () => {
    store.put({ ...store.get(xrKey)!, status: { x: 1 } });
    expect(inputsUnchanged(store, xrKey, deps)).toBe(false);
  });
  it('sees a composed resource created', () => {
    const uid = store.get(xrKey)!.metadata!.uid!;
    store.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ml', ownerReferences: [{ controller: true, uid }] } } as KubeObject);
    expect(inputsUnchanged(store, xrKey, deps)).toBe(false);
  });
  it('has no record before a first reconcile', () => {
    expect(inputsUnchanged(store, xrKey, undefined)).toBe(false);
  });
});
