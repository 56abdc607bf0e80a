/**
 * Our codec on the wire: a deep request (JSON 1,000 levels deep in the
 * observed XR's status and the context; the SDK's decoder stopped at about
 * 32) and a wide one (5,000 InferenceClusters) both get an answer over real
 * gRPC, and a request nested beyond the limit gets a Fatal result naming it,
 * never gRPC INTERNAL.
 */
import * as grpc from '@grpc/grpc-js';
import type { RunFunctionRequest, RunFunctionResponse } from '@crossplane-org/function-sdk-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionFolders, loadCompose } from '../../cli/functions.js';
import { handler, startServer } from '../../functions/lib/sdk.js';
import { encodeRunFunctionRequest, encodeRunFunctionResponse, MAX_JSON_DEPTH } from '../../functions/lib/wire/codec.js';
import { deserializeRequest, RunFunctionService } from '../../functions/lib/wire/service.js';
import { cluster, deployment, request } from '../../bench/scheduler-fleet.js';
import { deepRequest } from '../helpers/wire-corpus.js';

const Client = grpc.makeGenericClientConstructor(RunFunctionService, 'FunctionRunnerService');
type Raw = InstanceType<typeof Client> & {
  runFunction(req: RunFunctionRequest, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, rsp: RunFunctionResponse) => void): void;
  makeUnaryRequest: grpc.Client['makeUnaryRequest'];
};
const OPTS = { 'grpc.max_receive_message_length': 64 * 1024 * 1024, 'grpc.max_send_message_length': 64 * 1024 * 1024 };

function call(c: Raw, req: RunFunctionRequest): Promise<RunFunctionResponse> {
  return new Promise((resolve, reject) => c.runFunction(req, { deadline: Date.now() + 120_000 }, (err, rsp) => (err ? reject(err) : resolve(rsp))));
}

function nest(levels: number): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let o = root;
  for (let i = 1; i < levels; i++) o = o['a'] = {} as Record<string, unknown>;
  o['leaf'] = 'here';
  return root;
}

function depthOf(v: unknown): number {
  let d = 0;
  for (let o = v as Record<string, unknown> | undefined; o && typeof o === 'object'; o = o['a'] as Record<string, unknown>) d++;
  return d;
}

describe('RunFunction over real gRPC with our codec', () => {
  let sched: { server: grpc.Server; port: number };
  let klass: { server: grpc.Server; port: number };
  let cs: Raw;
  let cc: Raw;
  const flags = { address: '127.0.0.1:0', insecure: true, tlsCertsDir: '', debug: false };

  beforeAll(async () => {
    sched = await startServer('schedule-model-deployment', await loadCompose('schedule-model-deployment'), flags);
    klass = await startServer('compose-inference-class', await loadCompose('compose-inference-class'), flags);
    cs = new Client(`127.0.0.1:${sched.port}`, grpc.credentials.createInsecure(), OPTS) as Raw;
    cc = new Client(`127.0.0.1:${klass.port}`, grpc.credentials.createInsecure(), OPTS) as Raw;
  }, 120_000);
  afterAll(() => {
    cs?.close();
    cc?.close();
    sched?.server.forceShutdown();
    klass?.server.forceShutdown();
  });

  it('answers a request 1,000 levels deep, the depth intact', async () => {
    const xr = {
      apiVersion: 'modelplane.ai/v1alpha1',
      kind: 'InferenceClass',
      metadata: { name: 'deep' },
      spec: { devices: [{ name: 'gpu', driver: 'gpu.nvidia.com', count: 1 }] },
      status: { deep: nest(1000) },
    };
    const rsp = await call(cc, {
      meta: { tag: 'deep', capabilities: [] },
      observed: { composite: { resource: xr, connectionDetails: {}, ready: 0 }, resources: {} },
      desired: { composite: undefined, resources: {} },
      context: { deep: nest(1000) },
      extraResources: {},
      credentials: {},
      requiredResources: {},
      requiredSchemas: {},
    });
    expect(rsp.meta?.tag).toBe('deep');
    expect(rsp.results.filter((r) => /cannot decode|internal error/.test(r.message))).toEqual([]);
    expect(depthOf(rsp.context?.['deep'])).toBe(1000);
  });

  it('answers a request with 5,000 InferenceClusters, every replica placed', async () => {
    const clusters = Array.from({ length: 5000 }, (_, i) => cluster(i));
    const req = request({ xr: deployment(10), clusters, replicas: [], observed: {} });
    expect(encodeRunFunctionRequest(req).length).toBeGreaterThan(5_000_000);
    const rsp = await call(cs, req);
    expect(rsp.results.filter((r) => r.severity === 1)).toEqual([]);
    expect(Object.keys(rsp.desired?.resources ?? {}).filter((k) => k.startsWith('replica-'))).toHaveLength(10);
  }, 120_000);

  it('answers a request nested beyond 10,000 levels with a Fatal result naming the limit, not INTERNAL', async () => {
    // written by hand: our encoder, like Crossplane's, refuses to send it
    const bytes = deepRequest(10_001, 'over');
    const raw = await new Promise<Buffer>((resolve, reject) =>
      cc.makeUnaryRequest(
        RunFunctionService.runFunction.path,
        (b: Buffer) => b,
        (b: Buffer) => b,
        bytes,
        { deadline: Date.now() + 60_000 },
        (err, rsp) => (err || !rsp ? reject(err) : resolve(rsp)),
      ),
    );
    const rsp = RunFunctionService.runFunction.responseDeserialize(raw);
    expect(rsp.meta?.tag).toBe('over');
    expect(rsp.results.map((r) => [r.severity, r.message])).toEqual([
      [
        1,
        'compose-inference-class: cannot decode the RunFunctionRequest: JSON nested deeper than 10000 levels (the nesting limit) at context.a.a.a.a.a.a.a.a.a.a... (9990 more)',
      ],
    ]);
  });
});

describe(`every function at the nesting limit (${MAX_JSON_DEPTH} levels)`, () => {
  it.each(functionFolders())('%s answers without an internal error (no recursion per level)', async (folder) => {
    const run = handler(folder, await loadCompose(folder));
    // the XR's spec and status and an observed resource's status nest exactly to the limit
    const xr = { apiVersion: 'modelplane.ai/v1alpha1', kind: 'X', metadata: { name: 'deep', namespace: 'ns' }, spec: { deep: nest(MAX_JSON_DEPTH - 2) }, status: { deep: nest(MAX_JSON_DEPTH - 2) } };
    const observed = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, status: nest(MAX_JSON_DEPTH - 1) };
    const req = deserializeRequest(
      encodeRunFunctionRequest({
        meta: { tag: 't', capabilities: [] },
        observed: { composite: { resource: xr, connectionDetails: {}, ready: 0 }, resources: { c: { resource: observed, connectionDetails: {}, ready: 0 } } },
        desired: { composite: undefined, resources: {} },
        context: { deep: nest(MAX_JSON_DEPTH - 1) },
        extraResources: {},
        credentials: {},
        requiredResources: {},
        requiredSchemas: {},
      }),
    );
    const rsp = run(req);
    expect(rsp.results.filter((r) => /internal error|cannot decode/.test(r.message))).toEqual([]);
    expect(encodeRunFunctionResponse(rsp).length).toBeGreaterThan(0);
  });
});
