/**
 * Zero and back at the front door (cli/scale-from-zero.ts): the validator's
 * 503 with Retry-After for a deployment's standby endpoint, and the demand
 * series `GET /metrics` exposes for the ScaledObject's `demand` trigger.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyValidator } from '../../cli/key-validator.js';
import { RETRY_AFTER_SECONDS, ScaleFromZero, scaledToZeroBody } from '../../cli/scale-from-zero.js';
import { DEMAND_TIMESTAMP_SERIES } from '../../functions/schedule-model-deployment/standby.js';

let now = 1_800_000_000_000;
let base = '';
let server: Server;
beforeAll(async () => {
  server = createServer(keyValidator(async () => [], undefined, undefined, new ScaleFromZero(() => now)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

const metrics = async () => (await (await fetch(`${base}/metrics`)).text()).split('\n').filter((l) => l.startsWith('modelplane_'));

describe('scale from zero', () => {
  it('no request yet: /metrics has no series', async () => {
    expect(await metrics()).toStrictEqual([]);
  });
  it('a request to a standby endpoint → 503 with Retry-After and an OpenAI-style error naming the deployment', async () => {
    const r = await fetch(`${base}/scale-from-zero/ml-team/qwen/v1/chat/completions`, { method: 'POST', body: '{}' });
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe(String(RETRY_AFTER_SECONDS));
    expect(await r.json()).toStrictEqual({
      error: {
        message: 'ModelDeployment ml-team/qwen is scaled to zero; this request asked for a replica: retry after 30 s',
        type: 'service_unavailable',
        code: 'scaled_to_zero',
      },
    });
    expect(scaledToZeroBody('ml-team', 'qwen')).toContain('ml-team/qwen');
  });
  it('each request counts; the gauge holds the last one (seconds), the series the demand trigger reads', async () => {
    now += 42_500;
    await fetch(`${base}/scale-from-zero/ml-team/qwen/v1/models`);
    expect(await metrics()).toStrictEqual([
      'modelplane_scale_from_zero_requests_total{namespace="ml-team",deployment="qwen"} 2',
      `${DEMAND_TIMESTAMP_SERIES}{namespace="ml-team",deployment="qwen"} 1800000042`,
    ]);
  });
  it('a path without a deployment, or with bad percent-encoding → 404, nothing recorded', async () => {
    expect((await fetch(`${base}/scale-from-zero/ml-team/`)).status).toBe(404);
    expect((await fetch(`${base}/scale-from-zero/%E0%A4%A/x/`)).status).toBe(404);
    expect((await metrics()).length).toBe(2);
  });
  it('other paths still go to the key check (401 without a key)', async () => {
    expect((await fetch(`${base}/ml-team/keys`)).status).toBe(401);
  });
});
