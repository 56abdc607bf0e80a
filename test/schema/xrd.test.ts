import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../cli/root.js';
import { type JSONSchemaProps, loadXrds, parsedDocsKey, parseYamlDocs, type Xrd, xrdToCrdSchema, yamlFiles } from '../../functions/lib/schema/index.js';

function xrd(scope: Xrd['spec']['scope'], extra: Partial<Xrd['spec']> = {}, apiVersion = 'apiextensions.crossplane.io/v2'): Xrd {
  return {
    apiVersion,
    kind: 'CompositeResourceDefinition',
    metadata: { name: 'widgets.example.org' },
    spec: {
      group: 'example.org',
      names: { kind: 'Widget', plural: 'widgets' },
      ...(scope !== undefined ? { scope } : {}),
      versions: [
        {
          name: 'v1',
          served: true,
          referenceable: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description: 'A widget.',
              'x-kubernetes-validations': [{ rule: 'true', message: 'root' }],
              properties: {
                metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 40 } } },
                spec: {
                  type: 'object',
                  required: ['size'],
                  'x-kubernetes-validations': [{ rule: 'self.size > 0', message: 'positive' }],
                  properties: { size: { type: 'integer' } },
                },
                status: { type: 'object', properties: { phase: { type: 'string' } } },
              },
            },
          },
        },
      ],
      ...extra,
    },
  };
}

const keys = (s: JSONSchemaProps | undefined) => Object.keys(s?.properties ?? {});

describe('xrdToCrdSchema', () => {
  it('builds a modern Cluster XR schema: machinery under spec.crossplane, conditions, name bound', () => {
    const k = xrdToCrdSchema(xrd('Cluster'));
    expect(k).toMatchObject({ apiVersion: 'example.org/v1', kind: 'Widget', plural: 'widgets', scope: 'Cluster' });
    const s = k.schema;
    expect(s.required).toEqual(['spec']);
    expect(s.description).toBe('A widget.');
    expect(s['x-kubernetes-validations']).toEqual([{ rule: 'true', message: 'root' }]);
    expect(s.properties?.['metadata']).toEqual({ type: 'object', properties: { name: { type: 'string', maxLength: 40 } } });
    const spec = s.properties?.['spec'];
    expect(spec?.required).toEqual(['size']);
    expect(spec?.['x-kubernetes-validations']).toEqual([{ rule: 'self.size > 0', message: 'positive' }]);
    expect(keys(spec)).toEqual(['size', 'crossplane']);
    const cp = spec?.properties?.['crossplane'];
    expect(keys(cp)).toEqual([
      'compositionRef',
      'compositionSelector',
      'compositionRevisionRef',
      'compositionRevisionSelector',
      'compositionUpdatePolicy',
      'resourceRefs',
    ]);
    expect(cp?.properties?.['compositionUpdatePolicy']).toEqual({ type: 'string', enum: ['Automatic', 'Manual'] });
    expect(keys(cp?.properties?.['resourceRefs']?.items)).toEqual(['apiVersion', 'name', 'kind', 'namespace']);
    const status = s.properties?.['status'];
    expect(keys(status)).toEqual(['phase', 'conditions', 'crossplane']);
    expect(status?.properties?.['conditions']).toMatchObject({
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
      items: { required: ['lastTransitionTime', 'reason', 'status', 'type'] },
    });
  });

  it('caps metadata.name at 63 characters', () => {
    const x = xrd('Namespaced');
    delete x.spec.versions[0]!.schema!.openAPIV3Schema!.properties!['metadata'];
    expect(xrdToCrdSchema(x).schema.properties?.['metadata']).toEqual({
      type: 'object',
      properties: { name: { type: 'string', maxLength: 63 } },
    });
  });

  it('gives namespaced XRs resourceRefs without namespace, and defaults the update policy the XRD declares', () => {
    const k = xrdToCrdSchema(xrd(undefined, { defaultCompositionUpdatePolicy: 'Manual' }));
    expect(k.scope).toBe('Namespaced');
    const cp = k.schema.properties?.['spec']?.properties?.['crossplane'];
    expect(keys(cp?.properties?.['resourceRefs']?.items)).toEqual(['apiVersion', 'name', 'kind']);
    expect(cp?.properties?.['compositionUpdatePolicy']?.default).toBe('Manual');
  });

  it('puts legacy machinery directly under spec (v1 XRDs are LegacyCluster)', () => {
    const k = xrdToCrdSchema(xrd(undefined, {}, 'apiextensions.crossplane.io/v1'));
    expect(k.scope).toBe('Cluster');
    expect(keys(k.schema.properties?.['spec'])).toEqual([
      'size',
      'compositionRef',
      'compositionSelector',
      'compositionRevisionRef',
      'compositionRevisionSelector',
      'compositionUpdatePolicy',
      'resourceRefs',
      'claimRef',
      'writeConnectionSecretToRef',
    ]);
    expect(keys(k.schema.properties?.['status'])).toEqual(['phase', 'conditions', 'connectionDetails', 'claimConditionTypes']);
  });

  it('does not mutate the XRD and names a missing version', () => {
    const x = xrd('Cluster');
    const before = structuredClone(x);
    xrdToCrdSchema(x);
    expect(x).toEqual(before);
    expect(() => xrdToCrdSchema(x, 'v2')).toThrow('XRD widgets.example.org has no version v2');
  });
});

describe('loadXrds with YAML parsed ahead of time (dist/yaml-docs.json)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'xrds-'));
  const text = 'apiVersion: apiextensions.crossplane.io/v2\nkind: CompositeResourceDefinition\nmetadata:\n  name: widgets.example.org\nspec:\n  group: example.org\n  names: {kind: Widget, plural: widgets}\n  scope: Cluster\n  versions:\n  - {name: v1, served: true, referenceable: true, schema: {openAPIV3Schema: {type: object}}}\n';
  writeFileSync(join(dir, 'definition.yaml'), text);
  const gadget = { ...(parseYamlDocs(text)[0] as Xrd) };
  gadget.spec = { ...gadget.spec, names: { kind: 'Gadget', plural: 'gadgets' } };

  it('takes a file whose text it has from the parsed documents, and parses one it has not', () => {
    expect(loadXrds(dir, undefined, { [parsedDocsKey(text)]: [gadget] }).keys()).toEqual(['example.org/v1 Gadget']);
    expect(loadXrds(dir, undefined, { [parsedDocsKey(`${text}# edited\n`)]: [gadget] }).keys()).toEqual(['example.org/v1 Widget']);
    expect(loadXrds(dir).keys()).toEqual(['example.org/v1 Widget']);
  });

  it('is what scripts/build.mjs writes: every file of apis/ keyed by its text, parsed as parseYamlDocs parses it', () => {
    const built = join(REPO_ROOT, 'dist', 'yaml-docs.json');
    if (!existsSync(built)) return; // no build in this checkout (npm ci runs it; .ci/run builds before testing)
    const parsed = JSON.parse(readFileSync(built, 'utf8')) as Record<string, unknown[]>;
    const files = yamlFiles(join(REPO_ROOT, 'apis'));
    expect(Object.keys(parsed).length).toBe(files.length);
    for (const f of files) {
      const t = readFileSync(f, 'utf8');
      expect([f, parsed[parsedDocsKey(t)]]).toEqual([f, parseYamlDocs(t)]);
    }
  });
});
