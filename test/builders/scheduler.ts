/**
 * Test builders for the fleet scheduler (ModelDeployment, InferenceCluster
 * status, ModelReplica): short, immutable, every call a fresh object.
 * Defaults are the reference's acceptance fixtures (docs/kinds/modeldeployment.md): deployment
 * `my-model` in `ml-team`, engine `main` with one Standalone member requesting
 * one `gpu`; cluster Ready with a gateway and pool `default` of 2 nodes with
 * one DRA gpu device (count 1, 141Gi).
 * Selectors are evaluated by the real CEL library (the `@modelplane/cel` package) through
 * the function's own matcher; `sel.*` makes the three forms the cases use.
 */
import type { ComposeRequest, JsonObject, KubeObject, ObservedResource } from '../../functions/lib/function.js';
import { withUsage } from '../../functions/lib/fleet/cluster-usage.js';
import { REQ_REPLICAS } from '../../functions/schedule-model-deployment/compose.js';
import { readDeployment } from '../../functions/schedule-model-deployment/deployment.js';
import { readFleet, readReplicas } from '../../functions/lib/fleet/fleet.js';
import { celMatcher } from '../../functions/lib/fleet/cel-matcher.js';
import type { DeviceMatcher } from '../../functions/lib/fleet/matcher.js';
import type { Candidate, EnginePlacement, MemberPlacement, PoolDevice, ResolvedRequest, Role, RolloutRole } from '../../functions/lib/fleet/model.js';
import { type ScheduleOutcome, schedule } from '../../functions/schedule-model-deployment/scheduling.js';

export const NS = 'ml-team';
export const DEP = 'my-model';
export const GPU = 'gpu.nvidia.com';
export const API = 'modelplane.ai/v1alpha1';

/** Selector sources of the three forms the cases use (DRA CEL). */
export const sel = {
  driver: (d: string) => `device.driver == "${d}"`,
  memory: (q: string, driver = GPU) => `device.capacity["${driver}"].memory.compareTo(quantity("${q}")) >= 0`,
  attr: (domain: string, key: string, value: string) => `device.attributes["${domain}"].${key} == "${value}"`,
};

/** The real CEL matcher, counting evaluations (to check CEL runs once per class). */
export function countingMatcher(): DeviceMatcher & { evaluations: number } {
  const m = {
    evaluations: 0,
    compile: (source: string) => celMatcher.compile(source),
    device: (d: PoolDevice) => celMatcher.device(d),
    matches(selector: unknown, device: unknown) {
      m.evaluations++;
      return celMatcher.matches(selector as never, device as never);
    },
  };
  return m;
}

// ---- InferenceClusters -------------------------------------------------------------------

/** A pool device: DRA gpu of `memory` unless overridden. */
export function device(name = 'gpu', opts: { count?: number; memory?: string | null; claim?: 'DRA' | 'Synthetic'; driver?: string; attributes?: JsonObject } = {}): JsonObject {
  const d: JsonObject = { name, claim: opts.claim ?? 'DRA', driver: opts.driver ?? GPU, count: opts.count ?? 1 };
  if ((opts.claim ?? 'DRA') === 'DRA') d['deviceClassName'] = opts.driver ?? GPU;
  if (opts.attributes) d['attributes'] = opts.attributes;
  if (opts.memory !== null) d['capacity'] = { memory: { value: opts.memory ?? '141Gi' } };
  return d;
}

/** A synthetic NIC device carrying attribute `type`. */
export function nic(type: string): JsonObject {
  return { name: 'nic', claim: 'Synthetic', driver: 'nic.nvidia.com', count: 1, attributes: { type: { string: type } } };
}

/**
 * A published pool (`status.gpuPools[]`): on an InfiniBand fabric unless
 * `multiNode: false` (then without a fabric, so no gang lands on it).
 */
export function pool(name = 'default', opts: { nodes?: number; devices?: JsonObject[]; multiNode?: boolean; exclusive?: boolean } = {}): JsonObject {
  const p: JsonObject = { name, nodes: opts.nodes ?? 2, devices: opts.devices ?? [device()] };
  if (opts.exclusive) p['exclusive'] = true;
  if (opts.multiNode !== false) p['fabric'] = 'InfiniBand';
  return p;
}

/** The capabilities a cluster publishes (`status.capabilities`), with this multi-node fabric. */
export function capabilities(fabric: 'EFA' | 'InfiniBand' | 'Ethernet' | 'None' = 'InfiniBand'): JsonObject {
  return { rwxCacheStorageClass: { reason: 'none' }, multiNodeFabric: fabric, nodeAutoscaling: 'None', gpuStack: 'Composed' };
}

/** An InferenceCluster as the InferenceCluster function publishes it. */
export function cluster(
  name: string,
  opts: {
    pools?: JsonObject[];
    ready?: boolean;
    gateway?: string | null;
    taints?: JsonObject[];
    labels?: Record<string, string>;
    /** The cluster's multi-node fabric (`status.capabilities`); null: no capabilities published. @default "InfiniBand" */
    fabric?: 'EFA' | 'InfiniBand' | 'Ethernet' | 'None' | null;
    /** `status.health` (docs/failover.md): its state, since 2024-01-01T00:00:00Z unless given. */
    health?: string;
    since?: string;
    /** `spec.drain`. */
    drain?: boolean;
  } = {},
): KubeObject {
  const status: JsonObject = {
    conditions: [{ type: 'Ready', status: opts.ready === false ? 'False' : 'True', reason: opts.ready === false ? 'Creating' : 'Available' }],
    providerConfigRef: { name },
    gpuPools: opts.pools ?? [pool()],
  };
  if (opts.fabric !== null) status['capabilities'] = capabilities(opts.fabric ?? 'InfiniBand');
  if (opts.gateway !== null) status['gateway'] = { address: opts.gateway ?? '10.0.0.1' };
  const spec: JsonObject = { cluster: { source: 'Existing', existing: { secretRef: { name: `${name}-kubeconfig` } } } };
  if (opts.taints) spec['taints'] = opts.taints;
  if (opts.drain !== undefined) spec['drain'] = opts.drain;
  if (opts.health !== undefined) status['health'] = { state: opts.health, since: opts.since ?? '2024-01-01T00:00:00Z', reason: opts.health, message: `test: ${opts.health}` };
  const metadata: KubeObject['metadata'] = { name };
  if (opts.labels) metadata.labels = opts.labels;
  return { apiVersion: API, kind: 'InferenceCluster', metadata, spec, status };
}

// ---- ModelDeployment ---------------------------------------------------------------------

/** A member's pod template (container `engine`). */
export function template(args: string[] = ['--model=Qwen/Qwen3-0.6B']): JsonObject {
  const container: JsonObject = { name: 'engine', image: 'vllm/vllm-openai:latest' };
  if (args.length > 0) container['args'] = args;
  return { spec: { containers: [container] } };
}

/** A nodeSelector device request. */
export function req(name = 'gpu', selectors: string[] = [sel.memory('141Gi')], count?: number): JsonObject {
  const r: JsonObject = { name, selectors: selectors.map((cel) => ({ cel })) };
  if (count !== undefined) r['count'] = count;
  return r;
}

/** An engine member; `devices: []` means no nodeSelector. */
export function member(role: Role = 'Standalone', opts: { devices?: JsonObject[]; workerNodes?: number } = {}): JsonObject {
  const m: JsonObject = { role, template: template() };
  const devices = opts.devices ?? [req()];
  if (devices.length > 0) m['nodeSelector'] = { devices };
  if (opts.workerNodes !== undefined) m['worker'] = { nodes: opts.workerNodes };
  return m;
}

/** An engine (default `main`, one Standalone member). */
export function engine(name = 'main', members: JsonObject[] = [member()], opts: { copies?: number; phase?: string } = {}): JsonObject {
  const e: JsonObject = { name, members };
  if (opts.copies !== undefined) e['copies'] = opts.copies;
  if (opts.phase !== undefined) e['phase'] = opts.phase;
  return e;
}

/** A pipeline gang: Leader + Worker of `workerNodes` pods, both requesting `req()` unless given. */
export function gang(workerNodes: number, leader: JsonObject[] = [req()], worker: JsonObject[] = [req()]): JsonObject {
  return engine('main', [member('Leader', { devices: leader }), member('Worker', { devices: worker, workerNodes })]);
}

/** A ModelDeployment XR in the canonical form (or the flat form with `flat`). */
export function deployment(
  opts: {
    name?: string;
    namespace?: string;
    replicas?: number;
    engines?: JsonObject[];
    tolerations?: JsonObject[];
    cache?: string;
    clusterSelector?: Record<string, string>;
    labels?: Record<string, string>;
    serving?: string;
    flat?: boolean;
    /** `spec.strategy.rollingUpdate`. */
    rollingUpdate?: JsonObject;
  } = {},
): KubeObject {
  const body: JsonObject = { engines: opts.engines ?? [engine()] };
  if (opts.clusterSelector) body['clusterSelector'] = { matchLabels: opts.clusterSelector };
  if (opts.cache) body['modelCacheRef'] = { name: opts.cache };
  if (opts.serving) body['serving'] = { mode: opts.serving };
  if (opts.tolerations) body['tolerations'] = opts.tolerations;
  const spec: JsonObject = { replicas: opts.replicas ?? 1 };
  if (opts.rollingUpdate) spec['strategy'] = { rollingUpdate: opts.rollingUpdate };
  if (opts.flat) Object.assign(spec, body);
  else spec['template'] = { ...(opts.labels ? { metadata: { labels: opts.labels } } : {}), spec: body };
  return { apiVersion: API, kind: 'ModelDeployment', metadata: { name: opts.name ?? DEP, namespace: opts.namespace ?? NS }, spec };
}

// ---- ModelReplicas -----------------------------------------------------------------------

/** An observed member: its role, pool and whether it carries deviceRequests. */
export function rmember(role: Role, pool: string, opts: { claims?: boolean; workerNodes?: number } = {}): JsonObject {
  const m: JsonObject = { role, nodePoolName: pool, template: template() };
  if (opts.claims !== false) m['deviceRequests'] = [{ name: 'gpu', deviceClassName: GPU, count: 1, selectors: [{ cel: sel.memory('141Gi') }] }];
  if (opts.workerNodes !== undefined) m['worker'] = { nodes: opts.workerNodes };
  return m;
}

/** An existing ModelReplica (what `all-replicas` returns). */
export function replica(
  clusterName: string,
  index: number,
  opts: { name?: string; deployment?: string; namespace?: string; pool?: string; engines?: JsonObject[]; ready?: boolean; copies?: number } = {},
): KubeObject {
  const engines = opts.engines ?? [{ name: 'main', copies: opts.copies ?? 1, members: [rmember('Standalone', opts.pool ?? 'default')] }];
  const obj: KubeObject = {
    apiVersion: API,
    kind: 'ModelReplica',
    metadata: {
      name: opts.name ?? `${opts.deployment ?? DEP}-${clusterName}-${index}`,
      namespace: opts.namespace ?? NS,
      labels: { 'modelplane.ai/deployment': opts.deployment ?? DEP, 'modelplane.ai/cluster': clusterName, 'modelplane.ai/replica-index': String(index) },
    },
    spec: { clusterName, engines },
  };
  if (opts.ready !== undefined) obj['status'] = { conditions: [{ type: 'Ready', status: opts.ready ? 'True' : 'False', reason: opts.ready ? 'Available' : 'Creating' }] };
  return obj;
}

/** An observed composed resource. */
export function obs(resource: KubeObject): ObservedResource {
  return { resource: structuredClone(resource), connectionDetails: {} };
}

/**
 * The clusters as their own function publishes them once it has read the
 * replicas labelled for it: each pool with its capacity ledger
 * (`status.gpuPools[].used`, lib/fleet/cluster-usage.ts) computed from
 * `replicas` (the fleet's). A cluster whose `gpuPools` is not a list of
 * objects is left as it is.
 */
export function withLedgers(clusters: readonly KubeObject[], replicas: readonly KubeObject[]): KubeObject[] {
  return clusters.map((c) => {
    const status = c['status'] as JsonObject | undefined;
    const pools = status?.['gpuPools'];
    if (!Array.isArray(pools) || !pools.every((p) => typeof p === 'object' && p !== null && !Array.isArray(p))) return c;
    const name = c.metadata?.name ?? '';
    const items = replicas.filter((r) => r.metadata?.labels?.['modelplane.ai/cluster'] === name);
    const read = items.length > 0 ? { state: 'present' as const, items: [...items] } : { state: 'absent' as const };
    return { ...c, status: { ...status, gpuPools: withUsage(pools as JsonObject[], read, name, c) } };
  });
}

/**
 * A fresh ComposeRequest; `required` keys absent stay "not fetched yet".
 * `required['all-replicas']` is the fleet's ModelReplicas, delivered as
 * Crossplane does since the capacity ledger (docs/design.md#the-capacity-ledger):
 * the clusters carry the ledgers their
 * function computes from them ({@link withLedgers}) and the scheduler's
 * `own-replicas` requirement gets the XR's own (namespace, label
 * modelplane.ai/deployment). `ledgers: false` leaves the clusters as given.
 */
export function request(
  xr: KubeObject,
  opts: { observed?: Record<string, KubeObject>; required?: Record<string, KubeObject[]>; ledgers?: boolean } = {},
): ComposeRequest {
  const observed: Record<string, ObservedResource> = {};
  for (const [k, v] of Object.entries(opts.observed ?? {})) observed[k] = obs(v);
  const { 'all-replicas': all, ...required } = opts.required ?? {};
  if (all !== undefined) {
    const ns = xr.metadata?.namespace ?? '';
    required[REQ_REPLICAS] = all.filter((r) => (r.metadata?.namespace ?? '') === ns && r.metadata?.labels?.['modelplane.ai/deployment'] === xr.metadata?.name);
    if (required['clusters'] !== undefined && opts.ledgers !== false) required['clusters'] = withLedgers(required['clusters'], all);
  }
  return structuredClone({ composite: xr, observed, desired: {}, required, context: {}, credentials: {} });
}

// ---- Expected scheduler output -----------------------------------------------------------

/** The resolved default gpu request (count 1, memory >= 141Gi unless given). */
export function gpuReq(selectors: string[] = [sel.memory('141Gi')], count = 1, name = 'gpu', device = 0): ResolvedRequest {
  return { name, deviceClassName: GPU, device, count, selectors };
}

/** An expected member placement. */
export function mp(role: Role, pool: string, requests: ResolvedRequest[] = [gpuReq()]): MemberPlacement {
  return { role, pool, requests };
}

/** An expected candidate with one engine `main`. */
export function cand(
  cluster: string,
  index: number,
  members: MemberPlacement[] = [mp('Standalone', 'default')],
  opts: { retained?: boolean; gateway?: string; role?: RolloutRole; ready?: boolean } = {},
): ExpectedCandidate {
  const engines: EnginePlacement[] = [{ name: 'main', members }];
  return { cluster, index, gatewayAddress: opts.gateway ?? '10.0.0.1', engines, retained: opts.retained ?? false, role: opts.role ?? 'current', ready: opts.ready ?? false };
}

/** An expected retiring candidate: kept at its previous spec (`previous` is the observed replica's name). */
export function retiring(cluster: string, index: number, pool = 'default', opts: { gateway?: string; ready?: boolean; name?: string } = {}): ExpectedCandidate {
  return {
    cluster,
    index,
    gatewayAddress: opts.gateway ?? '10.0.0.1',
    engines: [{ name: 'main', members: [{ role: 'Standalone', pool, requests: [] }] }],
    retained: true,
    role: 'retiring',
    ready: opts.ready ?? false,
    previous: opts.name ?? `${DEP}-${cluster}-${index}`,
  };
}

/** A candidate as {@link runSchedule} reports it: a retiring one's observed object by name. */
export type ExpectedCandidate = Omit<Candidate, 'previous'> & { previous?: string | undefined };

// ---- Running the scheduler ---------------------------------------------------------------

/** What a scheduler case expects: the whole outcome with refusals as a plain object. */
export type Outcome =
  | { candidates: ExpectedCandidate[]; refusals: Record<string, { kind: number; text: string }> }
  | { invalid: { path: string; error: string }[] };

/**
 * Runs `schedule()` over built objects (defaults: the default deployment, no
 * clusters, no replicas, fill). `replicas` are the fleet's: the clusters
 * publish their ledgers from them ({@link withLedgers}) unless `ledgers: false`.
 */
export function runSchedule(
  opts: { deployment?: KubeObject; clusters?: KubeObject[]; replicas?: KubeObject[]; fill?: boolean; matcher?: DeviceMatcher; ledgers?: boolean } = {},
): Outcome {
  const read = readDeployment(opts.deployment ?? deployment());
  if (!read.ok) throw new Error(read.errors.join('; '));
  const clusters = opts.ledgers === false ? (opts.clusters ?? []) : withLedgers(opts.clusters ?? [], opts.replicas ?? []);
  const out = schedule({
    deployment: read.deployment,
    fleet: readFleet(clusters),
    replicas: readReplicas(opts.replicas ?? []),
    fill: opts.fill ?? true,
    matcher: opts.matcher ?? celMatcher,
  });
  if (out.kind === 'invalid') return { invalid: out.errors };
  return { candidates: out.candidates.map(expected), refusals: Object.fromEntries(out.refusals) };
}

/** A candidate with its `previous` object replaced by that object's name. */
export function expected(c: Candidate): ExpectedCandidate {
  const { previous, ...rest } = c;
  return previous === undefined ? rest : { ...rest, previous: previous.metadata?.name ?? '' };
}

/** Runs `schedule()` as {@link runSchedule} does and returns the whole outcome (rollout state included). */
export function runScheduleFull(
  opts: { deployment?: KubeObject; clusters?: KubeObject[]; replicas?: KubeObject[]; fill?: boolean } = {},
): Extract<ScheduleOutcome, { kind: 'scheduled' }> {
  const read = readDeployment(opts.deployment ?? deployment());
  if (!read.ok) throw new Error(read.errors.join('; '));
  const out = schedule({ deployment: read.deployment, fleet: readFleet(withLedgers(opts.clusters ?? [], opts.replicas ?? [])), replicas: readReplicas(opts.replicas ?? []), fill: opts.fill ?? true, matcher: celMatcher });
  if (out.kind === 'invalid') throw new Error('invalid selectors');
  return out;
}

/**
 * `resources` (or a whole result) without the deployment's dashboard ConfigMap,
 * after asserting it is there: `dashboard`, a ConfigMap `<name>-dashboard`
 * labelled `grafana_dashboard: "1"`, marked ready (its content: test/scheduler/dashboard.test.ts).
 */
export function withoutDashboard<T>(x: T): T {
  const isResult = typeof x === 'object' && x !== null && 'resources' in x;
  const resources = (isResult ? (x as { resources: Record<string, unknown> }).resources : x) as Record<string, { resource: KubeObject; ready?: boolean }>;
  const d = resources['dashboard'];
  if (d === undefined || d.resource.kind !== 'ConfigMap' || !d.resource.metadata?.name?.endsWith('-dashboard') || d.resource.metadata.labels?.['grafana_dashboard'] !== '1' || d.ready !== true) {
    throw new Error(`no dashboard ConfigMap among ${Object.keys(resources).join(', ')}`);
  }
  const { dashboard: _d, ...rest } = resources;
  return (isResult ? { ...(x as object), resources: rest } : rest) as T;
}
