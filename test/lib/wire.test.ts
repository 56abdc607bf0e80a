/**
 * Our RunFunction codec (functions/lib/wire/) against the SDK's ts-proto
 * codec: the same bytes out and the same objects in, on every request and
 * response the examples produce, on generated messages, and on corrupted
 * bytes wherever both decoders accept them; and the 10,000-level nesting
 * limit, named in the error.
 */
import { RunFunctionRequest, RunFunctionResponse } from '@crossplane-org/function-sdk-typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  decodeRunFunctionRequest,
  decodeRunFunctionResponse,
  encodeRunFunctionRequest,
  encodeRunFunctionResponse,
  MAX_JSON_DEPTH,
  WireDepthError,
  WireError,
} from '../../functions/lib/wire/codec.js';
import { deserializeRequest, serializeResponse, undecodable } from '../../functions/lib/wire/service.js';
import { deepRequest, exampleCalls, type WireCase } from '../helpers/wire-corpus.js';
import { mulberry32 as rng } from '../../scripts/oracle/grammar.js';

const KEYS = ['', 'a', 'apiVersion', 'kind', '0', '10', '2', 'métadata', 'ключ', '🚀', 'x'.repeat(300)];
const STRINGS = ['', 'v', 'héllo', '\u{1F600}', '\ud800', 'a\udc00b', '\ufeffbom', 'y'.repeat(200), 'é'.repeat(200), '\u0000'];
const NUMBERS = [0, -0, 1, -1, 0.5, 1e300, -1e-300, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, 123456789];

function json(r: () => number, depth: number, inList = false): unknown {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const k = Math.floor(r() * (depth > 0 ? 8 : 5));
  switch (k) {
    case 0:
      return pick(STRINGS);
    case 1:
      return pick(NUMBERS);
    case 2:
      return r() < 0.5;
    case 3:
      return null;
    case 4:
      return inList ? undefined : pick(STRINGS);
    case 5:
    case 6:
      return obj(r, depth - 1);
    default:
      return Array.from({ length: Math.floor(r() * 4) }, () => json(r, depth - 1, true));
  }
}

function obj(r: () => number, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const n = Math.floor(r() * 5);
  for (let i = 0; i < n; i++) out[KEYS[Math.floor(r() * KEYS.length)]!] = json(r, depth);
  if (r() < 0.1) out['gone'] = undefined;
  return out;
}

function resource(r: () => number) {
  const details: Record<string, Buffer> = {};
  if (r() < 0.3) details['password'] = Buffer.from('s3cr3t');
  if (r() < 0.2) details['empty'] = Buffer.alloc(0);
  return { resource: r() < 0.9 ? obj(r, 4) : undefined, connectionDetails: details, ready: Math.floor(r() * 3) };
}

function map<T>(r: () => number, make: () => T): Record<string, T> {
  const out: Record<string, T> = {};
  const n = Math.floor(r() * 4);
  for (let i = 0; i < n; i++) out[KEYS[Math.floor(r() * KEYS.length)]!] = make();
  return out;
}

function request(r: () => number): RunFunctionRequest {
  return {
    meta: r() < 0.9 ? { tag: r() < 0.5 ? 'tag' : '', capabilities: r() < 0.5 ? [1, 2, 5] : [] } : undefined,
    observed: r() < 0.9 ? { composite: r() < 0.9 ? resource(r) : undefined, resources: map(r, () => resource(r)) } : undefined,
    desired: r() < 0.7 ? { composite: r() < 0.5 ? resource(r) : undefined, resources: map(r, () => resource(r)) } : undefined,
    input: r() < 0.5 ? obj(r, 3) : undefined,
    context: r() < 0.5 ? obj(r, 3) : undefined,
    extraResources: map(r, () => ({ items: [resource(r)] })),
    credentials: map(r, () => ({ credentialData: { data: { k: Buffer.from([0, 1, 255]) } } })),
    requiredResources: map(r, () => ({ items: Array.from({ length: Math.floor(r() * 3) }, () => resource(r)) })),
    requiredSchemas: map(r, () => ({ openapiV3: r() < 0.8 ? obj(r, 3) : undefined })),
  };
}

function response(r: () => number): RunFunctionResponse {
  return {
    meta: { tag: r() < 0.5 ? 'tag' : '', ttl: r() < 0.8 ? { seconds: Math.floor(r() * 1e6), nanos: r() < 0.3 ? 5 : 0 } : undefined },
    desired: r() < 0.9 ? { composite: resource(r), resources: map(r, () => resource(r)) } : undefined,
    results: Array.from({ length: Math.floor(r() * 3) }, () => ({
      severity: Math.floor(r() * 4),
      message: 'm',
      ...(r() < 0.5 ? { reason: 'R' } : {}),
      ...(r() < 0.5 ? { target: 1 } : {}),
    })),
    context: r() < 0.5 ? obj(r, 3) : undefined,
    requirements:
      r() < 0.5
        ? {
            extraResources: {},
            resources: map(r, () => ({
              apiVersion: 'v1',
              kind: 'Secret',
              ...(r() < 0.5 ? { matchName: 'n' } : { matchLabels: { labels: { a: 'b', e: '' } } }),
              ...(r() < 0.5 ? { namespace: 'ns' } : {}),
            })),
            schemas: map(r, () => ({ apiVersion: 'v1', kind: 'Pod' })),
          }
        : undefined,
    conditions: Array.from({ length: Math.floor(r() * 3) }, () => ({
      type: 'Ready',
      status: Math.floor(r() * 4),
      reason: r() < 0.5 ? 'Available' : '',
      ...(r() < 0.5 ? { message: 'msg' } : {}),
      ...(r() < 0.5 ? { target: 2 } : {}),
    })),
    output: r() < 0.3 ? obj(r, 2) : undefined,
  };
}

const sdkReq = (m: RunFunctionRequest) => Buffer.from(RunFunctionRequest.encode(m).finish());
const sdkRsp = (m: RunFunctionResponse) => Buffer.from(RunFunctionResponse.encode(m).finish());

describe('the codec on every example call', () => {
  let calls: WireCase[];
  beforeAll(async () => {
    calls = await exampleCalls();
  }, 600_000);

  it('covers the examples', () => {
    expect(calls.length).toBeGreaterThanOrEqual(30);
  });

  it('encodes requests and responses to the SDK bytes and decodes them to the SDK objects', () => {
    for (const c of calls) {
      const req = RunFunctionRequest.decode(c.request);
      expect(decodeRunFunctionRequest(c.request), c.name).toStrictEqual(req);
      expect(encodeRunFunctionRequest(req).equals(c.request), c.name).toBe(true);
      const rsp = RunFunctionResponse.decode(c.response);
      expect(decodeRunFunctionResponse(c.response), c.name).toStrictEqual(rsp);
      expect(encodeRunFunctionResponse(rsp).equals(c.response), c.name).toBe(true);
    }
  });

  it('agrees with the SDK on corrupted bytes wherever both decode, and fails only with a WireError', () => {
    const r = rng(17);
    let both = 0;
    for (let i = 0; i < 3000; i++) {
      const c = calls[i % calls.length]!;
      const bytes = Buffer.from(c.request);
      const flips = 1 + Math.floor(r() * 3);
      for (let f = 0; f < flips; f++) bytes[Math.floor(r() * bytes.length)] = Math.floor(r() * 256);
      const cut = r() < 0.2 ? bytes.subarray(0, Math.floor(r() * bytes.length)) : bytes;
      let sdk: RunFunctionRequest | undefined;
      try {
        sdk = RunFunctionRequest.decode(cut);
      } catch {
        sdk = undefined;
      }
      let ours: RunFunctionRequest | undefined;
      try {
        ours = decodeRunFunctionRequest(cut);
      } catch (err) {
        expect(err).toBeInstanceOf(WireError);
      }
      if (sdk && ours) {
        both++;
        expect(ours).toStrictEqual(sdk);
        expect(encodeRunFunctionRequest(ours).equals(sdkReq(sdk))).toBe(true);
      }
    }
    expect(both).toBeGreaterThan(300);
  });
});

describe('the codec on generated messages', () => {
  it('encodes 500 generated requests and responses to the SDK bytes and back to the SDK objects', () => {
    const r = rng(42);
    for (let i = 0; i < 500; i++) {
      const req = request(r);
      const bytes = sdkReq(req);
      expect(encodeRunFunctionRequest(req).equals(bytes), `request ${i}`).toBe(true);
      expect(decodeRunFunctionRequest(bytes), `request ${i}`).toStrictEqual(RunFunctionRequest.decode(bytes));
      const rsp = response(r);
      const rbytes = sdkRsp(rsp);
      expect(encodeRunFunctionResponse(rsp).equals(rbytes), `response ${i}`).toBe(true);
      expect(decodeRunFunctionResponse(rbytes), `response ${i}`).toStrictEqual(RunFunctionResponse.decode(rbytes));
    }
  });

  it('refuses what protobuf cannot carry, as the SDK does', () => {
    const req = { ...request(rng(1)), context: { f: () => 1 } } as unknown as RunFunctionRequest;
    expect(() => encodeRunFunctionRequest(req)).toThrow('Unsupported any value type: function');
  });

  it('keeps a __proto__ key as an own property', () => {
    const ctx = JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
    const req = { ...request(rng(2)), context: ctx };
    const out = decodeRunFunctionRequest(encodeRunFunctionRequest(req));
    expect(Object.keys(out.context!)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});

describe(`the nesting limit (${MAX_JSON_DEPTH} JSON levels)`, () => {
  it('decodes and re-encodes a request nested exactly to the limit, where the SDK stops at about 32', () => {
    const bytes = deepRequest(MAX_JSON_DEPTH);
    const req = decodeRunFunctionRequest(bytes);
    let depth = 1;
    for (let o = req.context as Record<string, unknown>; o['a'] !== undefined; o = o['a'] as Record<string, unknown>) depth++;
    expect(depth).toBe(MAX_JSON_DEPTH);
    expect(encodeRunFunctionRequest(req).equals(bytes)).toBe(true);
    expect(() => RunFunctionRequest.decode(deepRequest(40))).toThrow('protobuf decode recursion limit exceeded');
  });

  it('names the limit and the path one level beyond it', () => {
    const bytes = deepRequest(MAX_JSON_DEPTH + 1);
    expect(() => decodeRunFunctionRequest(bytes)).toThrow(WireDepthError);
    expect(() => decodeRunFunctionRequest(bytes)).toThrow(
      /^JSON nested deeper than 10000 levels \(the nesting limit\) at context\.a\.a\.a\.a\.a\.a\.a\.a\.a\.a\.\.\. \(9990 more\)$/,
    );
  });

  it('decodes an over-deep request on the server to its tag and the reason, never throwing', () => {
    const req = deserializeRequest(deepRequest(MAX_JSON_DEPTH + 1));
    expect(req.meta?.tag).toBe('deep');
    expect(undecodable(req)).toMatch(/^JSON nested deeper than 10000 levels \(the nesting limit\) at context\./);
    expect(undecodable(deserializeRequest(Buffer.from([0x0a, 0x05, 0x0a])))).toBe('length-delimited field runs past the end of its message');
  });

  it('answers a response it cannot encode with a Fatal result carrying the tag', () => {
    let deep: Record<string, unknown> = {};
    const root = deep;
    for (let i = 0; i < MAX_JSON_DEPTH + 5; i++) deep = deep['a'] = {};
    const rsp = decodeRunFunctionResponse(
      serializeResponse({ ...response(rng(3)), meta: { tag: 't', ttl: undefined }, context: root }),
    );
    expect(rsp.meta?.tag).toBe('t');
    expect(rsp.results).toEqual([
      { severity: 1, message: 'cannot encode the RunFunctionResponse: JSON nested deeper than 10000 levels (the nesting limit)', reason: undefined, target: 1 },
    ]);
  });
});
