/**
 * Which cluster a provider-kubernetes Object or provider-helm Release acts
 * on, read as its provider reads it: `spec.providerConfigRef` → the
 * ProviderConfig (namespaced, in the managed resource's namespace) or
 * ClusterProviderConfig → `spec.credentials`: `InjectedIdentity` is the
 * control plane itself; `Secret` is the kubeconfig in that Secret key.
 *
 * A kubeconfig whose server ends with `.plan.modelplane.invalid` is a
 * simulated cluster (written by the simulated cloud providers); any other is
 * real, and gets a client.
 */
import type { JsonObject, KubeObject } from '../../../functions/lib/function.js';
import { SIMULATED_SERVER_SUFFIX } from '../../simulated/providers.js';
import { Kube } from '../kube.js';

/** Where a managed resource acts. */
export type Target = { simulated: true; server: string } | { simulated: false; server: string; kube: Kube };

/** Resolves targets, caching one client per kubeconfig. */
export class Targets {
  private readonly clients = new Map<string, Kube>();
  /** Resolved targets by provider config, reused for 30 s (a ProviderConfig's cluster does not move). */
  private readonly resolved = new Map<string, { target: Target; at: number }>();

  constructor(private readonly controlPlane: Kube) {}

  /**
   * The target of `mr`, or undefined while its ProviderConfig or Secret does
   * not exist yet (or says nothing usable): ask again later.
   */
  async of(mr: KubeObject): Promise<Target | undefined> {
    const ref = (mr['spec'] as JsonObject | undefined)?.['providerConfigRef'] as { kind?: string; name?: string } | undefined;
    if (!ref?.name) return undefined;
    const kind = ref.kind ?? 'ClusterProviderConfig';
    const apiVersion = mr.apiVersion.startsWith('helm.') ? 'helm.m.crossplane.io/v1beta1' : 'kubernetes.m.crossplane.io/v1alpha1';
    const key = `${apiVersion} ${kind} ${kind === 'ProviderConfig' ? (mr.metadata?.namespace ?? '') : ''}/${ref.name}`;
    const hit = this.resolved.get(key);
    if (hit && Date.now() - hit.at < 30_000) return hit.target;
    const target = await this.resolve(mr, apiVersion, kind, ref.name);
    if (target) this.resolved.set(key, { target, at: Date.now() });
    else this.resolved.delete(key);
    return target;
  }

  private async resolve(mr: KubeObject, apiVersion: string, kind: string, name: string): Promise<Target | undefined> {
    const pc = await this.controlPlane.get(apiVersion, kind, name, kind === 'ProviderConfig' ? mr.metadata?.namespace : undefined);
    return pc ? this.ofConfig(pc) : undefined;
  }

  /** The cluster a ProviderConfig (or ClusterProviderConfig) reaches, or undefined while its Secret is missing. */
  async ofConfig(pc: KubeObject): Promise<Target | undefined> {
    const creds = ((pc['spec'] as JsonObject | undefined)?.['credentials'] ?? {}) as {
      source?: string;
      secretRef?: { namespace?: string; name?: string; key?: string };
    };
    if (creds.source === 'InjectedIdentity') return { simulated: false, server: this.controlPlane.serverUrl, kube: this.controlPlane };
    const s = creds.secretRef;
    if (creds.source !== 'Secret' || !s?.name || !s.namespace || !s.key) return undefined;
    const secret = await this.controlPlane.get('v1', 'Secret', s.name, s.namespace);
    const data = (secret?.['data'] as Record<string, string> | undefined)?.[s.key];
    if (!data) return undefined;
    const text = Buffer.from(data, 'base64').toString('utf8');
    let kube = this.clients.get(text);
    if (!kube) {
      try {
        kube = Kube.fromString(text, `Secret ${s.namespace}/${s.name}`);
      } catch {
        return undefined; // not a kubeconfig (yet)
      }
      this.clients.set(text, kube);
    }
    const server = kube.serverUrl;
    if (new URL(server).hostname.endsWith(SIMULATED_SERVER_SUFFIX)) return { simulated: true, server };
    return { simulated: false, server, kube };
  }
}
