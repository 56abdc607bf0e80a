/**
 * Installing Modelplane on the dev control plane the way users install it:
 * ImageConfigs that send `xpkg.modelplane.ai` and `xpkg.upbound.io` to the
 * registry on loopback, then one `Configuration` object; Crossplane core
 * resolves its dependencies (our Function packages and the Provider
 * packages), and {@link waitInstalled} waits for what a user checks:
 * every package Installed and Healthy, every XRD Established, every
 * Composition's revision `ValidPipeline=True`.
 */
import type { JsonObject, KubeObject } from '../../functions/lib/function.js';
import type { Kube } from './kube.js';
import { CONFIGURATION_PACKAGE } from './packages.js';
import { PACKAGE_VERSION } from '../package.js';
import { waitUntil } from './processes.js';
import { REGISTRY } from './state.js';

/** The objects that install Modelplane from the dev registry. */
export function installObjects(): KubeObject[] {
  const rewrite = (name: string, prefix: string): KubeObject => ({
    apiVersion: 'pkg.crossplane.io/v1beta1',
    kind: 'ImageConfig',
    metadata: { name },
    spec: { matchImages: [{ type: 'Prefix', prefix }], rewriteImage: { prefix: REGISTRY } },
  });
  return [
    rewrite('modelplane-dev-registry', 'xpkg.modelplane.ai'),
    rewrite('modelplane-dev-upbound', 'xpkg.upbound.io'),
    {
      apiVersion: 'pkg.crossplane.io/v1',
      kind: 'Configuration',
      metadata: { name: 'modelplane' },
      spec: { package: `${CONFIGURATION_PACKAGE}:${PACKAGE_VERSION}` },
    },
  ];
}

function condition(o: KubeObject, type: string): string | undefined {
  const conditions = ((o['status'] as JsonObject | undefined)?.['conditions'] ?? []) as { type: string; status: string }[];
  return conditions.find((c) => c.type === type)?.status;
}

/** What is not installed yet, one line each (empty when everything is). */
export async function notInstalled(kube: Kube): Promise<string[]> {
  const out: string[] = [];
  const pkgs = [
    ...(await kube.list('pkg.crossplane.io/v1', 'Configuration')),
    ...(await kube.list('pkg.crossplane.io/v1', 'Function')),
    ...(await kube.list('pkg.crossplane.io/v1', 'Provider')),
  ];
  if (pkgs.length < 2) out.push('packages: none resolved yet');
  for (const p of pkgs) {
    for (const t of ['Installed', 'Healthy']) if (condition(p, t) !== 'True') out.push(`${p.kind} ${p.metadata?.name}: ${t} is not True`);
  }
  const xrds = await kube.list('apiextensions.crossplane.io/v2', 'CompositeResourceDefinition');
  if (xrds.length === 0) out.push('XRDs: none yet');
  for (const x of xrds) if (condition(x, 'Established') !== 'True') out.push(`XRD ${x.metadata?.name}: not Established`);
  const comps = await kube.list('apiextensions.crossplane.io/v1', 'Composition');
  const revs = await kube.list('apiextensions.crossplane.io/v1', 'CompositionRevision');
  for (const c of comps) {
    const mine = revs.filter((r) => r.metadata?.labels?.['crossplane.io/composition-name'] === c.metadata?.name);
    if (!mine.some((r) => condition(r, 'ValidPipeline') === 'True')) out.push(`Composition ${c.metadata?.name}: no revision with ValidPipeline=True`);
  }
  return out;
}

/** Waits until {@link notInstalled} is empty. @throws Error listing what is still missing. */
export async function waitInstalled(kube: Kube, timeoutMs: number): Promise<void> {
  let missing: string[] = [];
  try {
    await waitUntil(
      'Modelplane installed',
      async () => {
        missing = await notInstalled(kube);
        return missing.length === 0;
      },
      { timeoutMs, everyMs: 1000 },
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}; still missing:\n  ${missing.slice(0, 12).join('\n  ')}`);
  }
}
