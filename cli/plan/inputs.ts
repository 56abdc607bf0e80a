/**
 * Load-time checks of `modelplane plan` that the XRD schema cannot make:
 * nothing a user applied is silently dropped or merged.
 *
 * - {@link nameProblem}: `metadata.name` is required. `generateName` is
 *   refused: the API server would pick a random suffix on create
 *   (Kubernetes API conventions, "Idempotency"), so a plan could not say
 *   which object it means, and `kubectl apply` refuses it too.
 * - {@link duplicates}: two documents with the same API group, kind,
 *   namespace and name would be one object on the API server (the last
 *   apply wins); both are refused, each naming the other's file and line.
 * - {@link didYouMean}: an undeclared field gets the declared sibling it
 *   most likely misspells (case-insensitive match or edit distance <= 2).
 */
import type { KubeObject } from '../../functions/lib/function.js';
import type { JSONSchemaProps } from '../../functions/lib/schema/index.js';
import type { LoadedDocument } from '../load.js';
import { groupOf } from '../objects.js';

/** Why a document's name is unusable, or undefined when it has one. */
export function nameProblem(o: KubeObject): string | undefined {
  const name = o.metadata?.name;
  if (typeof name === 'string' && name !== '') return undefined;
  const gen = o.metadata?.['generateName'];
  if (typeof gen === 'string' && gen !== '') {
    return `metadata.name: Required value: generateName (${JSON.stringify(gen)}) is not supported: the API server would append a random suffix, so neither a plan nor kubectl apply can tell which object is meant; set metadata.name`;
  }
  return 'metadata.name: Required value: set metadata.name';
}

/**
 * Documents that collide on (group, kind, namespace, name), the namespace
 * being `defaultNamespace` when unset and `''` for cluster-scoped kinds:
 * for each, the message naming every other document it collides with.
 */
export function duplicates(docs: readonly LoadedDocument[], clusterScoped: (group: string, kind: string) => boolean): Map<LoadedDocument, string> {
  const byKey = new Map<string, LoadedDocument[]>();
  for (const d of docs) {
    const o = d.object;
    if (typeof o.apiVersion !== 'string' || typeof o.kind !== 'string' || typeof o.metadata?.name !== 'string' || o.metadata.name === '') continue;
    const group = groupOf(o.apiVersion);
    const ns = clusterScoped(group, o.kind) ? '' : (o.metadata.namespace ?? 'default');
    const key = `${group}\0${o.kind}\0${ns}\0${o.metadata.name}`;
    byKey.set(key, [...(byKey.get(key) ?? []), d]);
  }
  const out = new Map<LoadedDocument, string>();
  for (const group of byKey.values()) {
    if (group.length < 2) continue;
    for (const d of group) {
      const others = group.filter((x) => x !== d).map((x) => `${x.file}:${x.line}`);
      const o = d.object;
      const ns = o.metadata?.namespace ? `${o.metadata.namespace}/` : '';
      out.set(d, `${o.kind} ${ns}${o.metadata?.name} is defined again at ${others.join(', ')}; the API server keeps one object per kind, namespace and name (the last apply wins), so neither is planned: rename or remove one`);
    }
  }
  return out;
}

function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** The schema at a field path like `spec.nodePools[0].zones`, or undefined. */
function schemaAt(root: JSONSchemaProps, path: string): JSONSchemaProps | undefined {
  let s: JSONSchemaProps | undefined = root;
  for (const part of path.split('.').filter(Boolean)) {
    const m = /^([^[\]]*)((?:\[[^\]]*\])*)$/.exec(part);
    if (!m || !s) return undefined;
    if (m[1]) s = s.properties?.[m[1]] ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
    for (let n = (m[2] ?? '').split('[').length - 1; n > 0 && s; n--) s = Array.isArray(s.items) ? undefined : (s.items as JSONSchemaProps | undefined);
  }
  return s;
}

/**
 * ` (did you mean "region"?)` for an undeclared field at `path` whose
 * parent declares a near spelling; `''` when there is none.
 */
export function didYouMean(root: JSONSchemaProps, path: string): string {
  const dot = path.lastIndexOf('.');
  const field = path.slice(dot + 1);
  const parent = schemaAt(root, dot < 0 ? '' : path.slice(0, dot));
  const known = Object.keys(parent?.properties ?? {});
  const lower = field.toLowerCase();
  const best = known
    .map((k) => ({ k, d: k.toLowerCase() === lower ? 0 : distance(lower, k.toLowerCase()) }))
    .filter((x) => x.d <= Math.min(2, Math.max(1, Math.floor(field.length / 3))))
    .sort((a, b) => a.d - b.d || (a.k < b.k ? -1 : 1))[0];
  return best ? ` (did you mean ${JSON.stringify(best.k)}?)` : '';
}
