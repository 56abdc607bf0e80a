/**
 * The plan and render examples a platform team keeps in Git carry the sync
 * wave of their kind (docs/argocd.md, "Sync waves"), and platform kinds come
 * before developer kinds.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { ROOT } from '../../scripts/argocd/emit.js';
import { SYNC_WAVE_ANNOTATION, SYNC_WAVES, WAVED_EXAMPLES } from '../../scripts/argocd/waves.js';

interface Obj {
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
}

function objectsOf(example: string): Obj[] {
  const dir = join(ROOT, 'examples', example);
  const files = readdirSync(dir).filter((f) => f.endsWith('.yaml') && f !== 'expected.yaml' && !['composition.yaml', 'functions.yaml', 'required.yaml', 'observed.yaml'].includes(f));
  return files.flatMap((f) => parseAllDocuments(readFileSync(join(dir, f), 'utf8')).map((d) => d.toJSON() as Obj)).filter((o) => o !== null);
}

describe('sync waves', () => {
  it.each(WAVED_EXAMPLES)('every object of examples/%s carries its kind\'s wave', (example) => {
    const objects = objectsOf(example);
    expect(objects.length).toBeGreaterThan(0);
    const got = objects.map((o) => [o.kind, o.metadata.name, o.metadata.annotations?.[SYNC_WAVE_ANNOTATION]]);
    expect(got).toEqual(objects.map((o) => [o.kind, o.metadata.name, String(SYNC_WAVES[o.kind])]));
  });

  it('settles prerequisites, classes, clusters, gateways and quotas, caches, deployments, then routes', () => {
    const order = ['Secret', 'InferenceClass', 'InferenceCluster', 'InferenceGateway', 'ModelCache', 'ModelDeployment', 'ModelService'];
    const waves = order.map((k) => SYNC_WAVES[k]!);
    expect(waves).toEqual([-4, -3, -2, -1, 0, 1, 2]);
    expect(SYNC_WAVES['InferenceQuota']).toBe(SYNC_WAVES['InferenceGateway']);
    expect(SYNC_WAVES['ModelEndpoint']).toBe(SYNC_WAVES['ModelService']);
  });
});
