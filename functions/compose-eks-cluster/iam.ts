/**
 * IAM of the EKS cluster: the control-plane and node roles with their AWS
 * managed policies, and the pod-identity roles of the EFS CSI driver and the
 * cluster autoscaler (docs/clouds.md#eks-iam).
 *
 * Guarantees: every policy document is compact JSON (no spaces), byte-equal
 * to the reference's, with `Version: 2012-10-17` and statements in the
 * reference's order. Roles carry `modelplane.ai/iam-role: <role>` and every
 * attachment selects its role (and policy) by controller ref plus that label.
 * IAM is global: no region.
 */
import type { KubeObject } from '../lib/function.js';
import { controllerRef, type EksContext, IAM, LABEL, mr } from './aws.js';

const VERSION = '2012-10-17';

/** Trust policy letting an AWS service assume the role with `sts:AssumeRole` (cluster: `eks.amazonaws.com`, nodes: `ec2.amazonaws.com`). */
export function serviceTrust(service: string): string {
  return JSON.stringify({
    Version: VERSION,
    Statement: [{ Effect: 'Allow', Principal: { Service: service }, Action: 'sts:AssumeRole' }],
  });
}

/** EKS Pod Identity trust (`pods.eks.amazonaws.com`, `sts:AssumeRole` + `sts:TagSession`). */
export const POD_IDENTITY_TRUST = JSON.stringify({
  Version: VERSION,
  Statement: [
    {
      Effect: 'Allow',
      Principal: { Service: 'pods.eks.amazonaws.com' },
      Action: ['sts:AssumeRole', 'sts:TagSession'],
    },
  ],
});

/** The cluster autoscaler's permissions: describe everything it models, scale only ASGs. */
export const CLUSTER_AUTOSCALER_POLICY = JSON.stringify({
  Version: VERSION,
  Statement: [
    {
      Effect: 'Allow',
      Action: [
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
      Resource: ['*'],
    },
    {
      Effect: 'Allow',
      Action: ['autoscaling:SetDesiredCapacity', 'autoscaling:TerminateInstanceInAutoScalingGroup'],
      Resource: ['*'],
    },
  ],
});

const AWS_POLICY = 'arn:aws:iam::aws:policy/';

/** A Role labelled `modelplane.ai/iam-role: <role>` with the given trust policy. */
export function role(ctx: EksContext, roleLabel: string, assumeRolePolicy: string): KubeObject {
  return mr(ctx, IAM, 'Role', { assumeRolePolicy }, { labels: { [LABEL.iamRole]: roleLabel }, regional: false });
}

/** A RolePolicyAttachment of a literal policy ARN to the role labelled `roleLabel`. */
export function attach(ctx: EksContext, roleLabel: string, policyArn: string): KubeObject {
  return mr(
    ctx,
    IAM,
    'RolePolicyAttachment',
    { policyArn, roleSelector: controllerRef({ [LABEL.iamRole]: roleLabel }) },
    { regional: false },
  );
}

/** The control-plane and node roles and their four managed-policy attachments (6 keys). */
export function clusterIam(ctx: EksContext): Record<string, KubeObject> {
  return {
    'iam-role-cluster': role(ctx, 'cluster', serviceTrust('eks.amazonaws.com')),
    'iam-attach-cluster-policy': attach(ctx, 'cluster', `${AWS_POLICY}AmazonEKSClusterPolicy`),
    'iam-role-node': role(ctx, 'node', serviceTrust('ec2.amazonaws.com')),
    'iam-attach-node-worker': attach(ctx, 'node', `${AWS_POLICY}AmazonEKSWorkerNodePolicy`),
    'iam-attach-node-cni': attach(ctx, 'node', `${AWS_POLICY}AmazonEKS_CNI_Policy`),
    'iam-attach-node-ecr': attach(ctx, 'node', `${AWS_POLICY}AmazonEC2ContainerRegistryReadOnly`),
  };
}

/** The EFS CSI driver's pod-identity role and its AWS managed policy (2 keys). */
export function efsCsiIam(ctx: EksContext): Record<string, KubeObject> {
  return {
    'iam-role-efs-csi': role(ctx, 'efs-csi', POD_IDENTITY_TRUST),
    'iam-attach-efs-csi': attach(ctx, 'efs-csi', `${AWS_POLICY}service-role/AmazonEFSCSIDriverPolicy`),
  };
}

/** The autoscaler's Policy, pod-identity Role and their attachment by selectors (3 keys). */
export function autoscalerIam(ctx: EksContext): Record<string, KubeObject> {
  const labels = { [LABEL.iamRole]: 'cluster-autoscaler' };
  return {
    'iam-policy-cluster-autoscaler': mr(
      ctx,
      IAM,
      'Policy',
      { policy: CLUSTER_AUTOSCALER_POLICY },
      { labels, regional: false },
    ),
    'iam-role-cluster-autoscaler': role(ctx, 'cluster-autoscaler', POD_IDENTITY_TRUST),
    'iam-attach-cluster-autoscaler': mr(
      ctx,
      IAM,
      'RolePolicyAttachment',
      { policyArnSelector: controllerRef(labels), roleSelector: controllerRef(labels) },
      { regional: false },
    ),
  };
}
