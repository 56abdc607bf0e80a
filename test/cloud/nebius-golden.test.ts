/**
 * The golden of the first Nebius case checked against facts written out by
 * hand (docs/clouds.md#nebius-resources, the exact cloud-init document,
 * docs/clouds.md#names, docs/clouds.md#the-system-pool), so the golden the Nebius table
 * tests build on is not merely what the code happened to print.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../functions/lib/function.js';
import { CLOUD_INIT, KUBECONFIG, NS } from '../builders/cloud.js';
import { forProvider, golden, type Resources } from './expected.js';

const g = (): Resources => golden('nebius-1.yaml');
const PC_KEYS = ['provider-config-kubernetes', 'provider-config-helm'];
const template = (fp: JsonObject) => fp['template'] as JsonObject;

describe('golden of §8.4 case 1', () => {
  const r = g();
  it('network, subnet, cluster and filesystem', () => {
    expect([forProvider(r, 'network'), forProvider(r, 'subnet')]).toEqual([
      { name: 'test-cluster' },
      { name: 'test-cluster', networkIdSelector: { matchControllerRef: true }, ipv4PrivatePools: { useNetworkPools: true } },
    ]);
    expect(forProvider(r, 'cluster')).toEqual({
      name: 'test-cluster',
      controlPlane: { version: '1.34', subnetIdSelector: { matchControllerRef: true }, endpoints: { publicEndpoint: {} } },
    });
    expect((r['cluster']!.resource['spec'] as JsonObject)['writeConnectionSecretToRef']).toEqual({ name: KUBECONFIG });
    expect(forProvider(r, 'filesystem')).toEqual({ name: 'test-cluster-cache', type: 'NETWORK_SSD', sizeGibibytes: 1024 });
  });

  it('the cloud-init Secret: exact userData, ready', () => {
    expect(r['cloud-init']).toEqual({
      resource: {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: CLOUD_INIT, namespace: NS },
        type: 'Opaque',
        stringData: {
          userData:
            '#cloud-config\nruncmd:\n  - mkdir -p /mnt/data\n  - mount -t virtiofs modelplane-cache /mnt/data\n  - printf "modelplane-cache /mnt/data virtiofs defaults,nofail 0 2\\n" >> /etc/fstab\n',
        },
      },
      ready: true,
    });
  });

  it('the GPU node group: autoscaling from nodeCount, template with labels, drivers, taint, filesystem and cloud-init', () => {
    const fp = forProvider(r, 'nodegroup-gpu-h100');
    expect([fp['name'], fp['version'], fp['autoscaling'], fp['fixedNodeCount']]).toEqual([
      'test-cluster-gpu-h100',
      '1.34',
      { minNodeCount: 1, maxNodeCount: 4 },
      undefined,
    ]);
    expect(template(fp)).toEqual({
      resources: { platform: 'gpu-h100-sxm', preset: '8gpu-128vcpu-1600gb' },
      bootDisk: { sizeGibibytes: 200, type: 'NETWORK_SSD' },
      networkInterfaces: [{ subnetIdSelector: { matchControllerRef: true } }],
      filesystems: [{ attachMode: 'READ_WRITE', mountTag: 'modelplane-cache', existingFilesystem: { idSelector: { matchControllerRef: true } } }],
      cloudInitUserDataSecretRef: { name: CLOUD_INIT, key: 'userData' },
      metadata: { labels: { 'modelplane.ai/pool': 'gpu-h100', 'modelplane.ai/gpu': 'nvidia-h100' } },
      gpuSettings: { driversPreset: 'cuda13.0' },
      taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NO_SCHEDULE' }],
    });
  });

  it('the system node group of §1.6', () => {
    const fp = forProvider(r, 'nodegroup-system');
    expect([fp['name'], fp['autoscaling'], template(fp)['resources'], template(fp)['bootDisk'], template(fp)['metadata']]).toEqual([
      'test-cluster-system',
      { minNodeCount: 1, maxNodeCount: 2 },
      { platform: 'cpu-d3', preset: '4vcpu-16gb' },
      { sizeGibibytes: 100, type: 'NETWORK_SSD' },
      { labels: { 'modelplane.ai/pool': 'system' } },
    ]);
  });

  it('the ProviderConfigs carry the Nebius identity', () => {
    for (const k of PC_KEYS) {
      expect((r[k]!.resource['spec'] as JsonObject)['identity']).toEqual({
        type: 'NebiusServiceAccountCredentials',
        source: 'Secret',
        secretRef: { namespace: 'crossplane-system', name: 'nebius-credentials', key: 'credentials.json' },
      });
    }
  });
});
