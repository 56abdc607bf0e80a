/**
 * The hostile inputs the first fuzzing run found, over real gRPC:
 * each function's server as Crossplane runs it, requests recorded from the
 * examples and then broken.
 * - compose-inference-class with a `null` device answered
 *   "internal error: Cannot read properties of null"; now `Accepted` False
 *   naming the field, the published status kept.
 * - schedule-model-deployment with an observed ModelReplica whose
 *   `status.conditions` is garbage dropped its ModelEndpoint; now kept.
 * - compose-model-endpoint with an observed Service without a name dropped
 *   the EndpointSlice; now both are kept and `status.routing` stays.
 */
import { type RunFunctionRequest, type RunFunctionResponse, Severity, Status } from '@crossplane-org/function-sdk-typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { GrpcCaller } from './harness.js';
import { collectSeeds, type Seed } from './seeds.js';

const caller = new GrpcCaller();
afterAll(() => caller.close());

type Obj = Record<string, unknown>;

async function seedOf(fn: string, pick: (s: Seed) => boolean): Promise<RunFunctionRequest> {
  const seed = (await collectSeeds()).get(fn)!.findLast(pick);
  if (seed === undefined) throw new Error(`no seed of ${fn} fits`);
  return structuredClone(seed.request);
}

async function call(fn: string, req: RunFunctionRequest): Promise<RunFunctionResponse> {
  const out = await caller.call(fn, req);
  if (!('response' in out)) throw new Error(`${fn}: ${JSON.stringify(out)}`);
  return out.response;
}

describe('hostile input over gRPC', () => {
  it('compose-inference-class: a null device is InvalidSpec naming spec.devices[0], the published devices kept', async () => {
    const req = await seedOf('compose-inference-class', (s) => Array.isArray((s.request.observed?.composite?.resource?.['status'] as Obj)?.['devices']));
    const xr = req.observed!.composite!.resource!;
    const published = (xr['status'] as Obj)['devices'];
    ((xr['spec'] as Obj)['devices'] as unknown[]).unshift(null);
    const rsp = await call('compose-inference-class', req);
    const message = 'Invalid InferenceClass: spec.devices[0]: Invalid input: expected object, received null';
    expect(rsp.results.map((r) => [r.severity, r.message])).toEqual([[Severity.SEVERITY_WARNING, message]]);
    expect(rsp.conditions.map((c) => [c.type, c.status, c.reason, c.message])).toEqual([['Accepted', Status.STATUS_CONDITION_FALSE, 'InvalidSpec', message]]);
    expect((rsp.desired?.composite?.resource?.['status'] as Obj | undefined)?.['devices']).toEqual(published);
    expect(rsp.desired?.resources).toEqual({});
  });

  it('schedule-model-deployment: a replica whose status.conditions is garbage keeps its ModelEndpoint', async () => {
    const req = await seedOf('schedule-model-deployment', (s) => Object.keys(s.request.observed?.resources ?? {}).some((k) => k.startsWith('endpoint-')));
    const observed = req.observed!.resources;
    const key = Object.keys(observed).find((k) => k.startsWith('endpoint-'))!.replace(/^endpoint-/, 'replica-');
    const replica = observed[key]!.resource!;
    (replica['status'] as Obj)['conditions'] = 'garbage';
    const rsp = await call('schedule-model-deployment', req);
    expect(Object.keys(rsp.desired?.resources ?? {}).sort()).toEqual(Object.keys(observed).sort());
    const name = (replica['metadata'] as Obj)['name'];
    expect(rsp.results.map((r) => [r.severity, r.message])).toContainEqual([
      Severity.SEVERITY_WARNING,
      `replica ${String(name)}: status.conditions is not a list; its endpoint is kept until the replica reports Ready False`,
    ]);
  });

  it('compose-model-endpoint: an observed Service without a name keeps Service, EndpointSlice and status.routing', async () => {
    const req = await seedOf('compose-model-endpoint', (s) => {
      const o = s.request.observed;
      return o?.resources?.['service'] !== undefined && o.resources['endpointslice'] !== undefined && (o.composite?.resource?.['status'] as Obj)?.['routing'] !== undefined;
    });
    const routing = (req.observed!.composite!.resource!['status'] as Obj)['routing'];
    delete (req.observed!.resources['service']!.resource!['metadata'] as Obj)['name'];
    const rsp = await call('compose-model-endpoint', req);
    expect(Object.keys(rsp.desired?.resources ?? {}).sort()).toEqual(['endpointslice', 'service']);
    expect((rsp.desired?.composite?.resource?.['status'] as Obj | undefined)?.['routing']).toEqual(routing);
    expect(rsp.conditions.map((c) => [c.type, c.status, c.reason, c.message])).toEqual([
      [
        'RoutingReady',
        Status.STATUS_CONDITION_FALSE,
        'WaitingForBackend',
        'the observed Service has no metadata.name; keeping the Service and EndpointSlice as they are until it has one',
      ],
    ]);
  });
});
