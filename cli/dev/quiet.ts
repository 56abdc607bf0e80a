/**
 * `modelplane dev quiet [--seconds 120]`: is the control plane settled? Reads
 * every key's version in etcd (the store under both API servers) at the start
 * and the end of the window and lists each object written in between, with
 * how often: a real write (a new resourceVersion), unlike the no-op
 * server-side applies Crossplane sends on every reconcile, which the audit
 * log cannot tell apart. The API servers' housekeeping is counted but left
 * aside: lease renewals (each renews its identity lease every 10 s, whatever
 * the fleet does) and `compact_rev_key`, where the API server's compactor
 * records each compaction (every 5 minutes, k8s.io/apiserver
 * storage/etcd3/compact.go).
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

/** `key → version` of every key in etcd (keys only; versions count modifications since creation). */
export async function etcdVersions(endpoint = `http://127.0.0.1:${PORTS.etcdClient}`): Promise<Map<string, number>> {
  const res = await fetch(`${endpoint}/v3/kv/range`, {
    method: 'POST',
    body: JSON.stringify({ key: Buffer.from('\0').toString('base64'), range_end: Buffer.from('\0').toString('base64'), keys_only: true }),
  });
  if (!res.ok) throw new Error(`etcd range: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { kvs?: { key: string; version?: string }[] };
  return new Map((body.kvs ?? []).map((kv) => [Buffer.from(kv.key, 'base64').toString('utf8'), Number(kv.version ?? '0')]));
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

/** True for an API server's own housekeeping: its lease renewals and its compactor's revision key. */
export function isHousekeeping(key: string): boolean {
  return /^\/[^/]+\/leases\//.test(key) || key === 'compact_rev_key';
}

/** Watches for `seconds` and prints what was written. @returns the exit code. */
export async function quiet(seconds: number): Promise<number> {
  const before = await etcdVersions();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const writes = writesBetween(before, await etcdVersions());
  const leases = writes.filter((w) => isHousekeeping(w.key)).reduce((n, w) => n + w.writes, 0);
  const others = writes.filter((w) => !isHousekeeping(w.key));
  if (others.length === 0) {
    process.stdout.write(`quiet: nothing written in ${seconds}s (${leases} lease renewals and compactions left aside)\n`);
    return 0;
  }
  const total = others.reduce((n, w) => n + w.writes, 0);
  process.stdout.write(`not quiet: ${total} write(s) to ${others.length} object(s) in ${seconds}s (${leases} lease renewals and compactions left aside)\n`);
  for (const w of others) process.stdout.write(`  ${String(w.writes).padStart(4)}  ${w.key}\n`);
  return 1;
}
