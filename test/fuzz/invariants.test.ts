/**
 * The fuzzer's checks can fail: each invariant of invariants.ts on a
 * response that breaks it, and on one that holds.
 */
import { RunFunctionRequest, RunFunctionResponse, Severity, Status } from '@crossplane-org/function-sdk-typescript';
import { describe, expect, it } from 'vitest';
import { type CaseRun, canonicalJson, checkCase } from './invariants.js';
import { SECRET_VALUES } from './secrets.js';

const xr = { apiVersion: 'modelplane.ai/v1alpha1', kind: 'ModelEndpoint', metadata: { name: 'e' }, spec: { url: 'http://a' } };
const request = RunFunctionRequest.fromPartial({
  observed: { composite: { resource: xr }, resources: { service: { resource: { apiVersion: 'v1', kind: 'Service' } } } },
});
const kept = RunFunctionResponse.fromPartial({ desired: { resources: { service: { resource: { apiVersion: 'v1', kind: 'Service' } } } } });

function run(response: RunFunctionResponse, over: Partial<CaseRun> = {}): CaseRun {
  return {
    fuzz: { request, mutations: [{ scope: 'observed', kind: 'conditions', target: 'observed service' }], inProcessOnly: false },
    outcome: { response },
    shuffled: { response },
    baselineDesired: new Set(['service']),
    xrProblems: [],
    ...over,
  };
}

describe('fuzz invariants', () => {
  it('hold on a response that keeps what was observed', () => {
    expect(checkCase(run(kept))).toEqual([]);
  });

  it('report a throw and a failed call', () => {
    expect(checkCase(run(kept, { outcome: { threw: 'x is null' } }))).toEqual([{ invariant: 'throw', detail: 'x is null' }]);
    expect(checkCase(run(kept, { outcome: { error: '13 INTERNAL' } }))).toEqual([{ invariant: 'internal', detail: '13 INTERNAL' }]);
  });

  it('report the internal-error Fatal', () => {
    const rsp = RunFunctionResponse.fromPartial({ ...kept, results: [{ severity: Severity.SEVERITY_FATAL, message: 'f: internal error: boom' }] });
    expect(checkCase(run(rsp)).map((v) => v.invariant)).toEqual(['internal']);
  });

  it('report an observed resource dropped without the spec asking', () => {
    expect(checkCase(run(RunFunctionResponse.fromPartial({})))).toEqual([{ invariant: 'dropped', detail: 'observed service not in desired' }]);
  });

  it('allow a drop the spec asks for when a requirement is fetched and empty, and only then', () => {
    const absent = { request, mutations: [{ scope: 'required-absent' as const, kind: 'absent', target: 'required model-replicas' }], inProcessOnly: false };
    const absentDrops = { 'model-replicas': { keys: ['service'] } };
    expect(checkCase(run(RunFunctionResponse.fromPartial({}), { fuzz: absent, absentDrops }))).toEqual([]);
    // Not fetched yet is not absent; another requirement's absence is no licence either.
    const pending = { ...absent, mutations: [{ scope: 'required-pending' as const, kind: 'pending', target: 'required model-replicas' }] };
    const other = { ...absent, mutations: [{ scope: 'required-absent' as const, kind: 'absent', target: 'required class-gpu' }] };
    for (const fuzz of [pending, other]) {
      expect(checkCase(run(RunFunctionResponse.fromPartial({}), { fuzz, absentDrops }))).toEqual([{ invariant: 'dropped', detail: 'observed service not in desired' }]);
    }
  });

  it('report an invalid XR no Fatal or False condition names', () => {
    const problems = [{ path: 'spec.url', message: 'Required' }];
    const silent = checkCase(run(kept, { xrProblems: problems }));
    expect(silent.map((v) => v.invariant)).toEqual(['invalid-unnamed']);
    const named = RunFunctionResponse.fromPartial({
      ...kept,
      conditions: [{ type: 'RoutingReady', status: Status.STATUS_CONDITION_FALSE, reason: 'InvalidSpec', message: 'Invalid ModelEndpoint: spec.url: Required' }],
    });
    expect(checkCase(run(named, { xrProblems: problems }))).toEqual([]);
  });

  it('read a field path whose map key holds a colon (the fuzz run: a capacity key `b/c:d` read as `b/c`)', () => {
    const problems = [{ path: 'spec.devices[0].capacity.a.b/c:d.value', message: 'Required' }];
    const named = RunFunctionResponse.fromPartial({
      ...kept,
      conditions: [{ type: 'Accepted', status: Status.STATUS_CONDITION_FALSE, reason: 'InvalidSpec', message: 'Invalid: spec.devices[0].capacity.a.b/c:d.value: Required' }],
    });
    expect(checkCase(run(named, { xrProblems: problems }))).toEqual([]);
    const other = RunFunctionResponse.fromPartial({
      ...kept,
      conditions: [{ type: 'Accepted', status: Status.STATUS_CONDITION_FALSE, reason: 'InvalidSpec', message: 'Invalid: spec.devices[0].capacity.a.b/c:e: Required' }],
    });
    expect(checkCase(run(other, { xrProblems: problems })).map((v) => v.invariant)).toEqual(['invalid-unnamed']);
  });

  it('report a response that depends on map order, and a planted Secret value', () => {
    const other = RunFunctionResponse.fromPartial({ ...kept, context: { a: 1 } });
    expect(checkCase(run(kept, { shuffled: { response: other } })).map((v) => v.invariant)).toEqual(['nondeterministic']);
    const leak = RunFunctionResponse.fromPartial({ ...kept, context: { token: SECRET_VALUES[0] } });
    expect(checkCase(run(leak)).map((v) => v.invariant)).toEqual(['secret']);
  });

  it('compare in sorted-key order, as Go encodes', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}');
  });
});
