/**
 * tools/fn-client, the Go client the scheduler bench's cadence rows call
 * functions with (bench/scheduler-cadence.ts): built from its module, it
 * makes RunFunction calls on a started function after the gaps it is given
 * and prints one line per call; a function it cannot reach is an error
 * named on stderr. Skipped where Go is missing.
 */
import { type ChildProcess, execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnFunction } from '../../cli/functions.js';
import { encodeRunFunctionRequest } from '../../functions/lib/wire/codec.js';
import { buildFnClient } from '../../bench/scheduler-cadence.js';

const hasGo = spawnSync('go', ['version']).status === 0;

describe.skipIf(!hasGo)(`tools/fn-client${hasGo ? '' : ' (skipped: needs Go)'}`, () => {
  let client: string;
  let fn: { child: ChildProcess; port: number };
  let request: string;

  beforeAll(async () => {
    const built = buildFnClient();
    if (!('path' in built)) throw new Error(built.reason);
    client = built.path;
    fn = await spawnFunction('compose-inference-class');
    request = join(mkdtempSync(join(tmpdir(), 'fn-client-')), '0.bin');
    const xr = { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceClass', metadata: { name: 'x' }, spec: {} };
    writeFileSync(
      request,
      encodeRunFunctionRequest({
        meta: { tag: 't', capabilities: [] },
        observed: { composite: { resource: xr, connectionDetails: {}, ready: 0 }, resources: {} },
        desired: undefined,
        context: undefined,
        extraResources: {},
        credentials: {},
        requiredResources: {},
        requiredSchemas: {},
      }),
    );
  });
  afterAll(() => {
    fn?.child.kill('SIGTERM');
  });

  it('prints `<request> <gap s> <marshal ms> <call ms> <unmarshal ms>` per timed call, in order', () => {
    const out = execFileSync(client, ['--address', `127.0.0.1:${fn.port}`, '--gaps', '0,0.2', request], { encoding: 'utf8' });
    const lines = out.trim().split('\n').map((l) => l.split(' '));
    expect(lines.map((l) => [l[0], l[1]])).toEqual([
      ['0', '0.000'],
      ['0', '0.200'],
    ]);
    for (const l of lines) {
      expect(l).toHaveLength(5);
      for (const v of l.slice(2)) expect(Number(v)).toBeGreaterThanOrEqual(0);
      expect(Number(l[3])).toBeGreaterThan(0);
    }
  });

  it('names a bad gap and exits 1', () => {
    const r = spawnSync(client, ['--address', `127.0.0.1:${fn.port}`, '--gaps', '0,soon', request], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('fn-client: --gaps: "soon" is not a number of seconds\n');
  });
});
