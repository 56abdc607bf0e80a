/**
 * Team quotas in the fleet scheduler (docs/quotas.md): what the
 * InferenceQuotas of the deployment's namespace leave for a new replica.
 *
 * Guarantees:
 * - Charged as the quota's own function counts (lib/quota.ts): the other
 *   deployments of the namespace from every cluster's published ledger
 *   ({@link usage} with this deployment excluded), this deployment from its
 *   own replicas (kept ones as stamped, new ones as placed) so that a
 *   replica the clusters have not charged yet still counts.
 * - A new replica that would take a limit above its cap is refused
 *   (`QuotaExceeded`, {@link msgQuotaExceeded}); so is one a limit with an
 *   unresolved classSelector would count (conservative). Every quota of the
 *   namespace applies.
 * - Nothing that runs is removed for a quota: a limit already above its cap
 *   is reported ({@link QuotaBudget.over}, `OverQuota`) and only new
 *   placements it counts are refused.
 * Units: devices (per pod, times pods) and replicas.
 */
import { devicesPerNode, limitCounts, msgOverQuota, msgQuotaExceeded, msgQuotaUnresolved, type Quota, usage } from '../lib/quota.js';
import type { KubeObject } from '../lib/function.js';
import type { DeploymentSpec } from './deployment.js';
import type { EnginePlacement, FleetCluster, ObservedReplica } from '../lib/fleet/model.js';
import { type Reason, ReasonKind } from './placement.js';

/** One member's demand: its pool's class, its pods and the devices each takes. */
interface MemberDemand {
  className: string | undefined;
  pods: number;
  perPod: number;
}

/** The quotas of a namespace, charged as replicas are kept and placed. */
export class QuotaBudget {
  /** Per quota, per limit: what the namespace holds (others from ledgers, then ours). */
  readonly #used: number[][];

  constructor(
    private readonly quotas: readonly Quota[],
    allClusters: readonly KubeObject[],
    d: DeploymentSpec,
  ) {
    this.#used = quotas.map((q) => usage(allClusters, d.namespace, q.limits, { deployment: d.name }));
  }

  /** What `members` add to each limit of each quota. */
  #demand(members: readonly MemberDemand[]): number[][] {
    return this.quotas.map((q) =>
      q.limits.map((l) => {
        const counted = members.filter((m) => m.perPod > 0 && limitCounts(l, m.className));
        if (l.kind === 'replicas') return counted.length > 0 ? 1 : 0;
        return counted.reduce((n, m) => n + m.pods * m.perPod, 0);
      }),
    );
  }

  /** Charges a replica that stays (an observed one, as stamped). */
  keep(cluster: FleetCluster | undefined, r: ObservedReplica): void {
    const members: MemberDemand[] = r.engines.flatMap((e) =>
      e.members.map((m) => {
        const pool = cluster?.pools.find((p) => p.name === m.nodePoolName);
        return { className: pool?.className, pods: m.pods, perPod: m.claims.reduce((n, c) => n + c.count, 0) };
      }),
    );
    this.#add(this.#demand(members));
  }

  /**
   * Admits and charges a new replica placed on `cluster` as `engines`, or
   * returns why a quota refuses it (nothing charged).
   */
  admit(cluster: FleetCluster, engines: readonly EnginePlacement[], d: DeploymentSpec): Reason | undefined {
    const members: MemberDemand[] = engines.flatMap((e) => {
      const spec = d.engines.find((x) => x.name === e.name);
      return e.members.map((m, i) => {
        const pool = cluster.pools.find((p) => p.name === m.pool);
        const whole = m.requests.length > 0 && (spec?.gang === true || pool?.exclusive === true);
        const perPod = whole ? devicesPerNode(pool) : m.requests.reduce((n, r) => n + r.count, 0);
        return { className: pool?.className, pods: spec?.members[i]?.nodes ?? 1, perPod };
      });
    });
    const demand = this.#demand(members);
    for (const [qi, q] of this.quotas.entries()) {
      for (const [li, l] of q.limits.entries()) {
        const want = demand[qi]![li]!;
        if (want === 0) continue;
        const name = `${q.namespace}/${q.name}`;
        if (l.unresolved) return { kind: ReasonKind.Quota, text: msgQuotaUnresolved(name, l) };
        const used = this.#used[qi]![li]!;
        if (used + want > l.limit) return { kind: ReasonKind.Quota, text: msgQuotaExceeded(name, l, used, want) };
      }
    }
    this.#add(demand);
    return undefined;
  }

  #add(demand: number[][]): void {
    for (const [qi, row] of demand.entries()) for (const [li, n] of row.entries()) this.#used[qi]![li]! += n;
  }

  /** `InferenceQuota <ns>/<name> <msgOverQuota>` for every limit held above its cap now. */
  over(): string[] {
    const out: string[] = [];
    for (const [qi, q] of this.quotas.entries()) {
      for (const [li, l] of q.limits.entries()) {
        const used = this.#used[qi]![li]!;
        if (used > l.limit) out.push(`InferenceQuota ${q.namespace}/${q.name} ${msgOverQuota(l, used)}`);
      }
    }
    return out;
  }
}
