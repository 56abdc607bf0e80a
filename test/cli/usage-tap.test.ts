/**
 * The usage tap (cli/usage-tap.ts, docs/ai-gateway.md#usage): the validator
 * forwards a counted service's request to the gateway's metered listener (an
 * upstream stub here), streams the answer back, reads the engine's `usage`
 * from JSON and SSE bodies, logs one line per request, counts tokens by
 * caller and service, and refuses a caller whose token budget is spent.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyValidator } from '../../cli/key-validator.js';
import { ScaleFromZero } from '../../cli/scale-from-zero.js';
import { TokenBudgets, tokenLimitBody, UsageReader, type UsageLine, UsageTap, usageOf } from '../../cli/usage-tap.js';
import { parseUsageTapPath, usageTapPrefix } from '../../functions/lib/usage-tap.js';

const JSON_BODY = { object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'hi' } }], usage: { prompt_tokens: 12, completion_tokens: 30, total_tokens: 42 } };
const SSE = [
  'data: {"choices":[{"delta":{"content":"h"}}],"usage":null}\n\n',
  'data: {"choices":[{"delta":{"content":"i"}}],"usage":null}\n\n',
  'data: {"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":',
  '7,"total_tokens":12}}\n\ndata: [DONE]\n\n',
];

let now = 1_800_000_000_000;
let base = '';
const seen: { path: string; headers: IncomingHttpHeaders; body: string }[] = [];
const lines: UsageLine[] = [];
let upstream: Server;
let server: Server;
let ids = 0;
beforeAll(async () => {
  upstream = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ path: req.url ?? '', headers: req.headers, body });
      if (req.url?.includes('/fail/')) {
        res.writeHead(503, { 'content-type': 'application/json' });
        return res.end('{"error":{"message":"down"}}');
      }
      if (body.includes('"stream":true')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        let i = 0;
        const next = () => (i < SSE.length ? res.write(SSE[i++], () => setTimeout(next, 5)) : res.end());
        return next();
      }
      res.writeHead(200, { 'content-type': 'application/json', 'x-engine': 'stub' });
      res.end(JSON.stringify(JSON_BODY));
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', () => resolve()));
  const zero = new ScaleFromZero(() => now);
  const tap = new UsageTap({
    upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
    registry: zero.registry,
    log: (l) => lines.push(l),
    now: () => now,
    newId: () => `req-${++ids}`,
  });
  server = createServer(keyValidator(async () => [], undefined, undefined, zero, tap));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.close();
  upstream.close();
});

const post = (path: string, body: object, caller?: string) =>
  fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(caller ? { 'x-modelplane-caller': caller } : {}) }, body: JSON.stringify(body) });

describe('the tap path', () => {
  it('is built and read back, with and without a token limit', () => {
    expect(usageTapPrefix('teams', 'chat')).toBe('/usage-tap/teams/chat/unlimited/');
    expect(usageTapPrefix('teams', 'chat', 500)).toBe('/usage-tap/teams/chat/tokens-per-minute-500/');
    expect(parseUsageTapPath('/usage-tap/teams/chat/tokens-per-minute-500/v1/chat/completions')).toStrictEqual({
      namespace: 'teams',
      service: 'chat',
      tokensPerMinute: 500,
      upstreamPath: '/teams/chat/v1/chat/completions',
    });
    expect(parseUsageTapPath('/usage-tap/teams/chat/unlimited/v1/models')).toStrictEqual({ namespace: 'teams', service: 'chat', upstreamPath: '/teams/chat/v1/models' });
    // The limit segment is always there: a client's own first segment is never read as one.
    expect(parseUsageTapPath('/usage-tap/teams/chat/unlimited/tokens-per-minute-1/x')?.upstreamPath).toBe('/teams/chat/tokens-per-minute-1/x');
    expect(parseUsageTapPath('/usage-tap/teams/chat/unlimited')?.upstreamPath).toBe('/teams/chat/');
    for (const bad of ['/usage-tap/teams/', '/usage-tap/teams/chat', '/usage-tap/teams/chat/v1/models', '/usage-tap/teams/chat/tokens-per-minute-0/x', '/usage-tap/teams/chat/tokens-per-minute-x/y', '/teams/chat/v1']) {
      expect([bad, parseUsageTapPath(bad)]).toStrictEqual([bad, undefined]);
    }
  });
});

describe('reading usage', () => {
  it('from OpenAI names, Responses API names, and with total defaulted to the sum', () => {
    expect(usageOf({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 4 })).toStrictEqual({ prompt: 1, completion: 2, total: 4 });
    expect(usageOf({ input_tokens: 3, output_tokens: 4 })).toStrictEqual({ prompt: 3, completion: 4, total: 7 });
    expect(usageOf(null)).toBeUndefined();
    expect(usageOf({ prompt_tokens: -1 })).toBeUndefined();
  });
  it('an SSE stream split mid-line: the last usage event counts', () => {
    const r = new UsageReader('text/event-stream; charset=utf-8');
    for (const c of SSE) r.push(Buffer.from(c));
    expect([r.stream, r.result()]).toStrictEqual([true, { prompt: 5, completion: 7, total: 12 }]);
  });
  it('an SSE line longer than the limit is skipped, the next line still read; a non-JSON content type is not held', () => {
    const r = new UsageReader('text/event-stream');
    r.push(Buffer.from(`data: ${'x'.repeat(1024 * 1024)}`));
    for (let i = 0; i < 9; i++) r.push(Buffer.alloc(1024 * 1024, 120));
    r.push(Buffer.from('\ndata: {"usage":{"prompt_tokens":1,"completion_tokens":2}}\n'));
    expect(r.result()).toStrictEqual({ prompt: 1, completion: 2, total: 3 });
    const audio = new UsageReader('audio/mpeg');
    audio.push(Buffer.from(JSON.stringify(JSON_BODY)));
    expect(audio.result()).toBeUndefined();
  });
  it('a JSON body in pieces; a body that is not JSON reports nothing', () => {
    const r = new UsageReader('application/json');
    const text = JSON.stringify(JSON_BODY);
    r.push(Buffer.from(text.slice(0, 20)));
    r.push(Buffer.from(text.slice(20)));
    expect(r.result()).toStrictEqual({ prompt: 12, completion: 30, total: 42 });
    const bad = new UsageReader('text/plain');
    bad.push(Buffer.from('hello'));
    expect(bad.result()).toBeUndefined();
  });
});

describe('token budgets', () => {
  it('spent below zero: Retry-After is the whole seconds until the bucket is above zero again', () => {
    let t = 0;
    const b = new TokenBudgets(() => t);
    expect(b.retryAfter('k', 60)).toBe(0);
    b.spend('k', 60, 90); // 60 - 90 = -30 at 1 per second: above zero after 31 s
    expect(b.retryAfter('k', 60)).toBe(31);
    t += 30_000; // -30 + 30 = 0: still refused, 1 s more
    expect(b.retryAfter('k', 60)).toBe(1);
    t += 1_000;
    expect(b.retryAfter('k', 60)).toBe(0);
    t += 3_600_000; // refills to the cap, never above
    b.spend('k', 60, 60);
    expect(b.retryAfter('k', 60)).toBe(1);
    // At 1 token a minute from exactly zero, one second already lifts it above zero.
    b.spend('slow', 1, 1);
    expect(b.retryAfter('slow', 1)).toBe(1);
    // Asking does not hold a bucket; refilled buckets are forgotten (checked every 1024 spends).
    expect(b.retryAfter('never-charged', 5)).toBe(0);
    for (let i = 0; i < 1020; i++) b.spend(`c${i}`, 1_000_000, 1); // 1023 spends so far
    expect(b.size).toBe(1022);
    t += 60_000;
    b.spend('last', 10, 100); // the 1024th: each bucket is refilled by its own rate, and the full ones go
    expect(b.size).toBe(1);
  });
});

describe('through the tap', () => {
  it('a JSON response: forwarded to the service path with the query and a request id, answered as is, one usage line with the tokens', async () => {
    const r = await post('/usage-tap/teams/chat/unlimited/v1/chat/completions?x=1', { model: 'm' }, 'teams/team-a/ci');
    expect([r.status, r.headers.get('x-engine'), await r.json()]).toStrictEqual([200, 'stub', JSON_BODY]);
    const got = seen.at(-1)!;
    expect([got.path, got.body, got.headers['x-modelplane-request-id'], got.headers['x-modelplane-caller'], got.headers['accept-encoding']]).toStrictEqual([
      '/teams/chat/v1/chat/completions?x=1',
      '{"model":"m"}',
      'req-1',
      'teams/team-a/ci',
      'identity',
    ]);
    expect(lines.at(-1)).toStrictEqual({
      msg: 'usage',
      requestId: 'req-1',
      caller: 'teams/team-a/ci',
      service: 'teams/chat',
      method: 'POST',
      path: '/teams/chat/v1/chat/completions',
      status: 200,
      durationMs: 0,
      stream: false,
      promptTokens: 12,
      completionTokens: 30,
      totalTokens: 42,
    });
  });
  it('a streamed response reaches the client whole; the usage of its final chunk is logged', async () => {
    const r = await post('/usage-tap/teams/chat/unlimited/v1/chat/completions', { stream: true, stream_options: { include_usage: true } }, 'teams/team-a/ci');
    expect([r.status, r.headers.get('content-type'), await r.text()]).toStrictEqual([200, 'text/event-stream', SSE.join('')]);
    expect(lines.at(-1)).toMatchObject({ requestId: 'req-2', stream: true, promptTokens: 5, completionTokens: 7, totalTokens: 12 });
  });
  it('an upstream error status passes through, without tokens; no caller header is anonymous', async () => {
    const r = await post('/usage-tap/teams/fail/unlimited/v1/chat/completions', {});
    expect(r.status).toBe(503);
    expect(lines.at(-1)).toStrictEqual({ msg: 'usage', requestId: 'req-3', caller: 'anonymous', service: 'teams/fail', method: 'POST', path: '/teams/fail/v1/chat/completions', status: 503, durationMs: 0, stream: false });
  });
  it('a token limit: requests go on while the budget is above zero; then 429 with Retry-After, never forwarded', async () => {
    const path = '/usage-tap/teams/tokens/tokens-per-minute-50/v1/chat/completions';
    const before = seen.length;
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await post(path, {}, 'teams/team-a/ci')).status);
    expect(statuses).toStrictEqual([200, 200, 429]); // 50 - 42 = 8 > 0, then 8 - 42 = -34
    expect(seen.length - before).toBe(2);
    const refused = await post(path, {}, 'teams/team-a/ci');
    // -34 refills at 50 per minute: above zero after 41 whole seconds (40.8 s).
    expect([refused.status, refused.headers.get('retry-after'), await refused.text()]).toStrictEqual([429, '41', tokenLimitBody('teams/tokens', 50, 41)]);
    expect(lines.at(-1)).toMatchObject({ status: 429, limited: true, service: 'teams/tokens' });
    // Another caller has its own bucket.
    expect((await post(path, {}, 'teams/team-b/laptop')).status).toBe(200);
    now += 41_000;
    expect((await post(path, {}, 'teams/team-a/ci')).status).toBe(200);
  });
  it('the counters by caller, service and type, beside the validator\'s other series', async () => {
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text.split('\n').filter((l) => l.startsWith('modelplane_gateway_'))).toStrictEqual([
      'modelplane_gateway_tokens_total{caller="teams/team-a/ci",service="teams/chat",type="prompt"} 17',
      'modelplane_gateway_tokens_total{caller="teams/team-a/ci",service="teams/chat",type="completion"} 37',
      'modelplane_gateway_tokens_total{caller="teams/team-a/ci",service="teams/tokens",type="prompt"} 36',
      'modelplane_gateway_tokens_total{caller="teams/team-a/ci",service="teams/tokens",type="completion"} 90',
      'modelplane_gateway_tokens_total{caller="teams/team-b/laptop",service="teams/tokens",type="prompt"} 12',
      'modelplane_gateway_tokens_total{caller="teams/team-b/laptop",service="teams/tokens",type="completion"} 30',
      'modelplane_gateway_token_limited_total{caller="teams/team-a/ci",service="teams/tokens"} 2',
    ]);
  });
  it('a tap path naming no service → 404; an unreachable upstream → 502 and a line', async () => {
    expect((await fetch(`${base}/usage-tap/teams/`)).status).toBe(404);
    const zero = new ScaleFromZero();
    const got: UsageLine[] = [];
    const dead = createServer(keyValidator(async () => [], undefined, undefined, zero, new UsageTap({ upstream: 'http://127.0.0.1:1', registry: zero.registry, log: (l) => got.push(l) })));
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', () => resolve()));
    const r = await fetch(`http://127.0.0.1:${(dead.address() as AddressInfo).port}/usage-tap/teams/chat/unlimited/v1/models`);
    dead.close();
    expect([r.status, got.map((l) => [l.service, l.status])]).toStrictEqual([502, [['teams/chat', 502]]]);
  });
});
