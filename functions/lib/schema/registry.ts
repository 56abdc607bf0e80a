/**
 * A lookup from apiVersion + kind to the schema of that version, fed from
 * real CustomResourceDefinition files (e.g. the provider CRD snapshot the
 * tests and `modelplane dev` read, `--provider-crds`; one CRD per
 * `<group>/<plural>.yaml`) and from our own XRDs (`apis/<plural>/definition.yaml`,
 * converted by {@link xrdToCrdSchema}).
 *
 * CRD files are indexed by a cheap scan of their header (group, kind, version
 * names) and parsed only when a kind is first looked up, so pointing the
 * registry at 6.5 MiB of CRDs costs milliseconds until they are used.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { JSONSchemaProps, KindSchema } from './types.js';
import { type ValidateOptions, type ValidationResult, validateObject } from './validate.js';
import { type Xrd, xrdToCrdSchemas } from './xrd.js';

/** An apiVersion + kind → schema lookup. */
export class SchemaRegistry {
  readonly #kinds = new Map<string, KindSchema | (() => KindSchema | undefined)>();

  /** Adds (or replaces) the schema of one kind version. */
  add(k: KindSchema): this {
    this.#kinds.set(key(k.apiVersion, k.kind), k);
    return this;
  }

  /** Adds every version of a CRD document (`apiextensions.k8s.io/v1` CustomResourceDefinition). */
  addCrd(crd: CrdDocument, source?: string): this {
    for (const k of crdKindSchemas(crd, source)) this.add(k);
    return this;
  }

  /** Adds every version of an XRD, converted to its CRD schema. */
  addXrd(xrd: Xrd, source?: string): this {
    for (const k of xrdToCrdSchemas(xrd)) this.add(source !== undefined ? { ...k, source } : k);
    return this;
  }

  /** The schema for `apiVersion` + `kind`, or undefined when no CRD or XRD defines it. */
  lookup(apiVersion: string, kind: string): KindSchema | undefined {
    const k = key(apiVersion, kind);
    const entry = this.#kinds.get(k);
    if (typeof entry !== 'function') return entry;
    const loaded = entry();
    if (loaded === undefined) this.#kinds.delete(k);
    else this.#kinds.set(k, loaded);
    return loaded;
  }

  /** Every known `apiVersion kind`, sorted. */
  keys(): string[] {
    return [...this.#kinds.keys()].sort();
  }

  /**
   * Validates a whole object against the schema of its apiVersion/kind.
   * @returns undefined when the kind is unknown to this registry
   */
  validate(obj: { apiVersion?: unknown; kind?: unknown }, opts: ValidateOptions = {}): ValidationResult | undefined {
    if (typeof obj.apiVersion !== 'string' || typeof obj.kind !== 'string') return undefined;
    const k = this.lookup(obj.apiVersion, obj.kind);
    if (k === undefined) return undefined;
    return validateObject(k.schema, obj, { scope: k.scope, ...opts });
  }

  /** Registers a lazily parsed file under the keys its header promises. */
  addLazy(apiVersion: string, kind: string, load: () => KindSchema | undefined): this {
    if (!this.#kinds.has(key(apiVersion, kind))) this.#kinds.set(key(apiVersion, kind), load);
    return this;
  }
}

/** The fields of a CustomResourceDefinition we read. */
export interface CrdDocument {
  kind?: string;
  spec: {
    group: string;
    scope: 'Namespaced' | 'Cluster';
    names: { kind: string; plural: string };
    versions: Array<{ name: string; schema?: { openAPIV3Schema?: JSONSchemaProps } }>;
  };
}

/** The per-version schemas of a CRD document. */
export function crdKindSchemas(crd: CrdDocument, source?: string): KindSchema[] {
  return crd.spec.versions
    .filter((v) => v.schema?.openAPIV3Schema !== undefined)
    .map((v) => ({
      apiVersion: `${crd.spec.group}/${v.name}`,
      kind: crd.spec.names.kind,
      plural: crd.spec.names.plural,
      scope: crd.spec.scope,
      schema: v.schema!.openAPIV3Schema!,
      ...(source !== undefined ? { source } : {}),
    }));
}

/**
 * Indexes every `*.yaml` CRD under `dir` (recursively) into `registry`
 * (a new one by default). Files are parsed on first lookup of one of their kinds.
 */
export function loadCrds(dir: string, registry = new SchemaRegistry()): SchemaRegistry {
  for (const file of yamlFiles(dir)) {
    const text = readFileSync(file, 'utf8');
    const header = scanCrdHeader(text);
    if (header === undefined) continue;
    let parsed: KindSchema[] | undefined;
    const load = () => {
      parsed ??= parseYamlDocs(readFileSync(file, 'utf8'))
        .filter((d): d is CrdDocument => isObj(d) && d['kind'] === 'CustomResourceDefinition')
        .flatMap((d) => crdKindSchemas(d, file));
      return parsed;
    };
    for (const version of header.versions) {
      const apiVersion = `${header.group}/${version}`;
      registry.addLazy(apiVersion, header.kind, () => load().find((k) => k.apiVersion === apiVersion));
    }
  }
  return registry;
}

/**
 * YAML parsed ahead of time: the SHA-256 (hex) of a file's text → what
 * {@link parseYamlDocs} returns for it. `npm run build` writes ours for apis/
 * (dist/yaml-docs.json, scripts/build.mjs): JSON.parse of it is an order of
 * magnitude faster than parsing the XRDs' YAML on every CLI start. Keyed by
 * content, so an edited file is never served stale: it misses and is parsed.
 */
export type ParsedDocs = Readonly<Record<string, unknown[]>>;

/** The key of `text` in {@link ParsedDocs}. */
export function parsedDocsKey(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * Converts every XRD under `dir` (`<plural>/definition.yaml`, or any YAML file
 * holding a CompositeResourceDefinition) into `registry` (a new one by default),
 * taking a file's documents from `parsed` when its text is there.
 */
export function loadXrds(dir: string, registry = new SchemaRegistry(), parsed: ParsedDocs = {}): SchemaRegistry {
  for (const file of yamlFiles(dir)) {
    const text = readFileSync(file, 'utf8');
    for (const doc of parsed[parsedDocsKey(text)] ?? parseYamlDocs(text)) {
      if (isObj(doc) && doc['kind'] === 'CompositeResourceDefinition') registry.addXrd(doc as unknown as Xrd, relative(process.cwd(), file));
    }
  }
  return registry;
}

/** Every `.yaml`/`.yml` file under `dir`, recursively, sorted; none when `dir` does not exist. */
export function yamlFiles(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir).sort();
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) return yamlFiles(p);
    return /\.ya?ml$/.test(e) ? [p] : [];
  });
}

/** Parses every document of a YAML stream into plain JSON values (empty documents dropped). */
export function parseYamlDocs(text: string): unknown[] {
  return parseAllDocuments(text)
    .map((d) => {
      if (d.errors.length > 0) throw new Error(d.errors[0]!.message);
      return d.toJS({ maxAliasCount: -1 }) as unknown;
    })
    .filter((d) => d !== null && d !== undefined);
}

/** Reads group, kind and version names from a CRD's text without parsing it (controller-gen layout). */
function scanCrdHeader(text: string): { group: string; kind: string; versions: string[] } | undefined {
  if (!/^kind:\s*CustomResourceDefinition\s*$/m.test(text)) return undefined;
  const group = /^ {2}group:\s*(\S+)\s*$/m.exec(text)?.[1];
  const kind = /^ {2}names:\s*\n(?: {4}.*\n)*? {4}kind:\s*(\S+)\s*$/m.exec(text)?.[1];
  const versions = [...text.matchAll(/^(?: {4}| {2}- | {4}- )name:\s*(v\d+\S*)\s*$/gm)].map((m) => m[1]!);
  if (group === undefined || kind === undefined || versions.length === 0) return undefined;
  return { group, kind, versions: [...new Set(versions)] };
}

function key(apiVersion: string, kind: string): string {
  return `${apiVersion} ${kind}`;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
