/**
 * The dev runtime's hand-out of workload API servers to simulated cloud
 * clusters (cli/dev/runtime/handout.ts): lowest free first, never one
 * adopted otherwise (workload 0 under an Existing cluster); kept across
 * restarts; freed on deletion.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WorkloadHandout } from '../../cli/dev/runtime/handout.js';

const servers = [0, 1, 2].map((index) => ({ index, kubeconfig: `kubeconfig of ${index}` }));

describe('WorkloadHandout', () => {
  it('with workload 0 adopted by an Existing cluster: gives 1, then 2, then none; the same Secret keeps its server', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'handout-')), 'h.json');
    const h = new WorkloadHandout(file, servers);
    const adopted = new Set([0]);
    expect(h.take('modelplane-system/a', 'vultr-demo', adopted)?.index).toBe(1);
    expect(h.take('modelplane-system/b', undefined, adopted)).toEqual({ index: 2, kubeconfig: 'kubeconfig of 2' });
    expect(h.take('modelplane-system/a', undefined, adopted)?.index).toBe(1);
    expect(h.take('modelplane-system/c', undefined, adopted)).toBeUndefined();
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ 'modelplane-system/a': { index: 1, cluster: 'vultr-demo' }, 'modelplane-system/b': { index: 2 } });
    expect(h.serverOf('vultr-demo')).toBe(1);
    expect(h.serverOf('other')).toBeUndefined();
  });

  it('with nothing adopted, workload 0 goes first; one held stays held when adopted later (the Existing cluster is told apart by the caller)', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'handout-')), 'h.json');
    const h = new WorkloadHandout(file, servers);
    expect(h.take('modelplane-system/vultr-demo-kubeconfig', 'vultr-demo')?.index).toBe(0);
    expect(h.take('modelplane-system/b')?.index).toBe(1);
    expect(h.take('modelplane-system/vultr-demo-kubeconfig', 'vultr-demo', new Set([0]))?.index).toBe(0);
    expect(h.serverOf('vultr-demo')).toBe(0);
  });

  it('a deleted cluster frees its server; a restarted runtime reads what was given', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'handout-')), 'h.json');
    const h = new WorkloadHandout(file, servers);
    h.take('ns/a');
    h.take('ns/b');
    const again = new WorkloadHandout(file, servers);
    expect(again.take('ns/b')?.index).toBe(1);
    expect(again.release('ns/a')).toBe(0);
    expect(again.release('ns/a')).toBeUndefined();
    expect(again.take('ns/c')?.index).toBe(0);
  });
});
