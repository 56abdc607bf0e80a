/**
 * The plan's report: the JSON contract of `modelplane plan --output json`,
 * read from the store after the last round.
 *
 * Guarantees: every key of the contract is always present (absent values are
 * `null`, `0`, `false` or `[]`), lists are sorted by namespace then name, and
 * the same store gives the same report.
 */
import { conditionStatus, type JsonObject, type KubeObject, sortByNamespacedName } from '../../functions/lib/function.js';
import type { InvalidInput, PlanResult } from './plan.js';
import { controllerUid } from './store.js';

/** A pool of a cluster, with the nodes replicas use. */
export interface PoolReport {
  name: string;
  className: string | null;
  /** Nodes the pool publishes (status.gpuPools[].nodes). */
  nodes: number;
  /** Nodes charged by every placed ModelReplica on this pool. */
  usedNodes: number;
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
  ready: boolean;
  gatewayAddress: string | null;
  pools: PoolReport[];
  /** null until the cluster publishes its capabilities. */
  capabilities: CapabilitiesReport | null;
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

export interface DeploymentReport {
  namespace: string;
  name: string;
  desiredReplicas: number;
  scheduledReplicas: number;
  readyReplicas: number;
  replicas: ReplicaReport[];
  conditions: ConditionReport[];
}

export interface ServiceReport {
  namespace: string;
  name: string;
  address: string | null;
  endpoints: { name: string; weight: number }[];
}

/** The JSON contract. */
export interface PlanReport {
  converged: boolean;
  rounds: number;
  clusters: ClusterReport[];
  deployments: DeploymentReport[];
  services: ServiceReport[];
  invalid: InvalidInput[];
  /** Composed objects by `apiVersion/kind`, sorted by key. */
  resources: Record<string, number>;
}

const obj = (v: unknown): JsonObject => (v && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : {});
const arr = (v: unknown): JsonObject[] => (Array.isArray(v) ? (v as JsonObject[]) : []);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** Nodes a ModelReplica charges per (cluster, pool): pods × copies for members that claim devices. */
export function replicaNodeCost(replica: KubeObject): Map<string, number> {
  const spec = obj(replica['spec']);
  const cluster = String(spec['clusterName'] ?? '');
  const out = new Map<string, number>();
  for (const engine of arr(spec['engines'])) {
    const copies = typeof engine['copies'] === 'number' ? engine['copies'] : 1;
    for (const m of arr(engine['members'])) {
      if (arr(m['deviceRequests']).length === 0) continue;
      const pods = m['role'] === 'Worker' && typeof obj(m['worker'])['nodes'] === 'number' ? (obj(m['worker'])['nodes'] as number) : 1;
      const key = `${cluster}/${String(m['nodePoolName'] ?? '')}`;
      out.set(key, (out.get(key) ?? 0) + pods * copies);
    }
  }
  return out;
}

function conditions(o: KubeObject, types: string[]): ConditionReport[] {
  return arr(obj(o['status'])['conditions'])
    .filter((c) => types.includes(String(c['type'])))
    .map((c) => ({ type: String(c['type']), status: String(c['status']), reason: String(c['reason'] ?? ''), message: String(c['message'] ?? '') }));
}

/** Builds the report from a finished plan. */
export function buildReport(result: PlanResult): PlanReport {
  const all = result.store.all();
  const ofKind = (kind: string) => sortByNamespacedName(all.filter((o) => o.kind === kind && o.apiVersion.startsWith('modelplane.ai/')));
  const replicas = ofKind('ModelReplica');
  const used = new Map<string, number>();
  for (const r of replicas) for (const [k, n] of replicaNodeCost(r)) used.set(k, (used.get(k) ?? 0) + n);

  const clusters: ClusterReport[] = ofKind('InferenceCluster').map((c) => {
    const name = c.metadata?.name ?? '';
    const spec = obj(c['spec']);
    const classes = new Map(arr(spec['nodePools']).map((p) => [String(p['name']), str(p['className'])]));
    const caps = obj(c['status'])['capabilities'];
    const rwx = obj(obj(caps)['rwxCacheStorageClass']);
    return {
      name,
      source: str(obj(spec['cluster'])['source']),
      ready: conditionStatus(c, 'Ready') === 'True',
      gatewayAddress: str(obj(obj(c['status'])['gateway'])['address']),
      pools: arr(obj(c['status'])['gpuPools']).map((p) => ({
        name: String(p['name']),
        className: classes.get(String(p['name'])) ?? null,
        nodes: num(p['nodes']),
        usedNodes: used.get(`${name}/${String(p['name'])}`) ?? 0,
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
      conditions: conditions(d, ['ReplicasScheduled', 'ReplicasReady', 'Ready']),
    };
  });

  const services: ServiceReport[] = ofKind('ModelService').map((s) => ({
    namespace: s.metadata?.namespace ?? '',
    name: s.metadata?.name ?? '',
    address: str(obj(s['status'])['address']),
    endpoints: serviceEndpoints(s, all),
  }));

  const resources: Record<string, number> = {};
  for (const o of all) {
    if (controllerUid(o) === undefined) continue;
    const k = `${o.apiVersion}/${o.kind}`;
    resources[k] = (resources[k] ?? 0) + 1;
  }
  return {
    converged: result.converged,
    rounds: result.rounds,
    clusters,
    deployments,
    services,
    invalid: result.invalid,
    resources: Object.fromEntries(Object.keys(resources).sort().map((k) => [k, resources[k]!])),
  };
}

/**
 * The endpoints a ModelService routes to, with their weights: read from the
 * HTTPRoute it composes (backendRefs, with weight), named by the ModelEndpoint
 * whose routing backend each backendRef is, when it can be told.
 */
function serviceEndpoints(service: KubeObject, all: readonly KubeObject[]): { name: string; weight: number }[] {
  const published = arr(obj(service['status'])['endpoints']);
  if (published.length > 0) {
    return published.map((e) => ({ name: String(e['name'] ?? ''), weight: num(e['weight']) })).sort((a, b) => (a.name < b.name ? -1 : 1));
  }
  const uid = service.metadata?.uid;
  // A backendRef names the Service a ModelEndpoint composed; report the endpoint.
  const endpointOf = new Map<string, string>();
  for (const o of all) {
    const backend = str(obj(obj(o['status'])['routing'])['backendName']);
    if (o.kind === 'ModelEndpoint' && backend && o.metadata?.namespace === service.metadata?.namespace) {
      endpointOf.set(backend, o.metadata?.name ?? backend);
    }
  }
  const out: { name: string; weight: number }[] = [];
  for (const o of all) {
    if (uid === undefined || controllerUid(o) !== uid) continue;
    const route = o.kind === 'HTTPRoute' ? o : (obj(obj(o['spec'])['forProvider'])['manifest'] as KubeObject | undefined);
    if (route?.kind !== 'HTTPRoute') continue;
    for (const rule of arr(obj(route['spec'])['rules'])) {
      for (const b of arr(rule['backendRefs'])) {
        const name = String(b['name'] ?? '');
        out.push({ name: endpointOf.get(name) ?? name, weight: num(b['weight'] ?? 1) });
      }
    }
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

const SYSTEM_CONDITIONS = new Set(['Ready', 'Synced', 'Responsive', 'Healthy', 'UpToDate']);

/**
 * One line per condition that is False on a cluster, gateway or service (the
 * reasons a platform team acts on), e.g. `InferenceCluster eks-us-east:
 * ClusterReady ClassNotFound: InferenceClass l40s-typo not found (…)`.
 * Deployments are explained in their own table. Sorted by kind and name.
 */
export function problems(result: PlanResult): string[] {
  const out: string[] = [];
  for (const o of result.store.all()) {
    if (!['InferenceCluster', 'InferenceGateway', 'ModelService', 'ModelEndpoint'].includes(o.kind)) continue;
    if (!o.apiVersion.startsWith('modelplane.ai/')) continue;
    for (const c of arr(obj(o['status'])['conditions'])) {
      if (SYSTEM_CONDITIONS.has(String(c['type'])) || c['status'] !== 'False') continue;
      const name = `${o.metadata?.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata?.name ?? ''}`;
      out.push(`${o.kind} ${name}: ${String(c['type'])} ${String(c['reason'] ?? '')}${c['message'] ? `: ${String(c['message'])}` : ''}`);
    }
  }
  return out;
}
