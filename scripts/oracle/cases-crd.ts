/**
 * CRD validation questions for the oracle: a schema with
 * `x-kubernetes-validations` rules, and optionally an object (and an old
 * object) to validate; Kubernetes answers with its verdict on the rules when
 * the CRD is written, each rule's estimated cost and cardinality, the errors
 * of validating the object and the runtime cost (test/oracle/crd.go).
 *
 * Three groups:
 * - `crd-xrd`: every XRD of apis/ as Crossplane converts it, alone and with
 *   every object of its kind under examples/ and the published seed
 *   manifests (shared/corpus/seeds beside the repository),
 *   plus seeded mutations of those objects (fields deleted, lists
 *   duplicated, values of other types);
 * - `crd-vendored`: every CRD of the provider CRD snapshot (shared/crds beside
 *   the repository) with rules, alone and
 *   with the composed objects of its kind in the examples' goldens;
 * - `crd-lib`: hand-written schemas and rules for each type mapping, list
 *   type, string format, library, transition rule, message and cost limit.
 * Schemas of the first two are referenced by apiVersion and kind (resolved
 * from apis/ and the provider CRD snapshot when asked and when compared), not copied.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type JSONSchemaProps, loadCrds, loadXrds, parseYamlDocs, SchemaRegistry, yamlFiles } from '../../functions/lib/schema/index.js';
import { Rng } from '../../test/fuzz/random.js';
import { deleteAt, getAt, pathsOf, setAt, wrongType } from '../../test/fuzz/values.js';
import { libraryCrdQuestions } from './cases-crd-lib.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A schema by reference: the served version of a kind in apis/ or the provider CRD snapshot. */
export interface SchemaRef {
  readonly apiVersion: string;
  readonly kind: string;
}

/** A CRD question before it gets an id. */
export interface CrdQuestion {
  readonly group: 'xrd' | 'vendored' | 'lib';
  readonly schema?: JSONSchemaProps;
  readonly schemaRef?: SchemaRef;
  readonly object?: unknown;
  readonly oldObject?: unknown;
}

let registry: SchemaRegistry | undefined;

/** apis/ and the provider CRD snapshot, as the test helpers see them. */
export function crdSchemaRegistry(): SchemaRegistry {
  registry ??= loadXrds(join(root, 'apis'), loadCrds(join(root, '..', 'shared', 'crds'), new SchemaRegistry()));
  return registry;
}

/** The schema of a question (resolving its reference). */
export function questionSchema(q: Pick<CrdQuestion, 'schema' | 'schemaRef'>): JSONSchemaProps {
  if (q.schema !== undefined) return q.schema;
  const k = crdSchemaRegistry().lookup(q.schemaRef!.apiVersion, q.schemaRef!.kind);
  if (k === undefined) throw new Error(`no schema for ${q.schemaRef!.apiVersion} ${q.schemaRef!.kind}`);
  return k.schema;
}

function hasRules(s: JSONSchemaProps): boolean {
  if ((s['x-kubernetes-validations'] ?? []).length > 0) return true;
  if (Object.values(s.properties ?? {}).some(hasRules)) return true;
  if (s.items !== undefined && hasRules(s.items)) return true;
  return typeof s.additionalProperties === 'object' && hasRules(s.additionalProperties);
}

/** Every Kubernetes object in the YAML files under `dirs`, in file order. */
function objectsUnder(...dirs: string[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const dir of dirs) {
    for (const f of yamlFiles(dir)) {
      for (const d of parseYamlDocs(readFileSync(f, 'utf8'))) {
        if (typeof d === 'object' && d !== null && typeof (d as { kind?: unknown }).kind === 'string') out.push(d as Record<string, unknown>);
      }
    }
  }
  return out;
}

const MAX_OBJECT_BYTES = 40_000;

/** Seeded mutations of an object's spec that keep it JSON. */
function mutations(obj: Record<string, unknown>, seed: number, n: number): Record<string, unknown>[] {
  const rng = new Rng(seed);
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const copy = structuredClone(obj);
    const paths = pathsOf(copy['spec']).map((p) => ['spec', ...p]);
    if (paths.length === 0) break;
    const path = rng.pick(paths);
    const v = getAt(copy, path);
    switch (rng.int(3)) {
      case 0:
        deleteAt(copy, path);
        break;
      case 1: {
        const parent = getAt(copy, path.slice(0, -1));
        if (Array.isArray(parent)) parent.push(structuredClone(parent[Number(path[path.length - 1])]));
        else deleteAt(copy, path);
        break;
      }
      default:
        setAt(copy, path, wrongType(rng, v));
    }
    out.push(copy);
  }
  return out;
}

/** The questions of the xrd and vendored groups. */
function schemaQuestions(): CrdQuestion[] {
  const reg = crdSchemaRegistry();
  const out: CrdQuestion[] = [];
  const objects = objectsUnder(join(root, 'examples'), join(root, '..', 'shared', 'corpus', 'seeds'));
  const byKind = new Map<string, Record<string, unknown>[]>();
  for (const o of objects) {
    const key = `${String(o['apiVersion'])} ${String(o['kind'])}`;
    if (JSON.stringify(o).length > MAX_OBJECT_BYTES) continue;
    byKind.set(key, [...(byKind.get(key) ?? []), o]);
  }
  const isXrd = (apiVersion: string) => /^(infrastructure\.)?modelplane\.ai\//.test(apiVersion);
  for (const key of reg.keys()) {
    const [apiVersion, kind] = key.split(' ') as [string, string];
    const k = reg.lookup(apiVersion, kind)!;
    const group = isXrd(apiVersion) ? 'xrd' : 'vendored';
    if (group === 'vendored' && !hasRules(k.schema)) continue;
    const schemaRef = { apiVersion, kind };
    out.push({ group, schemaRef });
    const seen = new Set<string>();
    (byKind.get(key) ?? []).forEach((o, i) => {
      const all = group === 'xrd' ? [o, ...mutations(o, 7919 * (i + 1) + kind.length, 6)] : [o];
      for (const object of all) {
        const text = JSON.stringify(object);
        if (seen.has(text)) continue;
        seen.add(text);
        out.push({ group, schemaRef, object });
      }
    });
  }
  return out;
}

/** Every CRD question, in a stable order. */
export function crdQuestions(): CrdQuestion[] {
  return [...schemaQuestions(), ...libraryCrdQuestions()];
}
