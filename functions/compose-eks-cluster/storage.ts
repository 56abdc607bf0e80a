/**
 * RWX storage for ModelCache on EKS: an encrypted elastic EFS file system,
 * one mount target per private subnet behind an NFS-only security group, the
 * EFS CSI driver addon with its Pod Identity role, and the StorageClass
 * `modelplane-rwx-efs` (docs/clouds.md#eks-cache-storage).
 *
 * Guarantees: 11 keys for 3 zones (+1 mount target per extra zone), plus the
 * StorageClass once the file system's id is known. NFS (tcp/2049) is open to
 * the VPC CIDR only. The StorageClass is applied into the workload cluster
 * without Delete (orphaned on teardown, so no finalizer wedges once the
 * kubeconfig Secret is gone) and is ready as soon as it is composed.
 */
import type { KubeObject } from '../lib/function.js';
import { workloadStorageClass } from '../lib/workload.js';
import { controllerRef, EC2, EFS, type EksContext, LABEL, mr } from './aws.js';
import { addon, podIdentity } from './cluster.js';
import { efsCsiIam } from './iam.js';

/** Name of the RWX StorageClass composed into the workload cluster; published in `status.cache`. */
export const STORAGE_CLASS = 'modelplane-rwx-efs';
/** Key of the StorageClass Object. */
export const STORAGE_CLASS_KEY = 'storage-class-rwx-efs';
/** Key of the EFS file system, whose external name is the `fs-…` id. */
export const FILESYSTEM_KEY = 'efs-filesystem';

/** The EFS stack (11 keys for 3 zones), without the StorageClass. */
export function efsResources(ctx: EksContext): Record<string, KubeObject> {
  const efsSg = () => controllerRef({ [LABEL.sgRole]: 'efs' });
  const out: Record<string, KubeObject> = {
    [FILESYSTEM_KEY]: mr(ctx, EFS, 'FileSystem', { throughputMode: 'elastic', encrypted: true }),
    'efs-security-group': mr(
      ctx,
      EC2,
      'SecurityGroup',
      {
        name: `${ctx.name}-efs`,
        description: 'NFS access to the ModelCache EFS mount targets',
        vpcIdSelector: controllerRef(),
      },
      { labels: { [LABEL.sgRole]: 'efs' } },
    ),
    'efs-security-group-ingress': mr(ctx, EC2, 'SecurityGroupIngressRule', {
      ipProtocol: 'tcp',
      fromPort: 2049,
      toPort: 2049,
      cidrIpv4: ctx.vpcCidr,
      securityGroupIdSelector: efsSg(),
    }),
  };
  for (const z of ctx.zones) {
    out[`efs-mount-target-${z.index}`] = mr(ctx, EFS, 'MountTarget', {
      fileSystemIdSelector: controllerRef(),
      subnetIdRef: { name: z.privateSubnet },
      securityGroupsSelector: efsSg(),
    });
  }
  Object.assign(out, efsCsiIam(ctx));
  out['addon-eks-pod-identity-agent'] = addon(ctx, 'eks-pod-identity-agent');
  out['pod-identity-efs-csi'] = podIdentity(ctx, 'efs-csi-controller-sa', 'efs-csi');
  out['addon-aws-efs-csi-driver'] = addon(ctx, 'aws-efs-csi-driver');
  return out;
}

/**
 * The StorageClass Object (EFS access points, one directory per volume,
 * mode 700, bound immediately) for file system `fileSystemId`.
 */
export function storageClass(ctx: EksContext, fileSystemId: string): KubeObject {
  return workloadStorageClass(ctx.namespace, ctx.kubeconfigSecret, STORAGE_CLASS, {
    provisioner: 'efs.csi.aws.com',
    parameters: { provisioningMode: 'efs-ap', fileSystemId, directoryPerms: '700' },
    volumeBindingMode: 'Immediate',
  });
}
