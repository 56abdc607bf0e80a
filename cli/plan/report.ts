/**
 * The plan's report: the JSON contract of `modelplane plan --output json`,
 * read from the store after the last round.
 *
 * Guarantees: every key of the contract is always present (absent values are
 * `null`, `0`, `false` or `[]`), lists are sorted by namespace then name, and
 * the same store gives the same report.
 */
import { conditionStatus, type JsonObject, type KubeObject, sortByNamespacedName } from '../../functions/lib/function.js';
import type { InvalidInput, PlanResult } from './planner.js';
import { buildCapacity } from '../../functions/lib/fleet/capacity.js';
import { readFleet, readReplicas } from '../../functions/lib/fleet/fleet.js';
import { controllerUid } from '../objects.js';
import { PRIORITY_LABEL } from '../../functions/lib/names.js';
import { type ObservabilityReport, observabilityReport } from './observability.js';
import { formatHourly, parsePrice, replicaCost } from '../../functions/lib/fleet/price.js';

/** A pool of a cluster, with the nodes replicas use. */
export interface PoolReport {
  name: string;
  className: string | null;
  /** Nodes the pool publishes (status.gpuPools[].nodes). */
  nodes: number;
  /** Nodes holding at least one device of a placed ModelReplica, its pods packed by devices as the scheduler packs them. */
  usedNodes: number;
  /** Devices claimed on this pool by placed ModelReplicas (whole-node pods count every device of their node). */
  usedDevices: number;
  /** The multi-node fabric the pool is on (status.gpuPools[].fabric): EFA, InfiniBand, or null. */
  fabric: string | null;
}

/** What a cluster offers (its status.capabilities, the provider contract); null fields when not published. */
export interface CapabilitiesReport {
  /** The RWX StorageClass for ModelCache volumes, or null. */
  rwxCacheStorageClass: string | null;
  /** Why there is no RWX StorageClass, or null. */
  rwxCacheReason: string | null;
  /** EFA, InfiniBand or None. */
  multiNodeFabric: string | null;
  /** ClusterAutoscaler, Provider or None. */
  nodeAutoscaling: string | null;
  /** Composed or PreinstalledAndGated. */
  gpuStack: string | null;
}

export interface ClusterReport {
  name: string;
  source: string | null;
  /** Ready=True and ClusterReady not False: the cluster serves and takes new replicas. */
  ready: boolean;
  gatewayAddress: string | null;
  pools: PoolReport[];
  /** null until the cluster publishes its capabilities. */
  capabilities: CapabilitiesReport | null;
  /** status.health (docs/failover.md), null until published. */
  health: { state: string; since: string | null; reason: string | null; message: string | null } | null;
  /** Lost in this plan (`--lose`). */
  lost: boolean;
  /** Every condition of status.conditions, in the XR's order. */
  conditions: ConditionReport[];
}

export interface ReplicaReport {
  name: string;
  cluster: string;
  index: number | null;
  /** ModelReplica status.phase (Pending, Starting, Serving, Degraded); null before the function wrote it. */
  phase: string | null;
  engines: { name: string; members: { role: string; pool: string }[] }[];
}

export interface ConditionReport {
  type: string;
  status: string;
  reason: string;
  message: string;
}

/** A deployment's measured cold start (its status.coldStart); in a plan the times are simulated (cli/simulated/providers.ts). */
export interface ColdStartReport {
  replicas: number;
  p50Seconds: number | null;
  maxSeconds: number | null;
  modelSource: string | null;
  sizeGiB: number | null;
  /** serving.readyWithin as written, or null. */
  readyWithin: string | null;
}

export interface DeploymentReport {
  namespace: string;
  name: string;
  desiredReplicas: number;
  scheduledReplicas: number;
  readyReplicas: number;
  replicas: ReplicaReport[];
  conditions: ConditionReport[];
  /** null until a replica is measured and no bar is set. */
  coldStart: ColdStartReport | null;
  /** spec.autoscaling's bounds and state, only on a deployment that sets it (cli/plan/autoscaling.ts). */
  autoscaling?: AutoscalingReport;
}

/** An autoscaled deployment's bounds, its autoscaler's state and whether the fleet has room for the maximum. */
export interface AutoscalingReport {
  /** The autoscaler's minimum: status.autoscaling's (the HPA holds 0 at 1), else spec.autoscaling's. */
  minReplicas: number;
  maxReplicas: number;
  /** status.autoscaling.summary (`0..4 WaitingForKEDA`), null before the function wrote it. */
  summary: string | null;
  /** What the function composed: `KEDA` (a ScaledObject) or `HPA`; null before it wrote status.autoscaling. */
  autoscaler: 'KEDA' | 'HPA' | null;
  /** Replicas placed with every autoscaled deployment at its maxReplicas at once; null until asked. */
  placedAtMax: number | null;
}

/** A ModelCache and where it is staged (status.clusters). */
export interface CacheReport {
  namespace: string;
  name: string;
  /** spec.huggingFace.repo. */
  source: string | null;
  sizeGiB: number | null;
  /** status.summary.ready, e.g. 2/2. */
  ready: string | null;
  clusters: { name: string; phase: string; message: string | null }[];
}

export interface ServiceReport {
  namespace: string;
  name: string;
  ready: boolean;
  address: string | null;
  /** The endpoints routed to; `priority` only on a service with priorities (its failover order, docs/ai-gateway.md#overflow-and-failover). */
  endpoints: { name: string; weight: number; priority?: number }[];
  /** Every condition of status.conditions, in the XR's order. */
  conditions: ConditionReport[];
}

/** Any other Modelplane XR (InferenceClass, InferenceGateway, ModelEndpoint, ModelCache, InferenceQuota): its readiness and conditions. */
export interface XRReport {
  kind: string;
  namespace: string | null;
  name: string;
  ready: boolean;
  conditions: ConditionReport[];
}

/** The JSON contract. */
/** What the placed replicas cost per hour (docs/placement-policy.md#status-and-cost), present when any pool has a price. */
export interface CostReport {
  /** The whole fleet, e.g. `9.63 USD/h`. */
  fleet: string;
  /** Per cluster with priced replicas, by name. */
  clusters: { name: string; hourly: string }[];
  /** Per deployment with a `status.cost`, by namespace/name. */
  deployments: { name: string; hourly: string }[];
}

export interface PlanReport {
  /** Set when any placed replica's pool has a price. */
  cost?: CostReport;
  converged: boolean;
  rounds: number;
  /** What keeps the plan from exit 0, one line each ({@link planProblems}); empty when clean. */
  problems: string[];
  clusters: ClusterReport[];
  deployments: DeploymentReport[];
  /** Per deployment, its dashboard ConfigMap and its replicas' PodMonitors (observability.ts). */
  observability: ObservabilityReport[];
  caches: CacheReport[];
  services: ServiceReport[];
  /** InferenceClass, InferenceGateway, ModelEndpoint, ModelCache and InferenceQuota XRs, by kind (in this order) then namespace/name. */
  others: XRReport[];
  invalid: InvalidInput[];
  /** Composed objects by `apiVersion/kind`, sorted by key. */
  resources: Record<string, number>;
}

const obj = (v: unknown): JsonObject => (v && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : {});
const arr = (v: unknown): JsonObject[] => (Array.isArray(v) ? (v as JsonObject[]) : []);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/**
 * What placed ModelReplicas use per `cluster/pool`: the scheduler's own
 * capacity accounting (functions/lib/fleet/capacity.ts) over
 * every replica, so plan reports what the scheduler charges.
 */
export function poolUsage(clusters: readonly KubeObject[], replicas: readonly KubeObject[]): Map<string, { nodes: number; devices: number }> {
  const fleet = readFleet(clusters);
  const capacity = buildCapacity(fleet.clusters, readReplicas(replicas), () => true);
  const out = new Map<string, { nodes: number; devices: number }>();
  for (const [cluster, pools] of capacity) {
    for (const p of pools) out.set(`${cluster}/${p.pool.name}`, { nodes: p.usedNodes, devices: p.usedDevices().reduce((a, b) => a + b, 0) });
  }
  return out;
}

function conditions(o: KubeObject, types?: string[]): ConditionReport[] {
  return arr(obj(o['status'])['conditions'])
    .filter((c) => types === undefined || types.includes(String(c['type'])))
    .map((c) => ({ type: String(c['type']), status: String(c['status']), reason: String(c['reason'] ?? ''), message: String(c['message'] ?? '') }));
}

/** `{autoscaling}` for a deployment with spec.autoscaling, else {} (the field is absent). */
function autoscalingReport(d: KubeObject): { autoscaling?: AutoscalingReport } {
  const a = obj(obj(d['spec'])['autoscaling']);
  if (typeof a['maxReplicas'] !== 'number') return {};
  const st = obj(obj(d['status'])['autoscaling']);
  const min = typeof st['minReplicas'] === 'number' ? st['minReplicas'] : a['minReplicas'];
  const autoscaler = 'horizontalPodAutoscaler' in st ? 'HPA' : 'scaledObject' in st ? 'KEDA' : null;
  return {
    autoscaling: {
      minReplicas: typeof min === 'number' ? min : 1,
      maxReplicas: a['maxReplicas'],
      summary: str(st['summary']),
      autoscaler,
      placedAtMax: null,
    },
  };
}

function coldStartReport(d: KubeObject): ColdStartReport | null {
  const cs = obj(d['status'])['coldStart'];
  if (cs === undefined) return null;
  const c = obj(cs);
  const spec = obj(d['spec']);
  const body = spec['template'] !== undefined ? obj(obj(spec['template'])['spec']) : spec;
  const n = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  return {
    replicas: num(c['replicas']),
    p50Seconds: n(c['p50Seconds']),
    maxSeconds: n(c['maxSeconds']),
    modelSource: str(c['modelSource']),
    sizeGiB: n(c['sizeGiB']),
    readyWithin: str(obj(body['serving'])['readyWithin']),
  };
}

/** A cluster takes new replicas and serves: Ready=True and its ClusterReady is not False. */
export function clusterReady(c: KubeObject): boolean {
  return conditionStatus(c, 'Ready') === 'True' && conditionStatus(c, 'ClusterReady') !== 'False';
}

function health(c: KubeObject): ClusterReport['health'] {
  const h = obj(obj(c['status'])['health']);
  if (typeof h['state'] !== 'string') return null;
  return { state: h['state'], since: str(h['since']), reason: str(h['reason']), message: str(h['message']) };
}

/** Options of {@link buildReport}. */
export interface ReportOptions {
  /** Unplaced replicas are not problems (`plan --allow-partial`). */
  allowPartial?: boolean;
}

/** Builds the report from a finished plan. */
export function buildReport(result: PlanResult, opts: ReportOptions = {}): PlanReport {
  const all = result.store.all();
  const ofKind = (kind: string) => sortByNamespacedName(all.filter((o) => o.kind === kind && o.apiVersion.startsWith('modelplane.ai/')));
  const replicas = ofKind('ModelReplica');
  const used = poolUsage(ofKind('InferenceCluster'), replicas);

  const clusters: ClusterReport[] = ofKind('InferenceCluster').map((c) => {
    const name = c.metadata?.name ?? '';
    const spec = obj(c['spec']);
    const classes = new Map(arr(spec['nodePools']).map((p) => [String(p['name']), str(p['className'])]));
    const caps = obj(c['status'])['capabilities'];
    const rwx = obj(obj(caps)['rwxCacheStorageClass']);
    return {
      name,
      source: str(obj(spec['cluster'])['source']),
      ready: clusterReady(c),
      gatewayAddress: str(obj(obj(c['status'])['gateway'])['address']),
      pools: arr(obj(c['status'])['gpuPools']).map((p) => ({
        name: String(p['name']),
        className: classes.get(String(p['name'])) ?? null,
        nodes: num(p['nodes']),
        usedNodes: used.get(`${name}/${String(p['name'])}`)?.nodes ?? 0,
        usedDevices: used.get(`${name}/${String(p['name'])}`)?.devices ?? 0,
        fabric: str(p['fabric']),
      })),
      capabilities:
        caps === undefined
          ? null
          : {
              rwxCacheStorageClass: str(rwx['name']),
              rwxCacheReason: str(rwx['reason']),
              multiNodeFabric: str(obj(caps)['multiNodeFabric']),
              nodeAutoscaling: str(obj(caps)['nodeAutoscaling']),
              gpuStack: str(obj(caps)['gpuStack']),
            },
      health: health(c),
      lost: result.lost.includes(name),
      conditions: conditions(c),
    };
  });

  const deployments: DeploymentReport[] = ofKind('ModelDeployment').map((d) => {
    const uid = d.metadata?.uid;
    const mine = replicas.filter((r) => uid !== undefined && controllerUid(r) === uid);
    const status = obj(d['status']);
    return {
      namespace: d.metadata?.namespace ?? '',
      name: d.metadata?.name ?? '',
      desiredReplicas: num(obj(d['spec'])['replicas'] ?? 1),
      scheduledReplicas: mine.length,
      readyReplicas: num(obj(status['replicas'])['ready']),
      replicas: mine.map((r) => {
        const spec = obj(r['spec']);
        const index = r.metadata?.labels?.['modelplane.ai/replica-index'];
        return {
          name: r.metadata?.name ?? '',
          cluster: String(spec['clusterName'] ?? ''),
          index: index === undefined ? null : Number(index),
          phase: typeof obj(r['status'])['phase'] === 'string' ? String(obj(r['status'])['phase']) : null,
          engines: arr(spec['engines']).map((e) => ({
            name: String(e['name']),
            members: arr(e['members']).map((m) => ({ role: String(m['role'] ?? 'Standalone'), pool: String(m['nodePoolName'] ?? '') })),
          })),
        };
      }),
      conditions: conditions(d, ['ModelCacheResolved', 'ReplicasScheduled', 'ReplicasReady', 'Progressing', 'ColdStartWithinBar', 'Ready']),
      coldStart: coldStartReport(d),
      ...autoscalingReport(d),
    };
  });

  const caches: CacheReport[] = ofKind('ModelCache').map((m) => {
    const hf = obj(obj(m['spec'])['huggingFace']);
    const status = obj(m['status']);
    return {
      namespace: m.metadata?.namespace ?? '',
      name: m.metadata?.name ?? '',
      source: str(hf['repo']),
      sizeGiB: typeof hf['sizeGiB'] === 'number' ? hf['sizeGiB'] : null,
      ready: str(obj(status['summary'])['ready']),
      clusters: arr(status['clusters']).map((c) => ({ name: String(c['name'] ?? ''), phase: String(c['phase'] ?? ''), message: str(c['message']) })),
    };
  });

  const services: ServiceReport[] = ofKind('ModelService').map((s) => ({
    namespace: s.metadata?.namespace ?? '',
    name: s.metadata?.name ?? '',
    ready: conditionStatus(s, 'Ready') === 'True',
    address: str(obj(s['status'])['address']),
    endpoints: serviceEndpoints(s, all),
    conditions: conditions(s),
  }));
  const others: XRReport[] = ['InferenceClass', 'InferenceGateway', 'ModelEndpoint', 'ModelCache', 'InferenceQuota'].flatMap((kind) =>
    ofKind(kind).map((o) => ({
      kind,
      namespace: o.metadata?.namespace ?? null,
      name: o.metadata?.name ?? '',
      ready: conditionStatus(o, 'Ready') === 'True',
      conditions: conditions(o),
    })),
  );

  const resources: Record<string, number> = {};
  for (const o of all) {
    if (controllerUid(o) === undefined) continue;
    const k = `${o.apiVersion}/${o.kind}`;
    resources[k] = (resources[k] ?? 0) + 1;
  }
  const cost = costReport(ofKind('ModelDeployment'));
  return {
    ...(cost ? { cost } : {}),
    converged: result.converged,
    rounds: result.rounds,
    problems: planProblems(result, deployments, opts),
    clusters,
    deployments,
    observability: observabilityReport(all, ofKind('ModelDeployment'), replicas),
    caches,
    services,
    others,
    invalid: result.invalid,
    resources: Object.fromEntries(Object.keys(resources).sort().map((k) => [k, resources[k]!])),
  };
}

/**
 * The endpoints a ModelService routes to, with their weights: read from the
 * HTTPRoute it composes (backendRefs, with weight), named by the ModelEndpoint
 * whose routing backend each backendRef is, when it can be told.
 */
/** What {@link serviceEndpoints} looks up in the whole store, built once per report. */
interface ServiceIndex {
  /** Namespace → a ModelEndpoint's `status.routing.backendName` → its name (the last in store order wins). */
  endpointsIn: Map<string | undefined, Map<string, string>>;
  /** Controller UID → the objects it controls, in store order. */
  controlled: Map<string, KubeObject[]>;
}

const SERVICE_INDEX = new WeakMap<readonly KubeObject[], ServiceIndex>();

function indexOf(all: readonly KubeObject[]): ServiceIndex {
  let index = SERVICE_INDEX.get(all);
  if (index) return index;
  index = { endpointsIn: new Map(), controlled: new Map() };
  for (const o of all) {
    const backend = str(obj(obj(o['status'])['routing'])['backendName']);
    if (o.kind === 'ModelEndpoint' && backend) {
      const ns = o.metadata?.namespace;
      const m = index.endpointsIn.get(ns) ?? new Map<string, string>();
      m.set(backend, o.metadata?.name ?? backend);
      index.endpointsIn.set(ns, m);
    }
    const owner = controllerUid(o);
    if (owner === undefined) continue;
    const mine = index.controlled.get(owner);
    if (mine) mine.push(o);
    else index.controlled.set(owner, [o]);
  }
  SERVICE_INDEX.set(all, index);
  return index;
}

/**
 * The endpoints behind TraefikService `name` of a prioritised service: a
 * weighted one is a priority level (label modelplane.ai/priority), a failover
 * one its service then its fallback. Cycles and unknown names end the walk.
 */
function traefikEndpoints(
  name: string,
  services: ReadonlyMap<string, KubeObject>,
  endpointOf: ReadonlyMap<string, string>,
  seen: Set<string> = new Set(),
): { name: string; weight: number; priority?: number }[] {
  const svc = services.get(name);
  if (svc === undefined || seen.has(name)) return [];
  seen.add(name);
  const spec = obj(svc['spec']);
  const failover = obj(spec['failover']);
  if (Object.keys(failover).length > 0) {
    return [obj(failover['service']), obj(failover['fallback'])].flatMap((ref) => traefikEndpoints(String(ref['name'] ?? ''), services, endpointOf, seen));
  }
  const label = svc.metadata?.labels?.[PRIORITY_LABEL];
  const priority = label === undefined ? undefined : Number(label);
  return arr(obj(spec['weighted'])['services']).map((b) => {
    const backend = String(b['name'] ?? '');
    return { name: endpointOf.get(backend) ?? backend, weight: num(b['weight'] ?? 1), ...(priority === undefined ? {} : { priority }) };
  });
}

function serviceEndpoints(service: KubeObject, all: readonly KubeObject[]): { name: string; weight: number; priority?: number }[] {
  const published = arr(obj(service['status'])['endpoints']);
  if (published.length > 0) {
    return published.map((e) => ({ name: String(e['name'] ?? ''), weight: num(e['weight']) })).sort((a, b) => (a.name < b.name ? -1 : 1));
  }
  const uid = service.metadata?.uid;
  const index = indexOf(all);
  // A backendRef names the Service a ModelEndpoint composed; report the endpoint.
  const endpointOf = index.endpointsIn.get(service.metadata?.namespace) ?? new Map<string, string>();
  const out: { name: string; weight: number; priority?: number }[] = [];
  const mine = uid === undefined ? [] : (index.controlled.get(uid) ?? []);
  const traefik = new Map(mine.filter((o) => o.kind === 'TraefikService').map((o) => [o.metadata?.name ?? '', o]));
  for (const o of mine) {
    const route = o.kind === 'HTTPRoute' ? o : (obj(obj(o['spec'])['forProvider'])['manifest'] as KubeObject | undefined);
    if (route?.kind !== 'HTTPRoute') continue;
    for (const rule of arr(obj(route['spec'])['rules'])) {
      for (const b of arr(rule['backendRefs'])) {
        const name = String(b['name'] ?? '');
        if (b['kind'] === 'TraefikService') out.push(...traefikEndpoints(name, traefik, endpointOf));
        else out.push({ name: endpointOf.get(name) ?? name, weight: num(b['weight'] ?? 1) });
      }
    }
  }
  return out.sort((a, b) => (a.priority ?? 0) - (b.priority ?? 0) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

const SYSTEM_CONDITIONS = new Set(['Ready', 'Synced', 'Responsive', 'Healthy', 'UpToDate']);
/**
 * False conditions that describe a choice, not a fault: a ModelService
 * serving anonymously because neither it nor the gateway sets `auth`
 * (`Authenticated` False `Anonymous`) serves as asked; the condition says so
 * on the object, and the plan does not fail on it.
 */
const ADVISORY = new Set(['Authenticated/Anonymous']);
/** Kinds that must be Ready for a clean plan (exit 0). */
const MUST_BE_READY = new Set(['InferenceCluster', 'InferenceGateway', 'ModelService']);
/** Kinds whose False conditions are listed as problems. */
const CONDITION_KINDS = new Set(['InferenceCluster', 'InferenceGateway', 'ModelService', 'ModelEndpoint']);

/**
 * Everything that keeps a plan from a clean exit 0, one line each, in this
 * order: not converged; each input left out (`invalid: file:line kind/name:
 * error`); each reconcile error; each ModelDeployment held from moving
 * (Progressing False) or at zero with nothing to wake it (ReplicasReady
 * False, ScaledToZero); each ModelDeployment with fewer replicas
 * scheduled than desired (unless `allowPartial`), with its ReplicasScheduled
 * message; each False condition on a cluster, gateway, service or endpoint
 * (`InferenceCluster eks-us-east: ClusterReady ClassNotFound: …`); and each
 * cluster, gateway or service that is not Ready without a False condition
 * saying why (`ModelService default/qwen: not Ready: Creating: …`); the
 * ADVISORY conditions (anonymous serving) are not problems. Within a
 * group, sorted by kind then namespace/name.
 */
export function planProblems(result: PlanResult, deployments: readonly DeploymentReport[], opts: ReportOptions = {}): string[] {
  const out: string[] = [];
  if (!result.converged) out.push(`not converged after ${result.rounds} rounds (raise --rounds to let it settle)`);
  for (const i of result.invalid) out.push(`invalid: ${i.file}:${i.line}${i.kind === '?' && i.name === '?' ? '' : ` ${i.kind}/${i.name}`}: ${i.error}`);
  for (const k of Object.keys(result.errors).sort()) out.push(`reconcile error: ${k}: ${result.errors[k]}`);
  for (const d of deployments) {
    // Replicas that must move and fit nowhere (a loss, a rollout) stay where they are: a problem whatever is placed.
    const held = d.conditions.find((x) => x.type === 'Progressing' && x.status === 'False');
    if (held) out.push(`ModelDeployment ${d.namespace}/${d.name}: Progressing ${held.reason}: ${held.message}`);
    // At zero with nothing to wake it (the HPA autoscaler never scales from zero): no plan settles that.
    const stuck = d.conditions.find((x) => x.type === 'ReplicasReady' && x.status === 'False' && x.reason === 'ScaledToZero');
    if (stuck) out.push(`ModelDeployment ${d.namespace}/${d.name}: ReplicasReady ScaledToZero: ${stuck.message}`);
  }
  if (!opts.allowPartial) {
    for (const d of deployments) {
      if (d.scheduledReplicas >= d.desiredReplicas) continue;
      const why = d.conditions.find((x) => x.type === 'ReplicasScheduled');
      const what = why?.message || `${d.scheduledReplicas} of ${d.desiredReplicas} replicas scheduled`;
      out.push(`ModelDeployment ${d.namespace}/${d.name}: ${what} (--allow-partial accepts this)`);
    }
  }
  const xrs = result.store
    .all()
    .filter((o) => CONDITION_KINDS.has(o.kind) && o.apiVersion.startsWith('modelplane.ai/'))
    .sort((a, b) => {
      const ka = `${a.kind}\0${a.metadata?.namespace ?? ''}\0${a.metadata?.name ?? ''}`;
      const kb = `${b.kind}\0${b.metadata?.namespace ?? ''}\0${b.metadata?.name ?? ''}`;
      return ka < kb ? -1 : ka > kb ? 1 : 0;
    });
  for (const o of xrs) {
    // A cluster lost on purpose (`--lose`) is expected to be down: what it does to the fleet is the question.
    if (o.kind === 'InferenceCluster' && result.lost.includes(o.metadata?.name ?? '')) continue;
    const name = `${o.metadata?.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata?.name ?? ''}`;
    let said = false;
    for (const c of arr(obj(o['status'])['conditions'])) {
      if (SYSTEM_CONDITIONS.has(String(c['type'])) || c['status'] !== 'False') continue;
      if (ADVISORY.has(`${String(c['type'])}/${String(c['reason'] ?? '')}`)) continue;
      if (opts.allowPartial && c['type'] === 'ReplicasScheduled') continue;
      out.push(`${o.kind} ${name}: ${String(c['type'])} ${String(c['reason'] ?? '')}${c['message'] ? `: ${String(c['message'])}` : ''}`);
      said = true;
    }
    if (said || !MUST_BE_READY.has(o.kind) || conditionStatus(o, 'Ready') === 'True') continue;
    const ready = arr(obj(o['status'])['conditions']).find((c) => c['type'] === 'Ready');
    const detail = ready ? `${String(ready['reason'] ?? '')}${ready['message'] ? `: ${String(ready['message'])}` : ''}` : 'no Ready condition';
    out.push(`${o.kind} ${name}: not Ready: ${detail}`);
  }
  return out;
}

/**
 * The fleet's hourly cost from each deployment's `status.placements[].hourlyCost`
 * (the scheduler prices every replica from its pools), summed in micro-units per
 * currency; undefined when nothing is priced.
 */
export function costReport(deployments: readonly KubeObject[]): CostReport | undefined {
  const fleet = new Map<string, number>();
  const byCluster = new Map<string, Map<string, number>>();
  const perDeployment: { name: string; hourly: string }[] = [];
  const add = (into: Map<string, number>, currency: string, micros: number) => into.set(currency, (into.get(currency) ?? 0) + micros);
  for (const d of sortByNamespacedName(deployments)) {
    const status = obj(d['status']);
    const summary = str(obj(status['cost'])['summary']);
    if (summary !== null) perDeployment.push({ name: `${d.metadata?.namespace ?? ''}/${d.metadata?.name ?? ''}`, hourly: summary });
    for (const p of arr(status['placements'])) {
      const cluster = String(p['cluster'] ?? '');
      for (const c of arr(p['hourlyCost'])) {
        const micros = parsePrice(c['amount']);
        const currency = str(c['currency']);
        if (micros === undefined || currency === null) continue;
        add(fleet, currency, micros);
        let m = byCluster.get(cluster);
        if (m === undefined) {
          m = new Map();
          byCluster.set(cluster, m);
        }
        add(m, currency, micros);
      }
    }
  }
  if (fleet.size === 0) return undefined;
  const clusters = [...byCluster.keys()].sort().map((name) => ({ name, hourly: formatHourly(byCluster.get(name)!) }));
  return { fleet: formatHourly(fleet), clusters, deployments: perDeployment };
}

/**
 * The hourly cost of `replicas` (ModelReplicas, e.g. a `--state`'s) priced by
 * the pools `clusters` publish now: each claiming member's pods times its
 * share of a node (policy.ts replicaCost), as `9.63 USD/h`; null when nothing
 * is priced. What `plan --state --diff` compares the plan's cost with.
 */
export function replicasCost(replicas: readonly KubeObject[], clusters: readonly KubeObject[]): string | null {
  const byName = new Map(readFleet(clusters).clusters.map((c) => [c.name, c]));
  const total = new Map<string, number>();
  for (const r of readReplicas(replicas)) {
    const cluster = byName.get(r.clusterName);
    const members = r.engines.flatMap((e) =>
      e.members.map((m) => {
        const pool = cluster?.pools.find((p) => p.name === m.nodePoolName);
        const claims = m.claims.map((c) => ({ device: Math.max(0, pool?.devices.findIndex((d) => d.deviceClassName === c.deviceClassName) ?? 0), count: c.count }));
        return { pool: m.nodePoolName, pods: m.pods, claims, whole: m.claims.length > 0 && m.role !== 'Standalone' };
      }),
    );
    for (const [currency, micros] of replicaCost(cluster, members).byCurrency) total.set(currency, (total.get(currency) ?? 0) + micros);
  }
  return total.size === 0 ? null : formatHourly(total);
}
