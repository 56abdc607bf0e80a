/**
 * The dev runtime's hand-out of workload API servers to simulated cloud
 * clusters (cli/dev/runtime/handout.ts): 1..N-1, lowest free first, never 0;
 * kept across restarts; freed on deletion.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WorkloadHandout } from '../../cli/dev/runtime/handout.js';

const servers = [0, 1, 2].map((index) => ({ index, kubeconfig: `kubeconfig of ${index}` }));

describe('WorkloadHandout', () => {
  it('gives 1, then 2, never 0, then none; the same Secret keeps its server', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'handout-')), 'h.json');
    const h = new WorkloadHandout(file, servers);
    expect(h.take('modelplane-system/a', 'vultr-demo')?.index).toBe(1);
    expect(h.take('modelplane-system/b')).toEqual({ index: 2, kubeconfig: 'kubeconfig of 2' });
    expect(h.take('modelplane-system/a')?.index).toBe(1);
    expect(h.take('modelplane-system/c')).toBeUndefined();
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ 'modelplane-system/a': { index: 1, cluster: 'vultr-demo' }, 'modelplane-system/b': { index: 2 } });
    expect(h.serverOf('vultr-demo')).toBe(1);
    expect(h.serverOf('other')).toBeUndefined();
  });

  it('a deleted cluster frees its server; a restarted runtime reads what was given', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'handout-')), 'h.json');
    const h = new WorkloadHandout(file, servers);
    h.take('ns/a');
    h.take('ns/b');
    const again = new WorkloadHandout(file, servers);
    expect(again.take('ns/b')?.index).toBe(2);
    expect(again.release('ns/a')).toBe(1);
    expect(again.release('ns/a')).toBeUndefined();
    expect(again.take('ns/c')?.index).toBe(1);
  });
});
