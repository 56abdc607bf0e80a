/**
 * The committed argocd-cm patch and docs tables are what
 * `npm run argocd:generate` writes, with one key per XRD; and the harness
 * behaves as Argo CD's Lua VM does (docs/argocd.md).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { BEGIN, configKey, DOCS_PATH, END, PATCH_PATH, ROOT, renderPatch, renderTables, replaceTables } from '../../scripts/argocd/emit.js';
import { assessWith, patchData, SKIP_REASON } from './harness.js';

const STALE = 'stale: run npm run argocd:generate and commit the result';

describe('generated files', () => {
  it('the committed argocd-cm patch is current', () => {
    expect(readFileSync(PATCH_PATH, 'utf8'), STALE).toBe(renderPatch());
  });

  it('the tables in docs/argocd.md are current', () => {
    const doc = readFileSync(DOCS_PATH, 'utf8');
    expect(doc, STALE).toBe(replaceTables(doc));
    expect(doc.slice(doc.indexOf(BEGIN), doc.indexOf(END))).toContain(renderTables());
  });

  it('holds one key per XRD under apis/, and no other', () => {
    const xrds = readdirSync(join(ROOT, 'apis'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => parse(readFileSync(join(ROOT, 'apis', d.name, 'definition.yaml'), 'utf8')) as { spec: { group: string; names: { kind: string } } })
      .map((x) => configKey({ group: x.spec.group, kind: x.spec.names.kind }))
      .sort();
    expect(xrds).toHaveLength(15);
    expect(Object.keys(patchData()).sort()).toEqual(xrds);
  });

  it('patches argocd-cm in namespace argocd', () => {
    const cm = parse(readFileSync(PATCH_PATH, 'utf8')) as { kind: string; metadata: unknown };
    expect(cm.kind).toBe('ConfigMap');
    expect(cm.metadata).toEqual({ name: 'argocd-cm', namespace: 'argocd' });
  });
});

describe.skipIf(SKIP_REASON !== undefined)(`the gopher-lua harness${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ''}`, () => {
  it('gives the script obj and reads status and message from the table it returns', () => {
    const script = 'return { status = "Degraded", message = obj.metadata.name .. " " .. obj.spec.items[2] }';
    expect(assessWith(script, [{ metadata: { name: 'a' }, spec: { items: ['x', 'y'] } }])).toEqual([{ status: 'Degraded', message: 'a y' }]);
  });

  it('opens no string library, as Argo CD for a check from argocd-cm', () => {
    const [r] = assessWith('return { status = string.upper("healthy") }', [{}]);
    expect(r?.status).toBeUndefined();
    expect(r?.error).toContain('string');
  });

  it('turns a status Argo CD does not know into Unknown', () => {
    expect(assessWith('return { status = "Fine" }', [{}])).toEqual([{ status: 'Unknown', message: 'Lua returned an invalid health status' }]);
  });

  it('fails a script that returns no table', () => {
    expect(assessWith('return "Healthy"', [{}])).toEqual([{ error: 'expect table output from Lua script, not string' }]);
  });
});
