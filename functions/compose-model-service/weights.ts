/**
 * Backend weights of a ModelService route (docs/kinds/modelservice.md#weights), the
 * reference's arithmetic exactly.
 *
 * Guarantees: each selector entry's weight is split evenly over its live
 * endpoints (the first `remainder` endpoints get one more), scaled up first
 * so no endpoint gets 0; all weights are then divided by their GCD; if the
 * largest still exceeds 1,000,000 (the Gateway API cap on a backendRef
 * weight) every weight is rescaled into 1..1,000,000 with Python's
 * round-half-to-even, never below 1. Pure integer arithmetic except that
 * final rescale, which uses doubles in the reference's operation order.
 */

/** Largest weight a Gateway API backendRef accepts. */
export const MAX_WEIGHT = 1_000_000;

/** A selector entry's share: its weight and how many live endpoints it matched. */
export interface Group {
  /** Entry weight, 1..1,000,000. */
  weight: number;
  /** Live (routable) endpoints of the entry, at least 1. */
  count: number;
}

function gcd(a: number, b: number): number {
  let x = a;
  let y = b;
  while (y !== 0) [x, y] = [y, x % y];
  return x;
}

/** Python's `round()` on a double: half to even. */
export function roundHalfEven(x: number): number {
  const f = Math.floor(x);
  const diff = x - f;
  if (diff < 0.5) return f;
  if (diff > 0.5) return f + 1;
  return f % 2 === 0 ? f : f + 1;
}

/**
 * The weight of every endpoint, group after group, endpoints in group order.
 * Groups with no live endpoint must be dropped by the caller.
 */
export function distribute(groups: readonly Group[]): number[][] {
  if (groups.length === 0) return [];
  const scale = Math.max(1, ...groups.map((g) => Math.ceil(g.count / g.weight)));
  const raw = groups.map((g) => {
    const total = g.weight * scale;
    const base = Math.floor(total / g.count);
    const rem = total % g.count;
    return Array.from({ length: g.count }, (_, i) => (i < rem ? base + 1 : base));
  });
  const divisor = raw.flat().reduce((acc, w) => gcd(acc, w), 0);
  const reduced = raw.map((ws) => ws.map((w) => w / divisor));
  const largest = Math.max(...reduced.flat());
  if (largest <= MAX_WEIGHT) return reduced;
  return reduced.map((ws) => ws.map((w) => Math.max(1, roundHalfEven((w / largest) * MAX_WEIGHT))));
}
