/**
 * Builders for the serving tests (ModelReplica, ModelEndpoint, ModelService):
 * short, immutable, every call a fresh object.
 *
 * `replica('r', {engines: [engine('main', [member('Standalone', {requests: [gpu()]})])]})`
 */
import type { ComposeRequest, JsonObject, KubeObject, ObservedResource } from '../../functions/lib/function.js';

/** The namespace of every test XR unless told otherwise. */
export const NS = 'ml-team';
/** The default image of {@link container}. */
export const IMAGE = 'vllm/vllm-openai:latest';

/** Options of {@link container}. */
export interface ContainerOpts {
  image?: string;
  args?: string[];
  command?: string[];
  env?: JsonObject[];
}

/** The member's `engine` container. */
export function container(o: ContainerOpts = {}): JsonObject {
  const c: JsonObject = { name: 'engine', image: o.image ?? IMAGE };
  if (o.command) c['command'] = [...o.command];
  if (o.args) c['args'] = [...o.args];
  if (o.env) c['env'] = structuredClone(o.env);
  return c;
}

/** A resolved device request: `gpu` of class gpu.nvidia.com, count 1, one CEL selector. */
export function gpu(o: { name?: string; count?: number; cel?: string[]; deviceClassName?: string } = {}): JsonObject {
  const r: JsonObject = {
    name: o.name ?? 'gpu',
    deviceClassName: o.deviceClassName ?? 'gpu.nvidia.com',
    count: o.count ?? 1,
  };
  const cel = o.cel ?? ['device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("80Gi")) >= 0'];
  if (cel.length > 0) r['selectors'] = cel.map((c) => ({ cel: c }));
  return r;
}

/** Options of {@link member}. */
export interface MemberOpts extends ContainerOpts {
  pool?: string;
  /** Device requests; omit for a claimless member. */
  requests?: JsonObject[];
  workerNodes?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  imagePullSecrets?: string[];
}

/** An engine member of `role`, pinned to pool `frontier` unless told. */
export function member(role: 'Standalone' | 'Leader' | 'Worker', o: MemberOpts = {}): JsonObject {
  const template: JsonObject = { spec: { containers: [container(o)] } };
  if (o.imagePullSecrets) (template['spec'] as JsonObject)['imagePullSecrets'] = o.imagePullSecrets.map((name) => ({ name }));
  const meta: JsonObject = {};
  if (o.labels) meta['labels'] = { ...o.labels };
  if (o.annotations) meta['annotations'] = { ...o.annotations };
  if (Object.keys(meta).length > 0) template['metadata'] = meta;
  const m: JsonObject = { role, nodePoolName: o.pool ?? 'frontier', template };
  if (o.requests) m['deviceRequests'] = structuredClone(o.requests);
  if (o.workerNodes !== undefined) m['worker'] = { nodes: o.workerNodes };
  return m;
}

/** An engine. */
export function engine(name: string, members: JsonObject[], o: { copies?: number; phase?: 'Prefill' | 'Decode' } = {}): JsonObject {
  const e: JsonObject = { name, copies: o.copies ?? 1, members: structuredClone(members) };
  if (o.phase) e['phase'] = o.phase;
  return e;
}

/** The standard Standalone engine `main` with one gpu request. */
export function standalone(name = 'main', o: MemberOpts = {}): JsonObject {
  return engine(name, [member('Standalone', { requests: [gpu()], ...o })]);
}

/** Options of {@link replica}. */
export interface ReplicaOpts {
  namespace?: string;
  cluster?: string;
  engines?: JsonObject[];
  cache?: string;
  mode?: 'Unified' | 'PrefillDecode';
}

/** A ModelReplica XR. */
export function replica(name: string, o: ReplicaOpts = {}): KubeObject {
  const spec: JsonObject = { clusterName: o.cluster ?? 'cluster-a', engines: structuredClone(o.engines ?? [standalone()]) };
  if (o.cache) spec['modelCacheRef'] = { name: o.cache };
  if (o.mode) spec['serving'] = { mode: o.mode };
  return { apiVersion: 'modelplane.ai/v1alpha1', kind: 'ModelReplica', metadata: { name, namespace: o.namespace ?? NS }, spec };
}

/** An InferenceCluster with a providerConfigRef (pass `null` for none). */
export function inferenceCluster(name: string, pc: string | null = `${name}-pc`): KubeObject {
  const status: JsonObject = { conditions: [{ type: 'Ready', status: 'True', reason: 'Available' }] };
  if (pc !== null) status['providerConfigRef'] = { name: pc };
  return { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceCluster', metadata: { name }, spec: {}, status };
}

/** An observed provider-kubernetes Object: `manifest` reported in atProvider, Ready as told. */
export function observedObject(o: { manifest?: boolean; ready?: boolean } = {}): ObservedResource {
  const status: JsonObject = {};
  if (o.manifest) status['atProvider'] = { manifest: { kind: 'Applied', status: {} } };
  if (o.ready !== undefined) {
    status['conditions'] = [{ type: 'Ready', status: o.ready ? 'True' : 'False', reason: o.ready ? 'Available' : 'Creating' }];
  }
  const resource: KubeObject = { apiVersion: 'kubernetes.m.crossplane.io/v1alpha1', kind: 'Object', spec: {} };
  if (Object.keys(status).length > 0) resource['status'] = status;
  return { resource, connectionDetails: {} };
}

/** An observed object as given. */
export function observed(resource: KubeObject): ObservedResource {
  return { resource: structuredClone(resource), connectionDetails: {} };
}

/** A fresh compose request. */
export function request(
  composite: KubeObject,
  o: { observed?: Record<string, ObservedResource>; required?: Record<string, KubeObject[]> } = {},
): ComposeRequest {
  return {
    composite: structuredClone(composite),
    observed: structuredClone(o.observed ?? {}),
    desired: {},
    required: structuredClone(o.required ?? {}),
    context: {},
    credentials: {},
  };
}

/** Options of {@link modelEndpoint}. */
export interface EndpointOpts {
  url?: string;
  rewritePath?: string;
  backendName?: string;
  labels?: Record<string, string>;
  namespace?: string;
}

/** A ModelEndpoint; with `backendName` it has a live backend. */
export function modelEndpoint(name: string, o: EndpointOpts = {}): KubeObject {
  const spec: JsonObject = { url: o.url ?? 'http://10.0.0.1/v1' };
  if (o.rewritePath) spec['rewritePath'] = o.rewritePath;
  const ep: KubeObject = {
    apiVersion: 'modelplane.ai/v1alpha1',
    kind: 'ModelEndpoint',
    metadata: { name, namespace: o.namespace ?? NS, labels: { ...(o.labels ?? { app: 'test' }) } },
    spec,
  };
  if (o.backendName) ep['status'] = { routing: { backendName: o.backendName } };
  return ep;
}

/** A ModelService over selector entries (weight and priority omitted = the XRD defaults). */
export function modelService(
  name: string,
  entries: { weight?: number; priority?: number; labels: Record<string, string> }[] = [{ labels: { app: 'test' } }],
  namespace = NS,
): KubeObject {
  return {
    apiVersion: 'modelplane.ai/v1alpha1',
    kind: 'ModelService',
    metadata: { name, namespace },
    spec: {
      endpoints: entries.map((e) => ({
        ...(e.weight !== undefined ? { weight: e.weight } : {}),
        ...(e.priority !== undefined ? { priority: e.priority } : {}),
        selector: { matchLabels: { ...e.labels } },
      })),
    },
  };
}

/** The InferenceGateway `default`, with an address unless `null`. */
export function inferenceGateway(address: string | null = '34.55.100.10'): KubeObject {
  const gw: KubeObject = { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceGateway', metadata: { name: 'default' }, spec: {} };
  if (address !== null) gw['status'] = { address };
  return gw;
}
