/**
 * What the dev control plane installs in place of the cloud providers, and
 * what it simulates:
 *
 * - {@link PROVIDER_PACKAGES}: one Provider package per `dependsOn` entry of
 *   crossplane.yaml. Each carries the real CRDs of the kinds we compose (from
 *   the provider CRD snapshot, `--provider-crds`), so the
 *   Configuration's dependencies resolve exactly as in production; none has a
 *   runtime except provider-kubernetes, which is the real one built from its
 *   Go module (tools/provider-kubernetes). The managed resources of the
 *   others are written Ready by the dev runtime from the table in
 *   cli/simulated/providers.ts (the same table `modelplane plan` uses).
 * - {@link CHART_CRDS}: the CRDs a Helm chart would install, applied by the
 *   simulated provider-helm to a cluster that is real (the control plane
 *   itself, or the dev workload API server), so the Objects that need them can
 *   be created there for real. No chart can be downloaded here.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { REPO_ROOT } from '../functions.js';

/** A Provider package the dev control plane builds. */
export interface ProviderPackage {
  /** `spec.dependsOn[].package` in crossplane.yaml. */
  package: string;
  /** Folders of the provider CRD snapshot whose CRDs the package carries. */
  crdGroups: string[];
  /** CRDs of our own (cli/dev/crds/), for kinds the snapshot lacks. */
  extraCrds?: string[];
  /** Real: built from the module and run as a process; otherwise simulated. */
  real?: boolean;
}

/** Every provider the Configuration depends on. */
export const PROVIDER_PACKAGES: readonly ProviderPackage[] = [
  { package: 'xpkg.upbound.io/upbound/provider-aws-eks', crdGroups: ['eks.aws.m.upbound.io', 'aws.m.upbound.io'] },
  { package: 'xpkg.upbound.io/upbound/provider-aws-ec2', crdGroups: ['ec2.aws.m.upbound.io'] },
  { package: 'xpkg.upbound.io/upbound/provider-aws-iam', crdGroups: ['iam.aws.m.upbound.io'] },
  { package: 'xpkg.upbound.io/upbound/provider-aws-efs', crdGroups: ['efs.aws.m.upbound.io'] },
  { package: 'xpkg.upbound.io/upbound/provider-gcp-container', crdGroups: ['container.gcp.m.upbound.io'] },
  { package: 'xpkg.upbound.io/upbound/provider-gcp-compute', crdGroups: ['compute.gcp.m.upbound.io'] },
  { package: 'xpkg.upbound.io/upbound/provider-gcp-cloudplatform', crdGroups: ['cloudplatform.gcp.m.upbound.io'] },
  { package: 'xpkg.upbound.io/upbound/provider-family-gcp', crdGroups: ['gcp.m.upbound.io'] },
  { package: 'xpkg.upbound.io/upbound/provider-azure-containerservice', crdGroups: ['containerservice.azure.m.upbound.io'] },
  { package: 'xpkg.upbound.io/upbound/provider-azure-network', crdGroups: ['network.azure.m.upbound.io'] },
  { package: 'xpkg.upbound.io/upbound/provider-family-azure', crdGroups: ['azure.m.upbound.io'] },
  {
    package: 'xpkg.upbound.io/upbound/provider-nebius',
    crdGroups: ['compute.nebius.m.upbound.io', 'mk8s.nebius.m.upbound.io', 'vpc.nebius.m.upbound.io', 'nebius.m.upbound.io'],
  },
  // The Vultr seed's credentials are a `vultr.crossplane.io/v1alpha1` ClusterProviderConfig, a kind the
  // snapshot does not carry: ours is a minimal stand-in so `kubectl apply -f` of the seed succeeds.
  { package: 'xpkg.upbound.io/upbound/provider-vultr', crdGroups: ['vke.vultr.m.upbound.io'], extraCrds: ['vultr.crossplane.io.yaml'] },
  { package: 'xpkg.upbound.io/upbound/provider-helm', crdGroups: ['helm.m.crossplane.io'] },
  { package: 'xpkg.upbound.io/upbound/provider-kubernetes', crdGroups: [], real: true },
];

/** API groups whose managed resources the dev runtime writes Ready (provider-kubernetes' only for simulated clusters). */
export function simulatedGroups(): string[] {
  return [...new Set(PROVIDER_PACKAGES.filter((p) => !p.real).flatMap((p) => p.crdGroups))].sort();
}

/** Chart name → CRD files (relative to the snapshot) the chart installs and our composed objects need. */
export const CHART_CRDS: Readonly<Record<string, readonly string[]>> = {
  metallb: ['metallb.io/ipaddresspools.yaml', 'metallb.io/l2advertisements.yaml'],
  'gateway-helm': [
    'gateway.networking.k8s.io/backendtlspolicies.yaml',
    'gateway.networking.k8s.io/gatewayclasses.yaml',
    'gateway.networking.k8s.io/gateways.yaml',
    'gateway.networking.k8s.io/grpcroutes.yaml',
    'gateway.networking.k8s.io/httproutes.yaml',
    'gateway.networking.k8s.io/listenersets.yaml',
    'gateway.networking.k8s.io/referencegrants.yaml',
    'gateway.networking.k8s.io/tlsroutes.yaml',
    'gateway.envoyproxy.io/envoyproxies.yaml',
  ],
  lws: ['leaderworkerset.x-k8s.io/leaderworkersets.yaml'],
  // prometheus-operator's PodMonitor (cli/dev/crds: the snapshot has no monitoring.coreos.com), for each replica's PodMonitor.
  'kube-prometheus-stack': ['monitoring.coreos.com/podmonitors.yaml'],
  // Traefik v3.7.13's own Middleware and TraefikService CRDs (cli/dev/crds: the snapshot has no traefik.io), for APIKey
  // services' forwardAuth, rate limits, and the failover chain of services with priorities.
  traefik: ['traefik.io/middlewares.yaml', 'traefik.io/traefikservices.yaml'],
};

/** Our own stand-in CRDs. */
export const EXTRA_CRDS_DIR = join(REPO_ROOT, 'cli', 'dev', 'crds');

/**
 * The provider CRD snapshot: `--provider-crds`, else `MODELPLANE_PROVIDER_CRDS`,
 * else `shared/crds` in the folder that holds the repository.
 * @throws Error naming the folder and the flag when it is missing.
 */
export function providerCrdsDir(given?: string): string {
  const dir = resolve(given ?? process.env['MODELPLANE_PROVIDER_CRDS'] ?? join(REPO_ROOT, '..', 'shared', 'crds'));
  if (!existsSync(join(dir, 'eks.aws.m.upbound.io'))) {
    throw new Error(
      `provider CRDs not found in ${dir}: give --provider-crds DIR (a folder of <group>/<plural>.yaml CRDs; the default is shared/crds beside the repository)`,
    );
  }
  return dir;
}

/** KEDA's ScaledObject CRD (cli/dev/crds), applied to the control plane by `dev up`: what an autoscaled ModelDeployment composes. */
export const KEDA_SCALED_OBJECT_CRD = join(EXTRA_CRDS_DIR, 'keda.sh', 'scaledobjects.yaml');
