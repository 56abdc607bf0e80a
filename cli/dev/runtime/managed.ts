/**
 * The simulated providers of the dev control plane: every managed resource
 * of a simulated provider (simulated.ts) is written Ready and Synced with the
 * `status.atProvider` our functions read, from the table `modelplane plan`
 * uses (cli/plan/providers.ts `providerStatus`), plus its connection Secret
 * (a cluster's kubeconfig, pointing at a simulated cluster).
 *
 * provider-kubernetes is real. Its Objects that target a simulated cluster
 * (a kubeconfig on `*.plan.modelplane.invalid`) cannot be applied anywhere,
 * so they are simulated too: annotated `crossplane.io/paused: "true"` (the
 * real provider then leaves them alone; its controller ignores status-only
 * changes) and given the status the cluster would report; their finalizers
 * are removed on deletion. Objects that target a real cluster are the real
 * provider's.
 *
 * provider-helm cannot run here (its module and every chart are out of
 * reach): Releases are simulated; one that targets a real cluster also gets
 * the CRDs its chart would install there (simulated.ts CHART_CRDS), so the
 * objects composed next to it can really be created.
 *
 * Quiet by construction: a status is written only when the conditions differ
 * (timestamps ignored) or the fields we set changed since we last wrote them.
 */
import { createHash } from 'node:crypto';
import type { JsonObject, KubeObject } from '../../../functions/lib/function.js';
import { connectionSecret, providerStatus } from '../../plan/providers.js';
import { groupOf } from '../../plan/store.js';
import type { Kube, KindInformer } from '../kube.js';
import { chartCrds } from '../packages.js';
import type { Addresses } from './addresses.js';
import { type Condition, conditionsOf, hasConditions, mergeConditions } from './conditions.js';
import type { Targets } from './targets.js';

/** The annotation Crossplane's managed reconciler honours to stop acting on a resource. */
export const PAUSED_ANNOTATION = 'crossplane.io/paused';
/** Marks what the dev runtime simulates. */
export const SIMULATED_ANNOTATION = 'modelplane.ai/simulated';
const OBJECT_GROUP = 'kubernetes.m.crossplane.io';

/** Options of {@link ManagedSimulator}. */
export interface ManagedOptions {
  /** API groups whose managed resources are simulated (besides Objects of simulated clusters). */
  groups: readonly string[];
  /** The provider CRD snapshot, for chart CRDs. */
  crds: string;
  addresses: Addresses;
  targets: Targets;
  log: (line: string) => void;
}

const keyOf = (o: KubeObject) => `${o.apiVersion}/${o.kind}/${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;

/** Simulates managed resources; see the module comment. */
export class ManagedSimulator {
  private readonly informers = new Map<string, KindInformer>();
  private crdInformer?: KindInformer;
  /** Hash of the fields last written per object, so pruned fields are not written again and again. */
  private readonly written = new Map<string, string>();
  private readonly chartsInstalled = new Set<string>();
  private readonly starting = new Set<string>();
  private stopped = false;
  private timer?: NodeJS.Timeout;
  writes = 0;

  constructor(
    private readonly kube: Kube,
    private readonly opts: ManagedOptions,
  ) {}

  async start(): Promise<void> {
    this.crdInformer = await this.kube.informer('apiextensions.k8s.io/v1', 'CustomResourceDefinition', (crd) => void this.watchKind(crd));
    // Objects and Releases wait for their ProviderConfig and kubeconfig Secret: look again every 3 s.
    this.timer = setInterval(() => {
      for (const inf of this.informers.values()) for (const o of inf.list()) void this.reconcile(o as KubeObject);
    }, 3000);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.crdInformer?.stop();
    for (const i of this.informers.values()) await i.stop();
  }

  private async watchKind(crd: KubeObject): Promise<void> {
    const spec = (crd['spec'] ?? {}) as { group?: string; names?: { kind?: string }; versions?: { name: string; storage?: boolean }[] };
    const group = spec.group ?? '';
    const kind = spec.names?.kind ?? '';
    const simulated = this.opts.groups.includes(group) && !/ProviderConfig(Usage)?$/.test(kind);
    if (!simulated && !(group === OBJECT_GROUP && kind === 'Object')) return;
    const established = conditionsOf(crd['status']).some((c) => c.type === 'Established' && c.status === 'True');
    const version = spec.versions?.find((v) => v.storage)?.name;
    const apiVersion = `${group}/${version}`;
    const key = `${apiVersion}/${kind}`;
    if (!established || !version || this.starting.has(key)) return;
    this.starting.add(key);
    // Discovery lags a freshly Established CRD by a moment: retry until the kind is served.
    for (let attempt = 0; !this.stopped; attempt++) {
      try {
        this.informers.set(key, await this.kube.informer(apiVersion, kind, (o) => void this.reconcile(o)));
        return;
      } catch (err) {
        if (attempt === 20) this.opts.log(`watch ${kind}.${group}: ${(err as Error).message} (still retrying)`);
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }

  private async reconcile(mr: KubeObject): Promise<void> {
    try {
      const group = groupOf(mr.apiVersion);
      if (group === OBJECT_GROUP) await this.reconcileObject(mr);
      else await this.writeStatus(mr, providerStatus(mr, this.context('workload')));
      if (group === 'helm.m.crossplane.io' && mr.kind === 'Release') await this.installChartCrds(mr);
      const secret = connectionSecret(mr);
      if (secret && mr.metadata?.uid && !mr.metadata.deletionTimestamp) {
        if (await this.kube.createIfAbsent(secret)) this.opts.log(`Secret ${secret.metadata?.namespace}/${secret.metadata?.name}: connection details of ${mr.kind} ${mr.metadata.name}`);
      }
    } catch (err) {
      if (!/ 404 | 409 /.test(` ${(err as Error).message} `)) this.opts.log(`${mr.kind} ${mr.metadata?.namespace}/${mr.metadata?.name}: ${(err as Error).message}`);
    }
  }

  /** An Object: simulated only when it targets a simulated cluster. */
  private async reconcileObject(obj: KubeObject): Promise<void> {
    const target = await this.opts.targets.of(obj);
    if (!target?.simulated) return;
    const meta = obj.metadata ?? {};
    if (meta.deletionTimestamp) {
      if (((meta['finalizers'] ?? []) as string[]).length > 0) await this.kube.mergePatch(obj, { metadata: { finalizers: null } });
      return;
    }
    if (meta.annotations?.[PAUSED_ANNOTATION] !== 'true') {
      await this.kube.mergePatch(obj, { metadata: { annotations: { [PAUSED_ANNOTATION]: 'true', [SIMULATED_ANNOTATION]: 'simulated cluster' } } });
      this.opts.log(`Object ${meta.namespace}/${meta.name}: paused (targets the simulated cluster ${target.server})`);
    }
    await this.writeStatus(obj, providerStatus(obj, this.context('workload')));
  }

  /** A Release on a real cluster: the CRDs its chart brings, applied there once. */
  private async installChartCrds(release: KubeObject): Promise<void> {
    const chart = ((release['spec'] as JsonObject | undefined)?.['forProvider'] as { chart?: { name?: string } } | undefined)?.chart?.name ?? '';
    const crds = chartCrds(chart, this.opts.crds);
    if (crds.length === 0) return;
    const target = await this.opts.targets.of(release);
    if (!target || target.simulated) return;
    const key = `${target.server} ${chart}`;
    if (this.chartsInstalled.has(key)) return;
    this.chartsInstalled.add(key);
    try {
      for (const crd of crds) await target.kube.apply(crd, 'modelplane-dev-helm');
    } catch (err) {
      this.chartsInstalled.delete(key); // the next look tries again
      throw err;
    }
    this.opts.log(`chart ${chart}: applied ${crds.length} CRD(s) to ${target.server} (simulated provider-helm)`);
  }

  private context(pool: 'workload' | 'control-plane') {
    return { address: (owner: string) => this.opts.addresses.address(pool, owner) };
  }

  /** Writes `wanted` (conditions + provider fields) when it differs from what the object has. */
  async writeStatus(obj: KubeObject, wanted: JsonObject): Promise<void> {
    if (obj.metadata?.deletionTimestamp) return;
    const { conditions: wantedConditions, ...fields } = wanted as JsonObject & { conditions?: Condition[] };
    const current = (obj['status'] ?? {}) as JsonObject;
    const hash = createHash('sha256').update(JSON.stringify(fields)).digest('hex');
    const key = keyOf(obj);
    const fieldsMatch = this.written.get(key) === hash || Object.entries(fields).every(([k, v]) => JSON.stringify(current[k]) === JSON.stringify(v));
    const conds = wantedConditions ?? [];
    if (fieldsMatch && hasConditions(conditionsOf(current), conds)) {
      this.written.set(key, hash);
      return;
    }
    const conditions = mergeConditions(conditionsOf(current), conds, new Date().toISOString());
    await this.kube.patchStatus(obj, { ...fields, conditions: conditions as unknown as JsonObject[] });
    this.written.set(key, hash);
    this.writes++;
    this.opts.log(`${obj.kind} ${obj.metadata?.namespace ? `${obj.metadata.namespace}/` : ''}${obj.metadata?.name}: status written (simulated)`);
  }
}
