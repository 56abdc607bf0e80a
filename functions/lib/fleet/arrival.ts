/**
 * Arrival order: the one rule by which a pool's holders are charged, shared
 * by the cluster's published ledger (ledger.ts `poolLedger`), each
 * deployment's scheduler (ledger.ts `ledgerCapacity`) and `modelplane plan`'s
 * whole-fleet report (capacity.ts `buildCapacity`), so all three agree.
 *
 * Why: schedulers of different deployments decide concurrently from ledgers
 * that are one cluster reconcile old, so a burst of them can all take the
 * same free devices (docs/concepts.md#capacity-across-deployments). The workload
 * cluster then arbitrates as its own scheduler does: pods are bound as they
 * arrive, and the one that finds no room stays Pending. The ledger says so,
 * and the losing deployment's scheduler re-places that replica elsewhere,
 * make before break (scheduling.ts).
 *
 * The rule, per pool (the cluster's ledger and plan's report):
 * - Ready replicas first, charged as they run (`force`): their pods are
 *   bound and hold their devices, even where that overcommits a pool that
 *   shrank (an overcommitted pool takes nothing new).
 * - Then the replicas that are not Ready, oldest first by
 *   `metadata.creationTimestamp` (RFC 3339 as the API server writes it,
 *   compared as text; one without sorts after every one with: it has just
 *   been placed), then by (namespace, deployment, replica name). Each is
 *   charged only when all its pods fit after everything before it (`fit`,
 *   all or none, a trial of capacity.ts); otherwise it is over capacity: it
 *   holds nothing, and the cluster's ledger marks its runs
 *   `overCapacity: true`. A replica's pods keep their order.
 * The ledger is the verdict: a deployment's scheduler reads whether its own
 * replica is over capacity from it (scheduling.ts), and charges other
 * deployments' runs as the cluster decided: those it marks over capacity
 * not at all (`skip`), the rest as they run (`force`).
 * Deterministic: the order depends only on the slots' keys, never on input order.
 */
import type { PodDemand, PoolCapacity } from './capacity.js';

/** How a slot is charged: as it runs, only if it fits, or not at all. */
export type SlotMode = 'force' | 'fit' | 'skip';

/** One replica's pods in one pool, with its place in the arrival order. */
export interface Slot {
  /** `metadata.creationTimestamp` of the replica, "" when unknown (sorts last). */
  placed: string;
  namespace: string;
  deployment: string;
  /** The ModelReplica's name, "" when the ledger does not say (an older ledger). */
  replica: string;
  /** Its pods in this pool, in order. */
  pods: PodDemand[];
  mode: SlotMode;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The charge order of two slots: Ready (`force`) before the rest, each in arrival order (see the module comment). */
export function compareSlots(a: Slot, b: Slot): number {
  const pass = Number(a.mode !== 'force') - Number(b.mode !== 'force');
  if (pass !== 0) return pass;
  if (a.placed !== b.placed) {
    if (a.placed === '') return 1;
    if (b.placed === '') return -1;
    return cmp(a.placed, b.placed);
  }
  return cmp(a.namespace, b.namespace) || cmp(a.deployment, b.deployment) || cmp(a.replica, b.replica);
}

/**
 * Charges `slots` into `cap` in arrival order (a stable sort of a copy, so
 * equal keys keep their given order). Returns, in the given order, whether
 * each slot holds its devices: true when forced or fitted, false when it was
 * over capacity or skipped.
 */
export function chargeSlots(cap: PoolCapacity, slots: readonly Slot[]): boolean[] {
  const order = slots.map((_, i) => i).sort((x, y) => compareSlots(slots[x]!, slots[y]!) || x - y);
  const holds = slots.map(() => false);
  for (const i of order) {
    const s = slots[i]!;
    if (s.mode === 'skip' || s.pods.length === 0) continue;
    if (s.mode === 'force') {
      for (const d of s.pods) cap.force(d);
      holds[i] = true;
    } else holds[i] = cap.place(s.pods) !== undefined;
  }
  return holds;
}
