/**
 * Golden renders: every example under examples/ renders to its committed
 * expected.yaml, once in-process and once through the real gRPC servers on
 * loopback, and the two are byte-identical. Update with `npm run golden:update`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { renderExample, renderExamples } from '../../cli/examples.js';
import { GrpcRuntime, InProcessRuntime } from '../../cli/functions.js';

const examples = renderExamples();
const grpc = new GrpcRuntime();
const inProcess = new InProcessRuntime();
afterAll(() => grpc.close());

describe('golden renders of examples/', () => {
  it('has at least the InferenceClass example', () => {
    expect(examples.map((d) => basename(d))).toContain('inference-class');
  });

  describe.each(examples.map((d) => [basename(d), d] as const))('%s', (_name, dir) => {
    it('renders in-process to expected.yaml', async () => {
      const golden = join(dir, 'expected.yaml');
      expect(existsSync(golden), `${golden} is missing: run npm run golden:update`).toBe(true);
      const { yaml } = await renderExample(dir, inProcess);
      expect(yaml).toBe(readFileSync(golden, 'utf8'));
    });

    it('renders over gRPC byte-identically to in-process', async () => {
      const [a, b] = [await renderExample(dir, inProcess), await renderExample(dir, grpc)];
      expect(b.yaml).toBe(a.yaml);
      expect(b.fatal).toBe(a.fatal);
    });
  });
});
