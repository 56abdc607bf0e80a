/**
 * The pure parts of the dev control plane: condition merging, the per-object
 * queue and its staleness rule, the write pacer, the etcd write diff of
 * `dev quiet`, the admission policy's parameter keys, the xpkg loss check, the certificates, and the
 * simulated clusters' device scheduling (a workload is bound only when its cluster's ledger charges it).
 */
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { admissionObjects, targetKey } from '../../cli/dev/admission.js';
import { Pki } from '../../cli/dev/pki.js';
import { changedFields, isHousekeeping, writesBetween } from '../../cli/dev/quiet.js';
import { hasConditions, mergeConditions } from '../../cli/dev/runtime/conditions.js';
import { claimsDevices, ledgerVerdict, owningReplica } from '../../cli/dev/runtime/device-scheduler.js';
import { controllerOf, ObjectQueue, Pacer } from '../../cli/dev/runtime/queue.js';
import { providerStatus } from '../../cli/simulated/providers.js';
import { firstLoss } from '../../cli/dev/xpkg.js';
import type { KubeObject } from '../../functions/lib/function.js';

describe('conditions', () => {
  const ready = { type: 'Ready', status: 'True', reason: 'Available' } as const;
  it('an unchanged condition keeps its time; a changed one gets now; others are kept in order', () => {
    const current = [
      { type: 'Synced', status: 'False', reason: 'ReconcilePaused', lastTransitionTime: 't0' },
      { type: 'Ready', status: 'True', reason: 'Available', lastTransitionTime: 't1' },
    ] as const;
    expect(mergeConditions([...current], [ready], 'now')).toEqual([...current]);
    expect(mergeConditions([...current], [{ type: 'Ready', status: 'False', reason: 'Creating' }], 'now')).toEqual([
      current[0],
      { type: 'Ready', status: 'False', reason: 'Creating', lastTransitionTime: 'now' },
    ]);
    expect(mergeConditions([], [ready], 'now')).toEqual([{ ...ready, lastTransitionTime: 'now' }]);
  });

  it('hasConditions compares status, reason and message, never times', () => {
    expect(hasConditions([{ ...ready, lastTransitionTime: 'x' }], [ready])).toBe(true);
    expect(hasConditions([{ ...ready, message: 'm' }], [ready])).toBe(false);
    expect(hasConditions([], [ready])).toBe(false);
  });
});

const obj = (rv: string): KubeObject => ({ apiVersion: 'v1', kind: 'X', metadata: { name: 'a', namespace: 'n', resourceVersion: rv } });

describe('ObjectQueue', () => {
  it('runs one reconcile per object at a time, coalescing events into one more run with the newest copy', async () => {
    const seen: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const q = new ObjectQueue(async (o) => {
      seen.push(o.metadata!.resourceVersion as string);
      if (seen.length === 1) await gate;
      return undefined;
    });
    q.add(obj('1'));
    q.add(obj('2'));
    q.add(obj('3'));
    release();
    await new Promise((r) => setTimeout(r, 20));
    expect(seen).toEqual(['1', '3']);
  });

  it('ignores copies older than its own last write', async () => {
    const seen: string[] = [];
    const q = new ObjectQueue(async (o) => {
      seen.push(o.metadata!.resourceVersion as string);
      return o.metadata!.resourceVersion === '5' ? obj('7') : undefined;
    });
    q.add(obj('5'));
    await new Promise((r) => setTimeout(r, 10));
    q.add(obj('6')); // the informer still delivering the object as it was before our write
    q.add(obj('7'));
    await new Promise((r) => setTimeout(r, 10));
    expect(seen).toEqual(['5', '7']);
  });

  it('controllerOf is the controller reference uid', () => {
    const o = { ...obj('1'), metadata: { name: 'a', ownerReferences: [{ uid: 'u1' }, { uid: 'u2', controller: true }] } } as unknown as KubeObject;
    expect(controllerOf(o)).toBe('u2');
    expect(controllerOf(obj('1'))).toBe('');
  });
});

describe('Pacer', () => {
  it('lets `capacity` writes through at once, then one per 1/perSecond seconds, per owner', () => {
    const p = new Pacer(2, 0.5);
    expect([p.take('a', 0), p.take('a', 0), p.take('a', 0)]).toEqual([0, 0, 2000]);
    expect(p.take('b', 0)).toBe(0);
    expect(p.take('a', 1000)).toBe(1000);
    expect(p.take('a', 2000)).toBe(0);
  });
});

describe('dev quiet', () => {
  it('counts writes per key from two etcd version snapshots; a deleted key counts once; leases are told apart', () => {
    const before = new Map([
      ['/registry/a', 3],
      ['/registry/gone', 1],
      ['/registry/leases/kube-system/apiserver-x', 10],
    ]);
    const after = new Map([
      ['/registry/a', 5],
      ['/registry/new', 1],
      ['/registry/leases/kube-system/apiserver-x', 12],
    ]);
    expect(writesBetween(before, after)).toEqual([
      { key: '/registry/a', writes: 2 },
      { key: '/registry/leases/kube-system/apiserver-x', writes: 2 },
      { key: '/registry/gone', writes: 1 },
      { key: '/registry/new', writes: 1 },
    ]);
    expect(isHousekeeping('/workload/leases/kube-system/apiserver-x')).toBe(true);
    expect(isHousekeeping('compact_rev_key')).toBe(true);
    expect(isHousekeeping('/registry/modelplane.ai/leases/x')).toBe(false);
    expect(isHousekeeping('/workload-1/minions/dev-fallback-system-0')).toBe(true);
    expect(isHousekeeping('/registry/minions/control-plane-0')).toBe(false);
  });

  it('names the fields an update changed, conditions by type, bookkeeping left out', () => {
    const xr = (synced: string, rv: string, pools: unknown[]) => ({
      metadata: { name: 'eks', resourceVersion: rv, managedFields: [{ time: rv }] },
      status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'Synced', status: synced, lastTransitionTime: synced }], gpuPools: pools },
    });
    const before = xr('True', '1', [{ name: 'a', nodes: 1 }]);
    expect(changedFields(before, structuredClone(before))).toEqual([]);
    expect(changedFields(before, { ...xr('True', '2', [{ name: 'a', nodes: 1 }]) })).toEqual([]);
    expect(changedFields(before, xr('False', '2', [{ name: 'a', nodes: 2 }, { name: 'b', nodes: 1 }]))).toEqual([
      'status.conditions[Synced].lastTransitionTime',
      'status.conditions[Synced].status',
      'status.gpuPools[a].nodes',
      'status.gpuPools[b]',
    ]);
    expect(changedFields({ spec: { args: ['a'] } }, { spec: { args: ['a', 'b'] } })).toEqual(['spec.args']);
  });
});

describe('admission policy', () => {
  it('keys name a namespaced ProviderConfig by namespace and a ClusterProviderConfig by "cluster", as its CEL builds them', () => {
    expect(targetKey('ProviderConfig', 'pc', 'modelplane-system')).toBe('modelplane-system.ProviderConfig.pc');
    expect(targetKey('ClusterProviderConfig', 'pc', undefined)).toBe('cluster.ClusterProviderConfig.pc');
    const policy = admissionObjects().find((o) => o.kind === 'MutatingAdmissionPolicy')!;
    expect(JSON.stringify(policy)).toContain("(object.spec.providerConfigRef.kind == 'ClusterProviderConfig' ? 'cluster' : object.metadata.namespace)");
  });
});

describe('xpkg', () => {
  it('firstLoss names the first field the build dropped or changed; added defaults are not losses', () => {
    const xrd = { spec: { versions: [{ name: 'v1', subresources: { scale: { specReplicasPath: '.spec.replicas' } } }] } };
    expect(firstLoss(xrd, { spec: { versions: [{ name: 'v1' }] } })).toBe('.spec.versions[0].subresources');
    expect(firstLoss(xrd, { spec: { versions: [{ name: 'v1', served: true, subresources: { scale: { specReplicasPath: '.spec.replicas' } } }] } })).toBeUndefined();
    expect(firstLoss({ a: 1 }, { a: 2 })).toBe('.a');
  });
});

describe('pki', () => {
  it('issues leaves the CA signs, with the SANs and organisation asked for, reused on the second call', async () => {
    const pki = new Pki(mkdtempSync(join(tmpdir(), 'pki-')));
    const fn = await pki.leaf({ name: 'fn', cn: 'functions', ips: ['127.0.0.1'] });
    const admin = await pki.leaf({ name: 'admin', cn: 'admin', org: 'system:masters' });
    const ca = new X509Certificate(readFileSync(pki.caCrt));
    const leaf = new X509Certificate(readFileSync(fn.crt));
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.subjectAltName).toBe('IP Address:127.0.0.1');
    expect(new X509Certificate(readFileSync(admin.crt)).subject).toBe('CN=admin\nO=system:masters');
    const again = await pki.leaf({ name: 'fn', cn: 'functions', ips: ['127.0.0.1'] });
    expect(readFileSync(again.crt).equals(readFileSync(fn.crt))).toBe(true);
  });
});

describe('simulated device scheduling (device-scheduler.ts)', () => {
  const who = { namespace: 'fleet', name: 'model-001-ab12c', deployment: 'model-001' };
  const pools = (pods: Record<string, unknown>[]) => [{ name: 'gpu', nodes: 10, used: { nodes: 1, holders: [{ namespace: 'fleet', deployment: 'model-001', pods }] } }];

  it('bound only when the ledger charges the replica and not over capacity', () => {
    expect(ledgerVerdict(pools([{ replica: who.name, count: 1 }]), who)).toBeUndefined();
    expect(ledgerVerdict(pools([{ replica: who.name, count: 1, overCapacity: true }]), who)).toBe('0/10 nodes of pool gpu have the devices free (its ledger: over capacity)');
    expect(ledgerVerdict(pools([{ replica: 'model-001-other', count: 1 }]), who)).toBe('not charged by its cluster yet');
    expect(ledgerVerdict(undefined, who)).toBe('not charged by its cluster yet');
  });

  const deployment = (claims: boolean) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    spec: { replicas: 1, template: { metadata: { labels: { 'modelplane.ai/workload': 'engine' } }, spec: claims ? { resourceClaims: [{ name: 'gpu' }] } : {} } },
  });

  it('the replica of an Object is its controller reference, not the root named by crossplane.io/composite', () => {
    const obj = {
      apiVersion: 'kubernetes.m.crossplane.io/v1alpha1',
      kind: 'Object',
      metadata: {
        labels: { 'crossplane.io/composite': 'model-001' },
        ownerReferences: [
          { kind: 'ModelReplica', name: 'not-controller' },
          { kind: 'ModelReplica', name: who.name, controller: true },
        ],
      },
    };
    expect(owningReplica(obj as KubeObject)).toBe(who.name);
    expect(owningReplica({ apiVersion: 'v1', kind: 'Object', metadata: {} })).toBe('');
  });

  it('only workloads whose pods claim devices are held', () => {
    expect(claimsDevices(deployment(true))).toBe(true);
    expect(claimsDevices(deployment(false))).toBe(false);
    expect(claimsDevices({ apiVersion: 'v1', kind: 'Service', spec: {} })).toBe(false);
  });

  it('a Pending workload: no replica available, Available False, its Object not Ready, saying why', () => {
    const obj = { apiVersion: 'kubernetes.m.crossplane.io/v1alpha1', kind: 'Object', metadata: { name: 'w', namespace: 'fleet' }, spec: { forProvider: { manifest: deployment(true) } } };
    const status = providerStatus(obj as KubeObject, { address: () => '198.51.100.1', pending: () => 'not charged by its cluster yet' });
    const message = 'pods Pending: not charged by its cluster yet (simulated scheduler)';
    expect(status['conditions']).toEqual([{ lastTransitionTime: '2024-01-01T00:00:00Z', reason: 'Unavailable', status: 'False', type: 'Ready', message }]);
    expect((status['atProvider'] as { manifest: { status: unknown } }).manifest.status).toEqual({
      replicas: 1,
      readyReplicas: 0,
      availableReplicas: 0,
      unavailableReplicas: 1,
      conditions: [{ type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable', message, lastTransitionTime: '2024-01-01T00:00:00Z' }],
    });
    const bound = providerStatus(obj as KubeObject, { address: () => '198.51.100.1', pending: () => undefined });
    expect((bound['conditions'] as { status: string }[]).map((c) => c.status)).toEqual(['True', 'True']);
  });
});
