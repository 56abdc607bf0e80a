/**
 * Self-test of the render conformance check: a deliberately broken example
 * must fail it with a readable diff.
 *
 * The fixture (fixtures/broken-example/) is an InferenceClass whose device has
 * the attribute string "1.10". The real render prints it quoted, as YAML
 * requires (`string: "1.10"`). The broken harness here prints the real
 * output with that one field's formatting changed the way a careless YAML writer
 * would (`string: 1.10`, which reads back as the float 1.1). The comparison the
 * render conformance test uses must reject it, and its message must show
 * exactly that line, real first.
 *
 * The comparison machinery itself (allow-list, diff) is also checked here
 * without binaries.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Allowed, applyAllowList, compareStreams, renderMismatchMessage, unifiedDiff } from './compare.js';
import {
  ROOT,
  skipUnlessBuilt,
  realRender,
  type Served,
  serveFunctions,
} from './harness.js';

const fixture = join(ROOT, 'test/conformance/fixtures/broken-example');
const describeIfBuilt = skipUnlessBuilt('a deliberately broken example fails render conformance');

describe('conformance comparison', () => {
  it('a unified diff shows the real line first, then ours, with context', () => {
    const real = '---\na: 1\nb: "1.10"\nc: 3\n';
    const ours = '---\na: 1\nb: 1.10\nc: 3\n';
    expect(unifiedDiff(real, ours, 'real', 'ours')).toBe(
      ['--- real', '+++ ours', '@@ -1,5 +1,5 @@', ' ---', ' a: 1', '-b: "1.10"', '+b: 1.10', ' c: 3', ' '].join('\n'),
    );
  });

  it('an allow-list entry drops its field from both sides, only for its example and variant', () => {
    const allowed: Allowed[] = [{ example: 'ex', variant: '*', kind: 'Result', path: 'message', reason: 'test' }];
    const real = "---\nkind: XR\nmessage: a\n---\nkind: Result\nmessage: 'x: y'\n";
    const ours = '---\nkind: XR\nmessage: a\n---\nkind: Result\nmessage: "x: y"\n';
    expect(compareStreams(real, ours, { example: 'ex', variant: 'default', allowed }).equal).toBe(true);
    expect(compareStreams(real, ours, { example: 'other', variant: 'default', allowed }).equal).toBe(false);
    expect(applyAllowList(real, allowed)).toBe('---\nkind: XR\nmessage: a\n---\nkind: Result\n');
  });

  it('an (order) entry compares the documents of its kind as a set, in their slots', () => {
    const allowed: Allowed[] = [{ example: '*', variant: '*', kind: 'Result', path: '(order)', reason: 'test' }];
    const real = '---\nkind: XR\n---\nkind: Result\nm: b\n---\nkind: Result\nm: a\n---\nkind: Context\n';
    const ours = '---\nkind: XR\n---\nkind: Result\nm: a\n---\nkind: Result\nm: b\n---\nkind: Context\n';
    expect(compareStreams(real, ours, { example: 'x', variant: 'full', allowed }).equal).toBe(true);
    const missing = '---\nkind: XR\n---\nkind: Result\nm: a\n---\nkind: Context\n';
    expect(compareStreams(real, missing, { example: 'x', variant: 'full', allowed }).equal).toBe(false);
  });
});

describeIfBuilt('a deliberately broken example fails render conformance with a readable diff', () => {
  let served: Served;
  beforeAll(async () => {
    served = await serveFunctions();
  });
  afterAll(async () => {
    await served?.stop();
  });

  it('fixtures/broken-example: one field formatted differently', async () => {
    const real = await realRender(join(fixture, 'xr.yaml'), join(fixture, 'composition.yaml'), served.functionsFile, []);
    expect(real.code, real.stderr).toBe(0);
    expect(real.stdout).toContain('        string: "1.10"\n');

    // The deliberately broken harness: a conformant output (whether ours is
    // conformant is render.test.ts's job) with that one field unquoted.
    const broken = real.stdout.replace('        string: "1.10"\n', '        string: 1.10\n');
    const cmp = compareStreams(real.stdout, broken, { example: 'broken-example', variant: 'default', allowed: [] });
    expect(cmp.equal).toBe(false);
    const changed = cmp.diff.split('\n').filter((l) => /^[-+](?![-+]{2} )/.test(l));
    expect(changed).toEqual(['-        string: "1.10"', '+        string: 1.10']);
    const message = renderMismatchMessage('broken-example', 'default', 'inputs: test/conformance/fixtures/broken-example', cmp.diff);
    expect(message).toMatch(/^broken-example \(default\): modelplane render differs from the real crossplane render/);
    console.log(`what the render conformance test prints for the broken example:\n${message}`);
  });
});

