/**
 * The vendored CRD bundles are the upstream files, not hand edits:
 * - functions/compose-inference-gateway/gateway-api-crds.json = the eight
 *   Gateway API v1.5.1 standard-channel CRDs, verbatim (status stubs kept;
 *   docs/kinds/inferencegateway.md#gateway-api-crds);
 * - functions/compose-serving-stack/gaie-crds.json = the three GAIE v1.0.1
 *   CRDs with server-owned status/creationTimestamp stripped (docs/kinds/servingstack.md#objects).
 * Run with UPDATE_VENDORED=1 to regenerate both from ../shared/crds.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { KubeObject } from '../../functions/lib/function.js';
import { repoRoot, sharedCrdsDir } from '../helpers/crd.js';

const read = (file: string) => parse(readFileSync(resolve(sharedCrdsDir, file), 'utf8')) as KubeObject;

const bundles: { file: string; build: () => KubeObject[] }[] = [
  {
    file: 'functions/compose-inference-gateway/gateway-api-crds.json',
    build: () =>
      ['backendtlspolicies', 'gatewayclasses', 'gateways', 'grpcroutes', 'httproutes', 'listenersets', 'referencegrants', 'tlsroutes'].map(
        (p) => read(`gateway.networking.k8s.io/${p}.yaml`),
      ),
  },
  {
    file: 'functions/compose-serving-stack/gaie-crds.json',
    build: () =>
      [
        'inference.networking.x-k8s.io/inferenceobjectives.yaml',
        'inference.networking.k8s.io/inferencepools.yaml',
        'inference.networking.x-k8s.io/inferencepools.yaml',
      ].map((f) => {
        const crd = read(f);
        delete crd['status'];
        delete crd.metadata?.['creationTimestamp'];
        return crd;
      }),
  },
];

describe('vendored CRD bundles', () => {
  it.each(bundles)('$file is generated from ../shared/crds', ({ file, build }) => {
    const want = `${JSON.stringify(build())}\n`;
    const path = resolve(repoRoot, file);
    if (process.env['UPDATE_VENDORED'] === '1') writeFileSync(path, want);
    expect(readFileSync(path, 'utf8') === want, `${file} differs from ../shared/crds; run UPDATE_VENDORED=1`).toBe(true);
  });

  it('carries the bundle versions the spec pins', () => {
    const gw = JSON.parse(readFileSync(resolve(repoRoot, bundles[0]!.file), 'utf8')) as KubeObject[];
    expect(gw.map((c) => c.metadata?.annotations?.['gateway.networking.k8s.io/bundle-version'])).toEqual(Array(8).fill('v1.5.1'));
    const gaie = JSON.parse(readFileSync(resolve(repoRoot, bundles[1]!.file), 'utf8')) as KubeObject[];
    expect(gaie.map((c) => c.metadata?.name)).toEqual([
      'inferenceobjectives.inference.networking.x-k8s.io',
      'inferencepools.inference.networking.k8s.io',
      'inferencepools.inference.networking.x-k8s.io',
    ]);
  });
});
