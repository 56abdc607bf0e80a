/**
 * Prices and hourly cost (docs/placement-policy.md#status-and-cost): a pool's
 * `price` per node hour, what a replica's members cost on their pools, and
 * how money is shown. Shared by the scheduler (`status.cost`) and
 * `modelplane plan`'s cost column.
 *
 * Money is integer micro-units (10^-6 of the currency) per hour: sums are
 * exact and the same in any order; shown rounded half up to two places.
 */
import type { JsonObject } from '../function.js';
import type { FleetCluster, Pool } from './model.js';

/** Micro-units per unit of currency. */
const MICROS = 1_000_000;

/** A decimal price string (`12.29`) in micro-units, or undefined when malformed. */
export function parsePrice(s: unknown): number | undefined {
  if (typeof s !== 'string') return undefined;
  const m = /^(\d{1,9})(?:\.(\d{1,6}))?$/.exec(s);
  if (m === null) return undefined;
  return Number(m[1]) * MICROS + Number((m[2] ?? '').padEnd(6, '0'));
}

/** Micro-units as a decimal with two places, rounded half up: 12290000 → `12.29`. */
export function formatMoney(micros: number): string {
  const cents = Math.floor((micros + 5_000) / 10_000);
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

/** One pod's share of its node: 1 for a whole-node pod, else the largest claimed fraction of a device's count. */
function nodeShare(pool: Pool, claims: readonly { device: number; count: number }[], whole: boolean): number {
  if (whole || pool.exclusive) return 1;
  let share = 0;
  const by = new Map<number, number>();
  for (const c of claims) by.set(c.device, (by.get(c.device) ?? 0) + c.count);
  for (const [i, n] of by) {
    const have = pool.devices[i]?.count ?? 1;
    share = Math.max(share, have > 0 ? Math.min(1, n / have) : 1);
  }
  return share;
}

/** A member's hourly cost on its pool: what a placed or observed member claims, priced. */
export interface PricedMember {
  pool: string;
  /** Pods on that pool. */
  pods: number;
  /** What each pod claims: device index in the pool and count. */
  claims: { device: number; count: number }[];
  whole: boolean;
}

/** The hourly cost of one replica on `cluster` per currency (micro-units), and whether a claiming pool had no price. */
export function replicaCost(cluster: FleetCluster | undefined, members: readonly PricedMember[]): { byCurrency: Map<string, number>; unpriced: boolean } {
  const byCurrency = new Map<string, number>();
  let unpriced = false;
  for (const m of members) {
    if (m.claims.length === 0 && !m.whole) continue;
    const pool = cluster?.pools.find((p) => p.name === m.pool);
    if (pool?.price === undefined) {
      unpriced = true;
      continue;
    }
    const micros = Math.round(pool.price.micros * m.pods * nodeShare(pool, m.claims, m.whole));
    byCurrency.set(pool.price.currency, (byCurrency.get(pool.price.currency) ?? 0) + micros);
  }
  return { byCurrency, unpriced };
}

/** `24.58 USD/h` (currencies sorted, joined with ` + `). */
export function formatHourly(byCurrency: ReadonlyMap<string, number>): string {
  return [...byCurrency.entries()]
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([c, m]) => `${formatMoney(m)} ${c}/h`)
    .join(' + ');
}

/** `[{currency, amount}]` sorted by currency, amounts with two places. */
export function amounts(byCurrency: ReadonlyMap<string, number>): JsonObject[] {
  return [...byCurrency.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([currency, m]) => ({ currency, amount: formatMoney(m) }));
}
