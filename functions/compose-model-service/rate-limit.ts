/**
 * Rate limits at the front door (docs/ai-gateway.md#rate-limits): Traefik's
 * own `rateLimit` and `inFlightReq` Middlewares (traefik.io/v1alpha1),
 * attached to the service's HTTPRoute after the key check.
 *
 * Guarantees:
 * - Effective limits: the service's `spec.rateLimit`, else the
 *   InferenceGateway's `spec.rateLimit`, else none.
 * - Each caller has its own bucket per service: the Middlewares group
 *   requests by the `X-Modelplane-Caller` header the key check sets (an
 *   APIKey service), else by the client address (Traefik's default).
 * - `requestsPerSecond: N` is `average: N, period: 1s`; `requestsPerMinute: N`
 *   is `average: N, period: 1m`; `burst` defaults to N (so N requests may
 *   arrive at once, the N+1st within the period is refused). Traefik answers
 *   a refused request 429 with `Retry-After` (seconds).
 * - `maxInFlight: M` is `inFlightReq.amount: M` with the same grouping:
 *   the M+1st concurrent request of a caller is refused with 429.
 * - `tokensPerMinute` composes no Middleware: Traefik cannot count tokens;
 *   the service is counted through the usage tap instead (metered.ts).
 */
import { getPath, type JsonObject, type KubeObject } from '../lib/function.js';
import { CALLER_HEADER } from '../lib/key-scope.js';
import { childName } from '../lib/names.js';

/** `spec.rateLimit` of a ModelService or an InferenceGateway. */
export interface RateLimit {
  requestsPerSecond?: number;
  requestsPerMinute?: number;
  burst?: number;
  maxInFlight?: number;
  /** Tokens per caller per minute: enforced by the usage tap (metered.ts), not by Traefik. */
  tokensPerMinute?: number;
}

/** The effective limits and where they come from, or undefined when none apply. */
export function effectiveRateLimit(service: KubeObject, gateway: KubeObject | undefined): { limit: RateLimit; from: 'service' | 'gateway' } | undefined {
  const own = getPath(service, 'spec', 'rateLimit') as RateLimit | undefined;
  if (own !== undefined) return { limit: own, from: 'service' };
  const dflt = getPath(gateway, 'spec', 'rateLimit') as RateLimit | undefined;
  return dflt !== undefined ? { limit: dflt, from: 'gateway' } : undefined;
}

/** Name of the request-rate Middleware. */
export const rateLimitName = (service: string): string => childName(service, 'rate-limit');
/** Name of the in-flight Middleware. */
export const inFlightName = (service: string): string => childName(service, 'in-flight');

/** The composed Middlewares, keyed by desired-resource name, in route order. */
export function rateLimitMiddlewares(service: string, namespace: string, limit: RateLimit, byCaller: boolean): [string, KubeObject][] {
  const sourceCriterion: JsonObject | undefined = byCaller ? { requestHeaderName: CALLER_HEADER } : undefined;
  const out: [string, KubeObject][] = [];
  const perSecond = limit.requestsPerSecond;
  const perMinute = limit.requestsPerMinute;
  const average = perSecond ?? perMinute;
  if (average !== undefined) {
    out.push([
      'rate-limit-middleware',
      {
        apiVersion: 'traefik.io/v1alpha1',
        kind: 'Middleware',
        metadata: { name: rateLimitName(service), namespace },
        spec: {
          rateLimit: {
            average,
            period: perSecond !== undefined ? '1s' : '1m',
            burst: limit.burst ?? average,
            ...(sourceCriterion ? { sourceCriterion } : {}),
          },
        },
      },
    ]);
  }
  if (limit.maxInFlight !== undefined) {
    out.push([
      'in-flight-middleware',
      {
        apiVersion: 'traefik.io/v1alpha1',
        kind: 'Middleware',
        metadata: { name: inFlightName(service), namespace },
        spec: { inFlightReq: { amount: limit.maxInFlight, ...(sourceCriterion ? { sourceCriterion } : {}) } },
      },
    ]);
  }
  return out;
}
