/**
 * readComposite (functions/lib/xr.ts) keeps its outcomes by the XR's JSON:
 * the same XR read twice gives the same (shared, frozen) outcome, an XR that
 * differs anywhere outside status is parsed afresh, and an invalid one keeps
 * its problem text.
 */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../functions/lib/function.js';
import { parseInferenceClass } from '../../functions/lib/generated/inferenceclasses.js';
import { readComposite } from '../../functions/lib/xr.js';

const cls = (name: string, status: object = {}): KubeObject => ({
  apiVersion: 'modelplane.ai/v1alpha1',
  kind: 'InferenceClass',
  metadata: { name },
  spec: { devices: [{ name: 'gpu', driver: 'gpu.nvidia.com', count: 1 }] },
  status,
});

describe('readComposite', () => {
  it('shares one frozen outcome for the same XR, whatever its status', () => {
    const a = readComposite(cls('a'), parseInferenceClass);
    const b = readComposite(cls('a', { anything: 1 }), parseInferenceClass);
    expect(a.ok).toBe(true);
    expect(b).toBe(a);
    expect(Object.isFrozen(a.ok ? a.xr : undefined)).toBe(true);
    expect(() => {
      if (a.ok) (a.xr.metadata as { name: string }).name = 'changed';
    }).toThrow(TypeError);
  });

  it('parses an XR that differs again', () => {
    const a = readComposite(cls('a'), parseInferenceClass);
    const b = readComposite(cls('b'), parseInferenceClass);
    expect(b).not.toBe(a);
    expect(b.ok && b.xr.metadata?.name).toBe('b');
  });

  it('keeps the problem of an invalid XR', () => {
    const bad = { ...cls('c'), spec: { devices: 'none' } } as KubeObject;
    const first = readComposite(bad, parseInferenceClass);
    expect(first.ok).toBe(false);
    expect(readComposite(bad, parseInferenceClass)).toEqual(first);
  });
});
