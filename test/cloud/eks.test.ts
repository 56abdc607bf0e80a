/**
 * compose-eks-cluster: whole-response table tests for every acceptance case
 * of docs/clouds.md#eks (cases 2–10 are facts inside case 1's golden,
 * checked in eks-golden.test.ts). Each case is a fresh request and the entire
 * expected response, expressed as a change to the reviewed golden.
 */
import { describe, expect, it } from 'vitest';
import { compose } from '../../functions/compose-eks-cluster/compose.js';
import type { ComposeRequest, ComposeResult, JsonObject } from '../../functions/lib/function.js';
import { eksXr, poolH200, request, seen } from '../builders/cloud.js';
import {
  autoscalerRelease,
  body,
  efaDraRelease,
  efaSecurityGroup,
  eksStatus,
  golden,
  launchTemplateH200,
  nodeGroupH200,
  ready,
  storageClassObject,
  want,
  without,
} from './eks-expected.js';

const EKS = 'eks.aws.m.upbound.io/v1beta1';
const cbXr = () => eksXr([poolH200({ capacityBlock: { capacityReservationId: 'cr-0123456789abcdef0' } })]);
const efaXr = () => eksXr([poolH200({ fabric: 'EFA' })]);
const efaBase = () => ({
  ...without(golden(), 'nodegroup-gpu-l4'),
  'launch-template-gpu-h200': body(launchTemplateH200({ efa: { cards: 16 } })),
  ...efaSecurityGroup(),
  'nodegroup-gpu-h200': body(nodeGroupH200(false)),
});

/** Case 17: every AWS key of the golden with the named ProviderConfig. */
function withCredentials(kind: string, name: string): ComposeResult['resources'] {
  const out = golden();
  for (const [key, d] of Object.entries(out)) {
    if (key.startsWith('provider-config-')) continue;
    (d.resource['spec'] as JsonObject)['providerConfigRef'] = { kind, name };
  }
  return out;
}

const cases: { name: string; reason: string; req: () => ComposeRequest; want: ComposeResult; keys: number }[] = [
  {
    name: '8.1-1 XR A first pass',
    reason: 'the 50 keys of §2.7; only the ProviderConfigs ready; no releases, no StorageClass, no results',
    req: () => request(eksXr()),
    want: want(golden()),
    keys: 50,
  },
  {
    name: '8.1-11 cluster, auth and EFS observed',
    reason: 'adds the EFS StorageClass (ready) and the autoscaler release (not ready); the three observed keys ready',
    req: () =>
      request(eksXr(), {
        cluster: seen(EKS, 'Cluster', { ready: true }),
        'cluster-auth': seen(EKS, 'ClusterAuth', { ready: true }),
        'efs-filesystem': seen('efs.aws.m.upbound.io/v1beta1', 'FileSystem', { ready: true, externalName: 'fs-0abc123' }),
      }),
    want: want({
      ...ready(golden(), 'cluster', 'cluster-auth', 'efs-filesystem'),
      'storage-class-rwx-efs': { resource: storageClassObject('fs-0abc123'), ready: true },
      'release-cluster-autoscaler': body(autoscalerRelease),
    }),
    keys: 52,
  },
  {
    name: '8.1-12 capacity block',
    reason: 'the pool launches through a capacity-block template: CAPACITY_BLOCK, $Latest, no instanceTypes/diskSize',
    req: () => request(cbXr()),
    want: want({
      ...without(golden(), 'nodegroup-gpu-l4'),
      'launch-template-gpu-h200': body(launchTemplateH200({ capacityBlock: true })),
      'nodegroup-gpu-h200': body(nodeGroupH200(true)),
    }),
    keys: 51,
  },
  {
    name: '8.1-13 EFA pool',
    reason: '16 EFA interfaces for p5en.48xlarge without security groups yet, the shared EFA SG and rules; no releases',
    req: () => request(efaXr()),
    want: want(efaBase(), { status: eksStatus('EFA') }),
    keys: 54,
  },
  {
    name: '8.1-14 EFA security groups observed',
    reason: 'every interface gets [EFA SG id, cluster SG id]; the observed cluster opens both release gates',
    req: () =>
      request(efaXr(), {
        cluster: seen(EKS, 'Cluster', { status: { atProvider: { vpcConfig: { clusterSecurityGroupId: 'sg-0cluster' } } } }),
        'efa-security-group': seen('ec2.aws.m.upbound.io/v1beta1', 'SecurityGroup', { externalName: 'sg-0efa' }),
      }),
    want: want({
      ...efaBase(),
      'launch-template-gpu-h200': body(launchTemplateH200({ efa: { cards: 16, sgs: ['sg-0efa', 'sg-0cluster'] } })),
      'release-cluster-autoscaler': body(autoscalerRelease),
      'release-efa-dra-driver': body(efaDraRelease),
    }, { status: eksStatus('EFA') }),
    keys: 56,
  },
  {
    name: '8.1-15 EFA cluster Ready',
    reason: 'the EFA DRA driver release is composed once the cluster is observed',
    req: () => request(efaXr(), { cluster: seen(EKS, 'Cluster', { ready: true }) }),
    want: want({
      ...ready(efaBase(), 'cluster'),
      'release-cluster-autoscaler': body(autoscalerRelease),
      'release-efa-dra-driver': body(efaDraRelease),
    }, { status: eksStatus('EFA') }),
    keys: 56,
  },
  {
    name: '8.1-16 no EFA, cluster Ready',
    reason: 'without an EFA pool there is no DRA driver release; the autoscaler release is composed',
    req: () => request(eksXr(), { cluster: seen(EKS, 'Cluster', { ready: true }) }),
    want: want({ ...ready(golden(), 'cluster'), 'release-cluster-autoscaler': body(autoscalerRelease) }),
    keys: 51,
  },
  {
    name: '8.1-17 credentials',
    reason: 'each of the 48 AWS MRs uses the named ProviderConfig; the in-cluster ProviderConfigs carry none',
    req: () => request(eksXr(undefined, { credentials: { type: 'ProviderConfig', name: 'my-aws-account' } })),
    want: want(withCredentials('ProviderConfig', 'my-aws-account')),
    keys: 50,
  },
];

describe('compose-eks-cluster §8.1', () => {
  it.each(cases)('$name ($keys keys): $reason', ({ req, want: expected, keys }) => {
    const got = compose(req());
    expect(got).toEqual(expected);
    expect(Object.keys(got.resources)).toHaveLength(keys);
  });

  it('8.1-17: the 48 AWS keys are all but the two ProviderConfigs', () => {
    const keys = Object.keys(golden()).filter((k) => !k.startsWith('provider-config-'));
    expect(keys).toHaveLength(48);
  });

});
