/**
 * Overflow and failover between prioritised backends
 * (docs/ai-gateway.md#overflow-and-failover), composed into Traefik's own
 * `TraefikService` objects (traefik.io/v1alpha1, Traefik v3.7).
 *
 * Guarantees:
 * - A selector entry's `priority` (0 first, default 0) puts its endpoints in
 *   a priority level. Only live endpoints (a backend Service published) count;
 *   levels are ordered by ascending priority; within a level each entry's
 *   weight is split as without priorities ({@link distribute}).
 * - A service whose entries all share one priority composes nothing here:
 *   its HTTPRoute keeps its weighted backendRefs (compose.ts).
 * - Otherwise the HTTPRoute has one backendRef, TraefikService
 *   `<service>-backends`:
 *   - one live level: a weighted TraefikService over that level;
 *   - several: a failover TraefikService whose service is the first level
 *     (`<service>-priority-<p>`, weighted) and whose fallback is the rest of
 *     the chain (`<service>-failover-<p>` for the next level when two or more
 *     remain, else that level itself).
 * - Failover happens per request on {@link FAILOVER_STATUSES} (429 and any
 *   5xx, which includes Traefik's own 502 for a connection failure and its
 *   503 when every backend of a level is ejected), decided on the status
 *   line, before the first byte reaches the client: Traefik's failover
 *   buffers nothing of the response but its status, so a response that has
 *   started streaming is never retried. The request body is buffered so the
 *   fallback gets it whole.
 * - Passive health: each backend Service carries Traefik's
 *   `passiveHealthCheck` ({@link PASSIVE_HEALTH}): after that many
 *   consecutive failures (5xx or no connection) within the window, the backend
 *   is ejected for the window. Active health is the fleet's own: an endpoint
 *   whose replica is not Ready has no live backend and is not routed.
 *   Traefik's active health checks apply only to ExternalName Services,
 *   which it refuses for our selectorless backends.
 * - Each backend keeps its endpoint's `rewritePath`, as a `replacePathRegex`
 *   Middleware `<service>-rewrite-<endpoint>` on the backend (an HTTPRoute
 *   URLRewrite cannot reach inside a TraefikService), and is sent its own
 *   host (`passHostHeader: false`), so an external provider gets its own
 *   Host header.
 * - A level's weighted TraefikService is labelled {@link PRIORITY_LABEL}
 *   with its priority.
 */
import type { KubeObject } from '../lib/function.js';
import { childName, PRIORITY_LABEL } from '../lib/names.js';
import { distribute } from './weights.js';

/** Upstream statuses that send a request to the next priority level. */
export const FAILOVER_STATUSES = ['429', '500-599'] as const;
/** Traefik passiveHealthCheck on every backend: consecutive failures allowed within the window, and the window (also how long an ejected backend stays out). */
export const PASSIVE_HEALTH = { maxFailedAttempts: 3, failureWindow: '10s' } as const;

/** One live endpoint of a priority level. */
export interface LevelBackend {
  /** The ModelEndpoint's name. */
  endpoint: string;
  /** Its backend Service (ModelEndpoint status.routing.backendName). */
  service: string;
  port: number;
  https: boolean;
  /** Its `spec.rewritePath`, when set. */
  rewritePath?: string;
}

/** A selector entry with its live endpoints. */
export interface PrioritisedEntry {
  priority: number;
  weight: number;
  backends: LevelBackend[];
}

/** A priority level: its backends with their weights. */
export interface Level {
  priority: number;
  backends: (LevelBackend & { weight: number })[];
}

/** The live priority levels, lowest priority value first; entries without live endpoints are dropped. */
export function priorityLevels(entries: readonly PrioritisedEntry[]): Level[] {
  const byPriority = new Map<number, PrioritisedEntry[]>();
  for (const e of entries) {
    if (e.backends.length === 0) continue;
    byPriority.set(e.priority, [...(byPriority.get(e.priority) ?? []), e]);
  }
  return [...byPriority.keys()]
    .sort((a, b) => a - b)
    .map((priority) => {
      const group = byPriority.get(priority)!;
      const weights = distribute(group.map((g) => ({ weight: g.weight, count: g.backends.length })));
      return { priority, backends: group.flatMap((g, i) => g.backends.map((b, j) => ({ ...b, weight: weights[i]![j]! }))) };
    });
}

/** True when the entries declare more than one priority: the service routes through TraefikServices. */
export function usesPriorities(priorities: readonly number[]): boolean {
  return new Set(priorities).size > 1;
}

/** Name of the TraefikService the HTTPRoute sends to. */
export const backendsName = (service: string): string => childName(service, 'backends');
/** Name of a level's weighted TraefikService. */
export const levelName = (service: string, priority: number): string => childName(service, 'priority', String(priority));
/** Name of the failover TraefikService from a level on. */
export const failoverName = (service: string, priority: number): string => childName(service, 'failover', String(priority));
/** Name of an endpoint's rewrite Middleware. */
export const rewriteName = (service: string, endpoint: string): string => childName(service, 'rewrite', endpoint);

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function traefikService(name: string, namespace: string, spec: Record<string, unknown>, labels?: Record<string, string>): KubeObject {
  return { apiVersion: 'traefik.io/v1alpha1', kind: 'TraefikService', metadata: { name, namespace, ...(labels ? { labels } : {}) }, spec } as KubeObject;
}

function weighted(service: string, namespace: string, name: string, level: Level): KubeObject {
  return traefikService(name, namespace, {
    weighted: {
      services: level.backends.map((b) => ({
        name: b.service,
        port: b.port,
        weight: b.weight,
        scheme: b.https ? 'https' : 'http',
        passHostHeader: false,
        passiveHealthCheck: { ...PASSIVE_HEALTH },
        ...(b.rewritePath !== undefined ? { middlewares: [{ name: rewriteName(service, b.endpoint) }] } : {}),
      })),
    },
  }, { [PRIORITY_LABEL]: String(level.priority) });
}

function failover(name: string, namespace: string, primary: string, fallback: string): KubeObject {
  return traefikService(name, namespace, {
    failover: {
      service: { name: primary, kind: 'TraefikService' },
      fallback: { name: fallback, kind: 'TraefikService' },
      errors: { status: [...FAILOVER_STATUSES] },
    },
  });
}

/**
 * The composed objects for `levels` (at least one), keyed by desired-resource
 * name: `backends`, `priority-<p>` and `failover-<p>` TraefikServices and
 * `rewrite-<endpoint>` Middlewares, in a fixed order.
 */
export function failoverResources(service: string, namespace: string, levels: readonly Level[]): [string, KubeObject][] {
  const out: [string, KubeObject][] = [];
  const prefix = `/${namespace}/${service}/`;
  for (const level of levels) {
    for (const b of level.backends) {
      if (b.rewritePath === undefined) continue;
      out.push([
        `rewrite-${b.endpoint}`,
        {
          apiVersion: 'traefik.io/v1alpha1',
          kind: 'Middleware',
          metadata: { name: rewriteName(service, b.endpoint), namespace },
          spec: { replacePathRegex: { regex: `^${escapeRegex(prefix)}(.*)`, replacement: `${b.rewritePath.replace(/\/*$/, '/')}$1` } },
        } as KubeObject,
      ]);
    }
  }
  if (levels.length === 1) {
    out.push(['backends', weighted(service, namespace, backendsName(service), levels[0]!)]);
    return out;
  }
  for (const level of levels) out.push([`priority-${level.priority}`, weighted(service, namespace, levelName(service, level.priority), level)]);
  // The chain from level i on: level i, then the chain from level i+1 (the last level on its own).
  const chain = (i: number): string => (i === levels.length - 1 ? levelName(service, levels[i]!.priority) : failoverName(service, levels[i]!.priority));
  out.push(['backends', failover(backendsName(service), namespace, levelName(service, levels[0]!.priority), chain(1))]);
  for (let i = 1; i < levels.length - 1; i++) {
    out.push([`failover-${levels[i]!.priority}`, failover(failoverName(service, levels[i]!.priority), namespace, levelName(service, levels[i]!.priority), chain(i + 1))]);
  }
  return out;
}

/** The RoutingReady message of a prioritised service: `priority 0: a, b; then priority 1: c`. */
export function msgLevels(levels: readonly Level[]): string {
  return `Failover order: ${levels.map((l) => `priority ${l.priority}: ${l.backends.map((b) => b.endpoint).join(', ')}`).join('; then ')}`;
}
