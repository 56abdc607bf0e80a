/**
 * The golden of the first GKE case checked against facts written out by hand
 * (cases 2–5, docs/clouds.md#names, docs/clouds.md#the-system-pool), so
 * the golden the GKE table tests build on is not merely what the code
 * happened to print.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../functions/lib/function.js';
import { KUBECONFIG, NS, SA_KEY } from '../builders/cloud.js';
import { forProvider, golden, type Resources } from './expected.js';

const g = (): Resources => golden('gke-1.yaml');

describe('golden of §8.2 case 1 (cases 2–5)', () => {
  const r = g();
  it('2: the regional cluster', () => {
    expect(forProvider(r, 'cluster')).toEqual({
      location: 'us-central1',
      deletionProtection: false,
      removeDefaultNodePool: true,
      initialNodeCount: 1,
      minMasterVersion: '1.35',
      networkSelector: { matchControllerRef: true },
      subnetworkSelector: { matchControllerRef: true },
      ipAllocationPolicy: { clusterSecondaryRangeName: 'pods', servicesSecondaryRangeName: 'services' },
      releaseChannel: { channel: 'REGULAR' },
      workloadIdentityConfig: { workloadPool: 'my-gcp-project.svc.id.goog' },
      addonsConfig: { gcpFilestoreCsiDriverConfig: { enabled: true } },
    });
    expect((r['cluster']!.resource['spec'] as JsonObject)['writeConnectionSecretToRef']).toEqual({ name: 'test-cluster-kubeconfig-55b57' });
  });

  it('3: the subnet and its secondary ranges', () => {
    expect(forProvider(r, 'subnet')).toEqual({
      region: 'us-central1',
      networkSelector: { matchControllerRef: true },
      ipCidrRange: '10.0.0.0/24',
      secondaryIpRange: [
        { rangeName: 'pods', ipCidrRange: '10.1.0.0/16' },
        { rangeName: 'services', ipCidrRange: '10.2.0.0/16' },
      ],
    });
  });

  it('4: the GPU node pool', () => {
    const fp = forProvider(r, 'nodepool-gpu-pool');
    expect([fp['initialNodeCount'], fp['autoscaling'], fp['nodeLocations']]).toEqual([1, { minNodeCount: 0, maxNodeCount: 8 }, undefined]);
    expect(fp['nodeConfig']).toEqual({
      machineType: 'a2-highgpu-8g',
      diskSizeGb: 100,
      imageType: 'COS_CONTAINERD',
      oauthScopes: ['https://www.googleapis.com/auth/cloud-platform'],
      guestAccelerator: [{ type: 'nvidia-tesla-a100', count: 8, gpuDriverInstallationConfig: { gpuDriverVersion: 'DEFAULT' } }],
      labels: {
        'modelplane.ai/gpu': 'nvidia-tesla-a100',
        'modelplane.ai/pool': 'gpu-pool',
        'cloud.google.com/gke-nvidia-gpu-dra-driver': 'true',
      },
    });
    expect((r['nodepool-gpu-pool']!.resource['spec'] as JsonObject)['managementPolicies']).toBeUndefined();
  });

  it('5: the service account, its key and the ProviderConfigs identity', () => {
    expect(forProvider(r, 'service-account')).toEqual({ displayName: 'Crossplane GKECluster test-cluster' });
    expect((r['service-account-key']!.resource['spec'] as JsonObject)['writeConnectionSecretToRef']).toEqual({ name: SA_KEY });
    for (const k of ['provider-config-kubernetes', 'provider-config-helm']) {
      expect(r[k]!.ready).toBe(true);
      expect(r[k]!.resource['spec']).toEqual({
        credentials: { source: 'Secret', secretRef: { name: KUBECONFIG, namespace: NS, key: 'kubeconfig' } },
        identity: { type: 'GoogleApplicationCredentials', source: 'Secret', secretRef: { name: SA_KEY, namespace: NS, key: 'private_key' } },
      });
    }
  });

  it('the system node pool of §1.6', () => {
    expect(forProvider(r, 'nodepool-system')).toEqual({
      location: 'us-central1',
      clusterSelector: { matchControllerRef: true },
      initialNodeCount: 1,
      autoscaling: { minNodeCount: 1, maxNodeCount: 2 },
      nodeConfig: {
        machineType: 'e2-standard-4',
        imageType: 'COS_CONTAINERD',
        oauthScopes: ['https://www.googleapis.com/auth/cloud-platform'],
        labels: { 'modelplane.ai/pool': 'system' },
      },
    });
  });
});
