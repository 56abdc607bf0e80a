/**
 * compose-inference-class: whole-response table tests (docs/kinds/inferenceclass.md#what-the-function-does,
 * with our published devices and multiNode of docs/design.md#multi-node-needs-a-fabric).
 */
import { Ready, RunFunctionRequest, RunFunctionResponse } from '@crossplane-org/function-sdk-typescript';
import { describe, expect, it } from 'vitest';
import { compose } from '../../functions/compose-inference-class/compose.js';
import type { ComposeRequest, ComposeResult, JsonObject } from '../../functions/lib/function.js';
import { handler } from '../../functions/lib/sdk.js';

const l4Device = { name: 'gpu', claim: 'DRA', driver: 'gpu.nvidia.com', deviceClassName: 'gpu.nvidia.com', count: 1, capacity: { memory: { value: '24Gi' } } };

function request(spec: JsonObject): ComposeRequest {
  return {
    composite: { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceClass', metadata: { name: 'gpu-l4' }, spec },
    observed: {},
    desired: {},
    required: {},
    context: {},
    credentials: {},
  };
}

const cases: { name: string; reason: string; spec: JsonObject; want: ComposeResult }[] = [
  {
    name: 'IC-L1',
    reason: 'a GKE class with one DRA device is Accepted and Ready, composes nothing, and can serve gangs',
    spec: {
      provisioning: { provider: 'GKE', gke: { machineType: 'g2-standard-48', diskSizeGb: 100, accelerator: { type: 'nvidia-l4', count: 1 } } },
      devices: [l4Device],
    },
    want: {
      resources: {},
      status: { devices: [l4Device], multiNode: true },
      ready: true,
      conditions: [{ type: 'Accepted', status: 'True', reason: 'Available' }],
      results: [],
      requirements: {},
    },
  },
  {
    name: 'vultr-no-fabric',
    reason: 'a class provisioned on Vultr publishes multiNode false (VKE has no GPU fabric)',
    spec: {
      provisioning: { provider: 'Vultr', vultr: { plan: 'vcg-a16-6c-64g-16vram', accelerator: { type: 'nvidia-a16', count: 1 } } },
      devices: [{ name: 'gpu', driver: 'gpu.nvidia.com', deviceClassName: 'gpu.nvidia.com', capacity: { memory: { value: '16384Mi' } } }],
    },
    want: {
      resources: {},
      status: {
        devices: [{ name: 'gpu', driver: 'gpu.nvidia.com', deviceClassName: 'gpu.nvidia.com', capacity: { memory: { value: '16384Mi' } }, claim: 'DRA', count: 1 }],
        multiNode: false,
      },
      ready: true,
      conditions: [{ type: 'Accepted', status: 'True', reason: 'Available' }],
      results: [],
      requirements: {},
    },
  },
  {
    name: 'byo-sorted',
    reason: 'a class without provisioning (brought-your-own pools) can serve gangs; devices come out sorted by name with defaults applied',
    spec: {
      devices: [
        { name: 'nic', claim: 'Synthetic', driver: 'rdma.example.com', count: 8 },
        { name: 'gpu', driver: 'gpu.nvidia.com', deviceClassName: 'gpu.nvidia.com', count: 8 },
      ],
    },
    want: {
      resources: {},
      status: {
        devices: [
          { name: 'gpu', driver: 'gpu.nvidia.com', deviceClassName: 'gpu.nvidia.com', count: 8, claim: 'DRA' },
          { name: 'nic', claim: 'Synthetic', driver: 'rdma.example.com', count: 8 },
        ],
        multiNode: true,
      },
      ready: true,
      conditions: [{ type: 'Accepted', status: 'True', reason: 'Available' }],
      results: [],
      requirements: {},
    },
  },
  {
    name: 'invalid-quantity',
    reason: 'a capacity of 46GB (not a quantity) would match no selector silently: Accepted False InvalidQuantity, a Warning, not Ready',
    spec: { devices: [{ name: 'gpu', driver: 'gpu.nvidia.com', deviceClassName: 'gpu.nvidia.com', capacity: { memory: { value: '46GB' } } }] },
    want: {
      resources: {},
      status: {
        devices: [{ name: 'gpu', driver: 'gpu.nvidia.com', deviceClassName: 'gpu.nvidia.com', capacity: { memory: { value: '46GB' } }, claim: 'DRA', count: 1 }],
        multiNode: true,
      },
      ready: false,
      conditions: [
        {
          type: 'Accepted',
          status: 'False',
          reason: 'InvalidQuantity',
          message:
            'spec.devices[0].capacity[memory].value: "46GB" is not a Kubernetes quantity (e.g. 46068Mi or 48G; units Ki Mi Gi Ti Pi Ei or k M G T P E); a selector comparing it matches no device',
        },
      ],
      results: [
        {
          severity: 'Warning',
          message:
            'spec.devices[0].capacity[memory].value: "46GB" is not a Kubernetes quantity (e.g. 46068Mi or 48G; units Ki Mi Gi Ti Pi Ei or k M G T P E); a selector comparing it matches no device',
        },
      ],
      requirements: {},
    },
  },
];

it('names the real index of a bad quantity when an entry before it is not an object', () => {
  const out = compose(request({ devices: [null, { name: 'gpu', driver: 'gpu.nvidia.com', deviceClassName: 'gpu.nvidia.com', capacity: { memory: { value: '46GB' } } }] }));
  expect(out.conditions.map((c) => [c.reason, (c.message ?? '').split(':')[0]])).toEqual([['InvalidQuantity', 'spec.devices[1].capacity[memory].value']]);
});

describe('compose-inference-class', () => {
  it.each(cases)('$name: $reason', ({ spec, want }) => {
    expect(compose(request(spec))).toEqual(want);
  });

  it('over the wire: the XR is marked READY_TRUE, TTL 60s, no resources or requirements', () => {
    const rsp = handler('compose-inference-class', compose)(
      RunFunctionRequest.fromPartial({
        meta: { tag: 't' },
        observed: { composite: { resource: request(cases[0]!.spec).composite } },
      }),
    );
    expect(RunFunctionResponse.toJSON(rsp)).toEqual({
      meta: { tag: 't', ttl: { seconds: 60 } },
      desired: { composite: { resource: { status: cases[0]!.want.status }, ready: 'READY_TRUE' } },
      context: {},
      conditions: [{ type: 'Accepted', status: 'STATUS_CONDITION_TRUE', reason: 'Available', target: 'TARGET_COMPOSITE' }],
    });
    expect(rsp.desired?.composite?.ready).toBe(Ready.READY_TRUE);
  });
});
