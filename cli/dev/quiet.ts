/**
 * `modelplane dev quiet [--seconds 120]`: is the control plane settled? Reads
 * every key's version in etcd (the store under both API servers) at the start
 * and the end of the window and lists each object written in between, with
 * how often: a real write (a new resourceVersion), unlike the no-op
 * server-side applies Crossplane sends on every reconcile, which the audit
 * log cannot tell apart. The API servers' housekeeping is counted but left
 * aside: lease renewals (each renews its identity lease every 10 s, whatever
 * the fleet does), `compact_rev_key`, where the API server's compactor
 * records each compaction (every 5 minutes, k8s.io/apiserver
 * storage/etcd3/compact.go), and on the workload API servers the kubelets'
 * node status reports (kwok's node-heartbeat-with-lease stage writes each
 * node's status about every 10 minutes, as a kubelet reports it with its
 * lease renewed in between).
 *
 * For each object written, what changed: the fields that differ between its
 * value at the window's first revision and now ({@link changedFields}; JSON
 * values only, which is how custom resources are stored; built-in kinds are
 * protobuf and show no fields), so a churning XR names the field it churns.
 *
 * Exit 0 when nothing but housekeeping was written, 1 otherwise. Runs inside the
 * control plane's network namespace (etcd listens on its loopback).
 */
import { PORTS } from './state.js';

/** One etcd key's write count in the window. */
export interface KeyWrites {
  key: string;
  writes: number;
}

/** etcd's client endpoint inside the control plane's namespace. */
export const ETCD_ENDPOINT = `http://127.0.0.1:${PORTS.etcdClient}`;
const b64 = (s: string) => Buffer.from(s).toString('base64');

/** The body of etcd's `/v3/kv/range` (JSON gateway) answer: keys and values base64. */
export interface RangeBody {
  header?: { revision?: string };
  kvs?: { key: string; version?: string; value?: string }[];
}

async function range(request: Record<string, unknown>, endpoint: string): Promise<RangeBody> {
  const res = await fetch(`${endpoint}/v3/kv/range`, { method: 'POST', body: JSON.stringify(request) });
  if (!res.ok) throw new Error(`etcd range: ${res.status} ${await res.text()}`);
  return (await res.json()) as RangeBody;
}

/** The `/v3/kv/range` request for every key, keys only. */
export const ALL_KEYS = { key: b64('\0'), range_end: b64('\0'), keys_only: true };

/** `key → version` of the keys of a range answer (versions count modifications since creation). */
export function versionsOf(body: RangeBody): Map<string, number> {
  return new Map((body.kvs ?? []).map((kv) => [Buffer.from(kv.key, 'base64').toString('utf8'), Number(kv.version ?? '0')]));
}

/** `key → version` of every key in etcd, and the store's revision. */
export async function etcdSnapshot(endpoint = ETCD_ENDPOINT): Promise<{ versions: Map<string, number>; revision: string }> {
  const body = await range(ALL_KEYS, endpoint);
  return { versions: versionsOf(body), revision: body.header?.revision ?? '0' };
}

/** The JSON value of `key` at `revision` (latest when omitted); undefined when absent, not JSON, or compacted away. */
async function jsonValue(key: string, revision: string | undefined, endpoint = ETCD_ENDPOINT): Promise<unknown> {
  try {
    const body = await range({ key: b64(key), ...(revision ? { revision } : {}) }, endpoint);
    const value = body.kvs?.[0]?.value;
    return value === undefined ? undefined : JSON.parse(Buffer.from(value, 'base64').toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Fields no controller's decision is in: written on every update. */
const BOOKKEEPING = new Set(['metadata.resourceVersion', 'metadata.managedFields', 'metadata.generation']);

/**
 * The dotted paths whose values differ between two JSON values, sorted
 * (`status.conditions[Synced].status`: an array of objects with a `type` or
 * `name` is keyed by it; `lastTransitionTime` counts as a change, as it
 * marks one). Bookkeeping fields are left out.
 */
export function changedFields(before: unknown, after: unknown, path = ''): string[] {
  if (BOOKKEEPING.has(path)) return [];
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  const keyed = (v: unknown): Map<string, unknown> | undefined => {
    if (!Array.isArray(v) || !v.every((x) => x && typeof x === 'object' && (typeof x.type === 'string' || typeof x.name === 'string'))) return undefined;
    return new Map(v.map((x) => [String(x.type ?? x.name), x]));
  };
  const kb = keyed(before);
  const ka = keyed(after);
  if (kb && ka) {
    const ids = [...new Set([...kb.keys(), ...ka.keys()])].sort();
    return ids.flatMap((id) => changedFields(kb.get(id), ka.get(id), `${path}[${id}]`));
  }
  const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (isObj(before) && isObj(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((k) => changedFields(before[k], after[k], path ? `${path}.${k}` : k));
  }
  return [path || '.'];
}

/** The keys written between two snapshots, most written first (a deleted key counts once). */
export function writesBetween(before: Map<string, number>, after: Map<string, number>): KeyWrites[] {
  const out: KeyWrites[] = [];
  for (const [key, v] of after) {
    const w = v - (before.get(key) ?? 0);
    if (w > 0) out.push({ key, writes: w });
  }
  for (const key of before.keys()) if (!after.has(key)) out.push({ key, writes: 1 });
  return out.sort((a, b) => b.writes - a.writes || (a.key < b.key ? -1 : 1));
}

/** True for housekeeping: lease renewals, the compactor's revision key, a workload API server's node status reports. */
export function isHousekeeping(key: string): boolean {
  return /^\/[^/]+\/leases\//.test(key) || key === 'compact_rev_key' || /^\/workload[^/]*\/minions\//.test(key);
}

/** Watches for `seconds` and prints what was written. @returns the exit code. */
export async function quiet(seconds: number): Promise<number> {
  const { versions: before, revision } = await etcdSnapshot();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const writes = writesBetween(before, (await etcdSnapshot()).versions);
  const leases = writes.filter((w) => isHousekeeping(w.key)).reduce((n, w) => n + w.writes, 0);
  const others = writes.filter((w) => !isHousekeeping(w.key));
  if (others.length === 0) {
    process.stdout.write(`quiet: nothing written in ${seconds}s (${leases} lease renewals and compactions left aside)\n`);
    return 0;
  }
  const total = others.reduce((n, w) => n + w.writes, 0);
  process.stdout.write(`not quiet: ${total} write(s) to ${others.length} object(s) in ${seconds}s (${leases} lease renewals and compactions left aside)\n`);
  for (const w of others) {
    process.stdout.write(`  ${String(w.writes).padStart(4)}  ${w.key}\n`);
    const [then, now] = [await jsonValue(w.key, revision), await jsonValue(w.key, undefined)];
    if (then === undefined || now === undefined) continue;
    const fields = changedFields(then, now);
    const shown = fields.slice(0, 8).join(', ') + (fields.length > 8 ? `, and ${fields.length - 8} more` : '');
    process.stdout.write(`        changed: ${shown || 'nothing but bookkeeping (an update that changed no field)'}\n`);
  }
  return 1;
}
