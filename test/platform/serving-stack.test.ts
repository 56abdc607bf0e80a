/**
 * compose-serving-stack: docs/kinds/servingstack.md (cases SS-1 … SS-7) and
 * extra cases, as whole-response tables.
 */
import { describe, expect, it } from 'vitest';
import { compose } from '../../functions/compose-serving-stack/compose.js';
import type { ComposeRequest, ComposeResult, DesiredResource, JsonObject, KubeObject } from '../../functions/lib/function.js';
import { cond, observed, request } from '../builders/platform.js';
import {
  gaieObjects,
  gatewayObjects,
  gcpIdentity,
  orderingUsages,
  providerConfig,
  releases,
} from './fixtures/serving-stack.js';

interface Case {
  name: string;
  reason: string;
  req: () => ComposeRequest;
  want: ComposeResult;
}

const GKE_ROOT = '/home/kubernetes/bin/nvidia';
const gcpSecrets = [
  { type: 'Kubeconfig', name: 'kube-secret', key: 'kubeconfig' },
  { type: 'GoogleApplicationCredentials', name: 'sa-secret', key: 'private_key' },
];

function stackXR(spec: JsonObject = {}, secrets: JsonObject[] = gcpSecrets): KubeObject {
  return {
    apiVersion: 'infrastructure.modelplane.ai/v1alpha1',
    kind: 'ServingStack',
    metadata: { name: 'test-backend', namespace: 'test-ns' },
    spec: { secrets, nvidiaDriverRoot: GKE_ROOT, ...spec },
  };
}

/** The always-composed, always-ready part: both ProviderConfigs and the ordering Usages. */
function base(identity: JsonObject | undefined = gcpIdentity): Record<string, DesiredResource> {
  const out: Record<string, DesiredResource> = {
    'provider-config-kubernetes': { resource: providerConfig('kubernetes', identity), ready: true },
    'provider-config-helm': { resource: providerConfig('helm', identity), ready: true },
  };
  for (const [k, u] of Object.entries(orderingUsages())) out[k] = { resource: u, ready: true };
  return out;
}

/** Every remote resource, ready only for `readyKeys`. */
function remote(
  readyKeys: string[] = [],
  opts: { root?: string; versions?: Record<string, string>; className?: string; listeners?: JsonObject[] } = {},
): Record<string, DesiredResource> {
  const all: Record<string, KubeObject> = {
    ...releases(opts.root ?? GKE_ROOT, opts.versions),
    ...gaieObjects(),
    ...gatewayObjects(opts.className, opts.listeners),
  };
  return Object.fromEntries(
    Object.entries(all).map(([k, r]) => [k, readyKeys.includes(k) ? { resource: r, ready: true } : { resource: r }]),
  );
}

/** Both ProviderConfigs observed (the gate). */
const pcsObserved = () => ({
  'provider-config-kubernetes': observed(providerConfig('kubernetes', gcpIdentity)),
  'provider-config-helm': observed(providerConfig('helm', gcpIdentity)),
});
const gatewayWithAddress = (ready: boolean) =>
  observed(
    gatewayObjects().gateway,
    { atProvider: { manifest: { status: { addresses: [{ type: 'IPAddress', value: '172.18.255.200' }] } } } },
    ready ? [cond('Ready')] : [],
  );
const readyObs = (keys: string[]) => {
  const all = { ...releases(GKE_ROOT), ...gaieObjects() };
  return Object.fromEntries(keys.map((k) => [k, observed(all[k]!, {}, [cond('Ready')])]));
};
const gaieKeys = Object.keys(gaieObjects());
/** Every remote resource observed Ready, the gateway without an address. */
const allReadyObs = () => {
  const all = { ...releases(GKE_ROOT), ...gaieObjects(), ...gatewayObjects() };
  return Object.fromEntries(Object.entries(all).map(([k, r]) => [k, observed(r, {}, [cond('Ready')])]));
};
const empty = { conditions: [], results: [], requirements: {} };

const cases: Case[] = [
  {
    name: 'SS-1 first pass',
    reason: 'only the ProviderConfigs and ordering Usages until both ProviderConfigs are observed; not Ready (Crossplane would count those alone as Ready)',
    req: () => request(stackXR()),
    want: { resources: base(), status: {}, ready: false, ...empty },
  },
  {
    name: 'SS-2 non-GCP identity',
    reason: 'the identity type is copied verbatim into both ProviderConfigs',
    req: () =>
      request(
        stackXR({}, [
          { type: 'Kubeconfig', name: 'kube-secret', key: 'kubeconfig' },
          { type: 'NebiusServiceAccountCredentials', name: 'nebius-secret', key: 'credentials.json' },
        ]),
      ),
    want: {
      resources: base({
        secretRef: { key: 'credentials.json', name: 'nebius-secret', namespace: 'test-ns' },
        source: 'Secret',
        type: 'NebiusServiceAccountCredentials',
      }),
      status: {},
      ready: false,
      ...empty,
    },
  },
  {
    name: 'SS-3 second pass',
    reason: 'the gate is open: every release and Object, none ready yet',
    req: () => request(stackXR(), { observed: pcsObserved() }),
    want: { resources: { ...base(), ...remote() }, status: {}, ...empty },
  },
  {
    name: 'SS-4 default driver root',
    reason: 'the DRA quota is composed on every cloud; no nvidiaDriverRoot value for "/"',
    req: () => request(stackXR({ nvidiaDriverRoot: '/' }), { observed: pcsObserved() }),
    want: { resources: { ...base(), ...remote([], { root: '/' }) }, status: {}, ...empty },
  },
  {
    name: 'SS-5a gateway without conditions',
    reason: 'the gateway is not ready and publishes no address yet',
    req: () => request(stackXR(), { observed: { ...pcsObserved(), gateway: observed(gatewayObjects().gateway) } }),
    want: { resources: { ...base(), ...remote() }, status: {}, ...empty },
  },
  {
    name: 'SS-5b gateway Ready with an address',
    reason: 'the address of the observed Gateway manifest is published',
    req: () => request(stackXR(), { observed: { ...pcsObserved(), gateway: gatewayWithAddress(true) } }),
    want: { resources: { ...base(), ...remote(['gateway']) }, status: { gateway: { address: '172.18.255.200' } }, ...empty },
  },
  {
    name: 'SS-6 gateway-proxy Ready',
    reason: 'each remote resource is ready when its observed counterpart is',
    req: () =>
      request(stackXR(), {
        observed: { ...pcsObserved(), 'gateway-proxy': observed(gatewayObjects()['gateway-proxy'], {}, [cond('Ready')]) },
      }),
    want: { resources: { ...base(), ...remote(['gateway-proxy']) }, status: {}, ...empty },
  },
  {
    name: 'SS-7 third pass',
    reason: 'readiness follows observation per key; the address is published without a Ready gateway',
    req: () =>
      request(stackXR(), {
        observed: {
          ...pcsObserved(),
          ...readyObs(['cert-manager', 'ai-gateway-crds', 'ai-gateway', ...gaieKeys]),
          gateway: gatewayWithAddress(false),
        },
      }),
    want: {
      resources: { ...base(), ...remote(['cert-manager', 'ai-gateway-crds', 'ai-gateway', ...gaieKeys]) },
      status: { gateway: { address: '172.18.255.200' } },
      ...empty,
    },
  },
  {
    name: 'SS-8 everything Ready with an address',
    reason: 'every remote resource Ready and the address published: Ready is left to Crossplane (no override)',
    req: () => request(stackXR(), { observed: { ...pcsObserved(), ...allReadyObs(), gateway: gatewayWithAddress(true) } }),
    want: { resources: { ...base(), ...remote(Object.keys(remote())) }, status: { gateway: { address: '172.18.255.200' } }, ...empty },
  },
  {
    name: 'SS-9 everything Ready, no address',
    reason: 'a Gateway without an address serves nothing: the XR is not Ready though every composed resource is',
    req: () => request(stackXR(), { observed: { ...pcsObserved(), ...allReadyObs(), gateway: observed(gatewayObjects().gateway, {}, [cond('Ready')]) } }),
    want: { resources: { ...base(), ...remote(Object.keys(remote())) }, status: {}, ready: false, ...empty },
  },
  {
    name: 'custom gateway and versions',
    reason: 'className, listeners and chart versions propagate',
    req: () =>
      request(
        stackXR({
          versions: { certManager: 'v1.18.0', envoyGateway: 'v1.9.0', nvidiaDraDriver: '0.5.0' },
          gateway: { className: 'inference', listeners: [{ name: 'tcp', port: 9000, protocol: 'TCP' }] },
        }),
        { observed: pcsObserved() },
      ),
    want: {
      resources: {
        ...base(),
        ...remote([], {
          versions: { certManager: 'v1.18.0', envoyGateway: 'v1.9.0', nvidiaDraDriver: '0.5.0' },
          className: 'inference',
          listeners: [{ name: 'tcp', protocol: 'TCP', port: 9000 }],
        }),
      },
      status: {},
      ...empty,
    },
  },
  {
    name: 'identity in its own namespace',
    reason: 'an identity secret with a namespace is referenced there',
    req: () =>
      request(
        stackXR({}, [
          { type: 'Kubeconfig', name: 'kube-secret', key: 'kubeconfig' },
          { type: 'NebiusServiceAccountCredentials', name: 'nc', key: 'credentials.json', namespace: 'crossplane-system' },
        ]),
      ),
    want: {
      resources: base({
        type: 'NebiusServiceAccountCredentials',
        source: 'Secret',
        secretRef: { name: 'nc', namespace: 'crossplane-system', key: 'credentials.json' },
      }),
      status: {},
      ready: false,
      ...empty,
    },
  },
  {
    name: 'observed resources outlive a closed gate',
    reason: 'a release already observed stays composed even when the ProviderConfigs are not observed',
    req: () => request(stackXR(), { observed: readyObs(['cert-manager', 'ai-gateway-crds']) }),
    want: {
      resources: {
        ...base(),
        'cert-manager': { resource: releases(GKE_ROOT)['cert-manager']!, ready: true },
        'ai-gateway-crds': { resource: releases(GKE_ROOT)['ai-gateway-crds']!, ready: true },
        'ai-gateway': { resource: releases(GKE_ROOT)['ai-gateway']! },
      },
      status: {},
      ...empty,
    },
  },
  {
    name: 'no Kubeconfig secret',
    reason: 'an invalid spec keeps every observed resource and says why',
    req: () =>
      request(stackXR({}, [{ type: 'GoogleApplicationCredentials', name: 'sa', key: 'k' }]), {
        observed: { 'cert-manager': observed(releases(GKE_ROOT)['cert-manager']!, {}, [cond('Ready')]) },
      }),
    want: {
      resources: { 'cert-manager': { resource: releases(GKE_ROOT)['cert-manager']!, ready: true } },
      conditions: [{ type: 'Accepted', status: 'False', reason: 'InvalidSpec', message: 'spec.secrets must include a Kubeconfig entry.' }],
      results: [{ severity: 'Warning', message: 'spec.secrets must include a Kubeconfig entry.' }],
      requirements: {},
    },
  },
  {
    name: 'no namespace',
    reason: 'the reference raises; we return Fatal so Crossplane keeps everything',
    req: () => request({ ...stackXR(), metadata: { name: 'test-backend' } }),
    want: {
      resources: {},
      conditions: [],
      results: [{ severity: 'Fatal', message: 'metadata.namespace is unexpectedly absent' }],
      requirements: {},
    },
  },
];

describe('compose-serving-stack (§13.4)', () => {
  it.each(cases)('$name', ({ req, want }) => {
    expect(compose(req())).toStrictEqual(want);
  });
});
