/**
 * compose-eks-cluster: whole-response table tests for the §8.6 EKS extras and
 * our additions (a class without an EKS instance type, zones outside the
 * cluster, the reserved `system` pool, unusable CIDRs, an unparseable spec,
 * InferenceCluster nulls, the StorageClass never dropped).
 */
import { describe, expect, it } from 'vitest';
import { compose } from '../../functions/compose-eks-cluster/compose.js';
import type { ComposeRequest, ComposeResult, JsonObject, KubeObject } from '../../functions/lib/function.js';
import { eksPool, eksXr, poolA, poolH200, request, seen } from '../builders/cloud.js';
import {
  autoscalerRelease,
  body,
  efaSecurityGroup,
  golden,
  launchTemplateH200,
  nodeGroupH200,
  eksStatus,
  STATUS,
  want,
  without,
} from './eks-expected.js';

const EKS = 'eks.aws.m.upbound.io/v1beta1';
const K8S = 'kubernetes.m.crossplane.io/v1alpha1';
const KEPT = 'Nothing new is composed for this pool; what exists is kept.';

/** A golden node group with forProvider overrides (undefined removes a field). */
function nodeGroup(from: string, forProvider: JsonObject, desiredSize = 1): KubeObject {
  const ng = golden()[from]!.resource;
  const spec = ng['spec'] as JsonObject;
  const fp = { ...(spec['forProvider'] as JsonObject), ...forProvider };
  for (const [k, v] of Object.entries(fp)) if (v === undefined) delete fp[k];
  return { ...ng, spec: { ...spec, forProvider: fp, initProvider: { scalingConfig: { desiredSize } } } };
}

/** A False SpecValid condition and the Warning results of `messages`. */
function invalid(reason: string, messages: string[]): Pick<ComposeResult, 'conditions' | 'results'> {
  return {
    conditions: [{ type: 'SpecValid', status: 'False', reason, message: messages.join(' ') }],
    results: messages.map((message) => ({ severity: 'Warning' as const, message, reason })),
  };
}

/** A pool as an InferenceCluster passes it when its class has no EKS block: className, counts and zones, no instanceType or gpu. */
const noInstanceType = (): JsonObject => ({
  name: 'gpu-l4',
  role: 'GPU',
  className: 'l4-1x-g6',
  nodeCount: 1,
  minNodeCount: 0,
  maxNodeCount: 4,
  zones: ['us-west-2a'],
});
const L4_NO_TYPE = `spec.nodePools[0] (gpu-l4): InferenceClass l4-1x-g6 has no EKS instance type (spec.provisioning.eks.instanceType); set it on the class or point the pool at an EKS class. ${KEPT}`;

const cases: { name: string; reason: string; req: () => ComposeRequest; want: ComposeResult; keys: number }[] = [
  {
    name: 'Spot pool',
    reason: 'docs/capacity-types.md#eks: the node group buys Spot instances (capacityType SPOT), nothing else changes',
    req: () => request(eksXr([{ ...poolA(), capacityType: 'Spot' }])),
    want: want({ ...golden(), 'nodegroup-gpu-l4': body(nodeGroup('nodegroup-gpu-l4', { capacityType: 'SPOT' })) }),
    keys: 50,
  },
  {
    name: 'OnDemand pool',
    reason: 'an explicit OnDemand pool composes exactly as a pool without capacityType (no capacityType on the node group)',
    req: () => request(eksXr([{ ...poolA(), capacityType: 'OnDemand' }])),
    want: want(golden()),
    keys: 50,
  },
  {
    name: 'Spot pool with a capacity block',
    reason: 'a Capacity Block is a reservation and cannot be bought as Spot: refused, nothing composed for the pool',
    req: () => request(eksXr([{ ...poolA(), capacityType: 'Spot', capacityBlock: { capacityReservationId: 'cr-0123456789abcdef0' } }])),
    want: want(
      without(golden(), 'nodegroup-gpu-l4'),
      invalid('InvalidNodePool', [
        `spec.nodePools[0].capacityType: Spot cannot use spec.nodePools[0].capacityBlock (a Capacity Block is a reservation); drop capacityType for the reservation, or drop capacityBlock for Spot. ${KEPT}`,
      ]),
    ),
    keys: 49,
  },
  {
    name: '8.6 two subnet CIDRs',
    reason: 'subnet, association and mount-target keys exist for indices 0 and 1 only',
    req: () => request(eksXr(undefined, { networking: { subnetCidrs: ['10.0.0.0/20', '10.0.16.0/20'] } })),
    want: want(
      without(
        golden(),
        'subnet-2',
        'private-subnet-2',
        'route-table-association-2',
        'private-route-table-association-2',
        'efs-mount-target-2',
      ),
    ),
    keys: 45,
  },
  {
    name: '8.6 System-role pool without zones',
    reason: 'STANDARD AMI, no taint, pool label only, private subnets by tier selector',
    req: () => request(eksXr([poolA(), { name: 'cpu', role: 'System', instanceType: 'm6i.2xlarge' }])),
    want: want({
      ...golden(),
      'nodegroup-cpu': body(
        nodeGroup('nodegroup-gpu-l4', {
          amiType: 'AL2023_x86_64_STANDARD',
          instanceTypes: ['m6i.2xlarge'],
          subnetIdRefs: undefined,
          subnetIdSelector: { matchControllerRef: true, matchLabels: { 'modelplane.ai/subnet-tier': 'private' } },
          scalingConfig: { minSize: 0, maxSize: 8 },
          labels: { 'modelplane.ai/pool': 'cpu' },
          taint: undefined,
        }),
      ),
    }),
    keys: 51,
  },
  {
    name: '8.6 EFA on an instance type outside the table',
    reason: 'a type without a card count gets exactly one efa interface',
    req: () => request(eksXr([poolH200({ fabric: 'EFA', instanceType: 'g6.xlarge' })])),
    want: want({
      ...without(golden(), 'nodegroup-gpu-l4'),
      'launch-template-gpu-h200': body(launchTemplateH200({ efa: { cards: 1 }, instanceType: 'g6.xlarge' })),
      ...efaSecurityGroup(),
      'nodegroup-gpu-h200': body(nodeGroupH200(false)),
    }, { status: eksStatus('EFA') }),
    keys: 54,
  },
  {
    name: '8.6 autoscaler release observed, cluster not',
    reason: 'a release once created is never dropped, even without the observed cluster',
    req: () => request(eksXr(), { 'release-cluster-autoscaler': seen('helm.m.crossplane.io/v1beta1', 'Release') }),
    want: want({ ...golden(), 'release-cluster-autoscaler': body(autoscalerRelease) }),
    keys: 51,
  },
  {
    name: 'InferenceCluster nulls',
    reason: 'explicit null bounds are pruned like the API server does, so the XRD defaults 0..8 apply',
    req: () => request(eksXr([{ ...poolA(), minNodeCount: null, maxNodeCount: null }])),
    want: want({
      ...golden(),
      'nodegroup-gpu-l4': body(nodeGroup('nodegroup-gpu-l4', { scalingConfig: { minSize: 0, maxSize: 8 } })),
    }),
    keys: 50,
  },
  {
    name: 'class without instance type, first pass',
    reason: 'the pool is reported by pool and class, nothing is composed for it, the cluster is',
    req: () => request(eksXr([noInstanceType()])),
    want: want(without(golden(), 'nodegroup-gpu-l4'), invalid('InvalidNodePool', [L4_NO_TYPE])),
    keys: 49,
  },
  {
    name: 'class without instance type, node group exists',
    reason: 'the existing node group is passed through as observed, never deleted',
    req: () => request(eksXr([noInstanceType()]), { 'nodegroup-gpu-l4': seen(EKS, 'NodeGroup', { ready: true }) }),
    want: want(
      {
        ...without(golden(), 'nodegroup-gpu-l4'),
        'nodegroup-gpu-l4': { resource: { apiVersion: EKS, kind: 'NodeGroup', metadata: { name: 'nodegroup-x' } }, ready: true },
      },
      invalid('InvalidNodePool', [L4_NO_TYPE]),
    ),
    keys: 50,
  },
  {
    name: 'zone outside the cluster, reserved name',
    reason: 'a dangling subnet reference and a pool overwriting the system node group are refused, sorted by pool',
    req: () =>
      request(eksXr([{ ...poolA(), zones: ['us-west-2a', 'us-west-2d'] }, eksPool('system', { instanceType: 'm6i.xlarge', zones: ['us-west-2a'] })])),
    want: want(
      without(golden(), 'nodegroup-gpu-l4'),
      invalid('InvalidNodePool', [
        `spec.nodePools[0].zones[1]: us-west-2d is not a zone of this cluster (us-west-2a, us-west-2b, us-west-2c); use one of them, or add a subnet CIDR to spec.networking.subnetCidrs. ${KEPT}`,
        `spec.nodePools[1].name: "system" is reserved for the injected system node group; rename the pool. ${KEPT}`,
      ]),
    ),
    keys: 49,
  },
  {
    name: 'pool name that is not a label value',
    reason: 'refused by the function too (the XRD refuses it first): never composed, its observed node group kept',
    req: () =>
      request(eksXr([{ ...poolA(), name: 'gpu.l4.' }]), {
        'nodegroup-gpu.l4.': seen(EKS, 'NodeGroup', { ready: true }),
      }),
    want: want(
      {
        ...without(golden(), 'nodegroup-gpu-l4'),
        'nodegroup-gpu.l4.': { resource: { apiVersion: EKS, kind: 'NodeGroup', metadata: { name: 'nodegroup-x' } }, ready: true },
      },
      invalid('InvalidNodePool', [
        `spec.nodePools[0].name: "gpu.l4." is not a Kubernetes label value (at most 63 letters, digits, '-', '_' or '.', beginning and ending with a letter or digit), so it cannot label the pool's nodes; rename the pool. ${KEPT}`,
      ]),
    ),
    keys: 50,
  },
  {
    name: 'subnet CIDR without a private counterpart',
    reason: 'unusable networking keeps every observed child and names the CIDR and the fix',
    req: () =>
      request(eksXr(undefined, { networking: { subnetCidrs: ['10.0.0.0/20', '10.0.240.0/20', '10.0/20'] } }), {
        vpc: seen('ec2.aws.m.upbound.io/v1beta1', 'VPC', { ready: true }),
        'provider-config-helm': seen('helm.m.crossplane.io/v1beta1', 'ProviderConfig'),
      }),
    want: {
      resources: {
        vpc: { resource: { apiVersion: 'ec2.aws.m.upbound.io/v1beta1', kind: 'VPC', metadata: { name: 'vpc-x' } }, ready: true },
        'provider-config-helm': {
          resource: { apiVersion: 'helm.m.crossplane.io/v1beta1', kind: 'ProviderConfig', metadata: { name: 'providerconfig-x' } },
          ready: true,
        },
      },
      ...invalid('InvalidNetworking', [
        'spec.networking.subnetCidrs[1]: 10.0.240.0/20 has no private counterpart (third octet 240 + 48 exceeds 255); use a CIDR whose third octet is at most 207. spec.networking.subnetCidrs[2]: "10.0/20" is not an IPv4 CIDR (a.b.c.d/n); set an IPv4 CIDR such as 10.0.0.0/20. Nothing is changed until then.',
      ]),
      requirements: {},
    },
    keys: 2,
  },
  {
    name: 'unparseable spec',
    reason: 'a spec that does not parse keeps the status written before and names the field',
    req: () => {
      const xr = eksXr([{ ...poolA(), diskSizeGb: 5 }]);
      xr['status'] = { ...STATUS };
      return request(xr);
    },
    want: {
      resources: {},
      status: STATUS,
      ...invalid('InvalidSpec', [
        'EKSCluster spec is invalid: spec.nodePools[0].diskSizeGb: Too small: expected number to be >=10. Fix the fields named; nothing is changed until then.',
      ]),
      requirements: {},
    },
    keys: 0,
  },
  {
    name: 'StorageClass kept while the file system id is unknown',
    reason: 'an observed StorageClass Object is never dropped because an external name is briefly missing',
    req: () => request(eksXr(), { 'storage-class-rwx-efs': seen(K8S, 'Object', { ready: true }) }),
    want: want({
      ...golden(),
      'storage-class-rwx-efs': { resource: { apiVersion: K8S, kind: 'Object', metadata: { name: 'object-x' } }, ready: true },
    }),
    keys: 51,
  },
];

describe('compose-eks-cluster §8.6 and invalid input', () => {
  it.each(cases)('$name ($keys keys): $reason', ({ req, want: expected, keys }) => {
    const got = compose(req());
    expect(got).toEqual(expected);
    expect(Object.keys(got.resources)).toHaveLength(keys);
  });
});
