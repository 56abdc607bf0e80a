/**
 * The devices the oracle cases evaluate selectors against: the devices of
 * the seed InferenceClasses (copied from the published seed manifests,
 * shared/corpus/seeds beside the repository), the GPU
 * fixture of packages/cel/test/acceptance.test.ts, and devices built to reach edge cases
 * (several domains, int64 limits, decimal-backed quantities, invalid values).
 */
import type { InferenceClassDevice } from '@modelplane/cel';

export const DEVICES: Readonly<Record<string, InferenceClassDevice>> = {
  // vultr/vultr-platform.yaml, class a16-1x.
  a16: {
    name: 'gpu',
    driver: 'gpu.nvidia.com',
    attributes: { architecture: { string: 'Ampere' }, cudaComputeCapability: { version: '8.6.0' } },
    capacity: { memory: { value: '16384Mi' } },
  },
  // demo/cluster-classes.yaml, classes l4-1x-g6 and l40s-1x-g6e.
  l4: { name: 'gpu', driver: 'gpu.nvidia.com', attributes: { architecture: { string: 'Ada Lovelace' } }, capacity: { memory: { value: '23034Mi' } } },
  l40s: { name: 'gpu', driver: 'gpu.nvidia.com', attributes: { architecture: { string: 'Ada Lovelace' } }, capacity: { memory: { value: '46068Mi' } } },
  // The GPU fixture of packages/cel/test/acceptance.test.ts.
  h200: {
    name: 'gpu',
    driver: 'gpu.nvidia.com',
    attributes: {
      architecture: { string: 'Hopper' },
      cudaComputeCapability: { version: '9.5.3' },
      'resource.kubernetes.io/pcieRoot': { string: 'pci0' },
      mig: { bool: true },
      nvlink: { bool: false },
      index: { int: 8 },
      cores: { int: 4 },
      model: { string: 'H200' },
      driverVersion: { version: '550.54.15' },
    },
    capacity: { memory: { value: '141Gi' }, 'resource.kubernetes.io/power': { value: '700' } },
  },
  // Several domains, prereleases, qualified and bare names.
  multi: {
    name: 'gpu',
    driver: 'dra.example.com',
    attributes: {
      color: { string: 'black' },
      size: { string: 'large' },
      type: { string: 'gpu' },
      firmware: { version: '1.2.3-rc.1+build.5' },
      'other.example.com/zone': { string: 'eu-1' },
      'other.example.com/slots': { int: -3 },
      'other.example.com/dual': { bool: true },
      'gpu.nvidia.com/model': { string: 'A100' },
      empty: { string: '' },
      unicode: { string: 'grüße-🚀' },
    },
    capacity: {
      memory: { value: '64Gi' },
      bandwidth: { value: '1.5G' },
      slices: { value: '7' },
      'other.example.com/memory': { value: '32Gi' },
      fraction: { value: '0.5Ki' },
      milli: { value: '250m' },
    },
  },
  // int64 limits and odd quantities.
  limits: {
    name: 'x',
    driver: 'limits.example.com',
    attributes: {
      max: { int: '9223372036854775807' },
      min: { int: '-9223372036854775808' },
      zero: { int: 0 },
      v0: { version: '0.0.0' },
      vbig: { version: '18446744073709551615.1.2' },
      long: { string: 'x'.repeat(64) },
    },
    capacity: {
      huge: { value: '8Ei' },
      big: { value: '256E' },
      neg: { value: '-5Gi' },
      nano: { value: '1n' },
      tiny: { value: '0.0000000001' },
      zero: { value: '0' },
      exp: { value: '1e3' },
    },
  },
  // A driver-less device: bare names land in the "" domain.
  nodriver: { name: 'cpu', attributes: { cores: { int: 16 } }, capacity: { memory: { value: '128Gi' } } },
  empty: { name: 'none', driver: 'empty.example.com' },
  // Devices Kubernetes cannot evaluate: every selector fails on them.
  badVersion: { name: 'g', driver: 'gpu.nvidia.com', attributes: { cudaComputeCapability: { version: '9.0' } }, capacity: { memory: { value: '80Gi' } } },
  badQuantity: { name: 'g', driver: 'gpu.nvidia.com', attributes: { architecture: { string: 'Hopper' } }, capacity: { memory: { value: '10Mo' } } },
  emptyAttribute: { name: 'g', driver: 'gpu.nvidia.com', attributes: { architecture: {} }, capacity: { memory: { value: '80Gi' } } },
};

/** Devices that convert (the ones selectors can match). */
export const GOOD_DEVICES = ['a16', 'l4', 'l40s', 'h200', 'multi', 'limits', 'nodriver', 'empty'] as const;
