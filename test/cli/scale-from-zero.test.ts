/**
 * Zero and back at the front door (cli/scale-from-zero.ts): the validator's
 * 503 with Retry-After for a deployment's standby endpoint, and the demand
 * series `GET /metrics` exposes for the ScaledObject's `demand` trigger.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyValidator } from '../../cli/key-validator.js';
import { ScaleFromZero, scaledToZeroBody } from '../../cli/scale-from-zero.js';
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
  it('a request to a standby endpoint → 503 with the Retry-After its path asks for, and an OpenAI-style error naming the deployment', async () => {
    const r = await fetch(`${base}/scale-from-zero/ml-team/qwen/retry-after-252/v1/chat/completions`, { method: 'POST', body: '{}' });
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('252');
    expect(await r.json()).toStrictEqual({
      error: {
        message: 'ModelDeployment ml-team/qwen is scaled to zero; this request asked for a replica: retry after 252 s',
        type: 'service_unavailable',
        code: 'scaled_to_zero',
      },
    });
    expect(scaledToZeroBody('ml-team', 'qwen', 252)).toContain('ml-team/qwen');
  });
  it('a path naming no Retry-After, or one out of range (0, above a day) → the wake-up, 30 s', async () => {
    for (const rest of ['v1/models', 'retry-after-0/v1/models', 'retry-after-86401/v1/models']) {
      const r = await fetch(`${base}/scale-from-zero/ml-team/other/${rest}`);
      expect([rest, r.status, r.headers.get('retry-after')]).toEqual([rest, 503, '30']);
    }
  });
  it('each request counts; the gauge holds the last one (seconds), the series the demand trigger reads', async () => {
    now += 42_500;
    await fetch(`${base}/scale-from-zero/ml-team/qwen/retry-after-252/v1/models`);
    expect(await metrics()).toStrictEqual([
      'modelplane_scale_from_zero_requests_total{namespace="ml-team",deployment="qwen"} 2',
      'modelplane_scale_from_zero_requests_total{namespace="ml-team",deployment="other"} 3',
      `${DEMAND_TIMESTAMP_SERIES}{namespace="ml-team",deployment="qwen"} 1800000042`,
      `${DEMAND_TIMESTAMP_SERIES}{namespace="ml-team",deployment="other"} 1800000000`,
    ]);
  });
  it('a path without a deployment, or with bad percent-encoding → 404, nothing recorded', async () => {
    expect((await fetch(`${base}/scale-from-zero/ml-team/`)).status).toBe(404);
    expect((await fetch(`${base}/scale-from-zero/%E0%A4%A/x/`)).status).toBe(404);
    expect((await metrics()).length).toBe(4);
  });
  it('other paths still go to the key check (401 without a key)', async () => {
    expect((await fetch(`${base}/ml-team/keys`)).status).toBe(401);
  });
});
