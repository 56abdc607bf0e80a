/**
 * The key validator (cli/key-validator.ts) on loopback: the answers Traefik's
 * forwardAuth gets for no key, a wrong key, a right key, an unknown Secret.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerMatches, FORBIDDEN_BODY, secretKeySource, startKeyValidator, UNAUTHORIZED_BODY } from '../../cli/key-validator.js';

const KEY = 'sk-test-right';
const secrets: Record<string, Record<string, string>> = {
  'ml-team/keys': { a: Buffer.from(`${KEY}\n`).toString('base64'), b: Buffer.from('sk-other').toString('base64') },
  'ml-team/empty': {},
};
const source = secretKeySource(async (path) => {
  const m = /^\/api\/v1\/namespaces\/([^/]+)\/secrets\/([^/]+)$/.exec(path);
  const data = m ? secrets[`${m[1]}/${m[2]}`] : undefined;
  return data ? { status: 200, body: JSON.stringify({ data }) } : { status: 404, body: '{}' };
});

let base = '';
let close: () => void = () => {};
beforeAll(async () => {
  const server = await startKeyValidator(source);
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => server.close();
});
afterAll(() => close());

const ask = async (path: string, authorization?: string) => {
  const r = await fetch(`${base}${path}`, { headers: authorization ? { authorization } : {} });
  return { status: r.status, body: await r.text(), www: r.headers.get('www-authenticate') };
};

describe('key validator', () => {
  it('no key → 401 with the Bearer challenge and an OpenAI-style error', async () => {
    expect(await ask('/ml-team/keys')).toStrictEqual({ status: 401, body: UNAUTHORIZED_BODY, www: 'Bearer realm="modelplane"' });
  });
  it('a wrong key → 401', async () => {
    expect((await ask('/ml-team/keys', 'Bearer sk-wrong')).status).toBe(401);
  });
  it('the right key (either of the Secret’s values) → 200', async () => {
    expect((await ask('/ml-team/keys', `Bearer ${KEY}`)).status).toBe(200);
    expect((await ask('/ml-team/keys', 'Bearer sk-other')).status).toBe(200);
  });
  it('Basic credentials, an unknown or empty Secret, a bad path → 401 (fail closed)', async () => {
    expect((await ask('/ml-team/keys', `Basic ${Buffer.from(`u:${KEY}`).toString('base64')}`)).status).toBe(401);
    expect((await ask('/ml-team/missing', `Bearer ${KEY}`)).status).toBe(401);
    expect((await ask('/ml-team/empty', `Bearer ${KEY}`)).status).toBe(401);
    expect((await ask('/keys', `Bearer ${KEY}`)).status).toBe(401);
  });
  it('bearerMatches: exact token only', () => {
    expect(bearerMatches(`Bearer ${KEY}`, [KEY])).toBe(true);
    expect(bearerMatches(`bearer ${KEY}`, [KEY])).toBe(true);
    expect(bearerMatches(`Bearer ${KEY}x`, [KEY])).toBe(false);
    expect(bearerMatches(`Bearer ${KEY}`, [''])).toBe(false);
    expect(bearerMatches(undefined, [KEY])).toBe(false);
  });
});

describe('key validator: probes and the Secret cache', () => {
  it('GET /healthz → 200 ok, with no Secret read', async () => {
    const r = await fetch(`${base}/healthz`);
    expect({ status: r.status, body: await r.text() }).toStrictEqual({ status: 200, body: 'ok' });
  });
  it('cachedKeySource reads a Secret once per ttl, again after it, and never keeps a failed read', async () => {
    const { cachedKeySource } = await import('../../cli/key-validator.js');
    let reads = 0;
    let fail = true;
    let t = 1000;
    const cached = cachedKeySource(
      async () => {
        reads++;
        if (fail) throw new Error('apiserver down');
        return [{ name: 'a', value: 'k' }];
      },
      5000,
      () => t,
    );
    await expect(cached('ns', 's')).rejects.toThrow('apiserver down');
    fail = false;
    const k = [{ name: 'a', value: 'k' }];
    expect([await cached('ns', 's'), await cached('ns', 's'), reads]).toStrictEqual([k, k, 2]);
    t += 5000;
    expect([await cached('ns', 's'), reads]).toStrictEqual([k, 3]);
  });
  it('runKeyValidator refuses a --listen that is not host:port, naming the flag', async () => {
    const { runKeyValidator } = await import('../../cli/key-validator.js');
    await expect(runKeyValidator({ listen: '8080' })).rejects.toThrow('--listen 8080: want host:port, e.g. 0.0.0.0:8080');
  });
});

describe('key validator: a Secret it cannot read', () => {
  it('secretKeySource rejects naming the path and status (so the answer is 401 and no cache keeps it)', async () => {
    await expect(source('ml-team', 'missing')).rejects.toThrow('GET /api/v1/namespaces/ml-team/secrets/missing: 404');
    const silent = secretKeySource(async () => ({ status: 0, body: '' }));
    await expect(silent('ml-team', 'keys')).rejects.toThrow('GET /api/v1/namespaces/ml-team/secrets/keys: no answer');
  });
  it('the decision says why, and never carries a key', async () => {
    const { keyValidator } = await import('../../cli/key-validator.js');
    const { createServer } = await import('node:http');
    const decisions: unknown[] = [];
    const server = createServer(keyValidator(source, (d) => decisions.push(d)));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const statuses = [
      (await fetch(`${url}/ml-team/missing`, { headers: { authorization: `Bearer ${KEY}` } })).status,
      (await fetch(`${url}/ml-team/keys`, { headers: { authorization: `Bearer ${KEY}` } })).status,
    ];
    server.close();
    expect({ statuses, decisions }).toStrictEqual({
      statuses: [401, 200],
      decisions: [
        { namespace: 'ml-team', secret: 'missing', allowed: false, status: 401, unreadable: 'GET /api/v1/namespaces/ml-team/secrets/missing: 404' },
        { namespace: 'ml-team', secret: 'keys', allowed: true, status: 200, caller: 'ml-team/keys/a' },
      ],
    });
  });
});

describe('key validator: scoped keys, the caller and /v1/models', () => {
  const teams: Record<string, Record<string, string>> = {
    'keys/team-a': { ci: Buffer.from('sk-a').toString('base64') },
    'keys/team-b': { laptop: Buffer.from('sk-b').toString('base64') },
  };
  const teamSource = secretKeySource(async (path) => {
    const m = /^\/api\/v1\/namespaces\/([^/]+)\/secrets\/([^/]+)$/.exec(path);
    const data = m ? teams[`${m[1]}/${m[2]}`] : undefined;
    return data ? { status: 200, body: JSON.stringify({ data }) } : { status: 404, body: '{}' };
  });
  const services = async () => [
    { namespace: 'team-a', name: 'chat', created: 1700000000, auth: 'APIKey', address: 'http://gw/team-a/chat', apiKeys: { namespace: 'keys', allowed: ['team-a'], denied: ['team-b'] } },
    { namespace: 'team-b', name: 'code', created: 1700000001, auth: 'APIKey', apiKeys: { namespace: 'keys', allowed: ['team-b'], denied: ['team-a'] } },
    { namespace: 'public', name: 'demo', created: 1700000002, auth: 'None' },
  ];
  let url = '';
  let stop: () => void = () => {};
  const decisions: unknown[] = [];
  beforeAll(async () => {
    const { keyValidator } = await import('../../cli/key-validator.js');
    const { createServer } = await import('node:http');
    const server = createServer(keyValidator(teamSource, (d) => decisions.push(d), services));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    stop = () => server.close();
  });
  afterAll(() => stop());
  const check = async (key: string) => {
    const r = await fetch(`${url}/keys/team-a?denied=team-b`, { headers: { authorization: `Bearer ${key}`, 'x-forwarded-uri': '/team-a/chat/v1/chat/completions' } });
    return { status: r.status, caller: r.headers.get('x-modelplane-caller'), body: await r.text() };
  };
  it('a key of an allowed Secret → 200 naming the caller; of a denied one → 403; unknown → 401', async () => {
    decisions.length = 0;
    expect(await check('sk-a')).toStrictEqual({ status: 200, caller: 'keys/team-a/ci', body: '' });
    expect(await check('sk-b')).toStrictEqual({ status: 403, caller: null, body: FORBIDDEN_BODY });
    expect((await check('sk-c')).status).toBe(401);
    expect(decisions).toStrictEqual([
      { namespace: 'keys', secret: 'team-a', allowed: true, status: 200, caller: 'keys/team-a/ci', service: 'team-a/chat' },
      { namespace: 'keys', secret: 'team-a', allowed: false, status: 403, service: 'team-a/chat' },
      { namespace: 'keys', secret: 'team-a', allowed: false, status: 401, service: 'team-a/chat' },
    ]);
  });
  it('no allowed Secret at all: a right key of a denied one → 403', async () => {
    const r = await fetch(`${url}/keys/?denied=team-a`, { headers: { authorization: 'Bearer sk-a' } });
    expect(r.status).toBe(403);
  });
  const models = async (key?: string) => {
    const r = await fetch(`${url}/v1/models`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
    return { status: r.status, body: (await r.json()) as unknown };
  };
  it('/v1/models lists the services the key opens and the anonymous ones, OpenAI-shaped', async () => {
    expect(await models('sk-a')).toStrictEqual({
      status: 200,
      body: {
        object: 'list',
        data: [
          { id: 'public/demo', object: 'model', created: 1700000002, owned_by: 'public' },
          { id: 'team-a/chat', object: 'model', created: 1700000000, owned_by: 'team-a', url: 'http://gw/team-a/chat' },
        ],
      },
    });
    expect((await models('sk-b')).body).toStrictEqual({
      object: 'list',
      data: [
        { id: 'public/demo', object: 'model', created: 1700000002, owned_by: 'public' },
        { id: 'team-b/code', object: 'model', created: 1700000001, owned_by: 'team-b' },
      ],
    });
  });
  it('/v1/models without a key lists the anonymous services; an unknown key → 401', async () => {
    expect((await models()).body).toStrictEqual({ object: 'list', data: [{ id: 'public/demo', object: 'model', created: 1700000002, owned_by: 'public' }] });
    expect(await models('sk-nope')).toStrictEqual({ status: 401, body: JSON.parse(UNAUTHORIZED_BODY) });
  });
});
