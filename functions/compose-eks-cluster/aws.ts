/**
 * The shared shape of every AWS managed resource compose-eks-cluster writes,
 * and the facts all its builders share (docs/clouds.md#eks-networking).
 *
 * Guarantees: an MR is `{apiVersion, kind, metadata?, spec: {forProvider,
 * providerConfigRef, ...}}` with `forProvider.region` set on every regional
 * resource and never on IAM (global); `metadata` appears only when a name or
 * labels are assigned; every object and array is fresh. Cross-MR wiring is by
 * `matchControllerRef` selectors narrowed by the label keys below, so two
 * EKSClusters never select each other's resources.
 */
import type { JsonObject, KubeObject } from '../lib/function.js';
import type { EKSClusterNodePool, EKSClusterSpec } from '../lib/generated/eksclusters.js';
import { metadata, type ProviderConfigRef } from '../lib/objects.js';

/** provider-aws-ec2 v2.6.0 (namespaced). */
export const EC2 = 'ec2.aws.m.upbound.io/v1beta1';
/** provider-aws-iam v2.6.0 (namespaced). */
export const IAM = 'iam.aws.m.upbound.io/v1beta1';
/** provider-aws-eks v2.6.0 (namespaced). */
export const EKS = 'eks.aws.m.upbound.io/v1beta1';
/** provider-aws-efs v2.6.0 (namespaced). */
export const EFS = 'efs.aws.m.upbound.io/v1beta1';

/** Label keys that disambiguate selectors between resources of one XR (docs/clouds.md#eks-networking). */
export const LABEL = {
  zone: 'modelplane.ai/zone',
  subnetTier: 'modelplane.ai/subnet-tier',
  iamRole: 'modelplane.ai/iam-role',
  sgRole: 'modelplane.ai/sg-role',
  fabric: 'modelplane.ai/fabric',
  pool: 'modelplane.ai/pool',
  gpu: 'modelplane.ai/gpu',
} as const;

/** The annotation holding a managed resource's cloud id. */
export const EXTERNAL_NAME = 'crossplane.io/external-name';

/** One availability zone of the cluster: subnet index i lives in `<region>` + letter `a`+i. */
export interface Zone {
  /** Position in `spec.networking.subnetCidrs`. */
  index: number;
  /** Availability zone, e.g. `us-west-2a`. */
  az: string;
  /** Public subnet CIDR, as given. */
  publicCidr: string;
  /** Private subnet CIDR: the public one with the third octet plus 48. */
  privateCidr: string;
  /** Public subnet MR name, `child_name(<xr>, "subnet-<az>")`. */
  publicSubnet: string;
  /** Private subnet MR name, `child_name(<xr>, "private-subnet-<az>")`. */
  privateSubnet: string;
}

/** Everything the builders read, resolved once from the XR. */
export interface EksContext {
  /** XR name. */
  name: string;
  /** XR namespace: where the kubeconfig Secret and in-cluster objects live. */
  namespace: string;
  spec: EKSClusterSpec;
  /** AWS region, `spec.region`. */
  region: string;
  /** VPC CIDR, `spec.networking.vpcCidr` (default `10.0.0.0/16`). */
  vpcCidr: string;
  /** Zones in subnet index order. */
  zones: Zone[];
  /** EKS cluster (and MR) name, `child_name(<xr namespace>, <xr name>, "eks")`. */
  clusterName: string;
  /** Kubeconfig connection Secret, `child_name(<xr>, "kubeconfig")`. */
  kubeconfigSecret: string;
  /** The AWS (Cluster)ProviderConfig of every AWS MR. */
  providerConfigRef: ProviderConfigRef;
  /** Observed composed resources by key (for ids read back from AWS). */
  observed: Record<string, KubeObject>;
}

/** Metadata and scope of one MR. */
export interface MrOptions {
  /** `metadata.name`; unset lets Crossplane generate it. */
  name?: string;
  labels?: Record<string, string>;
  /** IAM resources are global: no `forProvider.region`. @default true */
  regional?: boolean;
  /** Extra `spec` fields besides forProvider and providerConfigRef. */
  spec?: JsonObject;
}

/** An AWS managed resource of this XR. */
export function mr(
  ctx: EksContext,
  apiVersion: string,
  kind: string,
  forProvider: JsonObject,
  opts: MrOptions = {},
): KubeObject {
  const out: KubeObject = { apiVersion, kind };
  const meta = metadata({ name: opts.name, labels: opts.labels });
  if (meta) out.metadata = meta;
  const fp = opts.regional === false ? { ...forProvider } : { region: ctx.region, ...forProvider };
  out['spec'] = { ...(opts.spec ?? {}), forProvider: fp, providerConfigRef: { ...ctx.providerConfigRef } };
  return out;
}

/** `{matchControllerRef: true}`, plus `matchLabels` when given. */
export function controllerRef(matchLabels?: Record<string, string>): JsonObject {
  return matchLabels ? { matchControllerRef: true, matchLabels: { ...matchLabels } } : { matchControllerRef: true };
}

/** True when a pool launches through a launch template (capacity block or EFA). */
export function usesLaunchTemplate(pool: EKSClusterNodePool): boolean {
  return pool.capacityBlock !== undefined || pool.fabric === 'EFA';
}

/** The observed external name (cloud id) of a composed resource, or undefined. */
export function externalName(ctx: EksContext, key: string): string | undefined {
  const v = ctx.observed[key]?.metadata?.annotations?.[EXTERNAL_NAME];
  return v ? v : undefined;
}
