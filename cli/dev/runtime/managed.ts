/**
 * The simulated providers of the dev control plane: every managed resource
 * of a simulated provider (simulated.ts) is written Ready and Synced with the
 * `status.atProvider` our functions read, from the table `modelplane plan`
 * uses (cli/simulated/providers.ts `providerStatus`), plus its connection Secret
 * (a cluster's kubeconfig, pointing at a simulated cluster, or at a free
 * workload API server: handout.ts).
 *
 * provider-kubernetes is real. Its Objects that target a simulated cluster
 * (a kubeconfig on `*.plan.modelplane.invalid`) cannot be applied anywhere,
 * so they are simulated too: annotated `crossplane.io/paused: "true"` (the
 * real provider then leaves them alone and reports Synced=False
 * ReconcilePaused, which is true; its controller ignores status-only
 * changes) and given Ready and the status the cluster would report; their
 * finalizers are removed on deletion. An engine workload whose devices are
 * not free on its cluster (its replica over capacity in the cluster's
 * ledger, or not charged there yet: device-scheduler.ts) is reported with
 * its pods Pending and its Object not Ready, as a real cluster's scheduler
 * would leave it, until the ledger says it is bound. Objects that target a real cluster
 * are the real provider's.
 *
 * provider-helm cannot run here (its module and every chart are out of
 * reach): Releases are simulated; one that targets a real cluster also gets
 * the CRDs its chart would install there (simulated.ts CHART_CRDS), so the
 * objects composed next to it can really be created.
 *
 * Quiet by construction: one reconcile at a time per object (queue.ts), and
 * a status is written only when the conditions differ (timestamps ignored)
 * or the fields we set changed since we last wrote them.
 */
import { createHash } from 'node:crypto';
import { getPath, type JsonObject, type KubeObject } from '../../../functions/lib/function.js';
import { connectionSecret, type ProviderContext, providerStatus } from '../../simulated/providers.js';
import { groupOf } from '../../objects.js';
import type { Kube, KindInformer } from '../kube.js';
import { chartCrds } from '../packages.js';
import type { Addresses } from './addresses.js';
import { type Condition, conditionsOf, hasConditions, mergeConditions } from './conditions.js';
import { DeviceScheduler } from './device-scheduler.js';
import { controllerOf, ObjectQueue, objectKey, Pacer } from './queue.js';
import { SIMULATED_TARGETS, targetKey } from '../admission.js';
import type { Targets } from './targets.js';
import { CLUSTER_KUBECONFIG_KINDS, type WorkloadHandout } from './handout.js';
import { WORKLOAD_SECRET } from '../state.js';

/** `<namespace>/<name>` of a Secret. */
function secretKey(secret: KubeObject): string {
  return `${secret.metadata?.namespace ?? ''}/${secret.metadata?.name ?? ''}`;
}

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
  /** Workload API servers for simulated clusters' kubeconfigs (handout.ts); none: every cluster simulated. */
  handout?: WorkloadHandout | undefined;
  log: (line: string) => void;
}

const quietErrors = (err: unknown) => / 404 | 409 /.test(` ${(err as Error).message} `);

/** Simulates managed resources; see the module comment. */
export class ManagedSimulator {
  private readonly informers = new Map<string, KindInformer>();
  private crdInformer?: KindInformer;
  /** Hash of the fields last written per object, so fields the server prunes are not written again and again. */
  private readonly written = new Map<string, string>();
  private readonly chartsInstalled = new Set<string>();
  private readonly starting = new Set<string>();
  /** Objects whose target could not be resolved yet, looked at again on every tick. */
  private readonly waiting = new Set<string>();
  /** Connection Secrets known to exist (`namespace/name uid-of-owner`): looked up once, not on every tick. */
  private readonly secrets = new Set<string>();
  private readonly queue = new ObjectQueue((o) => this.reconcile(o));
  private readonly pacer = new Pacer();
  /** Provider configs already listed in the admission policy's parameter ConfigMap. */
  private readonly listed = new Set<string>();
  private stopped = false;
  private timer?: NodeJS.Timeout;
  /** Objects whose engine workload is Pending for its devices (device-scheduler.ts). */
  private readonly pendingWorkloads = new Set<string>();
  private readonly devices: DeviceScheduler;

  constructor(
    private readonly kube: Kube,
    private readonly opts: ManagedOptions,
  ) {
    this.devices = new DeviceScheduler(kube, () => this.requeue(this.pendingWorkloads));
  }

  async start(): Promise<void> {
    this.devices.start();
    this.crdInformer = await this.kube.informer('apiextensions.k8s.io/v1', 'CustomResourceDefinition', (crd) => void this.watchKind(crd));
    // Objects and Releases wait for their ProviderConfig and kubeconfig Secret: look again every 3 s at those that wait.
    this.timer = setInterval(() => {
      this.requeue(this.waiting);
      this.requeue(this.pendingWorkloads);
    }, 3000);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.crdInformer?.stop();
    await this.devices.stop();
    for (const i of this.informers.values()) await i.stop();
  }

  private async watchKind(crd: KubeObject): Promise<void> {
    const spec = (crd['spec'] ?? {}) as { group?: string; names?: { kind?: string }; versions?: { name: string; storage?: boolean }[] };
    const group = spec.group ?? '';
    const kind = spec.names?.kind ?? '';
    const simulated = this.opts.groups.includes(group) && !/ProviderConfig(Usage)?$/.test(kind);
    const config = group === OBJECT_GROUP && /^(Cluster)?ProviderConfig$/.test(kind);
    if (!simulated && !config && !(group === OBJECT_GROUP && kind === 'Object')) return;
    const established = conditionsOf(crd['status']).some((c) => c.type === 'Established' && c.status === 'True');
    const version = spec.versions?.find((v) => v.storage)?.name;
    const apiVersion = `${group}/${version}`;
    const key = `${apiVersion}/${kind}`;
    if (!established || !version || this.starting.has(key)) return;
    this.starting.add(key);
    // Discovery lags a freshly Established CRD by a moment: retry until the kind is served.
    for (let attempt = 0; !this.stopped; attempt++) {
      try {
        const inf = await this.kube.informer(
          apiVersion,
          kind,
          (o) => this.queue.add(o),
          (o) => {
            this.queue.forget(o);
            this.release(o);
          },
        );
        this.informers.set(key, inf);
        return;
      } catch (err) {
        if (attempt === 20) this.opts.log(`watch ${kind}.${group}: ${(err as Error).message} (still retrying)`);
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }

  /** One managed resource; resolves with it as last written (undefined when nothing was). */
  private async reconcile(mr: KubeObject): Promise<KubeObject | undefined> {
    try {
      const group = groupOf(mr.apiVersion);
      if (group === OBJECT_GROUP && mr.kind !== 'Object') {
        await this.listSimulatedConfig(mr);
        return undefined;
      }
      const owner = controllerOf(mr);
      const wait = owner && this.needsWrite(mr) ? this.pacer.take(owner) : 0;
      if (wait > 0) {
        setTimeout(() => this.queue.add(mr), wait);
        return undefined;
      }
      const after = group === OBJECT_GROUP ? await this.reconcileObject(mr) : await this.writeStatus(mr, providerStatus(mr, this.context()));
      if (group === 'helm.m.crossplane.io' && mr.kind === 'Release') await this.installChartCrds(mr);
      await this.ensureConnectionSecret(mr);
      return after;
    } catch (err) {
      if (!quietErrors(err)) this.opts.log(`${mr.kind} ${mr.metadata?.namespace}/${mr.metadata?.name}: ${(err as Error).message}`);
      return undefined;
    }
  }

  private async ensureConnectionSecret(mr: KubeObject): Promise<void> {
    const secret = connectionSecret(mr);
    if (!secret || !mr.metadata?.uid || mr.metadata.deletionTimestamp) return;
    const key = `${secretKey(secret)} ${mr.metadata.uid}`;
    if (this.secrets.has(key)) return;
    const exists = await this.kube.get('v1', 'Secret', secret.metadata?.name ?? '', secret.metadata?.namespace);
    if (exists) {
      this.secrets.add(key);
      return;
    }
    const server =
      this.givesCluster(mr) && this.opts.handout
        ? this.opts.handout.take(secretKey(secret), await this.inferenceClusterOf(mr), await this.adoptedServers())
        : undefined;
    if (server) secret['data'] = { kubeconfig: Buffer.from(server.kubeconfig).toString('base64') };
    if (await this.kube.createIfAbsent(secret)) {
      const on = server ? `: a kubeconfig of workload API server ${server.index}` : '';
      this.opts.log(`Secret ${secret.metadata?.namespace}/${secret.metadata?.name}: connection details of ${mr.kind} ${mr.metadata.name}${on}`);
    }
    this.secrets.add(key);
  }

  /** Whether `mr` is a simulated cluster whose connection Secret is its kubeconfig (handout.ts). */
  private givesCluster(mr: KubeObject): boolean {
    return this.opts.groups.includes(groupOf(mr.apiVersion)) && (CLUSTER_KUBECONFIG_KINDS as readonly string[]).includes(mr.kind);
  }

  /**
   * Workload servers an Existing InferenceCluster adopts, which the hand-out
   * must not give: workload 0 while one names the Secret `dev up` writes for
   * it (state.ts WORKLOAD_SECRET). Unreadable (the XRD not served yet): none.
   */
  private async adoptedServers(): Promise<Set<number>> {
    const clusters = await this.kube.list('modelplane.ai/v1alpha1', 'InferenceCluster').catch(() => [] as KubeObject[]);
    const adopts = clusters.some((ic) => {
      const c = getPath(ic, 'spec', 'cluster') as { source?: string; existing?: { secretRef?: { name?: string } } } | undefined;
      return c?.source === 'Existing' && c.existing?.secretRef?.name === WORKLOAD_SECRET.name;
    });
    return new Set(adopts ? [0] : []);
  }

  /** The InferenceCluster `mr` was composed for, following controller references up (undefined past a few hops). */
  private async inferenceClusterOf(mr: KubeObject): Promise<string | undefined> {
    let obj: KubeObject | undefined = mr;
    for (let hop = 0; hop < 4 && obj; hop++) {
      const ref = ((obj.metadata?.['ownerReferences'] ?? []) as { apiVersion: string; kind: string; name: string; controller?: boolean }[]).find((r) => r.controller);
      if (!ref) return undefined;
      if (ref.kind === 'InferenceCluster' && ref.apiVersion.startsWith('modelplane.ai/')) return ref.name;
      obj = await this.kube.get(ref.apiVersion, ref.kind, ref.name, obj.metadata?.namespace);
    }
    return undefined;
  }

  /** A deleted simulated cluster frees its workload API server. */
  private release(mr: KubeObject): void {
    const secret = connectionSecret(mr);
    if (!secret || !this.opts.handout || !this.givesCluster(mr)) return;
    const index = this.opts.handout.release(secretKey(secret));
    if (index !== undefined) this.opts.log(`${mr.kind} ${mr.metadata?.namespace ?? ''}/${mr.metadata?.name ?? ''} deleted: workload API server ${index} is free again`);
  }

  /** An Object: simulated only when it targets a simulated cluster. */
  private async reconcileObject(obj: KubeObject): Promise<KubeObject | undefined> {
    const target = await this.opts.targets.of(obj);
    if (target) this.waiting.delete(objectKey(obj));
    else this.waiting.add(objectKey(obj));
    if (!target?.simulated) return undefined;
    const meta = obj.metadata ?? {};
    if (meta.deletionTimestamp) {
      if (((meta['finalizers'] ?? []) as string[]).length > 0) return this.kube.mergePatch(obj, { metadata: { finalizers: null } });
      return undefined;
    }
    let current = obj;
    if (meta.annotations?.[PAUSED_ANNOTATION] !== 'true') {
      current = await this.kube.mergePatch(obj, { metadata: { annotations: { [PAUSED_ANNOTATION]: 'true', [SIMULATED_ANNOTATION]: 'simulated cluster' } } });
      this.opts.log(`Object ${meta.namespace}/${meta.name}: paused (targets the simulated cluster ${target.server})`);
    }
    // Ready and atProvider only: Synced is the real provider's (ReconcilePaused). Writing it too would flip it back and forth.
    const status = providerStatus(obj, this.context());
    const ready = ((status['conditions'] ?? []) as JsonObject[]).filter((c) => c['type'] === 'Ready');
    return (await this.writeStatus(current, { ...status, conditions: ready })) ?? (current === obj ? undefined : current);
  }

  /** Lists a provider-kubernetes config that reaches a simulated cluster for the admission policy (admission.ts). */
  private async listSimulatedConfig(pc: KubeObject): Promise<void> {
    const key = targetKey(pc.kind, pc.metadata?.name ?? '', pc.metadata?.namespace);
    if (this.listed.has(key)) return;
    const target = await this.opts.targets.ofConfig(pc);
    if (!target) {
      this.waiting.add(objectKey(pc));
      return;
    }
    this.waiting.delete(objectKey(pc));
    if (!target.simulated) return;
    await this.kube.mergePatch({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { ...SIMULATED_TARGETS } }, { data: { [key]: target.server } });
    this.listed.add(key);
    this.opts.log(`${pc.kind} ${key}: reaches the simulated cluster ${target.server}; its Objects are created paused`);
  }

  /**
   * Whether reconciling `mr` would write (cheap, without lookups): it is not
   * Ready yet, or an Object not paused yet. Only writes are paced.
   */
  private needsWrite(mr: KubeObject): boolean {
    if (mr.metadata?.deletionTimestamp) return false;
    if (mr.kind === 'Object' && mr.metadata?.annotations?.[PAUSED_ANNOTATION] !== 'true') return !this.waiting.has(objectKey(mr));
    return !hasConditions(conditionsOf(mr['status']), [{ type: 'Ready', status: 'True', reason: 'Available' }]);
  }

  /**
   * A Release on a real cluster: what installing its chart leaves there that
   * other composed objects rely on, applied once: the release namespace
   * (provider-helm creates it, as `helm install --create-namespace`) and the
   * CRDs the chart brings.
   */
  private async installChartCrds(release: KubeObject): Promise<void> {
    const forProvider = ((release['spec'] as JsonObject | undefined)?.['forProvider'] ?? {}) as { chart?: { name?: string }; namespace?: string };
    const chart = forProvider.chart?.name ?? '';
    const target = await this.opts.targets.of(release);
    if (target) this.waiting.delete(objectKey(release));
    else this.waiting.add(objectKey(release));
    if (!target || target.simulated) return;
    const key = `${target.server} ${forProvider.namespace ?? ''} ${chart}`;
    if (this.chartsInstalled.has(key)) return;
    this.chartsInstalled.add(key);
    const crds = chartCrds(chart, this.opts.crds);
    try {
      if (forProvider.namespace) {
        await target.kube.createIfAbsent({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: forProvider.namespace } });
      }
      for (const crd of crds) await target.kube.apply(crd, 'modelplane-dev-helm');
    } catch (err) {
      this.chartsInstalled.delete(key); // the next look tries again
      throw err;
    }
    this.opts.log(`chart ${chart}: namespace ${forProvider.namespace} and ${crds.length} CRD(s) on ${target.server} (simulated provider-helm)`);
  }

  /** Addresses of simulated clusters' load balancers come from the workload pool; device scheduling from the ledgers. */
  private context(): ProviderContext {
    return {
      address: (owner: string) => this.opts.addresses.address('workload', owner),
      pending: (obj: KubeObject) => {
        const why = this.devices.pending(obj);
        // Looked at again when a cluster's ledger changes, and on the 3-s tick.
        if (why !== undefined) this.pendingWorkloads.add(objectKey(obj));
        else this.pendingWorkloads.delete(objectKey(obj));
        return why;
      },
    };
  }

  /** Re-reconciles the watched objects whose keys are in `keys` (they wait for something outside them). */
  private requeue(keys: ReadonlySet<string>): void {
    if (keys.size === 0) return;
    for (const inf of this.informers.values()) {
      for (const o of inf.list()) if (keys.has(objectKey(o as KubeObject))) this.queue.add(o as KubeObject);
    }
  }

  /**
   * Writes `wanted` (conditions + provider fields) when it differs from what
   * the object has; resolves with the object as written, or undefined.
   */
  private async writeStatus(obj: KubeObject, wanted: JsonObject): Promise<KubeObject | undefined> {
    if (obj.metadata?.deletionTimestamp) return undefined;
    const { conditions: wantedConditions, ...fields } = wanted as JsonObject & { conditions?: Condition[] };
    const current = (obj['status'] ?? {}) as JsonObject;
    const hash = createHash('sha256').update(JSON.stringify(fields)).digest('hex');
    const key = objectKey(obj);
    const fieldsMatch = this.written.get(key) === hash || Object.entries(fields).every(([k, v]) => JSON.stringify(current[k]) === JSON.stringify(v));
    const conds = wantedConditions ?? [];
    if (fieldsMatch && hasConditions(conditionsOf(current), conds)) {
      this.written.set(key, hash);
      return undefined;
    }
    const conditions = mergeConditions(conditionsOf(current), conds, new Date().toISOString());
    const after = await this.kube.patchStatus(obj, { ...fields, conditions: conditions as unknown as JsonObject[] });
    this.written.set(key, hash);
    this.opts.log(`${obj.kind} ${obj.metadata?.namespace ? `${obj.metadata.namespace}/` : ''}${obj.metadata?.name}: status written (simulated)`);
    return after;
  }
}
