/**
 * Zero and back at the front door (docs/autoscaling.md#zero-and-back): the
 * key validator's answer to a request that reaches a deployment with no
 * Ready replica, through the deployment's standby ModelEndpoint
 * (functions/schedule-model-deployment/standby.ts), and the demand it records.
 *
 * Protocol:
 * - `<any method> /scale-from-zero/<namespace>/<deployment>/retry-after-<s>/<rest>`
 *   → 503 with `Retry-After: <s>` (30 when the path names none,
 *   functions/lib/key-validator.ts) and an OpenAI-style error (`code:
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
import { parseScaleFromZeroPath, SCALE_FROM_ZERO_PATH } from '../functions/lib/key-validator.js';

/** The body of the 503 for `<namespace>/<deployment>`, asking for a retry after `retryAfterSeconds`. */
export function scaledToZeroBody(namespace: string, deployment: string, retryAfterSeconds: number): string {
  return JSON.stringify({
    error: {
      message: `ModelDeployment ${namespace}/${deployment} is scaled to zero; this request asked for a replica: retry after ${retryAfterSeconds} s`,
      type: 'service_unavailable',
      code: 'scaled_to_zero',
    },
  });
}

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
   * Answers `req` when its path is under {@link SCALE_FROM_ZERO_PATH} or
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
    if (!path.startsWith(`${SCALE_FROM_ZERO_PATH}/`)) return false;
    const standby = parseScaleFromZeroPath(path);
    if (standby === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end(`want ${SCALE_FROM_ZERO_PATH}/<namespace>/<deployment>/retry-after-<seconds>/`);
      return true;
    }
    const { namespace, deployment, retryAfterSeconds } = standby;
    this.requests.inc({ namespace, deployment });
    this.last.set({ namespace, deployment }, Math.floor(this.now() / 1000));
    res.writeHead(503, { 'content-type': 'application/json', 'retry-after': String(retryAfterSeconds) });
    res.end(scaledToZeroBody(namespace, deployment, retryAfterSeconds));
    return true;
  }
}
