/**
 * Every printer column of every XRD points at a field its schema declares, so
 * no column renders empty because of a wrong path (the reference's ModelCache
 * SOURCE column read `.spec.source.huggingFace.repo`, which does not exist;
 * docs/kinds/modelcache.md#the-api).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../cli/functions.js';
import type { JsonObject } from '../../functions/lib/function.js';

/** The schema node at a simple `.a.b.c` path, or undefined. */
function resolve(schema: JsonObject, path: string): JsonObject | undefined {
  let node: JsonObject | undefined = schema;
  for (const part of path.replace(/^\./, '').split('.')) {
    const props = node?.['properties'] as Record<string, JsonObject> | undefined;
    node = props?.[part];
    if (node === undefined) return undefined;
  }
  return node;
}

const xrds = readdirSync(join(REPO_ROOT, 'apis'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => [d.name, parse(readFileSync(join(REPO_ROOT, 'apis', d.name, 'definition.yaml'), 'utf8')) as JsonObject] as const);

describe('printer columns resolve to declared fields', () => {
  it.each(xrds)('%s', (_name, xrd) => {
    for (const v of (xrd['spec'] as JsonObject)['versions'] as JsonObject[]) {
      const schema = (v['schema'] as JsonObject)['openAPIV3Schema'] as JsonObject;
      for (const c of (v['additionalPrinterColumns'] ?? []) as JsonObject[]) {
        const path = String(c['jsonPath']);
        // Filters and Crossplane's own status.conditions are not in our schemas.
        if (path.includes('[') || path.startsWith('.status.conditions')) continue;
        expect(resolve(schema, path), `${String(c['name'])} ${path}`).toBeDefined();
      }
    }
  });

  it('ModelCache SOURCE is .spec.huggingFace.repo', () => {
    const mc = xrds.find(([n]) => n === 'modelcaches')![1];
    const cols = ((mc['spec'] as JsonObject)['versions'] as JsonObject[])[0]!['additionalPrinterColumns'] as JsonObject[];
    expect(cols.map((c) => [c['name'], c['jsonPath']])).toEqual([
      ['SOURCE', '.spec.huggingFace.repo'],
      ['STAGED', '.status.summary.ready'],
    ]);
  });
});

describe('InferenceQuota USED (docs/quotas.md)', () => {
  it('is .status.summary, a string', () => {
    const iq = xrds.find(([n]) => n === 'inferencequotas')![1];
    const cols = ((iq['spec'] as JsonObject)['versions'] as JsonObject[])[0]!['additionalPrinterColumns'] as JsonObject[];
    expect(cols.map((c) => [c['name'], c['type'], c['jsonPath']])).toEqual([['USED', 'string', '.status.summary']]);
  });
});

describe('no XRD column shadows the ones Crossplane adds', () => {
  it('no column is named SYNCED, READY, COMPOSITION or AGE (Crossplane appends those to every XR)', () => {
    const shadowing = xrds.flatMap(([name, xrd]) =>
      ((xrd['spec'] as JsonObject)['versions'] as JsonObject[]).flatMap((v) =>
        ((v['additionalPrinterColumns'] ?? []) as JsonObject[])
          .filter((c) => ['SYNCED', 'READY', 'COMPOSITION', 'AGE'].includes(String(c['name'])))
          .map((c) => `${name} ${String(c['name'])}`),
      ),
    );
    expect(shadowing).toEqual([]);
  });
});
