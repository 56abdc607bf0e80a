import { describe, expect, it } from 'vitest';
import { InferenceClassGVK, parseInferenceClass } from '../../functions/lib/generated/inferenceclasses.js';

const base = {
  ...InferenceClassGVK,
  metadata: { name: 'gpu-l4', uid: 'u-1', labels: { a: 'b' } },
  spec: {
    provisioning: { provider: 'GKE', gke: { machineType: 'g2-standard-8', accelerator: { type: 'nvidia-l4', count: 1 } } },
    devices: [{ name: 'gpu', driver: 'gpu.nvidia.com', deviceClassName: 'gpu.nvidia.com' }],
    crossplane: { compositionRef: { name: 'inferenceclasses.modelplane.ai' } },
  },
};

describe('generated parseInferenceClass', () => {
  it('applies the XRD defaults and keeps metadata', () => {
    const r = parseInferenceClass(base);
    expect(r.success).toBe(true);
    if (!r.success) return;
    expect(r.data.spec.devices).toEqual([
      { name: 'gpu', claim: 'DRA', driver: 'gpu.nvidia.com', deviceClassName: 'gpu.nvidia.com', count: 1 },
    ]);
    expect(r.data.spec.provisioning?.gke?.diskSizeGb).toBe(100);
    expect(r.data.metadata).toEqual({ name: 'gpu-l4', uid: 'u-1', labels: { a: 'b' } });
  });

  it('rejects unknown fields and wrong enums, naming the path', () => {
    const r = parseInferenceClass({ ...base, spec: { ...base.spec, devices: [{ name: 'gpu', driver: 'd', claim: 'Foo', extra: 1 }] } });
    expect(r.success).toBe(false);
    if (r.success) return;
    expect(r.error.issues.map((i) => `${i.path.join('.')}: ${i.code}`)).toEqual([
      'spec.devices.0.claim: invalid_value',
      'spec.devices.0: unrecognized_keys',
    ]);
  });

  it('rejects another kind and an out-of-range count', () => {
    expect(parseInferenceClass({ ...base, kind: 'InferenceCluster' }).success).toBe(false);
    const r = parseInferenceClass({ ...base, spec: { ...base.spec, devices: [{ name: 'gpu', driver: 'd', count: 65 }] } });
    expect(r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([
      'spec.devices.0.count: Too big: expected number to be <=64',
    ]);
  });
});
