/**
 * Which kinds are cluster-scoped, so a `metadata.namespace` given to one is
 * ignored as the API server ignores it
 * (docs/design.md#cluster-scoped-kinds-ignore-a-namespace: the Vultr
 * seed gives its InferenceClass, InferenceCluster and InferenceGateway
 * `namespace: crossplane-system`).
 *
 * Our own kinds' scope comes from their XRDs under apis/; the few built-in
 * and provider kinds we meet are listed here, and every provider's
 * `ClusterProviderConfig` is cluster-scoped (whatever its group).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../functions/lib/function.js';
import { loadXrds, type ParsedDocs, type SchemaRegistry } from '../functions/lib/schema/index.js';
import { REPO_ROOT } from './functions.js';
import { CODE_ROOT, COMPILED } from './root.js';
import { groupOf } from './objects.js';

const BUILTIN_CLUSTER_SCOPED = [
  '/Namespace',
  'apiextensions.k8s.io/CustomResourceDefinition',
  'storage.k8s.io/StorageClass',
  'protection.crossplane.io/ClusterUsage',
];

let cached: Set<string> | undefined;
let registry: SchemaRegistry | undefined;

/** The build's parse of apis/ (dist/yaml-docs.json, scripts/build.mjs); none when running the sources or unreadable. */
function parsedAhead(): ParsedDocs {
  if (!COMPILED) return {};
  try {
    return JSON.parse(readFileSync(join(CODE_ROOT, 'yaml-docs.json'), 'utf8')) as ParsedDocs;
  } catch {
    return {};
  }
}

/** Our XRDs under apis/, converted to their CRD schemas (loaded once per process). */
export function xrdRegistry(): SchemaRegistry {
  registry ??= loadXrds(join(REPO_ROOT, 'apis'), undefined, parsedAhead());
  return registry;
}

/** `group/kind` of every cluster-scoped kind we know. */
export function clusterScopedKinds(): Set<string> {
  if (cached) return cached;
  const out = new Set(BUILTIN_CLUSTER_SCOPED);
  const xrds = xrdRegistry();
  for (const k of xrds.keys()) {
    const [apiVersion = '', kind = ''] = k.split(' ');
    if (xrds.lookup(apiVersion, kind)?.scope === 'Cluster') out.add(`${groupOf(apiVersion)}/${kind}`);
  }
  cached = out;
  return out;
}

/** True when (group, kind) is cluster-scoped. */
export function isClusterScoped(group: string, kind: string): boolean {
  return clusterScopedKinds().has(`${group}/${kind}`) || kind === 'ClusterProviderConfig';
}

/** The object without a namespace when its kind is cluster-scoped (a copy only when changed). */
export function withoutClusterNamespace<T extends KubeObject>(obj: T): T {
  if (!obj.metadata?.namespace || !isClusterScoped(groupOf(obj.apiVersion), obj.kind)) return obj;
  const { namespace: _ns, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}
