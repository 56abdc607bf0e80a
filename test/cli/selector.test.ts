/**
 * `modelplane selector` on the seed manifests: the seed selectors against the
 * seed InferenceClasses answer as ../shared/corpus/seeds/README.md says (the
 * A16's 16384Mi satisfies >= 14Gi but not >= 20Gi; L4 23034Mi and L40S
 * 46068Mi satisfy >= 20Gi), a malformed selector exits 2 with a caret, and
 * JSON output has the documented shape.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { runSelector } from '../../cli/selector.js';

const seeds = resolve(fileURLToPath(new URL('../../', import.meta.url)), '../shared/corpus/seeds');
const classFiles = [join(seeds, 'vultr/vultr-platform.yaml'), join(seeds, 'demo/cluster-classes.yaml')];

/** The `cel` selectors of a seed model manifest. */
function seedSelectors(file: string): string[] {
  const out: string[] = [];
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === 'cel' && typeof x === 'string') out.push(x);
        else visit(x);
      }
    }
  };
  for (const doc of parseAllDocuments(readFileSync(join(seeds, file), 'utf8'))) visit(doc.toJS());
  return out;
}

async function run(expression: string, output: 'text' | 'json' = 'text', files = classFiles) {
  let stdout = '';
  let stderr = '';
  const code = await runSelector(expression, { class: files, output }, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
  return { code, stdout, stderr };
}

describe('modelplane selector', () => {
  it('finds exactly one selector in each seed model manifest', () => {
    expect(seedSelectors('vultr/vultr-model.yaml')).toEqual(['device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("14Gi")) >= 0\n']);
    expect(seedSelectors('demo/inference.yaml')).toEqual(['device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("20Gi")) >= 0\n']);
  });

  it('the vultr selector (>= 14Gi) matches the A16 and both EKS classes', async () => {
    const r = await run(seedSelectors('vultr/vultr-model.yaml')[0]!, 'json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      { class: 'a16-1x', device: 'gpu', matched: true, error: null },
      { class: 'l4-1x-g6', device: 'gpu', matched: true, error: null },
      { class: 'l40s-1x-g6e', device: 'gpu', matched: true, error: null },
    ]);
  });

  it('the demo selector (>= 20Gi) rejects the A16 and matches L4 and L40S, as a text table', async () => {
    const r = await run(seedSelectors('demo/inference.yaml')[0]!);
    expect(r).toEqual({
      code: 0,
      stderr: '',
      stdout: ['CLASS        DEVICE  RESULT', 'a16-1x       gpu     not matched', 'l4-1x-g6     gpu     matched', 'l40s-1x-g6e  gpu     matched', ''].join('\n'),
    });
  });

  it('reports evaluation errors per device with matched null, and exits 4 (not a clean match)', async () => {
    const r = await run('device.attributes["gpu.nvidia.com"].cudaComputeCapability.isGreaterThan(semver("8.0.0"))', 'json');
    expect(r.code).toBe(4);
    expect(r.stderr).toBe('modelplane selector: the selector failed on 2 of 3 devices (l4-1x-g6/gpu, l40s-1x-g6e/gpu)\n');
    expect(JSON.parse(r.stdout)).toEqual([
      { class: 'a16-1x', device: 'gpu', matched: true, error: null },
      { class: 'l4-1x-g6', device: 'gpu', matched: null, error: 'no such key: cudaComputeCapability' },
      { class: 'l40s-1x-g6e', device: 'gpu', matched: null, error: 'no such key: cudaComputeCapability' },
    ]);
  });

  it('a malformed selector exits 2 with the message and a caret under the position', async () => {
    const r = await run('device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("20Gi") >= 0');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      [
        'modelplane selector: the selector does not compile:',
        "ERROR: <input>:1:73: Syntax error: missing ')' at '<EOF>'",
        ' | device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("20Gi") >= 0',
        ` | ${'.'.repeat(72)}^`,
        '',
      ].join('\n'),
    );
  });

  it('a type error exits 2 too', async () => {
    const r = await run('device.driver');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('must evaluate to bool or the unknown type, not string');
  });

  it('skips other kinds and names devices without a name by index', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'selector-'));
    const file = join(dir, 'classes.yaml');
    writeFileSync(
      file,
      [
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata: {name: ignored}',
        '---',
        'apiVersion: modelplane.ai/v1alpha1',
        'kind: InferenceClass',
        'metadata: {name: big}',
        'spec:',
        '  devices:',
        '  - driver: gpu.nvidia.com',
        '    capacity: {memory: {value: 80Gi}}',
        '  - name: broken',
        '    driver: gpu.nvidia.com',
        '    attributes: {cc: {version: "9.0"}}',
      ].join('\n'),
    );
    const r = await run('device.capacity["gpu.nvidia.com"].memory.isGreaterThan(quantity("40Gi"))', 'json', [file]);
    expect(JSON.parse(r.stdout)).toEqual([
      { class: 'big', device: 'devices[0]', matched: true, error: null },
      { class: 'big', device: 'broken', matched: null, error: 'attribute cc: parse semantic version: No Major.Minor.Patch elements found' },
    ]);
  });

  it('an unreadable file exits 1 with one line', async () => {
    const r = await run('true', 'text', ['/nonexistent/classes.yaml']);
    expect(r).toEqual({ code: 1, stdout: '', stderr: 'modelplane selector: /nonexistent/classes.yaml: no such file or directory\n' });
  });
});
