/**
 * Zero and back at the front door (docs/autoscaling.md#zero-and-back): the
 * key validator's answer to a request that reaches a deployment with no
 * Ready replica, through the deployment's standby ModelEndpoint
 * (functions/schedule-model-deployment/standby.ts), and the demand it records.
 *
 * Protocol:
 * - `<any method> /scale-from-zero/<namespace>/<deployment>/<rest>` → 503
 *   with `Retry-After: 30` and an OpenAI-style error (`code:
 *   scaled_to_zero`) naming the deployment; the request is recorded.
 * - `GET /metrics` → Prometheus text exposition (prom-client) with
 *   `modelplane_scale_from_zero_requests_total{namespace,deployment}` (a
 *   counter) and `modelplane_scale_from_zero_last_request_timestamp_seconds
 *   {namespace,deployment}` (a gauge, seconds since the epoch): the series
 *   the ScaledObject's `demand` trigger reads, so one scrape of the first
 *   request wakes the deployment (a counter's rate needs two samples).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Counter, Gauge, Registry } from 'prom-client';

/** The path prefix the standby endpoints route to. */
export const SCALE_FROM_ZERO_PREFIX = '/scale-from-zero/';
/** Seconds a client is asked to wait before retrying: about two KEDA polls, the soonest a replica is asked for. */
export const RETRY_AFTER_SECONDS = 30;

/** The body of the 503 for `<namespace>/<deployment>`. */
export function scaledToZeroBody(namespace: string, deployment: string): string {
  return JSON.stringify({
    error: {
      message: `ModelDeployment ${namespace}/${deployment} is scaled to zero; this request asked for a replica: retry after ${RETRY_AFTER_SECONDS} s`,
      type: 'service_unavailable',
      code: 'scaled_to_zero',
    },
  });
}

/** `p` URL-decoded; '' when it is not valid percent-encoding. */
const decoded = (p: string): string => {
  try {
    return decodeURIComponent(p);
  } catch {
    return '';
  }
};

/** The demand the validator saw at zero, and its answers. */
export class ScaleFromZero {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'modelplane_scale_from_zero_requests_total',
    help: 'Requests that reached a deployment with no Ready replica (answered 503 with Retry-After).',
    labelNames: ['namespace', 'deployment'] as const,
    registers: [this.registry],
  });
  private readonly last = new Gauge({
    name: 'modelplane_scale_from_zero_last_request_timestamp_seconds',
    help: 'When a request last reached a deployment with no Ready replica, seconds since the epoch.',
    labelNames: ['namespace', 'deployment'] as const,
    registers: [this.registry],
  });

  /** `now` is the clock in milliseconds, injectable for tests. */
  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Answers `req` when its path is under {@link SCALE_FROM_ZERO_PREFIX} or
   * is `/metrics`; returns false (nothing written) otherwise. A path with no
   * deployment is a 404.
   */
  handle(path: string, req: IncomingMessage, res: ServerResponse): boolean {
    if (path === '/metrics' && req.method === 'GET') {
      void this.registry.metrics().then((text) => {
        res.writeHead(200, { 'content-type': this.registry.contentType });
        res.end(text);
      });
      return true;
    }
    if (!path.startsWith(SCALE_FROM_ZERO_PREFIX)) return false;
    const [namespace, deployment] = path.slice(SCALE_FROM_ZERO_PREFIX.length).split('/').map(decoded);
    if (!namespace || !deployment) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('want /scale-from-zero/<namespace>/<deployment>/');
      return true;
    }
    this.requests.inc({ namespace, deployment });
    this.last.set({ namespace, deployment }, Math.floor(this.now() / 1000));
    res.writeHead(503, { 'content-type': 'application/json', 'retry-after': String(RETRY_AFTER_SECONDS) });
    res.end(scaledToZeroBody(namespace, deployment));
    return true;
  }
}
