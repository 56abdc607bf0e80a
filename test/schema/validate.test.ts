import { describe, expect, it } from 'vitest';
import { formatFieldError, loadXrds, validateObject } from '../../functions/lib/schema/index.js';
import { apisDir } from '../helpers/crd.js';

const registry = loadXrds(apisDir);
const icl = registry.lookup('modelplane.ai/v1alpha1', 'InferenceClass')!;

/** A valid InferenceClass with `spec` overrides. */
function inferenceClass(spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = { name: 'gpu-l4' }) {
  return {
    apiVersion: 'modelplane.ai/v1alpha1',
    kind: 'InferenceClass',
    metadata,
    spec: { devices: [{ name: 'gpu', driver: 'gpu.nvidia.com', deviceClassName: 'gpu.nvidia.com' }], ...spec },
  };
}

function errors(obj: unknown): string[] {
  return validateObject(icl.schema, obj, { scope: icl.scope }).errors.map(formatFieldError);
}

const eks = { instanceType: 'g6.xlarge', accelerator: { type: 'nvidia-l4', count: 1 } };

describe('validateObject on InferenceClass', () => {
  it('accepts a valid class and applies defaults: claim DRA, count 1, diskSizeGb 100, driversPreset cuda13.0', () => {
    const obj = inferenceClass({
      provisioning: {
        provider: 'Nebius',
        nebius: { platform: 'gpu-h100-sxm', preset: '1gpu-16vcpu-200gb', accelerator: { type: 'nvidia-h100', count: 1 } },
        eks,
      },
    });
    const r = validateObject(icl.schema, obj, { scope: icl.scope });
    expect(r.errors).toEqual([]);
    expect(r.skippedRules).toEqual([]);
    expect(r.value).toEqual({
      apiVersion: 'modelplane.ai/v1alpha1',
      kind: 'InferenceClass',
      metadata: { name: 'gpu-l4' },
      spec: {
        devices: [{ name: 'gpu', driver: 'gpu.nvidia.com', deviceClassName: 'gpu.nvidia.com', claim: 'DRA', count: 1 }],
        provisioning: {
          provider: 'Nebius',
          nebius: {
            platform: 'gpu-h100-sxm',
            preset: '1gpu-16vcpu-200gb',
            accelerator: { type: 'nvidia-h100', count: 1 },
            diskSizeGb: 100,
            driversPreset: 'cuda13.0',
          },
          eks: { ...eks, diskSizeGb: 100 },
        },
      },
    });
    expect(obj.spec.devices[0]).toEqual({ name: 'gpu', driver: 'gpu.nvidia.com', deviceClassName: 'gpu.nvidia.com' });
  });

  it('requires the eks block when provider is EKS', () => {
    expect(errors(inferenceClass({ provisioning: { provider: 'EKS', gke: { machineType: 'g2', accelerator: eks.accelerator } } }))).toEqual([
      'spec.provisioning: Invalid value: "object": spec.provisioning.eks is required when spec.provisioning.provider is EKS.',
    ]);
  });

  it('requires exactly one of string, version, bool, int in an attribute', () => {
    const devices = [{ name: 'gpu', driver: 'd', deviceClassName: 'd', attributes: { arch: { string: 'Ada', int: 89 }, empty: {} } }];
    expect(errors(inferenceClass({ devices }))).toEqual([
      'spec.devices[0].attributes[arch]: Invalid value: "object": exactly one of string, version, bool, int must be set',
      'spec.devices[0].attributes[empty]: Invalid value: "object": exactly one of string, version, bool, int must be set',
    ]);
  });

  it('requires deviceClassName on a DRA device, not on a Synthetic one', () => {
    const devices = [
      { name: 'gpu', driver: 'gpu.nvidia.com' },
      { name: 'nic', driver: 'nic.example.com', claim: 'Synthetic' },
    ];
    expect(errors(inferenceClass({ devices }))).toEqual([
      'spec.devices[0]: Invalid value: "object": deviceClassName is required when claim is DRA',
    ]);
  });

  it('reports a wrong enum value with the supported values', () => {
    const devices = [{ name: 'gpu', driver: 'd', deviceClassName: 'd', claim: 'Foo' }];
    expect(errors(inferenceClass({ devices }))).toEqual([
      'spec.devices[0].claim: Unsupported value: "Foo": supported values: "DRA", "Synthetic"',
    ]);
  });

  it('reports unknown fields, at any depth', () => {
    const devices = [{ name: 'gpu', driver: 'd', deviceClassName: 'd', capacity: { memory: { value: '1Gi', unit: 'x' } } }];
    expect(errors(inferenceClass({ x: 1, devices }))).toEqual([
      'spec.devices[0].capacity[memory].unit: field not declared in schema',
      'spec.x: field not declared in schema',
    ]);
  });

  it('reports missing required fields', () => {
    expect(errors({ apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceClass', metadata: { name: 'a' }, spec: {} })).toEqual([
      'spec.devices: Required value',
    ]);
    expect(errors({ apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceClass', metadata: { name: 'a' } })).toEqual([
      'spec: Required value',
    ]);
    expect(errors(inferenceClass({ devices: [{ name: 'gpu' }] }))).toEqual([
      'spec.devices[0].driver: Required value',
      'spec.devices[0]: Invalid value: "object": deviceClassName is required when claim is DRA',
    ]);
  });

  it('reports types and bounds in the API server words', () => {
    const devices = [
      { name: 'g'.repeat(64), driver: 'd', deviceClassName: 'd', count: '2' },
      { name: 'b', driver: 'd', deviceClassName: 'd', count: 65 },
      { name: 'c', driver: '', deviceClassName: 'd', count: 0 },
    ];
    expect(errors(inferenceClass({ devices }))).toEqual([
      'spec.devices[0].name: Too long: must have at most 63 bytes',
      'spec.devices[0].count: Invalid value: "string": spec.devices[0].count in body must be of type integer: "string"',
      'spec.devices[1].count: Invalid value: 65: spec.devices[1].count in body should be less than or equal to 64',
      'spec.devices[2].driver: Invalid value: "": spec.devices[2].driver in body should be at least 1 chars long',
      'spec.devices[2].count: Invalid value: 0: spec.devices[2].count in body should be greater than or equal to 1',
    ]);
  });

  it('bounds lists and maps, and keys list-maps by name', () => {
    const many = Array.from({ length: 17 }, (_, i) => ({ name: `d${i}`, driver: 'd', deviceClassName: 'd' }));
    expect(errors(inferenceClass({ devices: many }))).toEqual(['spec.devices: Too many: 17: must have at most 16 items']);
    expect(errors(inferenceClass({ devices: [] }))).toEqual([
      'spec.devices: Invalid value: 0: spec.devices in body should have at least 1 items',
    ]);
    const capacity = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`c${i}`, { value: '1' }]));
    expect(errors(inferenceClass({ devices: [{ name: 'gpu', driver: 'd', deviceClassName: 'd', capacity }] }))).toEqual([
      'spec.devices[0].capacity: Too many: 33: must have at most 32 items',
    ]);
    const twice = [
      { name: 'gpu', driver: 'd', deviceClassName: 'd' },
      { name: 'gpu', driver: 'e', deviceClassName: 'e' },
    ];
    expect(errors(inferenceClass({ devices: twice }))).toEqual(['spec.devices[1]: Duplicate value: {"name":"gpu"}']);
  });

  it('accepts and drops metadata.namespace on a cluster-scoped kind; checks the name length', () => {
    const r = validateObject(icl.schema, inferenceClass({}, { name: 'a16-1x', namespace: 'crossplane-system' }), { scope: 'Cluster' });
    expect(r.errors).toEqual([]);
    expect((r.value as { metadata: unknown }).metadata).toEqual({ name: 'a16-1x' });
    expect(errors(inferenceClass({}, { name: 'n'.repeat(64), labels: { a: 'b' } }))).toEqual([
      'metadata.name: Too long: must have at most 63 bytes',
    ]);
  });

  it('accepts Crossplane machinery and the published status', () => {
    const obj = {
      ...inferenceClass({ crossplane: { compositionRef: { name: 'inferenceclasses.modelplane.ai' }, compositionUpdatePolicy: 'Automatic' } }),
      status: {
        devices: [{ name: 'gpu', driver: 'd', deviceClassName: 'd', claim: 'DRA', count: 1 }],
        multiNode: true,
        conditions: [{ type: 'Ready', status: 'True', reason: 'Available', lastTransitionTime: '2024-01-01T00:00:00Z' }],
      },
    };
    expect(errors(obj)).toEqual([]);
    expect(errors({ ...obj, status: { multiNode: 'yes' } })).toEqual([
      'status.multiNode: Invalid value: "string": status.multiNode in body must be of type boolean: "string"',
    ]);
  });
});
