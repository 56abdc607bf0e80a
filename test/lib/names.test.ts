import { describe, expect, it } from 'vitest';
import { childName, MAX_NAME_LENGTH, opaqueName, shortHash } from '../../functions/lib/names.js';

describe('childName: every vector of docs/kinds/modeldeployment.md#names-and-hashes and docs/clouds.md#names', () => {
  const vectors: [string[], string][] = [
    [['modelcache', 'ml-team', 'qwen'], 'modelcache-ml-team-qwen-17db2'],
    [['modelcache', 'ml-team', 'qwen', 'hydrate'], 'modelcache-ml-team-qwen-hydrate-256ec'],
    [['modelcache', 'ml-team', 'qwen', 'auth'], 'modelcache-ml-team-qwen-auth-ae01b'],
    [['test-replica', 'main'], 'test-replica-main-6b608'],
    [['test-replica', 'main', 'standalone', 'devices'], 'test-replica-main-standalone-devices-e609d'],
    [['r', 'main'], 'r-main-bb4e3'],
    [['r', 'main', 'standalone', 'devices'], 'r-main-standalone-devices-f456f'],
    [['r', 'main', 'leader', 'devices'], 'r-main-leader-devices-f58c6'],
    [['r', 'main', 'worker', 'devices'], 'r-main-worker-devices-99b8a'],
    [['test-cluster', 'cluster-kubeconfig'], 'test-cluster-cluster-kubeconfig-d0f89'],
    [['test-cluster', 'serving-stack'], 'test-cluster-serving-stack-fd00b'],
    [['test-backend', 'cluster'], 'test-backend-cluster-63fde'],
    [['test-cluster', 'kubeconfig'], 'test-cluster-kubeconfig-55b57'],
    [['test-cluster', 'sa-key'], 'test-cluster-sa-key-3295c'],
    [['test-cluster', 'cloud-init'], 'test-cluster-cloud-init-fd2f2'],
    [['modelplane-system', 'test-cluster', 'eks'], 'modelplane-system-test-cluster-eks-0865f'],
    [['modelplane-system', 'test-cluster', 'aks'], 'modelplane-system-test-cluster-aks-1173e'],
    [['test-cluster', 'lt-gpu-h200'], 'test-cluster-lt-gpu-h200-83c00'],
    [['test-cluster', 'efa-sg'], 'test-cluster-efa-sg-602a9'],
    [['test-cluster', 'subnet-us-west-2a'], 'test-cluster-subnet-us-west-2a-952dc'],
    [['test-cluster', 'subnet-us-west-2b'], 'test-cluster-subnet-us-west-2b-2b80f'],
    [['test-cluster', 'subnet-us-west-2c'], 'test-cluster-subnet-us-west-2c-03273'],
    [['test-cluster', 'private-subnet-us-west-2a'], 'test-cluster-private-subnet-us-west-2a-6a89f'],
    [['test-cluster', 'private-subnet-us-west-2b'], 'test-cluster-private-subnet-us-west-2b-b7832'],
    [['test-cluster', 'private-subnet-us-west-2c'], 'test-cluster-private-subnet-us-west-2c-ef57d'],
    [['a'.repeat(70), 'kubeconfig'], `${'a'.repeat(57)}-bdff6`],
  ];
  it.each(vectors)('childName(%j) = %s', (parts, want) => {
    expect(childName(...parts)).toBe(want);
  });
});

describe('opaqueName', () => {
  it.each([
    [['my-model', 'cluster-a', '0'], 'my-model-5ab63'],
    [['my-model', 'cluster-a', '1'], 'my-model-609c5'],
    [['my-model', 'cluster-b', '0'], 'my-model-f0b76'],
  ])('opaqueName(%j) = %s', (parts, want) => {
    const [visible, ...rest] = parts as [string, ...string[]];
    expect(opaqueName(visible, ...rest)).toBe(want);
  });

  it('keeps only the visible part readable, however long the discriminators', () => {
    expect(opaqueName('m', 'x'.repeat(100))).toMatch(/^m-[0-9a-f]{5}$/);
  });
});

describe('the 63-character boundary', () => {
  it('childName("x"*50, "engine-name-long") is exactly 63 characters, prefix cut at 57', () => {
    const name = childName('x'.repeat(50), 'engine-name-long');
    expect(name).toHaveLength(MAX_NAME_LENGTH);
    expect(name.slice(0, 57)).toBe(`${'x'.repeat(50)}-engine`);
    expect(name.slice(57)).toBe(`-${shortHash(`${'x'.repeat(50)}-engine-name-long`)}`);
  });

  it('a join of exactly 57 characters is kept whole: 63 with the hash', () => {
    const name = childName('a'.repeat(28), 'b'.repeat(28));
    expect(name).toBe(`${'a'.repeat(28)}-${'b'.repeat(28)}-${shortHash(`${'a'.repeat(28)}-${'b'.repeat(28)}`)}`);
    expect(name).toHaveLength(63);
  });

  it('a join of 58 characters is cut to 57', () => {
    const full = `${'a'.repeat(28)}-${'b'.repeat(29)}`;
    expect(childName('a'.repeat(28), 'b'.repeat(29))).toBe(`${full.slice(0, 57)}-${shortHash(full)}`);
  });

  it('a cut that ends in "-" has the dash trimmed, so no name holds "--"', () => {
    const name = childName('a'.repeat(56), 'b');
    expect(name).toBe(`${'a'.repeat(56)}-${shortHash(`${'a'.repeat(56)}-b`)}`);
    expect(name).toHaveLength(62);
    expect(opaqueName(`${'a'.repeat(56)}-tail`, '0')).toBe(`${'a'.repeat(56)}-${shortHash(`${'a'.repeat(56)}-tail-0`)}`);
  });
});
