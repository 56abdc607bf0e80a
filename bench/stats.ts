/**
 * The benches' one statistic: the p-th percentile by nearest rank below
 * (`pct(xs, 50)` is the median, the upper one for an even count). Benches
 * print figures; nothing is asserted (bench/run.ts).
 */

/** The p-th percentile (0–100) of `xs`, by nearest rank below; `xs` is not modified. */
export function pct(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}
