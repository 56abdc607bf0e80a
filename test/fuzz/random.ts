/**
 * A small seeded pseudo-random generator (mulberry32) for the fuzzer: the
 * same seed gives the same sequence on every machine and Node version, so a
 * fuzz case is reproduced from its seed alone. Not for anything secret.
 */

/** A deterministic random source. */
export class Rng {
  private state: number;

  /** @param seed any 32-bit integer; the same seed replays the same cases */
  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n); 0 when n <= 0. */
  int(n: number): number {
    return n <= 0 ? 0 : Math.floor(this.next() * n);
  }

  /** An integer in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element of a non-empty list. */
  pick<T>(xs: readonly T[]): T {
    if (xs.length === 0) throw new Error('Rng.pick: empty list');
    return xs[this.int(xs.length)]!;
  }

  /** A copy of `xs` in random order (Fisher–Yates). */
  shuffle<T>(xs: readonly T[]): T[] {
    const out = [...xs];
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }

  /** A new generator derived from this one and a label (independent streams per function). */
  fork(label: string): Rng {
    let h = this.int(0x7fffffff) ^ 0x9e3779b9;
    for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 0x01000193);
    return new Rng(h);
  }
}

/** A seed derived from a string (FNV-1a), for per-function streams of one run seed. */
export function seedOf(run: number, label: string): number {
  let h = (0x811c9dc5 ^ run) >>> 0;
  for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 0x01000193) >>> 0;
  return h >>> 0;
}
