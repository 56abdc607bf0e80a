/**
 * `modelplane render` as a user runs it: exit codes and one-line errors,
 * never a stack trace.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../cli/functions.js';
import { modelplane } from '../helpers/cli.js';
import { emptyResult, fatal, startServer } from '../../functions/lib/sdk.js';

const ex = (f: string) => join(REPO_ROOT, 'examples/inference-class', f);


const tmp = mkdtempSync(join(tmpdir(), 'mp-render-'));
function file(name: string, text: string): string {
  const path = join(tmp, name);
  writeFileSync(path, text);
  return path;
}

describe('modelplane render: bad input is one line and exit 1', () => {
  it('a missing file', async () => {
    const r = await modelplane('render', join(tmp, 'nope.yaml'), ex('composition.yaml'), ex('functions.yaml'));
    expect(r).toEqual({ code: 1, stdout: '', stderr: `modelplane render: ${join(tmp, 'nope.yaml')}: no such file or directory\n` });
  });

  it('a Composition for another kind', async () => {
    const comp = file(
      'wrong-kind.yaml',
      'apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata: {name: c}\nspec:\n  compositeTypeRef: {apiVersion: modelplane.ai/v1alpha1, kind: InferenceCluster}\n  mode: Pipeline\n  pipeline: [{step: s, functionRef: {name: f}}]\n',
    );
    const r = await modelplane('render', ex('xr.yaml'), comp, ex('functions.yaml'));
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `modelplane render: ${comp}: spec.compositeTypeRef is modelplane.ai/v1alpha1/InferenceCluster, but the XR is modelplane.ai/v1alpha1/InferenceClass\n`,
    );
  });

  it('a Composition whose step uses a function the functions file does not list', async () => {
    const fns = file('other-functions.yaml', 'apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: function-other}\nspec: {package: x}\n');
    const r = await modelplane('render', ex('xr.yaml'), ex('composition.yaml'), fns);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `modelplane render: ${ex('composition.yaml')}: spec.pipeline[0] (step compose-inference-class) uses function modelplane-function-compose-inference-class, which ${fns} does not list\n`,
    );
  });

  it('a Composition not in Pipeline mode', async () => {
    const comp = file(
      'resources-mode.yaml',
      'apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata: {name: c}\nspec:\n  compositeTypeRef: {apiVersion: modelplane.ai/v1alpha1, kind: InferenceClass}\n  mode: Resources\n',
    );
    const r = await modelplane('render', ex('xr.yaml'), comp, ex('functions.yaml'));
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`modelplane render: ${comp}: spec.mode is Resources, render supports only Pipeline\n`);
  });

  it('invalid YAML names the file and line', async () => {
    const xr = file('bad.yaml', 'apiVersion: modelplane.ai/v1alpha1\nkind: InferenceClass\nmetadata: {name: [x\n');
    const r = await modelplane('render', xr, ex('composition.yaml'), ex('functions.yaml'));
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `modelplane render: ${xr}:4: invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]\n`,
    );
  });

  it('an XR invalid against --xrd names the field', async () => {
    const xr = file(
      'invalid-class.yaml',
      'apiVersion: modelplane.ai/v1alpha1\nkind: InferenceClass\nmetadata: {name: bad}\nspec:\n  devices:\n  - {name: gpu, driver: gpu.nvidia.com}\n',
    );
    const r = await modelplane('render', xr, ex('composition.yaml'), ex('functions.yaml'), '--xrd', join(REPO_ROOT, 'apis/inferenceclasses/definition.yaml'));
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`modelplane render: ${xr}: spec.devices[0]: Invalid value: "object": deviceClassName is required when claim is DRA\n`);
  });

  it('an XRD for another kind', async () => {
    const r = await modelplane('render', ex('xr.yaml'), ex('composition.yaml'), ex('functions.yaml'), '--xrd', join(REPO_ROOT, 'apis/inferenceclusters/definition.yaml'));
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `modelplane render: ${ex('xr.yaml')}: XR is modelplane.ai/v1alpha1/InferenceClass, but ${join(REPO_ROOT, 'apis/inferenceclusters/definition.yaml')} defines modelplane.ai/InferenceCluster\n`,
    );
  });
});

describe('modelplane render: a Fatal result', () => {
  let server: Server;
  let functions: string;
  beforeAll(async () => {
    const started = await startServer(
      'always-fatal',
      () => ({ ...emptyResult(), results: [fatal('spec.devices[0]: cannot be served')] }),
      { address: '127.0.0.1:0', insecure: true, tlsCertsDir: '', debug: false },
    );
    server = started.server;
    functions = file(
      'fatal-functions.yaml',
      `apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata:\n  name: modelplane-function-compose-inference-class\n  annotations:\n    render.crossplane.io/runtime: Development\n    render.crossplane.io/runtime-development-target: 127.0.0.1:${started.port}\nspec:\n  package: x\n`,
    );
  });
  afterAll(() => server.forceShutdown());

  it('exits 3 and still prints the XR with Synced=False', async () => {
    const r = await modelplane('render', ex('xr.yaml'), ex('composition.yaml'), functions);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe('modelplane render: pipeline stopped on a Fatal result: spec.devices[0]: cannot be served\n');
    expect(r.stdout).toBe(
      [
        '---',
        'apiVersion: modelplane.ai/v1alpha1',
        'kind: InferenceClass',
        'metadata:',
        '  name: l40s-1x-g6e',
        'status:',
        '  conditions:',
        '  - lastTransitionTime: "2024-01-01T00:00:00Z"',
        '    reason: WatchCircuitClosed',
        '    status: "True"',
        '    type: Responsive',
        '  - lastTransitionTime: "2024-01-01T00:00:00Z"',
        "    message: 'spec.devices[0]: cannot be served'",
        '    reason: ReconcileError',
        '    status: "False"',
        '    type: Synced',
        '',
      ].join('\n'),
    );
  });
});
