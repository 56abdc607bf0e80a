/**
 * The EKS control plane and what reaches into it: the Cluster, ClusterAuth
 * (the kubeconfig Secret), managed addons, Pod Identity associations and the
 * kubernetes/helm ProviderConfigs (docs/clouds.md#eks-control-plane,
 * docs/clouds.md#reaching-the-workload-cluster).
 *
 * Guarantees: the Cluster MR is named `child_name(<ns>, <xr>, "eks")`, which
 * becomes the AWS cluster name (external-name defaulting) the autoscaler
 * discovers by; it selects every subnet of the XR (public and private). The
 * kubeconfig is minted by ClusterAuth with the provider's own credentials and
 * refreshed by it. ProviderConfigs carry only the kubeconfig (no identity,
 * never the AWS credentials).
 */
import type { KubeObject } from '../lib/function.js';
import { workloadProviderConfigs } from '../lib/workload.js';
import { controllerRef, EKS, type EksContext, LABEL, mr } from './aws.js';

/** The EKS `Cluster` (key `cluster`). */
export function eksCluster(ctx: EksContext): KubeObject {
  return mr(
    ctx,
    EKS,
    'Cluster',
    {
      version: ctx.spec.kubernetesVersion,
      roleArnSelector: controllerRef({ [LABEL.iamRole]: 'cluster' }),
      accessConfig: { authenticationMode: 'API_AND_CONFIG_MAP', bootstrapClusterCreatorAdminPermissions: true },
      vpcConfig: { endpointPrivateAccess: true, endpointPublicAccess: true, subnetIdSelector: controllerRef() },
    },
    { name: ctx.clusterName },
  );
}

/** The `ClusterAuth` writing the kubeconfig Secret (key `cluster-auth`). */
export function clusterAuth(ctx: EksContext): KubeObject {
  return mr(
    ctx,
    EKS,
    'ClusterAuth',
    { clusterNameSelector: controllerRef() },
    { spec: { writeConnectionSecretToRef: { name: ctx.kubeconfigSecret } } },
  );
}

/** An EKS managed `Addon` at its default version. */
export function addon(ctx: EksContext, addonName: string): KubeObject {
  return mr(ctx, EKS, 'Addon', { addonName, clusterNameSelector: controllerRef() });
}

/** The networking addons every cluster needs (3 keys). */
export function coreAddons(ctx: EksContext): Record<string, KubeObject> {
  return {
    'addon-vpc-cni': addon(ctx, 'vpc-cni'),
    'addon-kube-proxy': addon(ctx, 'kube-proxy'),
    'addon-coredns': addon(ctx, 'coredns'),
  };
}

/** A `PodIdentityAssociation` binding `kube-system/<serviceAccount>` to the role labelled `roleLabel`. */
export function podIdentity(ctx: EksContext, serviceAccount: string, roleLabel: string): KubeObject {
  return mr(ctx, EKS, 'PodIdentityAssociation', {
    namespace: 'kube-system',
    serviceAccount,
    clusterNameSelector: controllerRef(),
    roleArnSelector: controllerRef({ [LABEL.iamRole]: roleLabel }),
  });
}

/** The kubernetes and helm ProviderConfigs reaching the new cluster (2 keys, always ready). */
export function providerConfigs(ctx: EksContext): Record<string, KubeObject> {
  return workloadProviderConfigs(ctx.kubeconfigSecret, ctx.namespace);
}
