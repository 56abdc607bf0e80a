/**
 * The seeds users apply unchanged (../shared/corpus/seeds): every
 * InferenceCluster, given its classes as required resources, composes a
 * nested XR its XRD accepts and publishes exactly the pools the scheduler
 * needs; every InferenceGateway composes its first pass (MetalLB namespace,
 * ProviderConfig, Gateway API CRDs).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { compose as composeCluster } from '../../functions/compose-inference-cluster/compose.js';
import { compose as composeGateway } from '../../functions/compose-inference-gateway/compose.js';
import type { JsonObject, KubeObject } from '../../functions/lib/function.js';
import { request } from '../builders/platform.js';
import { expectValidAgainstCrd, repoRoot } from '../helpers/crd.js';

const seedsDir = resolve(repoRoot, '../shared/corpus/seeds');
const load = (file: string) =>
  parseAllDocuments(readFileSync(resolve(seedsDir, file), 'utf8')).map((d) => d.toJS() as KubeObject);
const ofKind = (docs: KubeObject[], kind: string) => docs.filter((d) => d.kind === kind);

const demo = [...load('demo/cluster-classes.yaml'), ...load('demo/clusters.yaml'), ...load('demo/inference-gateway.yaml')];
const vultr = load('vultr/vultr-platform.yaml');

const l4 = {
  name: 'gpu',
  claim: 'DRA',
  driver: 'gpu.nvidia.com',
  deviceClassName: 'gpu.nvidia.com',
  count: 1,
  attributes: { architecture: { string: 'Ada Lovelace' } },
  capacity: { memory: { value: '23034Mi' } },
};
const l40s = { ...l4, capacity: { memory: { value: '46068Mi' } } };
const a16 = {
  ...l4,
  attributes: { architecture: { string: 'Ampere' }, cudaComputeCapability: { version: '8.6.0' } },
  capacity: { memory: { value: '16384Mi' } },
};

const clusterCases: { name: string; docs: KubeObject[]; key: string; pools: JsonObject[] }[] = [
  { name: 'eks-us-east', docs: demo, key: 'eks-cluster', pools: [{ name: 'gpu-l4', className: 'l4-1x-g6', capacityType: 'OnDemand', nodes: 1, devices: [l4], fabric: 'Ethernet' }] },
  { name: 'eks-us-west', docs: demo, key: 'eks-cluster', pools: [{ name: 'gpu-l40s', className: 'l4-1x-g6', capacityType: 'OnDemand', nodes: 1, devices: [l4], fabric: 'Ethernet' }] },
  { name: 'eks-eu-central', docs: demo, key: 'eks-cluster', pools: [{ name: 'gpu-l40s', className: 'l40s-1x-g6e', capacityType: 'OnDemand', nodes: 1, devices: [l40s], fabric: 'Ethernet' }] },
  {
    name: 'vultr-demo',
    docs: vultr,
    key: 'vultr-cluster',
    pools: [{ name: 'gpu-a16', className: 'a16-1x', capacityType: 'OnDemand', nodes: 1, devices: [a16] }],
  },
];

describe('seed InferenceClusters', () => {
  it.each(clusterCases)('$name publishes its pools', ({ name, docs, key, pools }) => {
    const xr = ofKind(docs, 'InferenceCluster').find((d) => d.metadata?.name === name)!;
    const required = Object.fromEntries(ofKind(docs, 'InferenceClass').map((c) => [`class-${c.metadata?.name}`, [c]]));
    const out = composeCluster(request(xr, { required }));
    expect(out.status?.['gpuPools']).toStrictEqual(pools);
    expect(out.conditions).toStrictEqual([
      { type: 'ClusterReady', status: 'False', reason: 'Provisioning' },
      { type: 'BackendReady', status: 'False', reason: 'WaitingForCluster' },
    ]);
    expect(out.results).toStrictEqual([]);
    expect(Object.keys(out.resources)).toEqual([key]);
    expectValidAgainstCrd(out.resources[key]!.resource);
  });
});

describe('seed InferenceGateways', () => {
  it.each([
    ['demo', demo],
    ['vultr', vultr],
  ] as const)('%s: first pass', (_name, docs) => {
    const [xr] = ofKind(docs, 'InferenceGateway');
    const out = composeGateway(request(xr!));
    expect(Object.keys(out.resources).sort()).toEqual([
      'gateway-api-crd-backendtlspolicies.gateway.networking.k8s.io',
      'gateway-api-crd-gatewayclasses.gateway.networking.k8s.io',
      'gateway-api-crd-gateways.gateway.networking.k8s.io',
      'gateway-api-crd-grpcroutes.gateway.networking.k8s.io',
      'gateway-api-crd-httproutes.gateway.networking.k8s.io',
      'gateway-api-crd-listenersets.gateway.networking.k8s.io',
      'gateway-api-crd-referencegrants.gateway.networking.k8s.io',
      'gateway-api-crd-tlsroutes.gateway.networking.k8s.io',
      'key-validator',
      'key-validator-clusterrole',
      'key-validator-clusterrolebinding',
      'key-validator-pdb',
      'key-validator-service',
      'key-validator-serviceaccount',
      'namespace-metallb',
      'provider-config-helm',
    ]);
    expect(out.status).toStrictEqual({});
    expect(out.conditions).toStrictEqual([{ type: 'ControllerReady', status: 'False', reason: 'Installing' }]);
  });
});
