/**
 * Mutators: turn a seed RunFunctionRequest into a hostile one.
 *
 * Each case applies one to three mutations, each to one part of the request:
 * - the XR (`xr-spec`, `xr-metadata`, `xr-status`): deleted fields, wrong
 *   types, huge strings, lists and maps, deep nesting, unicode, duplicate
 *   list entries, random garbage;
 * - an observed composed resource (`observed`): garbage status (malformed
 *   `status.conditions` of every kind), deleted or mistyped fields;
 * - a required resource in each of its three states (`required-pending`:
 *   not fetched yet, `required-absent`: fetched and empty, `required-items`:
 *   present with garbage, duplicate or extra items);
 * - earlier steps' desired state (`desired`), the context (`context`) and
 *   the step input (`input`).
 *
 * Guarantees: the same seed request and generator state give the same case;
 * the seed request is never modified; a case whose XR or observed object
 * nests deeper than {@link GRPC_MAX_DEPTH} is marked in-process only (the
 * gRPC decoder's nesting limit is the codec's, docs/design.md#our-own-runfunction-codec,
 * not this fuzzer's).
 */
import type { RunFunctionRequest } from '@crossplane-org/function-sdk-typescript';
import type { Rng } from './random.js';
import { SECRET_REQUIREMENT } from './secrets.js';
import {
  deleteAt,
  depthOf,
  formatPath,
  garbage,
  getAt,
  type Json,
  NASTY_NUMBERS,
  NASTY_STRINGS,
  nested,
  type Path,
  pathsOf,
  setAt,
  wrongType,
} from './values.js';

/** Which part of the request a mutation changed. */
export type Scope =
  | 'xr-spec'
  | 'xr-metadata'
  | 'xr-status'
  | 'observed'
  | 'required-pending'
  | 'required-absent'
  | 'required-items'
  | 'desired'
  | 'context'
  | 'input';

/** One mutation, described well enough to read a violation report. */
export interface Mutation {
  scope: Scope;
  /** What was done: `delete`, `wrong-type`, `huge`, `deep`, `unicode`, `duplicate`, `garbage`, `conditions`, … */
  kind: string;
  /** Where: `xr spec.engines[0].name`, `observed service metadata.name`, `required clusters`. */
  target: string;
}

/** A mutated request. */
export interface FuzzCase {
  request: RunFunctionRequest;
  mutations: Mutation[];
  /** True when the request nests too deep for the gRPC path (docs/design.md#our-own-runfunction-codec). */
  inProcessOnly: boolean;
}

/** Deepest JSON nesting of one object sent over gRPC by the fuzzer. */
export const GRPC_MAX_DEPTH = 25;

type Obj = Record<string, unknown>;

/** Builds one case from a seed request (which is copied, never changed). */
export function mutateRequest(rng: Rng, seed: RunFunctionRequest): FuzzCase {
  const request = structuredClone(seed);
  const mutations: Mutation[] = [];
  const n = rng.chance(0.7) ? 1 : rng.range(2, 3);
  for (let i = 0; i < n; i++) {
    const m = mutateOnce(rng, request);
    if (m) mutations.push(m);
  }
  if (mutations.length === 0) mutations.push(mutateXr(rng, request, 'spec') ?? { scope: 'xr-spec', kind: 'none', target: 'xr' });
  return { request, mutations, inProcessOnly: tooDeep(request) };
}

function tooDeep(req: RunFunctionRequest): boolean {
  const objects: unknown[] = [req.observed?.composite?.resource, req.input, req.context];
  for (const r of Object.values(req.observed?.resources ?? {})) objects.push(r.resource);
  for (const r of Object.values(req.desired?.resources ?? {})) objects.push(r.resource);
  for (const r of Object.values(req.requiredResources ?? {})) for (const i of r.items) objects.push(i.resource);
  return objects.some((o) => depthOf(o) > GRPC_MAX_DEPTH);
}

function mutateOnce(rng: Rng, req: RunFunctionRequest): Mutation | undefined {
  const observedKeys = Object.keys(req.observed?.resources ?? {}).sort();
  // The planted Secret is no function's requirement: its states mean nothing.
  const requiredKeys = Object.keys(req.requiredResources ?? {})
    .filter((k) => k !== SECRET_REQUIREMENT)
    .sort();
  const desiredKeys = Object.keys(req.desired?.resources ?? {}).sort();
  const choices: [number, () => Mutation | undefined][] = [
    [40, () => mutateXr(rng, req, 'spec')],
    [5, () => mutateXr(rng, req, 'metadata')],
    [5, () => mutateXr(rng, req, 'status')],
    [observedKeys.length > 0 ? 20 : 0, () => mutateObserved(rng, req, rng.pick(observedKeys))],
    [requiredKeys.length > 0 ? 20 : 0, () => mutateRequired(rng, req, rng.pick(requiredKeys))],
    [desiredKeys.length > 0 ? 5 : 0, () => mutateDesired(rng, req, rng.pick(desiredKeys))],
    [2, () => mutateContext(rng, req)],
    [req.input ? 3 : 0, () => mutateInput(rng, req)],
  ];
  const total = choices.reduce((s, [w]) => s + w, 0);
  let r = rng.int(total);
  for (const [w, f] of choices) {
    if (r < w) return f();
    r -= w;
  }
  return undefined;
}

/** Mutates the XR under one of its top-level fields. */
function mutateXr(rng: Rng, req: RunFunctionRequest, section: 'spec' | 'metadata' | 'status'): Mutation | undefined {
  const xr = req.observed?.composite?.resource as Obj | undefined;
  if (!xr) return undefined;
  const scope: Scope = section === 'spec' ? 'xr-spec' : section === 'metadata' ? 'xr-metadata' : 'xr-status';
  if (section === 'status' && rng.chance(0.5)) {
    const kind = garbageStatus(rng, xr);
    return { scope, kind, target: 'xr status' };
  }
  if (xr[section] === undefined || xr[section] === null || typeof xr[section] !== 'object' || rng.chance(0.03)) {
    xr[section] = rng.chance(0.5) ? garbage(rng) : wrongType(rng, xr[section]);
    return { scope, kind: 'replace', target: `xr ${section}` };
  }
  const done = mutateValue(rng, xr, [section]);
  return done ? { scope, kind: done.kind, target: `xr ${formatPath(done.path)}` } : undefined;
}

/** Garbage status of an observed object or the XR; returns the kind. */
function garbageStatus(rng: Rng, obj: Obj): string {
  switch (rng.int(6)) {
    case 0:
      delete obj['status'];
      return 'status-deleted';
    case 1:
      obj['status'] = wrongType(rng, obj['status']);
      return 'status-wrong-type';
    case 2:
      obj['status'] = garbage(rng, 4);
      return 'status-garbage';
    default: {
      const status = typeof obj['status'] === 'object' && obj['status'] !== null && !Array.isArray(obj['status']) ? (obj['status'] as Obj) : {};
      status['conditions'] = garbageConditions(rng, status['conditions']);
      obj['status'] = status;
      return 'conditions';
    }
  }
}

/** Malformed `status.conditions`: not a list, null entries, mistyped or duplicate conditions. */
export function garbageConditions(rng: Rng, current: unknown): Json {
  const cs = Array.isArray(current) ? (structuredClone(current) as Json[]) : [];
  const ready = cs.find((c) => typeof c === 'object' && c !== null && (c as Obj)['type'] === 'Ready') as Obj | undefined;
  switch (rng.int(12)) {
    case 0:
      return rng.pick(['garbage', 42, true, {}, { type: 'Ready', status: 'True' }]) as Json;
    case 1:
      return [...cs, null];
    case 2:
      return [rng.pick(NASTY_STRINGS), ...cs];
    case 3:
      if (ready) ready['status'] = wrongType(rng, ready['status']);
      return cs.length > 0 ? cs : [{ type: 'Ready', status: 42 }];
    case 4:
      if (ready) ready['type'] = wrongType(rng, ready['type']);
      return cs;
    case 5:
      return [...cs, { type: 'Ready', status: ready?.['status'] === 'True' ? 'False' : 'True' }];
    case 6:
      return [...cs, ...cs];
    case 7:
      if (ready) ready['status'] = rng.pick(['TRUE', 'true', 'Unknown', '', 'Yes']);
      return cs;
    case 8:
      if (ready) delete ready['status'];
      return cs;
    case 9:
      return cs.map((c) => (typeof c === 'object' && c !== null && !Array.isArray(c) ? { ...c, lastTransitionTime: garbage(rng, 1) } : c));
    case 10:
      return [];
    default:
      return [garbage(rng, 2), ...cs];
  }
}

function mutateObserved(rng: Rng, req: RunFunctionRequest, key: string): Mutation | undefined {
  const entry = req.observed!.resources[key]!;
  const obj = asObject(entry.resource);
  entry.resource = obj;
  const target = `observed ${key}`;
  if (rng.chance(0.55)) return { scope: 'observed', kind: garbageStatus(rng, obj), target };
  if (rng.chance(0.3)) {
    const meta = obj['metadata'];
    if (meta && typeof meta === 'object') {
      const field = rng.pick(['name', 'namespace', 'labels', 'annotations', 'uid']);
      if (rng.chance(0.6)) delete (meta as Obj)[field];
      else (meta as Obj)[field] = wrongType(rng, (meta as Obj)[field]);
      return { scope: 'observed', kind: 'metadata', target: `${target} metadata.${field}` };
    }
  }
  const done = mutateValue(rng, obj, []);
  return done ? { scope: 'observed', kind: done.kind, target: `${target} ${formatPath(done.path)}` } : undefined;
}

function mutateRequired(rng: Rng, req: RunFunctionRequest, key: string): Mutation | undefined {
  const target = `required ${key}`;
  const state = rng.int(10);
  if (state === 0) {
    delete req.requiredResources[key];
    delete req.extraResources[key];
    return { scope: 'required-pending', kind: 'pending', target };
  }
  if (state === 1) {
    req.requiredResources[key] = { items: [] };
    delete req.extraResources[key];
    return { scope: 'required-absent', kind: 'absent', target };
  }
  const items = req.requiredResources[key]!.items;
  if (items.length === 0 || rng.chance(0.1)) {
    items.push({ resource: garbageObject(rng), connectionDetails: {}, ready: 0 });
    return { scope: 'required-items', kind: 'extra-garbage-item', target };
  }
  const i = rng.int(items.length);
  const obj = asObject(items[i]!.resource);
  items[i]!.resource = obj;
  const at = `${target}[${i}]`;
  if (rng.chance(0.15)) {
    items.splice(rng.int(items.length + 1), 0, structuredClone(items[i]!));
    return { scope: 'required-items', kind: 'duplicate-item', target: at };
  }
  if (rng.chance(0.4)) return { scope: 'required-items', kind: garbageStatus(rng, obj), target: at };
  const done = mutateValue(rng, obj, []);
  return done ? { scope: 'required-items', kind: done.kind, target: `${at} ${formatPath(done.path)}` } : undefined;
}

function mutateDesired(rng: Rng, req: RunFunctionRequest, key: string): Mutation | undefined {
  const entry = req.desired!.resources[key]!;
  const obj = asObject(entry.resource);
  entry.resource = obj;
  const done = mutateValue(rng, obj, []);
  return done ? { scope: 'desired', kind: done.kind, target: `desired ${key} ${formatPath(done.path)}` } : undefined;
}

function mutateContext(rng: Rng, req: RunFunctionRequest): Mutation {
  const ctx = (req.context ?? {}) as Obj;
  req.context = ctx;
  const key = rng.pick(['apiextensions.crossplane.io/environment', 'fuzz', rng.pick(NASTY_STRINGS)]);
  ctx[key] = garbage(rng, 3);
  return { scope: 'context', kind: 'garbage', target: `context ${key}` };
}

function mutateInput(rng: Rng, req: RunFunctionRequest): Mutation | undefined {
  const input = req.input as Obj;
  if (rng.chance(0.2)) {
    req.input = garbageObject(rng);
    return { scope: 'input', kind: 'replace', target: 'input' };
  }
  const done = mutateValue(rng, input, []);
  return done ? { scope: 'input', kind: done.kind, target: `input ${formatPath(done.path)}` } : undefined;
}

/** `v` when it is an object (a Struct must be), else a fresh empty one. */
function asObject(v: unknown): Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {};
}

/** A garbage object: a Struct cannot hold anything else at the top. */
function garbageObject(rng: Rng): Obj {
  const g = garbage(rng, 3);
  return typeof g === 'object' && g !== null && !Array.isArray(g) ? g : { value: g };
}

/** Applies one value mutation somewhere below `prefix` in `root`; returns what and where. */
function mutateValue(rng: Rng, root: unknown, prefix: Path): { kind: string; path: Path } | undefined {
  const base = getAt(root, prefix);
  const paths = pathsOf(base).map((p) => [...prefix, ...p]);
  if (paths.length === 0) return undefined;
  const path = rng.pick(paths);
  const v = getAt(root, path);
  const kinds = ['delete', 'delete', 'wrong-type', 'wrong-type', 'huge', 'deep', 'unicode', 'duplicate', 'garbage'];
  const kind = rng.pick(kinds);
  switch (kind) {
    case 'delete':
      deleteAt(root, path);
      break;
    case 'wrong-type':
      setAt(root, path, wrongType(rng, v));
      break;
    case 'huge':
      setAt(root, path, huge(rng, v));
      break;
    case 'deep':
      setAt(root, path, nested(rng, rng.pick([8, 20, 40, 120]), (v ?? 'x') as Json));
      break;
    case 'unicode':
      setAt(root, path, unicode(rng, v));
      break;
    case 'duplicate': {
      const list = Array.isArray(v) ? v : Array.isArray(getAt(root, path.slice(0, -1))) ? (getAt(root, path.slice(0, -1)) as unknown[]) : undefined;
      if (list === undefined || list.length === 0) {
        setAt(root, path, [v ?? null, v ?? null] as Json);
        break;
      }
      const i = rng.int(list.length);
      list.splice(rng.int(list.length + 1), 0, structuredClone(list[i]));
      break;
    }
    default:
      setAt(root, path, garbage(rng, 3));
  }
  return { kind, path };
}

function huge(rng: Rng, v: unknown): Json {
  if (typeof v === 'string' || v === null || typeof v === 'boolean') return 'x'.repeat(rng.pick([254, 300, 70_000, 1_000_000]));
  if (typeof v === 'number') return rng.pick(NASTY_NUMBERS.filter((n) => Math.abs(n) >= 2 ** 31));
  if (Array.isArray(v)) {
    const n = rng.pick([100, 1000, 3000]);
    return Array.from({ length: n }, (_, i) => structuredClone(v[i % Math.max(v.length, 1)] ?? i) as Json);
  }
  const out: Record<string, Json> = { ...(v as Record<string, Json>) };
  for (let i = 0; i < rng.pick([100, 1000]); i++) out[`k${i}`] = `v${i}`;
  return out;
}

function unicode(rng: Rng, v: unknown): Json {
  const u = rng.pick(NASTY_STRINGS.filter((s) => /[^\x20-\x7e]/.test(s)));
  if (typeof v !== 'string') return u;
  switch (rng.int(3)) {
    case 0:
      return u;
    case 1:
      return v + u;
    default:
      return u + v;
  }
}
