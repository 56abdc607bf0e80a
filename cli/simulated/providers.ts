/**
 * Simulated providers: what provider-aws, provider-gcp, provider-azure,
 * provider-nebius, provider-vultr, provider-helm, provider-kubernetes and the
 * workload clusters would write back, so a plan (a fleet mixing every cloud
 * included) can converge without a cloud.
 *
 * Rule: a managed resource (any composed object that is not one of our XRs)
 * becomes Ready in the round after it is first composed, with the status
 * fields our functions read filled plausibly and deterministically. THE TABLE
 * BELOW IS THE ONE PLACE that says which fields each fake fills.
 *
 * Deterministic values: the control-plane gateway's address comes from its
 * MetalLB pool when one is declared, else from 203.0.113.0/24 (TEST-NET-3);
 * workload clusters' gateways get 198.51.100.0/24 (TEST-NET-2; RFC 5737
 * ranges are never routed); endpoints and IDs are derived from object names.
 */
import type { JsonObject, KubeObject } from '../../functions/lib/function.js';
import { FIXED_TIME } from '../render/xr.js';
import { groupOf } from '../objects.js';

/** The message of a condition a simulated controller writes (Gateway API requires one). */
export const SIMULATED_MESSAGE = 'simulated by Modelplane (no such controller runs here)';

/**
 * Simulated cold starts of engine workloads (a Deployment whose pods carry
 * `modelplane.ai/workload`, or a LeaderWorkerSet), so the cold-start bar
 * has deterministic numbers in a plan: the workload is created at
 * {@link FIXED_TIME} and becomes Available this many seconds later. From the
 * figures the ModelCache design quotes for a ~500 GiB model: about 6 minutes
 * from a shared cache (a pod mounting the `model-cache` volume) and 45 from
 * the hub. Plan reports these as simulated.
 */
export const SIMULATED_STARTUP_SECONDS = { cache: 372, direct: 2700 } as const;

/** FIXED_TIME plus `seconds`, RFC 3339 in UTC without fractional seconds. */
export function afterFixedTime(seconds: number): string {
  return new Date(Date.parse(FIXED_TIME) + seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The pod templates of a workload manifest: a LeaderWorkerSet's leader and worker, else `spec.template`. */
export function podTemplates(manifest: KubeObject): JsonObject[] {
  const spec = (manifest['spec'] ?? {}) as JsonObject;
  if (manifest.kind === 'LeaderWorkerSet') {
    const lwt = (spec['leaderWorkerTemplate'] ?? {}) as JsonObject;
    return [lwt['leaderTemplate'], lwt['workerTemplate']].filter((t): t is JsonObject => typeof t === 'object' && t !== null);
  }
  return typeof spec['template'] === 'object' && spec['template'] !== null ? [spec['template'] as JsonObject] : [];
}

/** The simulated startup seconds of an engine workload manifest, or undefined for anything else. */
export function simulatedStartupSeconds(manifest: KubeObject): number | undefined {
  const templates = podTemplates(manifest);
  const engine =
    `${groupOf(manifest.apiVersion)}/${manifest.kind}` === 'leaderworkerset.x-k8s.io/LeaderWorkerSet' ||
    (`${groupOf(manifest.apiVersion)}/${manifest.kind}` === 'apps/Deployment' &&
      templates.some((t) => typeof ((t['metadata'] as JsonObject | undefined)?.['labels'] as JsonObject | undefined)?.['modelplane.ai/workload'] === 'string'));
  if (!engine) return undefined;
  const cached = templates.some((t) =>
    (((t['spec'] as JsonObject | undefined)?.['volumes'] ?? []) as JsonObject[]).some((v) => v['name'] === 'model-cache'),
  );
  return cached ? SIMULATED_STARTUP_SECONDS.cache : SIMULATED_STARTUP_SECONDS.direct;
}

/**
 * An engine workload as the cluster would report it: created at FIXED_TIME,
 * its Available condition moved to the simulated startup time.
 */
function withSimulatedStartup(manifest: KubeObject, status: JsonObject): KubeObject {
  const seconds = simulatedStartupSeconds(manifest);
  if (seconds === undefined) return { ...manifest, status };
  const conditions = ((status['conditions'] ?? []) as JsonObject[]).map((c) =>
    c['type'] === 'Available' ? { ...c, lastTransitionTime: afterFixedTime(seconds) } : c,
  );
  return { ...manifest, metadata: { ...(manifest.metadata ?? {}), creationTimestamp: FIXED_TIME }, status: { ...status, conditions } };
}

/** What a fake may consult besides the object itself. */
export interface ProviderContext {
  /**
   * The load-balancer address of `owner`, stable per owner: from the control
   * plane's MetalLB pool (or TEST-NET-3 when it declares none) for what the
   * InferenceGateway composes, from 198.51.100.0/24 (TEST-NET-2) for workload
   * clusters.
   */
  address(owner: string): string;
  /**
   * Why the engine workload a provider-kubernetes Object carries would stay
   * Pending on its cluster (its devices are not free there), or undefined
   * when it is bound. Absent: every workload is bound (plan).
   */
  pending?(obj: KubeObject): string | undefined;
  /**
   * The Synced=False condition of a managed resource whose cluster its
   * provider cannot reach (`plan --lose`), or undefined. Such a resource
   * keeps what it last observed (its Ready is stale, as a real provider's).
   */
  unreachable?(obj: KubeObject): JsonObject | undefined;
}

/** A fake: the status a provider would write for this object. */
type Fake = (obj: KubeObject, ctx: ProviderContext) => JsonObject;

const readyConditions = (): JsonObject[] => [
  { lastTransitionTime: FIXED_TIME, reason: 'Available', status: 'True', type: 'Ready' },
  { lastTransitionTime: FIXED_TIME, reason: 'ReconcileSuccess', status: 'True', type: 'Synced' },
];

/** The remote manifest a provider-kubernetes Object carries (`spec.forProvider.manifest`). */
export function manifestOf(obj: KubeObject): KubeObject | undefined {
  const m = (obj['spec'] as JsonObject | undefined)?.['forProvider'] as JsonObject | undefined;
  return m?.['manifest'] as KubeObject | undefined;
}

/**
 * The status a cluster's own controllers give `manifest` (a Gateway its
 * address, a Deployment its available replicas, a CRD Established…), or
 * undefined for kinds whose status nobody reads. `owner` keys the address a
 * load balancer hands out. Used for manifests wrapped in a provider-kubernetes
 * Object (plan, and the dev control plane's simulated clusters) and for the
 * objects of a real API server that has no such controllers (the dev
 * control plane's simulated kubelet and gateway controllers).
 */
export function clusterStatus(manifest: KubeObject, owner: string, ctx: ProviderContext): JsonObject | undefined {
  const spec = (manifest['spec'] ?? {}) as JsonObject;
  switch (`${groupOf(manifest.apiVersion)}/${manifest.kind}`) {
    case 'gateway.networking.k8s.io/Gateway':
      return {
        addresses: [{ type: 'IPAddress', value: ctx.address(owner) }],
        conditions: [
          { type: 'Accepted', status: 'True', reason: 'Accepted', message: SIMULATED_MESSAGE, lastTransitionTime: FIXED_TIME },
          { type: 'Programmed', status: 'True', reason: 'Programmed', message: SIMULATED_MESSAGE, lastTransitionTime: FIXED_TIME },
        ],
      };
    case 'gateway.networking.k8s.io/GatewayClass':
      return { conditions: [{ type: 'Accepted', status: 'True', reason: 'Accepted', message: SIMULATED_MESSAGE, lastTransitionTime: FIXED_TIME }] };
    case 'apiextensions.k8s.io/CustomResourceDefinition':
      return {
        acceptedNames: (spec['names'] ?? {}) as JsonObject,
        conditions: [
          { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', lastTransitionTime: FIXED_TIME },
          { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', lastTransitionTime: FIXED_TIME },
        ],
        storedVersions: ((spec['versions'] ?? []) as JsonObject[]).filter((v) => v['storage']).map((v) => v['name']),
      };
    case '/Service':
      return spec['type'] === 'LoadBalancer' ? { loadBalancer: { ingress: [{ ip: ctx.address(owner) }] } } : {};
    case 'apps/DaemonSet':
      return { desiredNumberScheduled: 1, numberReady: 1, numberAvailable: 1, updatedNumberScheduled: 1 };
    case 'apps/Deployment': {
      const replicas = typeof spec['replicas'] === 'number' ? spec['replicas'] : 1;
      return {
        replicas,
        readyReplicas: replicas,
        availableReplicas: replicas,
        updatedReplicas: replicas,
        conditions: [
          { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: SIMULATED_MESSAGE, lastTransitionTime: FIXED_TIME },
          { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable', message: SIMULATED_MESSAGE, lastTransitionTime: FIXED_TIME },
        ],
      };
    }
    case 'leaderworkerset.x-k8s.io/LeaderWorkerSet': {
      const replicas = typeof spec['replicas'] === 'number' ? spec['replicas'] : 1;
      return {
        replicas,
        readyReplicas: replicas,
        updatedReplicas: replicas,
        conditions: [{ type: 'Available', status: 'True', reason: 'AllGroupsReady', lastTransitionTime: FIXED_TIME }],
      };
    }
    case 'batch/Job':
      return { succeeded: 1, conditions: [{ type: 'Complete', status: 'True', lastTransitionTime: FIXED_TIME }] };
    case '/PersistentVolumeClaim':
      return { phase: 'Bound' };
    case 'gateway.networking.k8s.io/HTTPRoute':
      return {
        parents: ((spec['parentRefs'] ?? []) as JsonObject[]).map((p) => ({
          parentRef: p,
          controllerName: 'modelplane.ai/plan',
          conditions: [{ type: 'Accepted', status: 'True', reason: 'Accepted', message: SIMULATED_MESSAGE, lastTransitionTime: FIXED_TIME }],
        })),
      };
    default:
      return undefined;
  }
}

/**
 * An engine workload whose pods are not bound (`why`): none ready or
 * available, Available False, and its Object not Ready.
 */
function pendingWorkload(manifest: KubeObject, why: string): JsonObject {
  const spec = (manifest['spec'] ?? {}) as JsonObject;
  const replicas = typeof spec['replicas'] === 'number' ? spec['replicas'] : 1;
  const message = `pods Pending: ${why} (simulated scheduler)`;
  const available = { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable', message, lastTransitionTime: FIXED_TIME };
  const status: JsonObject = manifest.kind === 'Deployment' ? { replicas, readyReplicas: 0, availableReplicas: 0, unavailableReplicas: replicas, conditions: [available] } : { replicas, readyReplicas: 0, conditions: [available] };
  return {
    atProvider: { manifest: { ...manifest, status } },
    conditions: [{ lastTransitionTime: FIXED_TIME, reason: 'Unavailable', status: 'False', type: 'Ready', message }],
  };
}

/**
 * The table: (API group, kind) of a managed resource → the status its
 * provider writes, on top of `conditions: [Ready=True, Synced=True]` which
 * every managed resource gets. Managed kinds not listed get only those
 * conditions (and an empty `atProvider`). Native kinds (core, apps, Gateway
 * API, CRDs…) get what their controllers report: `clusterStatus` above, the
 * same whether composed directly or wrapped in a provider-kubernetes Object.
 */
export const FAKES: Record<string, Fake> = {
  // provider-kubernetes: the remote object as observed, with the status the workload cluster gives it.
  'kubernetes.m.crossplane.io/Object': (obj, ctx) => {
    const manifest = manifestOf(obj);
    if (!manifest) return { atProvider: {} };
    const why = simulatedStartupSeconds(manifest) === undefined ? undefined : ctx.pending?.(obj);
    if (why !== undefined) return pendingWorkload(manifest, why);
    const remote = clusterStatus(manifest, `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`, ctx);
    return { atProvider: { manifest: remote === undefined ? manifest : withSimulatedStartup(manifest, remote) } };
  },
  // provider-aws EKS: the API endpoint and the security group EKS creates for the cluster.
  'eks.aws.m.upbound.io/Cluster': (obj) => ({
    atProvider: {
      arn: `arn:aws:eks:us-east-1:000000000000:cluster/${obj.metadata?.name ?? ''}`,
      endpoint: `https://${obj.metadata?.name ?? ''}.eks.plan.modelplane.invalid`,
      status: 'ACTIVE',
      vpcConfig: { clusterSecurityGroupId: `sg-${obj.metadata?.name ?? ''}` },
    },
  }),
  'ec2.aws.m.upbound.io/VPC': (obj) => ({ atProvider: { id: `vpc-${obj.metadata?.name ?? ''}` } }),
  'ec2.aws.m.upbound.io/Subnet': (obj) => ({ atProvider: { id: `subnet-${obj.metadata?.name ?? ''}` } }),
  'ec2.aws.m.upbound.io/SecurityGroup': (obj) => ({ atProvider: { id: `sg-${obj.metadata?.name ?? ''}` } }),
  'iam.aws.m.upbound.io/Role': (obj) => ({ atProvider: { arn: `arn:aws:iam::000000000000:role/${obj.metadata?.name ?? ''}` } }),
  'iam.aws.m.upbound.io/Policy': (obj) => ({ atProvider: { arn: `arn:aws:iam::000000000000:policy/${obj.metadata?.name ?? ''}` } }),
  // provider-gcp: the GKE endpoint, the service account's email (compose-gke-cluster binds its role to it), ids.
  'container.gcp.m.upbound.io/Cluster': (obj) => ({
    atProvider: {
      id: `projects/plan/locations/${str((obj['spec'] as JsonObject | undefined)?.['forProvider'], 'location')}/clusters/${nameOf(obj)}`,
      endpoint: `${nameOf(obj)}.gke.plan.modelplane.invalid`,
    },
  }),
  'cloudplatform.gcp.m.upbound.io/ServiceAccount': (obj) => ({
    atProvider: { id: `projects/plan/serviceAccounts/${nameOf(obj)}`, email: `${nameOf(obj)}@plan.iam.gserviceaccount.com` },
  }),
  'compute.gcp.m.upbound.io/Network': (obj) => ({ atProvider: { id: `projects/plan/global/networks/${nameOf(obj)}` } }),
  // provider-azure: the AKS API server's FQDN and the ids Azure assigns.
  'containerservice.azure.m.upbound.io/KubernetesCluster': (obj) => ({
    atProvider: {
      id: `/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/${nameOf(obj)}/providers/Microsoft.ContainerService/managedClusters/${nameOf(obj)}`,
      fqdn: `${nameOf(obj)}.aks.plan.modelplane.invalid`,
    },
  }),
  'azure.m.upbound.io/ResourceGroup': (obj) => ({
    atProvider: { id: `/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/${nameOf(obj)}` },
  }),
  // provider-nebius: running mk8s clusters and the ids of what the node groups attach.
  'mk8s.nebius.m.upbound.io/Cluster': (obj) => ({ atProvider: { id: `mk8scluster-${nameOf(obj)}`, status: { state: 'RUNNING' } } }),
  'compute.nebius.m.upbound.io/Filesystem': (obj) => ({ atProvider: { id: `computefilesystem-${nameOf(obj)}`, status: { state: 'READY' } } }),
  'compute.nebius.m.upbound.io/GpuCluster': (obj) => ({ atProvider: { id: `computegpucluster-${nameOf(obj)}` } }),
  // provider-vultr: a running VKE cluster.
  'vke.vultr.m.upbound.io/Kubernetes': (obj) => ({
    atProvider: { id: `vke-${obj.metadata?.name ?? ''}`, status: 'active', endpoint: `${obj.metadata?.name ?? ''}.vke.plan.modelplane.invalid` },
  }),
  // provider-helm: a deployed release.
  'helm.m.crossplane.io/Release': () => ({ atProvider: { state: 'deployed', revision: 1 } }),
};

function nameOf(obj: KubeObject): string {
  return obj.metadata?.name ?? '';
}

function str(o: unknown, key: string): string {
  const v = o && typeof o === 'object' ? (o as JsonObject)[key] : undefined;
  return typeof v === 'string' ? v : '';
}

/** A managed resource: reconciled by a Crossplane provider, which reports Ready and Synced. */
export function isManaged(group: string): boolean {
  return group.endsWith('.upbound.io') || group.endsWith('.crossplane.io');
}

/**
 * The status `obj` has once its provider (for a managed resource) or the
 * cluster (for a native object composed directly, such as a CRD, Gateway or
 * HTTPRoute on the control plane) has acted on it.
 */
export function providerStatus(obj: KubeObject, ctx: ProviderContext): JsonObject {
  const group = groupOf(obj.apiVersion);
  const lost = isManaged(group) ? ctx.unreachable?.(obj) : undefined;
  if (lost !== undefined) {
    const last = (obj['status'] ?? {}) as JsonObject;
    const kept = ((last['conditions'] as JsonObject[] | undefined) ?? readyConditions()).filter((c) => c['type'] !== 'Synced');
    return { ...last, conditions: [...kept, lost] };
  }
  if (!isManaged(group)) {
    return clusterStatus(obj, `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`, ctx) ?? {};
  }
  const fake = FAKES[`${group}/${obj.kind}`];
  const status = fake ? fake(obj, ctx) : { atProvider: {} };
  return { ...status, conditions: (status['conditions'] as JsonObject[] | undefined) ?? readyConditions() };
}

/** Addresses handed out by load balancers, in first-come order (the plan's order is deterministic). */
export class AddressPool {
  private readonly given = new Map<string, string>();
  private readonly ips: string[];

  /** @param range a MetalLB `addressPool` such as `172.18.255.200-172.18.255.250`, or a CIDR; `fallback` when absent or unparsable. */
  constructor(range: string | undefined, fallback: string) {
    this.ips = expandRange(range) ?? expandRange(fallback) ?? [];
  }

  address(owner: string): string {
    let ip = this.given.get(owner);
    if (ip === undefined) {
      const taken = new Set(this.given.values());
      ip = this.ips.find((x) => !taken.has(x)) ?? this.ips[this.given.size % this.ips.length]!;
      this.given.set(owner, ip);
    }
    return ip;
  }

  /**
   * Gives `owner` the address it already has in the current fleet
   * (`plan --state`), so a plan keeps it; ignored when `ip` is not in this
   * pool or is already given. @returns whether it was reserved.
   */
  reserve(owner: string, ip: string): boolean {
    if (!this.ips.includes(ip) || this.given.has(owner) || [...this.given.values()].includes(ip)) return false;
    this.given.set(owner, ip);
    return true;
  }
}

/**
 * Addresses load balancers handed out in the current fleet: of each
 * provider-kubernetes Object whose observed manifest is a Gateway
 * (`status.addresses[0].value`) or a LoadBalancer Service
 * (`status.loadBalancer.ingress[0].ip`), by `namespace/name` of the Object,
 * sorted. Only objects with status (e.g. `kubectl get -o yaml`) carry them.
 */
export function stateAddresses(objects: readonly KubeObject[]): [string, string][] {
  const out: [string, string][] = [];
  for (const o of objects) {
    const remote = ((((o['status'] as JsonObject | undefined)?.['atProvider'] as JsonObject | undefined)?.['manifest'] as JsonObject | undefined)?.[
      'status'
    ] ?? {}) as JsonObject;
    const gw = (remote['addresses'] as JsonObject[] | undefined)?.[0]?.['value'];
    const lb = ((remote['loadBalancer'] as JsonObject | undefined)?.['ingress'] as JsonObject[] | undefined)?.[0]?.['ip'];
    const ip = typeof gw === 'string' ? gw : typeof lb === 'string' ? lb : undefined;
    if (ip !== undefined) out.push([`${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`, ip]);
  }
  return out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

function toInt(ip: string): number {
  return ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);
}
function toIp(n: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
}

/** `a.b.c.d-e.f.g.h` or `a.b.c.d/n` → its addresses (at most 1024), or undefined when unparsable. */
export function expandRange(range: string | undefined): string[] | undefined {
  if (!range) return undefined;
  const dash = /^(\d+\.\d+\.\d+\.\d+)-(\d+\.\d+\.\d+\.\d+)$/.exec(range.trim());
  const cidr = /^(\d+\.\d+\.\d+\.\d+)\/(\d+)$/.exec(range.trim());
  let first: number;
  let last: number;
  if (dash) [first, last] = [toInt(dash[1]!), toInt(dash[2]!)];
  else if (cidr) {
    const bits = Number(cidr[2]);
    const base = toInt(cidr[1]!) - (toInt(cidr[1]!) % 2 ** (32 - bits));
    [first, last] = [base + 1, base + 2 ** (32 - bits) - 2];
  } else return undefined;
  if (!(last >= first)) return undefined;
  const out: string[] = [];
  for (let n = first; n <= last && out.length < 1024; n++) out.push(toIp(n));
  return out;
}

/** The server of every simulated cluster's kubeconfig ends with this (a reserved, never-resolving TLD). */
export const SIMULATED_SERVER_SUFFIX = '.plan.modelplane.invalid';

/**
 * The connection Secret a provider writes for a managed resource with
 * `spec.writeConnectionSecretToRef` (a cluster MR: its kubeconfig), or
 * undefined when it names none. The kubeconfig points at
 * `https://<name>.plan.modelplane.invalid`: a simulated cluster.
 */
export function connectionSecret(mr: KubeObject): KubeObject | undefined {
  const ref = (mr['spec'] as JsonObject | undefined)?.['writeConnectionSecretToRef'] as { name?: string; namespace?: string } | undefined;
  if (!ref?.name) return undefined;
  const namespace = ref.namespace ?? mr.metadata?.namespace;
  const name = mr.metadata?.name ?? '';
  const kubeconfig = [
    'apiVersion: v1',
    'kind: Config',
    `clusters: [{name: ${name}, cluster: {server: "https://${name}${SIMULATED_SERVER_SUFFIX}"}}]`,
    `contexts: [{name: ${name}, context: {cluster: ${name}, user: plan}}]`,
    `current-context: ${name}`,
    'users: [{name: plan, user: {token: simulated}}]',
    '',
  ].join('\n');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: ref.name,
      ...(namespace ? { namespace } : {}),
      ownerReferences: [{ apiVersion: mr.apiVersion, kind: mr.kind, name, uid: mr.metadata?.uid ?? '', controller: true }],
    },
    type: 'connection.crossplane.io/v1alpha1',
    data: { kubeconfig: Buffer.from(kubeconfig).toString('base64') },
  };
}
