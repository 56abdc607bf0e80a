/**
 * `modelplane render`'s YAML writer (cli/render/goyaml.ts) against output of
 * the real Kubernetes YAML serializer (sigs.k8s.io/yaml JSONToYAML, go-yaml
 * v2), recorded in fixtures/goyaml-expected.yaml from fixtures/goyaml-input.json:
 * key order, quoting, folding at column 80, literal blocks, numbers. Runs
 * without Go; render.test.ts checks the same writer on every example against
 * the live CLI.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { goKeyLess, goNumber, goYaml } from '../../cli/render/goyaml.js';
import { ROOT } from './harness.js';

const fixtures = join(ROOT, 'test/conformance/fixtures');

describe('goYaml writes what the Kubernetes YAML serializer writes', () => {
  it('fixtures/goyaml-input.json → fixtures/goyaml-expected.yaml, byte for byte', () => {
    const input = JSON.parse(readFileSync(join(fixtures, 'goyaml-input.json'), 'utf8')) as unknown;
    expect(goYaml(input)).toBe(readFileSync(join(fixtures, 'goyaml-expected.yaml'), 'utf8'));
  });

  it('orders keys as go-yaml does: digit runs by value, non-letters before letters', () => {
    const keys = ['aB', 'a10', 'a_b', 'a9', 'a-b'].sort((x, y) => (goKeyLess(x, y) ? -1 : goKeyLess(y, x) ? 1 : 0));
    expect(keys).toEqual(['a-b', 'a_b', 'a9', 'a10', 'aB']);
  });

  it("formats numbers as Go's JSON and go-yaml do", () => {
    expect([0, -0, 7, 0.5, 1234567.5, 1e-7, 1e21, 2 ** 60].map(goNumber)).toEqual([
      '0',
      '0',
      '7',
      '0.5',
      '1.2345675e+06',
      '1e-07',
      '1e+21',
      '1152921504606847000',
    ]);
  });
});
