/**
 * The golden of the first EKS case checked against facts written out by hand
 * (cases 2–10, docs/clouds.md#names, the IAM JSON of docs/clouds.md#eks-iam),
 * so the golden the table tests build on is not merely what the code
 * happened to print.
 */
import { describe, expect, it } from 'vitest';
import { getPath, type JsonObject } from '../../functions/lib/function.js';
import { EKS_NAME, KUBECONFIG } from '../builders/cloud.js';
import { golden } from './eks-expected.js';

const g = golden();
const fp = (key: string, ...path: string[]) => getPath(g[key]?.resource, 'spec', 'forProvider', ...path);

describe('golden of §8.1 case 1', () => {
  it('2: VPC and subnets: names, zones and CIDRs', () => {
    expect(fp('vpc')).toEqual({ region: 'us-west-2', cidrBlock: '10.0.0.0/16', enableDnsHostnames: true, enableDnsSupport: true });
    const subnets = [0, 1, 2].map((i) => [
      g[`subnet-${i}`]!.resource.metadata?.name,
      fp(`subnet-${i}`, 'cidrBlock'),
      g[`private-subnet-${i}`]!.resource.metadata?.name,
      fp(`private-subnet-${i}`, 'cidrBlock'),
    ]);
    expect(subnets).toEqual([
      ['test-cluster-subnet-us-west-2a-952dc', '10.0.0.0/20', 'test-cluster-private-subnet-us-west-2a-6a89f', '10.0.48.0/20'],
      ['test-cluster-subnet-us-west-2b-2b80f', '10.0.16.0/20', 'test-cluster-private-subnet-us-west-2b-b7832', '10.0.64.0/20'],
      ['test-cluster-subnet-us-west-2c-03273', '10.0.32.0/20', 'test-cluster-private-subnet-us-west-2c-ef57d', '10.0.80.0/20'],
    ]);
    expect([fp('subnet-0', 'mapPublicIpOnLaunch'), fp('subnet-0', 'tags')]).toEqual([true, { 'kubernetes.io/role/elb': '1' }]);
    expect([fp('private-subnet-0', 'mapPublicIpOnLaunch'), fp('private-subnet-0', 'tags')]).toEqual([false, undefined]);
  });

  it('3: one NAT gateway in the first zone; routes by tier', () => {
    expect(fp('nat-gateway', 'subnetIdSelector')).toEqual({
      matchControllerRef: true,
      matchLabels: { 'modelplane.ai/zone': 'us-west-2a', 'modelplane.ai/subnet-tier': 'public' },
    });
    expect(fp('private-route-default', 'natGatewayIdSelector')).toEqual({ matchControllerRef: true });
    expect(fp('route-default', 'gatewayIdSelector')).toEqual({ matchControllerRef: true });
  });

  it('4–5: the EKS cluster and its kubeconfig', () => {
    expect(g['cluster']!.resource.metadata).toEqual({ name: EKS_NAME });
    expect([fp('cluster', 'version'), fp('cluster', 'accessConfig'), fp('cluster', 'vpcConfig')]).toEqual([
      '1.36',
      { authenticationMode: 'API_AND_CONFIG_MAP', bootstrapClusterCreatorAdminPermissions: true },
      { endpointPrivateAccess: true, endpointPublicAccess: true, subnetIdSelector: { matchControllerRef: true } },
    ]);
    expect(getPath(g['cluster-auth']!.resource, 'spec', 'writeConnectionSecretToRef')).toEqual({ name: KUBECONFIG });
  });

  it('6–7: system and GPU node groups', () => {
    const ng = (k: string) => g[k]!.resource['spec'] as JsonObject;
    for (const k of ['nodegroup-system', 'nodegroup-gpu-l4']) {
      expect(ng(k)['managementPolicies']).toEqual(['Observe', 'Create', 'Update', 'Delete']);
    }
    expect([fp('nodegroup-system', 'instanceTypes'), fp('nodegroup-system', 'amiType'), fp('nodegroup-system', 'diskSize')]).toEqual([
      ['m6i.xlarge'],
      'AL2023_x86_64_STANDARD',
      undefined,
    ]);
    expect(ng('nodegroup-system')['initProvider']).toEqual({ scalingConfig: { desiredSize: 1 } });
    expect(fp('nodegroup-gpu-l4', 'subnetIdRefs')).toEqual([
      { name: 'test-cluster-private-subnet-us-west-2a-6a89f' },
      { name: 'test-cluster-private-subnet-us-west-2b-b7832' },
    ]);
    expect([fp('nodegroup-gpu-l4', 'amiType'), fp('nodegroup-gpu-l4', 'diskSize'), fp('nodegroup-gpu-l4', 'scalingConfig')]).toEqual([
      'AL2023_x86_64_NVIDIA',
      100,
      { minSize: 0, maxSize: 4 },
    ]);
    expect(fp('nodegroup-gpu-l4', 'taint')).toEqual([{ key: 'nvidia.com/gpu', value: 'true', effect: 'NO_SCHEDULE' }]);
  });

  it('8: addons and the EFS stack', () => {
    const addons = Object.keys(g)
      .filter((k) => k.startsWith('addon-'))
      .map((k) => fp(k, 'addonName'))
      .sort();
    expect(addons).toEqual(['aws-efs-csi-driver', 'coredns', 'eks-pod-identity-agent', 'kube-proxy', 'vpc-cni']);
    expect(fp('efs-security-group-ingress')).toMatchObject({ ipProtocol: 'tcp', fromPort: 2049, toPort: 2049, cidrIpv4: '10.0.0.0/16' });
    expect([0, 1, 2].map((i) => fp(`efs-mount-target-${i}`, 'subnetIdRef', 'name'))).toEqual([
      'test-cluster-private-subnet-us-west-2a-6a89f',
      'test-cluster-private-subnet-us-west-2b-b7832',
      'test-cluster-private-subnet-us-west-2c-ef57d',
    ]);
    expect([fp('pod-identity-efs-csi', 'namespace'), fp('pod-identity-efs-csi', 'serviceAccount')]).toEqual([
      'kube-system',
      'efs-csi-controller-sa',
    ]);
  });

  it('9 and §2.8: IAM JSON strings exactly', () => {
    expect(fp('iam-role-cluster', 'assumeRolePolicy')).toBe(
      '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"eks.amazonaws.com"},"Action":"sts:AssumeRole"}]}',
    );
    expect(fp('iam-role-node', 'assumeRolePolicy')).toBe(
      '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"ec2.amazonaws.com"},"Action":"sts:AssumeRole"}]}',
    );
    const podTrust =
      '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"pods.eks.amazonaws.com"},"Action":["sts:AssumeRole","sts:TagSession"]}]}';
    expect([fp('iam-role-efs-csi', 'assumeRolePolicy'), fp('iam-role-cluster-autoscaler', 'assumeRolePolicy')]).toEqual([podTrust, podTrust]);
    const policy = JSON.parse(fp('iam-policy-cluster-autoscaler', 'policy') as string);
    expect(policy.Statement.map((s: JsonObject) => s['Action'])).toEqual([
      [
        'autoscaling:DescribeAutoScalingGroups',
        'autoscaling:DescribeAutoScalingInstances',
        'autoscaling:DescribeLaunchConfigurations',
        'autoscaling:DescribeScalingActivities',
        'ec2:DescribeImages',
        'ec2:DescribeInstanceTypes',
        'ec2:DescribeLaunchTemplateVersions',
        'ec2:GetInstanceTypesFromInstanceRequirements',
        'eks:DescribeNodegroup',
      ],
      ['autoscaling:SetDesiredCapacity', 'autoscaling:TerminateInstanceInAutoScalingGroup'],
    ]);
    expect(fp('iam-policy-cluster-autoscaler', 'policy')).not.toMatch(/\s/);
    expect(fp('iam-attach-cluster-autoscaler', 'policyArn')).toBeUndefined();
  });

  it('10: ProviderConfigs named like the kubeconfig, ready', () => {
    for (const k of ['provider-config-kubernetes', 'provider-config-helm']) {
      expect(g[k]!.ready).toBe(true);
      expect(g[k]!.resource.metadata).toEqual({ name: KUBECONFIG });
      expect(getPath(g[k]!.resource, 'spec', 'credentials', 'secretRef')).toEqual({
        name: KUBECONFIG,
        namespace: 'modelplane-system',
        key: 'kubeconfig',
      });
    }
  });

  it('§2.3: every AWS MR is regional except IAM; nothing else is ready', () => {
    for (const [k, d] of Object.entries(g)) {
      if (k.startsWith('provider-config-')) continue;
      const region = fp(k, 'region');
      expect([k, region]).toEqual([k, d.resource.apiVersion.startsWith('iam.') ? undefined : 'us-west-2']);
      expect([k, d.ready]).toEqual([k, undefined]);
    }
  });
});
