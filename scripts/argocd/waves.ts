/**
 * The Argo CD sync wave (`argocd.argoproj.io/sync-wave`) of each kind a Git
 * repo of Modelplane objects holds, so platform kinds settle before the
 * developer kinds that need them (docs/argocd.md, "Sync waves").
 */

/** The annotation Argo CD orders a sync by, lowest wave first. */
export const SYNC_WAVE_ANNOTATION = 'argocd.argoproj.io/sync-wave';

/** Kind → wave. Prerequisites (-4) come first, the routes to models (2) last. */
export const SYNC_WAVES: Readonly<Record<string, number>> = {
  Namespace: -4,
  Secret: -4,
  ClusterProviderConfig: -4,
  ProviderConfig: -4,
  InferenceClass: -3,
  InferenceCluster: -2,
  InferenceGateway: -1,
  InferenceQuota: -1,
  ModelCache: 0,
  ModelDeployment: 1,
  ModelService: 2,
  ModelEndpoint: 2,
};

/** The example directories a platform team would keep in Git, annotated with {@link SYNC_WAVES}. */
export const WAVED_EXAMPLES: readonly string[] = [
  'quickstart',
  'multi-cloud',
  'gpu-packing',
  'tiered-fleet',
  'kimi-k2-eks',
  'cache-fleet-vultr',
  'demo-deployment',
  'vultr-cluster',
  'vultr-gateway',
  'vultr-deployment',
  'vultr-service',
];
