/**
 * Helm releases applied into the new EKS cluster: the cluster autoscaler and,
 * for EFA pools, AWS's DRA network driver (docs/clouds.md#eks-add-ons-in-the-cluster,
 * docs/clouds.md#reaching-the-workload-cluster).
 *
 * Guarantees: each release goes through the kubeconfig ProviderConfig, lives
 * in the XR namespace, installs into `kube-system`, and is managed with
 * `[Observe, Create, Update]` (no Delete: orphaned on teardown so nothing
 * wedges once the cluster is gone). The autoscaler discovers node groups by
 * the literal EKS cluster name and balances similar node groups.
 */
import type { JsonObject, KubeObject } from '../lib/function.js';
import type { Chart } from '../lib/objects.js';
import { GPU_TOLERATION, workloadRelease } from '../lib/workload.js';
import type { EksContext } from './aws.js';

/** Key of the cluster autoscaler release. */
export const AUTOSCALER_KEY = 'release-cluster-autoscaler';
/** Key of the EFA DRA driver release. */
export const EFA_DRA_KEY = 'release-efa-dra-driver';

function release(ctx: EksContext, chart: Chart, values: JsonObject): KubeObject {
  return workloadRelease({ namespace: ctx.namespace, kubeconfigSecret: ctx.kubeconfigSecret, chart, targetNamespace: 'kube-system', values });
}

/** cluster-autoscaler 9.57.0 (kubernetes.github.io/autoscaler), AWS auto-discovery, Pod Identity service account. */
export function clusterAutoscaler(ctx: EksContext): KubeObject {
  return release(
    ctx,
    { name: 'cluster-autoscaler', repository: 'https://kubernetes.github.io/autoscaler', version: '9.57.0' },
    {
      cloudProvider: 'aws',
      awsRegion: ctx.region,
      autoDiscovery: { clusterName: ctx.clusterName },
      rbac: { serviceAccount: { name: 'cluster-autoscaler' } },
      extraArgs: { 'balance-similar-node-groups': true },
    },
  );
}

/** aws-dranet 1.0.0 (aws.github.io/eks-charts): publishes EFA devices to DRA; tolerates GPU nodes. */
export function efaDraDriver(ctx: EksContext): KubeObject {
  return release(
    ctx,
    { name: 'aws-dranet', repository: 'https://aws.github.io/eks-charts', version: '1.0.0' },
    { tolerations: [{ ...GPU_TOLERATION }] },
  );
}
