/**
 * Cluster health with hysteresis (functions/lib/health.ts, docs/failover.md):
 * every transition against a fixed clock, the bounds, and the TTL to the
 * next bound.
 */
import { describe, expect, it } from 'vitest';
import { type ClusterHealth, DEFAULT_BOUNDS, formatSeconds, nextHealth, parseDuration } from '../../functions/lib/health.js';

const T0 = Date.UTC(2024, 0, 1);
const at = (s: number) => T0 + s * 1000;
const iso = (s: number) => new Date(at(s)).toISOString().replace(/\.\d{3}Z$/, 'Z');
const healthy: ClusterHealth = { state: 'Healthy', since: iso(0), reason: 'Healthy', message: 'reachable, cluster and serving stack Ready' };
const down = (since?: number) => ({ kind: 'Unreachable' as const, ...(since === undefined ? {} : { since: iso(since) }), reason: 'ProbeFailed', message: 'probe failed' });
const up = (since: number) => ({ kind: 'Healthy' as const, since: iso(since) });

describe('parseDuration / formatSeconds', () => {
  it('reads Go-style h, m, s durations and refuses anything else', () => {
    expect([parseDuration('5m'), parseDuration('90s'), parseDuration('1h30m'), parseDuration('0s')]).toEqual([300, 90, 5400, 0]);
    expect([parseDuration(''), parseDuration('5'), parseDuration('1d'), parseDuration('m'), parseDuration(5)]).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect([formatSeconds(300), formatSeconds(5400), formatSeconds(20), formatSeconds(0)]).toEqual(['5m', '1h30m', '20s', '0s']);
  });
});

describe('nextHealth', () => {
  it('Provisioning until first Healthy, whatever the signal', () => {
    expect(nextHealth(undefined, down(0), undefined, DEFAULT_BOUNDS, at(10)).health).toEqual({ state: 'Provisioning', since: iso(10), reason: 'ProbeFailed', message: 'probe failed' });
    const p = nextHealth(undefined, { kind: 'Degraded', reason: 'Installing', message: 'BackendReady False' }, undefined, DEFAULT_BOUNDS, at(10)).health;
    expect(nextHealth(p, { kind: 'Degraded', reason: 'Installing', message: 'BackendReady False' }, undefined, DEFAULT_BOUNDS, at(99)).health.since).toBe(iso(10));
    expect(nextHealth(p, up(50), undefined, DEFAULT_BOUNDS, at(60)).health).toEqual({ state: 'Healthy', since: iso(50), reason: 'Healthy', message: 'reachable, cluster and serving stack Ready' });
  });

  it('Healthy → Unreachable (a blip) with the time left to failover.after as the TTL', () => {
    const out = nextHealth(healthy, down(100), undefined, DEFAULT_BOUNDS, at(160));
    expect(out).toEqual({
      health: {
        state: 'Unreachable',
        since: iso(100),
        reason: 'ProbeFailed',
        message: 'probe failed; replicas here are not counted Ready, and are re-placed if it is still unreachable at 2024-01-01T00:06:40Z (failover.after 5m)',
      },
      recheckSeconds: 240,
    });
  });

  it('Unreachable for failover.after → Unavailable, since the bound expired; it stays so while unreachable', () => {
    const unreachable = nextHealth(healthy, down(100), undefined, DEFAULT_BOUNDS, at(160)).health;
    const out = nextHealth(unreachable, down(100), undefined, DEFAULT_BOUNDS, at(400));
    expect(out).toEqual({
      health: { state: 'Unavailable', since: iso(400), reason: 'ProbeFailed', message: 'probe failed; unreachable for failover.after 5m: replicas here are re-placed on other clusters, make before break' },
    });
    expect(nextHealth(out.health, down(100), undefined, DEFAULT_BOUNDS, at(9000)).health.since).toBe(iso(400));
  });

  it('a blip that recovers before failover.after is Healthy again at once (nothing moved)', () => {
    const unreachable = nextHealth(healthy, down(100), undefined, DEFAULT_BOUNDS, at(160)).health;
    expect(nextHealth(unreachable, up(200), undefined, DEFAULT_BOUNDS, at(210)).health).toEqual({ ...healthy, since: iso(200) });
  });

  it('Unavailable → Healthy only after failover.recoverAfter of Healthy; Degraded does not count', () => {
    const unavailable: ClusterHealth = { state: 'Unavailable', since: iso(400), reason: 'ProbeFailed', message: 'x' };
    const recovering = nextHealth(unavailable, up(1000), undefined, DEFAULT_BOUNDS, at(1030));
    expect(recovering).toEqual({
      health: { state: 'Unavailable', since: iso(400), reason: 'Recovering', message: 'reachable and Healthy again since 2024-01-01T00:16:40Z; takes new replicas at 2024-01-01T00:18:40Z if it stays Healthy (failover.recoverAfter 2m)' },
      recheckSeconds: 90,
    });
    expect(nextHealth(recovering.health, up(1000), undefined, DEFAULT_BOUNDS, at(1120)).health).toEqual({ state: 'Healthy', since: iso(1120), reason: 'Recovered', message: 'reachable, cluster and serving stack Ready' });
    expect(nextHealth(unavailable, { kind: 'Degraded', reason: 'Installing', message: 'BackendReady False' }, undefined, DEFAULT_BOUNDS, at(9000)).health).toEqual({
      state: 'Unavailable',
      since: iso(400),
      reason: 'Installing',
      message: 'BackendReady False; takes new replicas only after being Healthy for failover.recoverAfter 2m',
    });
  });

  it('a stale Healthy time cannot shorten recovery: it counts from the unavailability at the earliest', () => {
    const unavailable: ClusterHealth = { state: 'Unavailable', since: iso(400), reason: 'ProbeFailed', message: 'x' };
    expect(nextHealth(unavailable, up(0), undefined, DEFAULT_BOUNDS, at(410)).recheckSeconds).toBe(110);
  });

  it('Draining while the platform asks, Healthy again when it stops; Unavailable wins over a drain', () => {
    const draining = nextHealth(healthy, up(0), 'spec.drain is true', DEFAULT_BOUNDS, at(50)).health;
    expect(draining).toEqual({ state: 'Draining', since: iso(50), reason: 'Drain', message: 'spec.drain is true: replicas here are re-placed on other clusters, make before break; no new replica is placed here' });
    expect(nextHealth(draining, up(0), 'spec.drain is true', DEFAULT_BOUNDS, at(500)).health.since).toBe(iso(50));
    expect(nextHealth(draining, up(0), undefined, DEFAULT_BOUNDS, at(500)).health.state).toBe('Healthy');
    expect(nextHealth(draining, down(0), 'spec.drain is true', DEFAULT_BOUNDS, at(500)).health.state).toBe('Unavailable');
  });

  it('short bounds (as the e2e sets them) and a signal without a time continue the state it is in', () => {
    const bounds = { afterSeconds: 20, recoverAfterSeconds: 10 };
    const first = nextHealth(healthy, down(), undefined, bounds, at(100));
    expect(first.health.since).toBe(iso(100));
    expect(nextHealth(first.health, down(), undefined, bounds, at(110)).recheckSeconds).toBe(10);
    expect(nextHealth(first.health, down(), undefined, bounds, at(120)).health.state).toBe('Unavailable');
  });

  it('is idempotent: the same input gives the same health', () => {
    const once = nextHealth(healthy, down(100), undefined, DEFAULT_BOUNDS, at(160));
    expect(nextHealth(once.health, down(100), undefined, DEFAULT_BOUNDS, at(160))).toEqual(once);
  });
});
