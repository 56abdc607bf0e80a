/**
 * `modelplane serve --tls-certs-dir`: our functions served to Crossplane core
 * as its External package runtime dials them (mTLS, the endpoint host
 * 127.0.0.1 in the server certificate), from one process, and the Function
 * manifests it prints name each endpoint.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { FunctionRunnerServiceService, RunFunctionRequest, type RunFunctionResponse } from '@crossplane-org/function-sdk-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { REPO_ROOT } from '../../cli/functions.js';
import { Pki } from '../../cli/dev/pki.js';

const Client = grpc.makeGenericClientConstructor(FunctionRunnerServiceService, 'FunctionRunnerService');
type Raw = InstanceType<typeof Client> & {
  runFunction(req: RunFunctionRequest, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, rsp: RunFunctionResponse) => void): void;
};

function call(c: Raw): Promise<RunFunctionResponse> {
  const req = RunFunctionRequest.fromPartial({
    meta: { tag: 't' },
    observed: { composite: { resource: { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceClass', metadata: { name: 'x' }, spec: {} } } },
  });
  return new Promise((resolve, reject) => c.runFunction(req, { deadline: Date.now() + 20_000 }, (err, rsp) => (err ? reject(err) : resolve(rsp))));
}

describe('modelplane serve --tls-certs-dir (Crossplane core, External package runtime)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'serve-tls-'));
  const certs = join(dir, 'server');
  let child: ChildProcess;
  let stdout = '';
  let core: { key: Buffer; cert: Buffer; ca: Buffer };
  const port = 21_000 + Math.floor(Math.random() * 20_000);

  beforeAll(async () => {
    const pki = new Pki(join(dir, 'pki'));
    const server = await pki.leaf({ name: 'functions', cn: 'functions', ips: ['127.0.0.1'] });
    const client = await pki.leaf({ name: 'core', cn: 'crossplane' });
    mkdirSync(certs);
    writeFileSync(join(certs, 'tls.crt'), readFileSync(server.crt));
    writeFileSync(join(certs, 'tls.key'), readFileSync(server.key));
    writeFileSync(join(certs, 'ca.crt'), readFileSync(pki.caCrt));
    core = { key: readFileSync(client.key), cert: readFileSync(client.crt), ca: readFileSync(pki.caCrt) };
    child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'modelplane.js'), 'serve', 'compose-inference-class', '--base-port', String(port), '--tls-certs-dir', certs], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    await new Promise<void>((resolve, reject) => {
      let err = '';
      child.stderr!.on('data', (d: Buffer) => {
        err += d.toString();
        if (/^serving 1 function/m.test(err)) resolve();
      });
      child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
    });
  }, 120_000);

  afterAll(() => {
    child?.kill('SIGTERM');
  });

  it('prints the Function manifest with the endpoint core should dial', () => {
    const docs = parseAllDocuments(stdout).map((d) => d.toJS());
    expect(docs).toEqual([
      {
        apiVersion: 'pkg.crossplane.io/v1',
        kind: 'Function',
        metadata: { name: 'modelplane-function-compose-inference-class', annotations: { 'modelplane.ai/endpoint': `127.0.0.1:${port}` } },
        spec: { package: 'xpkg.modelplane.ai/modelplane/function-compose-inference-class:v0.1.0' },
      },
    ]);
  });

  it('answers a client with a certificate the CA signed, dialled at 127.0.0.1 as core dials it', async () => {
    const c = new Client(`127.0.0.1:${port}`, grpc.credentials.createSsl(core.ca, core.key, core.cert)) as Raw;
    const rsp = await call(c);
    expect(rsp.meta?.tag).toBe('t');
    c.close();
  });

  it('refuses a client without a certificate', async () => {
    const c = new Client(`127.0.0.1:${port}`, grpc.credentials.createSsl(core.ca)) as Raw;
    await expect(call(c)).rejects.toThrow();
    c.close();
  });

  it('refuses a second server on a port in use (no silent port sharing)', async () => {
    const second = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'modelplane.js'), 'serve', 'compose-inference-class', '--base-port', String(port), '--tls-certs-dir', certs], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    second.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((r) => second.on('exit', r));
    expect(code).toBe(1);
    expect(err).toMatch(new RegExp(`^modelplane serve: function modelplane-function-compose-inference-class: cannot serve on 127\\.0\\.0\\.1:${port}: `, 'm'));
  }, 60_000);
});

describe('modelplane serve and its parent', () => {
  /** Starts serve from a shell that exits at once; resolves with serve's pid once it serves. */
  async function orphan(detached: boolean, port: number): Promise<number> {
    const bin = join(REPO_ROOT, 'bin', 'modelplane.js');
    const log = join(mkdtempSync(join(tmpdir(), 'serve-orphan-')), 'serve.log');
    const flags = detached ? ' --detached' : '';
    // The shell outlives serve's start (so serve sees it as its parent), then exits.
    const sh = spawn('sh', ['-c', `"${process.execPath}" "${bin}" serve compose-inference-class --base-port ${port}${flags} >/dev/null 2>"${log}" & echo $!; while ! grep -q '^serving 1 function' "${log}" 2>/dev/null; do sleep 0.2; done`], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    sh.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    await new Promise((r) => sh.on('exit', r));
    return Number(out.trim());
  }
  /** Whether `pid` runs: a zombie (exited, not yet reaped by whoever adopted it) counts as gone. */
  function alive(pid: number): boolean {
    try {
      process.kill(pid, 0);
    } catch {
      return false;
    }
    try {
      return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return true;
    }
  }

  it('stops when its parent is gone, unless --detached (a daemon stopped by pid, as dev up runs it)', async () => {
    const base = 41_000 + Math.floor(Math.random() * 10_000);
    const attached = await orphan(false, base);
    const daemon = await orphan(true, base + 1);
    // serve checks its parent every 500 ms; a loaded machine may take longer to notice, so wait
    // (bounded) for the attached one to go, then ask whether the daemon is still there.
    for (let waited = 0; alive(attached) && waited < 20_000; waited += 200) await new Promise((r) => setTimeout(r, 200));
    await new Promise((r) => setTimeout(r, 1500));
    const state = [alive(attached), alive(daemon)];
    for (const pid of [attached, daemon]) if (alive(pid)) process.kill(pid, 'SIGTERM');
    expect(state).toEqual([false, true]);
  }, 120_000);
});
