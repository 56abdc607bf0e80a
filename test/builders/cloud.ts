/**
 * Test builders for the cloud cluster XRs (EKSCluster, VultrCluster): short,
 * immutable, each call a fresh object. Inputs are built here; expected
 * outputs are literal in the tests and goldens, never built with production
 * code.
 */
import type { ComposeRequest, JsonObject, KubeObject, ObservedResource } from '../../functions/lib/function.js';

/** XR name of every acceptance case (cloud-providers.md §8). */
export const XR = 'test-cluster';
/** XR namespace of every acceptance case. */
export const NS = 'modelplane-system';
/** `child_name("test-cluster", "kubeconfig")` (§1.3 vector). */
export const KUBECONFIG = 'test-cluster-kubeconfig-55b57';
/** `child_name("modelplane-system", "test-cluster", "eks")` (§1.3 vector). */
export const EKS_NAME = 'modelplane-system-test-cluster-eks-0865f';
/** The API version of both XRs. */
export const INFRA = 'infrastructure.modelplane.ai/v1alpha1';

/** An EKS pool; GPU pools default to `nvidia-l4` accelerators. */
export function eksPool(name: string, fields: JsonObject = {}): JsonObject {
  return { name, role: 'GPU', gpu: { acceleratorType: 'nvidia-l4' }, ...structuredClone(fields) };
}

/** §8.1 XR A's pool: `gpu-l4`, g6.xlarge, 1 node (0..4), zones us-west-2a/b. */
export function poolA(): JsonObject {
  return eksPool('gpu-l4', {
    instanceType: 'g6.xlarge',
    nodeCount: 1,
    minNodeCount: 0,
    maxNodeCount: 4,
    zones: ['us-west-2a', 'us-west-2b'],
  });
}

/** §8.1 case 12/13 pool: `gpu-h200`, p5en.48xlarge, 2 nodes (0..2), 1024 GB, zone us-west-2a. */
export function poolH200(fields: JsonObject = {}): JsonObject {
  return eksPool('gpu-h200', {
    instanceType: 'p5en.48xlarge',
    nodeCount: 2,
    minNodeCount: 0,
    maxNodeCount: 2,
    diskSizeGb: 1024,
    gpu: { acceleratorType: 'nvidia-h200' },
    zones: ['us-west-2a'],
    ...fields,
  });
}

/** An EKSCluster in us-west-2 with these pools (default: XR A's) and extra spec fields. */
export function eksXr(pools: JsonObject[] = [poolA()], spec: JsonObject = {}): KubeObject {
  return {
    apiVersion: INFRA,
    kind: 'EKSCluster',
    metadata: { name: XR, namespace: NS },
    spec: { region: 'us-west-2', nodePools: structuredClone(pools), ...structuredClone(spec) },
  };
}

/** A Vultr pool; GPU pools default to `nvidia-l40s` accelerators. */
export function vultrPool(name: string, fields: JsonObject = {}): JsonObject {
  return { name, role: 'GPU', gpu: { acceleratorType: 'nvidia-l40s' }, ...structuredClone(fields) };
}

/** §8.5's pool: `gpu-l40s`, plan vcg-l40s-16c-180g-48vram, up to 4 nodes. */
export function poolL40s(fields: JsonObject = {}): JsonObject {
  return vultrPool('gpu-l40s', { plan: 'vcg-l40s-16c-180g-48vram', maxNodeCount: 4, ...fields });
}

/** A VultrCluster in ewr with these pools (default: §8.5's). */
export function vultrXr(pools: JsonObject[] = [poolL40s()], spec: JsonObject = {}): KubeObject {
  return {
    apiVersion: INFRA,
    kind: 'VultrCluster',
    metadata: { name: XR, namespace: NS },
    spec: { region: 'ewr', nodePools: structuredClone(pools), ...structuredClone(spec) },
  };
}

/** Options of an observed composed resource. */
export interface ObservedOptions {
  /** Condition Ready True / False; omitted: no conditions. */
  ready?: boolean;
  /** `crossplane.io/external-name`. */
  externalName?: string;
  /** Extra status fields (besides conditions). */
  status?: JsonObject;
}

/** An observed composed resource of this apiVersion/kind. */
export function seen(apiVersion: string, kind: string, opts: ObservedOptions = {}): ObservedResource {
  const resource: KubeObject = { apiVersion, kind, metadata: { name: `${kind.toLowerCase()}-x` } };
  if (opts.externalName) resource.metadata!.annotations = { 'crossplane.io/external-name': opts.externalName };
  const status: JsonObject = { ...(opts.status ?? {}) };
  if (opts.ready !== undefined) {
    status['conditions'] = [
      { type: 'Ready', status: opts.ready ? 'True' : 'False', reason: opts.ready ? 'Available' : 'Creating' },
    ];
  }
  if (Object.keys(status).length > 0) resource['status'] = status;
  return { resource, connectionDetails: {} };
}

/** A fresh request for this XR and observed resources. */
export function request(composite: KubeObject, observed: Record<string, ObservedResource> = {}): ComposeRequest {
  return structuredClone({ composite, observed, desired: {}, required: {}, context: {}, credentials: {} });
}
