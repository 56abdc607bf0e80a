/**
 * Load-balancer addresses handed out by the dev control plane's simulated
 * clusters, stable across restarts of the runtime: the first request of an
 * owner takes the next free address of its pool and keeps it (saved in
 * `addresses.json`). Pools as in `modelplane plan` (cli/simulated/providers.ts):
 * the control plane's from the InferenceGateway's MetalLB `addressPool`
 * (203.0.113.0/24, TEST-NET-3, when it declares none), workload clusters'
 * from 198.51.100.0/24 (TEST-NET-2). Never loopback: the API server refuses
 * EndpointSlice addresses in 127.0.0.0/8 (REAL-CONTROL-PLANE.md).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { expandRange } from '../../simulated/providers.js';

/** Which pool an address comes from. */
export type Pool = 'control-plane' | 'workload';

/** Addresses by owner, per pool. */
export class Addresses {
  private readonly given: Record<Pool, Record<string, string>>;

  /** @param controlPlaneRange returns the MetalLB range of the control plane's gateway, when one is declared. */
  constructor(
    private readonly file: string,
    private readonly controlPlaneRange: () => string | undefined,
  ) {
    this.given = existsSync(file)
      ? (JSON.parse(readFileSync(file, 'utf8')) as Record<Pool, Record<string, string>>)
      : { 'control-plane': {}, workload: {} };
  }

  /** The address of `owner` in `pool` (allocated on first use). */
  address(pool: Pool, owner: string): string {
    const taken = this.given[pool];
    const known = taken[owner];
    if (known) return known;
    const range = pool === 'control-plane' ? (this.controlPlaneRange() ?? '203.0.113.0/24') : '198.51.100.0/24';
    const candidates = expandRange(range) ?? expandRange('203.0.113.0/24')!;
    const used = new Set(Object.values(taken));
    const ip = candidates.find((c) => !used.has(c)) ?? candidates[Object.keys(taken).length % candidates.length]!;
    taken[owner] = ip;
    writeFileSync(this.file, `${JSON.stringify(this.given, null, 2)}\n`);
    return ip;
  }
}
