/**
 * `modelplane plan`: the whole fleet in one process, as Crossplane would run it.
 *
 * Guarantees:
 * - Inputs: Modelplane XRs (validated against their XRDs, defaults applied;
 *   an invalid one is reported as `file:line kind/name: field: problem` and
 *   left out), Secrets, Namespaces and provider configs; any other kind is
 *   listed and skipped.
 * - Each round visits every XR that has a Composition, one at a time in
 *   (kind, namespace, name) order, each seeing what the ones before it wrote;
 *   as Crossplane's watches would, an XR is reconciled only when something
 *   its last reconcile read has changed since (its own object, a composed
 *   resource, what a required-resource selector matched: reconcile.ts
 *   inputsUnchanged); functions are deterministic, so a skipped reconcile is
 *   one that would have changed nothing, and the plan (rounds included) is
 *   the same as reconciling everything;
 *   a ModelDeployment that changed its ModelReplicas is followed at once by
 *   the InferenceClusters they are on, which publish their capacity ledger
 *   (`status.gpuPools[].used`, docs/design.md#the-capacity-ledger) before the next deployment reads it:
 *   plan shows the race-free outcome (live, a ledger can be a reconcile
 *   behind; schedule-model-deployment/compose.ts);
 *   then the simulated providers make every managed resource composed in an
 *   earlier round Ready (cli/simulated/providers.ts). A round that changes nothing is the
 *   fixed point.
 * - Platform kinds (InferenceClass, InferenceCluster, InferenceGateway and
 *   what they compose) reach their fixed point first; developer kinds
 *   (ModelDeployment, ModelService, ModelCache) are applied after, unless
 *   `together` applies everything at once.
 * - Same inputs, same plan: no clock, no randomness, sorted iteration.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_NOW, type JsonObject, type KubeObject } from '../../functions/lib/function.js';
import { DEFAULT_BOUNDS, formatTime, parseDuration } from '../../functions/lib/health.js';
import { providerConfigName } from '../../functions/lib/names.js';
import { formatFieldError, type SchemaRegistry } from '../../functions/lib/schema/index.js';
import { DirectRuntime, type FunctionRuntime, REPO_ROOT } from '../functions.js';
import { type LoadedDocument, loadManifests, loadManifestsReporting, UserError } from '../load.js';
import { isClusterScoped, xrdRegistry } from '../scope.js';
import { didYouMean, duplicates, nameProblem } from './inputs.js';
import { jsonEqual } from './json-equal.js';
import { AddressPool, connectionSecret, providerStatus } from '../simulated/providers.js';
import { inputsUnchanged, type ReconcileInputs, reconcileXR } from './reconcile.js';
import { observedReplicas } from './state.js';
import { controllerUid, groupOf, keyOf } from '../objects.js';
import { ObjectStore } from './store.js';

/** Kinds a developer applies; everything else Modelplane is platform. */
export const DEVELOPER_KINDS = new Set(['ModelDeployment', 'ModelService', 'ModelCache', 'ModelEndpoint']);
const MODELPLANE_GROUPS = new Set(['modelplane.ai', 'infrastructure.modelplane.ai']);

/** An input that was left out, and why. */
export interface InvalidInput {
  file: string;
  line: number;
  kind: string;
  name: string;
  error: string;
}

/** Options of {@link plan}. */
export interface PlanOptions {
  /** Maximum reconcile rounds per phase; `together` runs one phase of twice as many. @default 20 */
  rounds?: number;
  /** Apply developer kinds together with platform kinds. @default false */
  together?: boolean;
  /** Called after each round (for progress on a terminal). */
  onRound?: (phase: string, round: number, objects: number) => void;
  runtime?: FunctionRuntime;
  /** Objects of the current fleet (`--state`, state.ts): their ModelReplicas are applied as observed, so they stay. */
  state?: KubeObject[];
  /** Addresses of the current fleet by owner (`namespace/name` of the Object), kept (state.ts loadState). */
  addresses?: [string, string][];
  /**
   * Changes applied after the plan converged, one after the other, each then
   * reconciled until it converges: the manifests under each entry's paths, as
   * `kubectl apply` of an edit (an object that exists keeps its status and
   * metadata; its spec is replaced). For "what happens when I change this".
   */
  changes?: string[][];
  /** The time functions measure durations against (ms since the epoch, `--now`). @default 2024-01-01T00:00:00Z */
  now?: number;
  /**
   * InferenceClusters lost after the plan converged (`--lose`): the control
   * plane stops reaching them at `now` (their reachability probes report
   * Synced False), and the plan looks at the fleet once the longest of their
   * `failover.after` has passed (docs/failover.md).
   */
  lose?: string[];
  /**
   * Once the plan converged, every ModelDeployment with `spec.autoscaling`
   * scaled to its `maxReplicas` (as KEDA would under peak demand everywhere)
   * and reconciled until it converges: whether the fleet has room for the
   * maximum, with what already runs kept where it is (autoscaling.ts,
   * docs/autoscaling.md#in-a-plan).
   */
  atMaxReplicas?: boolean;
}

/** Everything a plan produced. */
export interface PlanResult {
  converged: boolean;
  rounds: number;
  store: ObjectStore;
  invalid: InvalidInput[];
  /** Kinds that are not plan inputs: `file:line apiVersion/kind name`. */
  skipped: string[];
  /** The last error of each XR that failed to reconcile, by store key. */
  errors: Record<string, string>;
  /** Keys of the objects loaded from the inputs. */
  inputs: Set<string>;
  /** The clusters lost (`lose`), sorted. */
  lost: string[];
}

/** Compositions under compositions/, by `apiVersion/kind` of their composite type. */
export function loadCompositions(dir = join(REPO_ROOT, 'compositions')): Map<string, KubeObject> {
  const out = new Map<string, KubeObject>();
  if (!existsSync(dir)) return out;
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.yaml')).sort()) {
    for (const { object } of loadManifests(join(dir, f))) {
      const ref = (object['spec'] as { compositeTypeRef?: { apiVersion: string; kind: string } } | undefined)?.compositeTypeRef;
      if (object.kind === 'Composition' && ref) out.set(`${ref.apiVersion}/${ref.kind}`, object);
    }
  }
  return out;
}

function isProviderConfig(o: KubeObject): boolean {
  return /ProviderConfig$/.test(o.kind);
}

interface Classified {
  platform: KubeObject[];
  developer: KubeObject[];
  invalid: InvalidInput[];
  skipped: string[];
}

/**
 * Sorts the loaded documents into what the plan applies, and what it
 * refuses: no apiVersion or kind, no metadata.name (generateName refused),
 * a duplicate (inputs.ts), an unknown Modelplane kind, or invalid against
 * its XRD (an undeclared field with a did-you-mean hint).
 */
export function classify(docs: readonly LoadedDocument[], registry: SchemaRegistry): Classified {
  const out: Classified = { platform: [], developer: [], invalid: [], skipped: [] };
  const dup = duplicates(docs, isClusterScoped);
  for (const doc of docs) {
    const { object, file, line } = doc;
    const name = `${object.metadata?.namespace ? `${object.metadata.namespace}/` : ''}${object.metadata?.name ?? object.metadata?.['generateName'] ?? '?'}`;
    if (typeof object.apiVersion !== 'string' || typeof object.kind !== 'string') {
      out.invalid.push({ file, line, kind: String(object.kind ?? '?'), name, error: 'apiVersion and kind are required' });
      continue;
    }
    const unnamed = nameProblem(object);
    if (unnamed !== undefined) {
      out.invalid.push({ file, line, kind: object.kind, name, error: unnamed });
      continue;
    }
    if (dup.has(doc)) {
      out.invalid.push({ file, line, kind: object.kind, name, error: dup.get(doc)! });
      continue;
    }
    const group = groupOf(object.apiVersion);
    if (MODELPLANE_GROUPS.has(group)) {
      const schema = registry.lookup(object.apiVersion, object.kind);
      if (!schema) {
        out.invalid.push({ file, line, kind: object.kind, name, error: `no XRD defines ${object.apiVersion} ${object.kind}` });
        continue;
      }
      const result = registry.validate(object)!;
      if (result.errors.length > 0) {
        const hint = (e: (typeof result.errors)[number]) =>
          e.message === 'field not declared in schema' ? `${formatFieldError(e)}${didYouMean(schema.schema, e.path)}` : formatFieldError(e);
        out.invalid.push({ file, line, kind: object.kind, name, error: result.errors.map(hint).join('; ') });
        continue;
      }
      (DEVELOPER_KINDS.has(object.kind) ? out.developer : out.platform).push(result.value as KubeObject);
    } else if ((object.apiVersion === 'v1' && (object.kind === 'Secret' || object.kind === 'Namespace')) || isProviderConfig(object)) {
      out.platform.push(object);
    } else {
      out.skipped.push(`${file}:${line} ${object.apiVersion}/${object.kind} ${name}`);
    }
  }
  return out;
}

/** Turns a Secret's stringData into data, as the API server does on create. */
function normaliseSecret(o: KubeObject): KubeObject {
  if (o.kind !== 'Secret' || o['stringData'] === undefined) return o;
  const { stringData, ...rest } = o as KubeObject & { stringData: Record<string, string> };
  const data: Record<string, string> = { ...((rest['data'] ?? {}) as Record<string, string>) };
  for (const [k, v] of Object.entries(stringData)) data[k] = Buffer.from(String(v)).toString('base64');
  return { ...rest, data } as KubeObject;
}

/** The MetalLB address pool of the first InferenceGateway that declares one. */
function metallbRange(objects: readonly KubeObject[]): string | undefined {
  for (const o of objects) {
    if (o.kind !== 'InferenceGateway') continue;
    const pool = (((o['spec'] as JsonObject | undefined)?.['traefik'] as JsonObject | undefined)?.['metallb'] as JsonObject | undefined)?.[
      'addressPool'
    ];
    if (typeof pool === 'string') return pool;
  }
  return undefined;
}

/**
 * Plans the manifests under `paths`.
 * @throws UserError for unreadable files or invalid YAML.
 */
export async function plan(paths: string[], opts: PlanOptions = {}): Promise<PlanResult> {
  const { docs, errors: loadErrors } = loadManifestsReporting(...paths);
  if (docs.length === 0 && loadErrors.length === 0) throw new UserError(`${paths.join(', ')}: no manifests found (.yaml or .yml files with documents)`);
  const registry = xrdRegistry();
  const compositions = loadCompositions();
  const classified = classify(docs, registry);
  // Every file that could not be read or parsed is one invalid input; the others are still planned.
  classified.invalid.unshift(...loadErrors.map((e) => ({ file: e.file, line: e.line, kind: '?', name: '?', error: e.error })));
  const scopeOf = isClusterScoped;
  const store = new ObjectStore(scopeOf);
  const runtime = opts.runtime ?? new DirectRuntime();
  const maxRounds = opts.rounds ?? 20;
  const controlPlane = new AddressPool(metallbRange(classified.platform), '203.0.113.0/24');
  const workload = new AddressPool(undefined, '198.51.100.0/24');
  for (const [owner, ip] of opts.addresses ?? []) if (!controlPlane.reserve(owner, ip)) workload.reserve(owner, ip);
  const errors: Record<string, string> = {};
  const firstSeen = new Map<string, number>();
  /** What each XR's last reconcile read (reconcile.ts): unchanged inputs are not reconciled again. */
  const read = new Map<string, ReconcileInputs>();
  /** The revision each managed resource had when its provider last wrote its status. */
  const providerWrote = new Map<string, number | undefined>();
  const inputs = new Set<string>();
  /** Keys the simulated providers look at in their next pass (besides those written since their last). */
  const providerCandidates = new Set<string>();
  let round = 0;
  let converged = true;
  const start = opts.now ?? DEFAULT_NOW;
  let now = start;
  /** The ClusterProviderConfigs of the lost clusters: what their managed resources can no longer reach. */
  const lostConfigs = new Set<string>();

  // As `kubectl apply` does, a namespaced input without a namespace lands in `default`.
  const apply = (objects: KubeObject[]) => {
    for (const o of objects) {
      const obj = normaliseSecret(o);
      if (!scopeOf(groupOf(obj.apiVersion), obj.kind) && !obj.metadata?.namespace) {
        obj.metadata = { ...(obj.metadata ?? {}), namespace: 'default' };
      }
      inputs.add(keyOf(store.put(obj)));
    }
  };

  // `kubectl apply` of an edited manifest: the spec is replaced, status and server-set metadata stay.
  const applyEdit = (objects: KubeObject[]) => {
    for (const o of objects) {
      const ns = !scopeOf(groupOf(o.apiVersion), o.kind) && !o.metadata?.namespace ? 'default' : o.metadata?.namespace;
      const existing = store.get(keyOf({ ...o, metadata: { ...(o.metadata ?? {}), ...(ns ? { namespace: ns } : {}) } }));
      if (existing === undefined) {
        apply([o]);
        continue;
      }
      const edited: KubeObject = { ...existing, ...o, metadata: { ...(existing.metadata ?? {}), ...(o.metadata ?? {}) } };
      if (existing['status'] !== undefined) edited['status'] = existing['status'];
      store.put(normaliseSecret(edited));
    }
  };

  // The XRs in reconcile order, recomputed only when an object was created or deleted.
  let xrCache: { membership: number; keys: string[] } | undefined;
  const xrKeys = (): string[] => {
    if (xrCache?.membership === store.membership) return xrCache.keys;
    const keys = store
      .all()
      .filter((o) => compositions.has(`${o.apiVersion}/${o.kind}`))
      .map((o) => ({ key: keyOf(o), order: `${o.kind}\0${o.metadata?.namespace ?? ''}\0${o.metadata?.name ?? ''}` }))
      .sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0))
      .map((x) => x.key);
    xrCache = { membership: store.membership, keys };
    return keys;
  };

  const runPhase = async (phase: string, limit = maxRounds): Promise<boolean> => {
    for (let i = 0; i < limit; i++) {
      round++;
      const before = store.revision;
      const debugBefore = process.env['MODELPLANE_DEBUG_ROUNDS'] ? store.fingerprint() : '';
      const xrs = xrKeys();
      const reconcile = async (key: string, xr: KubeObject) => {
        const outcome = await reconcileXR(store, key, compositions.get(`${xr.apiVersion}/${xr.kind}`)!, runtime, formatTime(now));
        if (outcome.inputs) read.set(key, outcome.inputs);
        else read.delete(key);
        if (outcome.error !== undefined) errors[key] = outcome.error;
        else delete errors[key];
      };
      for (const key of xrs) {
        const xr = store.get(key);
        if (!xr) continue; // garbage-collected earlier in this round
        if (inputsUnchanged(store, key, read.get(key))) continue;
        const before = xr.kind === 'ModelDeployment' ? replicaRevisions(store, xr) : undefined;
        await reconcile(key, xr);
        if (before === undefined) continue;
        // The capacity ledger (docs/design.md#the-capacity-ledger): the clusters whose replicas this deployment changed
        // publish their usage before the next deployment reads it.
        for (const ck of ledgerClusters(store, before, replicaRevisions(store, xr))) {
          const cluster = store.get(ck);
          if (cluster && compositions.has(`${cluster.apiVersion}/${cluster.kind}`) && !inputsUnchanged(store, ck, read.get(ck))) await reconcile(ck, cluster);
        }
      }
      // Simulated providers: what was composed in an earlier round becomes Ready now.
      // Only objects written since the last pass, or still waiting for their provider, can need it;
      // they are visited in key order, as addresses are handed out in that order.
      for (const key of store.takeChanged()) providerCandidates.add(key);
      const candidates = [...providerCandidates].filter((k) => store.get(k) !== undefined).sort();
      providerCandidates.clear();
      for (const [key, o] of candidates.map((k) => [k, store.get(k)!] as const)) {
        const isXR = compositions.has(`${o.apiVersion}/${o.kind}`);
        if (isXR || inputs.has(key) || controllerUid(o) === undefined || o.kind === 'Secret') continue;
        if (!firstSeen.has(key)) {
          firstSeen.set(key, round);
          providerCandidates.add(key);
          continue;
        }
        if (firstSeen.get(key)! >= round) {
          providerCandidates.add(key);
          continue;
        }
        if (providerWrote.has(key) && providerWrote.get(key) === store.modRevision(key)) continue;
        const owner = store.getByUid(controllerUid(o)!);
        const pool = owner?.kind === 'InferenceGateway' ? controlPlane : workload;
        const status = providerStatus(o, lostConfigs.size === 0 ? pool : { address: (x) => pool.address(x), unreachable: (mr: KubeObject) => lostTarget(mr, lostConfigs, start) });
        if (!jsonEqual(o['status'], status)) store.put({ ...o, status });
        writeConnectionSecret(store, o);
        providerWrote.set(key, store.modRevision(key));
      }
      opts.onRound?.(phase, round, store.size);
      if (debugBefore) debugRound(round, debugBefore, store.fingerprint());
      if (store.revision === before) return true;
    }
    return false;
  };

  // The current fleet's replicas, as the deployments' observed composed resources (not inputs: their deployment owns them).
  const observe = () => {
    const deployments = classified.developer.filter((o) => o.kind === 'ModelDeployment');
    for (const r of observedReplicas(opts.state ?? [], deployments)) store.put(r);
  };
  try {
    if (opts.together) {
      apply([...classified.platform, ...classified.developer]);
      observe();
      converged = await runPhase('fleet and models', 2 * maxRounds);
    } else {
      apply(classified.platform);
      const platformConverged = await runPhase('platform');
      apply(classified.developer);
      observe();
      converged = (await runPhase('models')) && platformConverged;
    }
    for (const [i, paths] of (opts.changes ?? []).entries()) {
      const changed = classify(loadManifests(...paths), registry);
      classified.invalid.push(...changed.invalid);
      classified.skipped.push(...changed.skipped);
      applyEdit([...changed.platform, ...changed.developer]);
      converged = (await runPhase(`change ${i + 1}`)) && converged;
    }
    if (opts.atMaxReplicas) {
      // As KEDA would, once the fleet has settled: every autoscaled deployment's spec.replicas to its maximum.
      const scaled = store
        .all()
        .filter((o) => o.kind === 'ModelDeployment')
        .flatMap((o) => {
          const peak = atMaxReplicas(o);
          return peak === o ? [] : [peak];
        });
      applyEdit(scaled);
      converged = (await runPhase('autoscaling at maxReplicas')) && converged;
    }
    if (opts.lose !== undefined && opts.lose.length > 0) {
      const clusters = new Map(store.all().filter((o) => o.kind === 'InferenceCluster').map((o) => [o.metadata?.name ?? '', o]));
      const unknown = opts.lose.filter((n) => !clusters.has(n));
      if (unknown.length > 0) throw new UserError(`--lose ${unknown.join(', ')}: no such InferenceCluster in the plan (it has ${[...clusters.keys()].sort().join(', ') || 'none'})`);
      let after = 0;
      for (const name of opts.lose) {
        const c = clusters.get(name)!;
        lostConfigs.add(String(((c['status'] as JsonObject | undefined)?.['providerConfigRef'] as JsonObject | undefined)?.['name'] ?? providerConfigName(name)));
        after = Math.max(after, parseDuration(((c['spec'] as JsonObject | undefined)?.['failover'] as JsonObject | undefined)?.['after']) ?? DEFAULT_BOUNDS.afterSeconds);
      }
      // Lost at `start`, looked at once failover.after has passed: every managed resource that reaches them is re-observed.
      now = start + after * 1000;
      for (const o of store.all()) {
        if (lostTarget(o, lostConfigs, start) === undefined) continue;
        providerWrote.delete(keyOf(o));
        providerCandidates.add(keyOf(o));
      }
      converged = (await runPhase(`lose ${[...opts.lose].sort().join(', ')}`)) && converged;
    }
  } finally {
    if (!opts.runtime) await runtime.close();
  }
  return { converged, rounds: round, store, invalid: classified.invalid, skipped: classified.skipped, errors, inputs, lost: [...(opts.lose ?? [])].sort() };
}

/**
 * When `mr` is a managed resource acting through one of `configs` (a lost
 * cluster's ClusterProviderConfig): its provider's Synced=False condition,
 * as provider-kubernetes reports a cluster it cannot reach, since `at`.
 */
export function lostTarget(mr: KubeObject, configs: ReadonlySet<string>, at: number): JsonObject | undefined {
  const ref = (mr['spec'] as JsonObject | undefined)?.['providerConfigRef'] as JsonObject | undefined;
  if (typeof ref?.['name'] !== 'string' || !configs.has(ref['name'])) return undefined;
  return {
    type: 'Synced',
    status: 'False',
    reason: 'ReconcileError',
    message: 'cannot reach the cluster: it is lost (modelplane plan --lose, simulated)',
    lastTransitionTime: formatTime(at),
  };
}

/** The ModelReplicas `xr` controls: store key → [revision, cluster label]. */
function replicaRevisions(store: ObjectStore, xr: KubeObject): Map<string, [number | undefined, string]> {
  const out = new Map<string, [number | undefined, string]>();
  const uid = xr.metadata?.uid;
  for (const o of uid ? store.controlledBy(uid) : []) {
    if (o.kind !== 'ModelReplica') continue;
    out.set(keyOf(o), [store.modRevision(keyOf(o)), o.metadata?.labels?.['modelplane.ai/cluster'] ?? '']);
  }
  return out;
}

/**
 * Store keys of the InferenceClusters (sorted) whose ModelReplicas changed
 * between `before` and `after`: created, changed or deleted ones' cluster label.
 */
function ledgerClusters(store: ObjectStore, before: Map<string, [number | undefined, string]>, after: Map<string, [number | undefined, string]>): string[] {
  const names = new Set<string>();
  for (const [k, [rev, cluster]] of after) if (before.get(k)?.[0] !== rev) names.add(cluster);
  for (const [k, [, cluster]] of before) if (!after.has(k)) names.add(cluster);
  names.delete('');
  return [...names]
    .sort()
    .map((n) => keyOf({ apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceCluster', metadata: { name: n } }))
    .filter((k) => store.get(k) !== undefined);
}

/** A provider writes a managed resource's connection details to the Secret it names. */
function writeConnectionSecret(store: ObjectStore, mr: KubeObject): void {
  const secret = connectionSecret(mr);
  if (!secret) return;
  const existing = store.get(keyOf(secret));
  if (!existing || !jsonEqual(existing['data'], secret['data'])) store.put(secret);
}

/** MODELPLANE_DEBUG_ROUNDS=1: which objects a round changed, on stderr (for diagnosing a plan that does not converge). */
function debugRound(round: number, before: string, after: string): void {
  const index = (fp: string) => new Map((JSON.parse(fp) as KubeObject[]).map((o) => [keyOf(o), JSON.stringify(o)]));
  const [a, b] = [index(before), index(after)];
  const changed = [...new Set([...a.keys(), ...b.keys()])].filter((k) => a.get(k) !== b.get(k)).sort();
  process.stderr.write(`round ${round}: ${changed.length} changed${changed.length ? `: ${changed.join(', ')}` : ''}\n`);
}

/** A ModelDeployment with `spec.autoscaling.maxReplicas` at that many replicas; any other object as it is. */
function atMaxReplicas(o: KubeObject): KubeObject {
  const spec = o['spec'] as JsonObject | undefined;
  const max = (spec?.['autoscaling'] as JsonObject | undefined)?.['maxReplicas'];
  if (o.kind !== 'ModelDeployment' || typeof max !== 'number') return o;
  return { ...o, spec: { ...spec, replicas: max } };
}
