/**
 * compose-serving-stack: installs the serving substrate on one workload
 * cluster (docs/kinds/servingstack.md): ProviderConfigs that reach it, ordering
 * Usages, Helm releases (cert-manager, Envoy Gateway, Envoy AI Gateway,
 * kube-prometheus-stack, LeaderWorkerSet, Node Feature Discovery, NVIDIA DRA
 * driver), the GAIE CRDs, the DRA quota and the inference Gateway.
 *
 * Guarantees:
 * - The two ProviderConfigs and the two ordering Usages are always composed
 *   and always ready.
 * - Everything that targets the workload cluster waits for the gate "both
 *   ProviderConfigs observed", and once a resource is observed it stays
 *   composed whatever the gate says (never dropped once created).
 * - A remote resource is ready only when its observed counterpart is Ready.
 * - The XR is Ready only when serving: every remote resource composed and
 *   the Gateway's address published. The first pass composes only the
 *   always-ready ProviderConfigs and Usages, which Crossplane alone would
 *   count as Ready (docs/composition.md#readiness); there the desired composite is
 *   marked not ready (functions/lib/ready.ts readyOnlyIfServing).
 * - `status.gateway.address` is the observed Gateway's first address;
 *   otherwise the status is `{}`.
 * - An XR without name or namespace is a Fatal result (Crossplane then keeps
 *   every composed resource); a spec the XRD rejects (e.g. no Kubeconfig
 *   secret) keeps every observed resource and says so in condition
 *   `Accepted` False `InvalidSpec` and a Warning (docs/design.md#keep-what-exists).
 * Deliberate divergences from the reference: none in behaviour; where it
 * raises we return a Fatal result (same effect: nothing applied, nothing lost).
 */
import {
  type ComposeRequest,
  type ComposeResult,
  type DesiredResource,
  emptyResult,
  fatal,
  getPath,
  type KubeObject,
} from '../lib/function.js';
import { keepAndWarn } from '../lib/keep.js';
import { readyAsObserved, readyOnlyIfServing } from '../lib/ready.js';
import { keepObserved } from '../lib/function.js';
import { stackProviderConfigName } from '../lib/serving-stack.js';
import {
  HELM_API_VERSION,
  KUBERNETES_API_VERSION,
  type ProviderConfigCredentials,
  type ProviderConfigRef,
  providerConfig,
  usage,
} from '../lib/objects.js';
import {
  draQuotaObject,
  gatewayCertificateObject,
  GAIE_CRDS,
  gaieCrdObject,
  gaieKey,
  gatewayClassObject,
  gatewayNamespaceObject,
  gatewayObject,
  federateRouteObject,
  gatewayProxyObject,
} from './objects.js';
import { RESOURCE_LABEL, releaseSpecs, stackRelease } from './releases.js';
import { readServingStack, type ServingStack } from './spec.js';

/** Keys of the two ProviderConfigs; both observed opens the gate. */
export const PC_KUBERNETES_KEY = 'provider-config-kubernetes';
export const PC_HELM_KEY = 'provider-config-helm';

/** ProviderConfig credentials of a stack: its first Kubeconfig secret, and its first other secret as identity. */
export function stackCredentials(stack: ServingStack): ProviderConfigCredentials {
  const kubeconfig = stack.secrets.find((s) => s.type === 'Kubeconfig')!;
  const identity = stack.secrets.find((s) => s.type !== 'Kubeconfig');
  const creds: ProviderConfigCredentials = {
    kubeconfig: { name: kubeconfig.name, namespace: kubeconfig.namespace ?? stack.namespace, key: kubeconfig.key },
  };
  if (identity) {
    creds.identity = {
      type: identity.type,
      secretRef: { name: identity.name, namespace: identity.namespace ?? stack.namespace, key: identity.key },
    };
  }
  return creds;
}

function orderingUsages(): Record<string, KubeObject> {
  const object = (resource: string) => ({
    apiVersion: KUBERNETES_API_VERSION,
    kind: 'Object',
    resourceSelector: { matchControllerRef: true, matchLabels: { [RESOURCE_LABEL]: resource } },
  });
  return {
    'usage-gateway-class-by-gateway': usage({ of: object('gateway-class'), by: object('gateway'), replayDeletion: true }),
    'usage-envoy-gw-by-gateway-class': usage({
      of: {
        apiVersion: HELM_API_VERSION,
        kind: 'Release',
        resourceSelector: { matchControllerRef: true, matchLabels: { [RESOURCE_LABEL]: 'envoy-gateway' } },
      },
      by: object('gateway-class'),
      replayDeletion: true,
    }),
  };
}

/** Remote resources by key, each with the extra observed keys that keep it composed. */
function remoteResources(stack: ServingStack, pc: ProviderConfigRef): { key: string; resource: KubeObject; keptBy: string[] }[] {
  const out: { key: string; resource: KubeObject; keptBy: string[] }[] = [];
  for (const spec of releaseSpecs(stack)) {
    // The two AI Gateway releases share the CRD release's "already observed" check (docs/kinds/servingstack.md#the-gate).
    const keptBy = spec.key === 'ai-gateway' ? ['ai-gateway-crds'] : [];
    out.push({ key: spec.key, resource: stackRelease(spec, pc), keptBy });
    if (spec.key === 'ai-gateway') {
      for (const crd of GAIE_CRDS) out.push({ key: gaieKey(crd), resource: gaieCrdObject(crd, pc), keptBy: [] });
    }
    if (spec.key === 'dra-driver') {
      out.push({ key: 'dra-driver-critical-pods-quota', resource: draQuotaObject(pc), keptBy: ['dra-driver'] });
    }
  }
  out.push({ key: 'gateway-namespace', resource: gatewayNamespaceObject(pc), keptBy: [] });
  out.push({ key: 'gateway-proxy', resource: gatewayProxyObject(pc), keptBy: [] });
  out.push({ key: 'gateway-class', resource: gatewayClassObject(stack, pc), keptBy: [] });
  out.push({ key: 'gateway', resource: gatewayObject(stack, pc), keptBy: [] });
  out.push({ key: 'federate-route', resource: federateRouteObject(pc), keptBy: [] });
  const certificate = gatewayCertificateObject(stack, pc);
  if (certificate !== undefined) out.push({ key: 'gateway-certificate', resource: certificate, keptBy: [] });
  return out;
}

/** Composes a ServingStack. */
export function compose(req: ComposeRequest): ComposeResult {
  const result = emptyResult();
  const read = readServingStack(req.composite);
  if (!read.ok) {
    if (read.fatal) {
      result.results.push(fatal(read.problem));
      return result;
    }
    const hold = { type: 'Accepted', reason: 'InvalidSpec', message: read.problem };
    return keepAndWarn(result, req.observed, hold, keepObserved);
  }
  const stack = read.stack;
  const observed = req.observed;
  const pcName = stackProviderConfigName(stack.name);
  const pc: ProviderConfigRef = { kind: 'ProviderConfig', name: pcName };
  const creds = stackCredentials(stack);
  const resources: Record<string, DesiredResource> = {
    [PC_KUBERNETES_KEY]: { resource: providerConfig('kubernetes', { name: pcName }, creds), ready: true },
    [PC_HELM_KEY]: { resource: providerConfig('helm', { name: pcName }, creds), ready: true },
  };
  for (const [key, resource] of Object.entries(orderingUsages())) resources[key] = { resource, ready: true };

  const gateOpen = PC_KUBERNETES_KEY in observed && PC_HELM_KEY in observed;
  let allComposed = true;
  for (const { key, resource, keptBy } of remoteResources(stack, pc)) {
    if (!gateOpen && !(key in observed) && !keptBy.some((k) => k in observed)) {
      allComposed = false;
      continue;
    }
    resources[key] = readyAsObserved(resource, observed[key]);
  }
  result.resources = resources;

  const address = getPath(observed['gateway']?.resource, 'status', 'atProvider', 'manifest', 'status', 'addresses', 0, 'value');
  const hasAddress = typeof address === 'string' && address !== '';
  result.status = hasAddress ? { gateway: { address } } : {};
  // Before the gate opens only the always-ready ProviderConfigs and Usages are composed, which Crossplane
  // would count as Ready: the stack serves only once everything is composed and its Gateway has an address.
  readyOnlyIfServing(result, allComposed && hasAddress);
  return result;
}
