import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import {
  Ready,
  RunFunctionRequest,
  RunFunctionResponse,
  Severity,
  Status,
  Target,
} from '@crossplane-org/function-sdk-typescript';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dial } from '../../cli/functions.js';
import {
  type ComposeRequest,
  type ComposeResult,
  condition,
  decodeRequest,
  encodeResponse,
  handler,
  onInternalError,
  parseServeFlags,
  readRequired,
  startServer,
  warning,
} from '../../functions/lib/sdk.js';

/** A core that echoes what it read, so a test can see the decoded request. */
function echo(req: ComposeRequest): ComposeResult {
  const classes = readRequired(req, 'classes');
  return {
    resources: { cm: { resource: { apiVersion: 'v1', kind: 'ConfigMap', data: { n: String(req.composite['spec']) } }, ready: true } },
    status: { state: classes.state, count: classes.state === 'present' ? classes.items.length : 0 },
    conditions: [condition('Accepted', true, 'Available')],
    results: [warning('careful')],
    requirements: { classes: { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceClass', matchLabels: { a: 'b' } } },
  };
}

function request(partial: Partial<RunFunctionRequest> = {}): RunFunctionRequest {
  return RunFunctionRequest.fromPartial({
    meta: { tag: 'tag-1' },
    observed: { composite: { resource: { apiVersion: 'x.io/v1', kind: 'X', metadata: { name: 'x' }, spec: 7 } } },
    ...partial,
  });
}

describe('encodeResponse / decodeRequest', () => {
  it('writes the whole response: tag, 60s TTL, resources, status, conditions, results, requirements', () => {
    const rsp = handler('echo', echo)(request());
    expect(RunFunctionResponse.toJSON(rsp)).toEqual({
      meta: { tag: 'tag-1', ttl: { seconds: 60 } },
      desired: {
        composite: { resource: { status: { state: 'pending', count: 0 } } },
        resources: { cm: { resource: { apiVersion: 'v1', kind: 'ConfigMap', data: { n: '7' } }, ready: 'READY_TRUE' } },
      },
      results: [{ severity: 'SEVERITY_WARNING', message: 'careful', target: 'TARGET_COMPOSITE' }],
      context: {},
      requirements: {
        resources: {
          classes: { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceClass', matchLabels: { labels: { a: 'b' } } },
        },
      },
      conditions: [{ type: 'Accepted', status: 'STATUS_CONDITION_TRUE', reason: 'Available', target: 'TARGET_COMPOSITE' }],
    });
  });

  it('tells the three states of a requirement apart', () => {
    const item = { resource: { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceClass', metadata: { name: 'b' } }, connectionDetails: {}, ready: Ready.READY_UNSPECIFIED };
    const item2 = { resource: { apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceClass', metadata: { name: 'a' } }, connectionDetails: {}, ready: Ready.READY_UNSPECIFIED };
    expect(readRequired(decodeRequest(request()), 'classes')).toEqual({ state: 'pending' });
    expect(readRequired(decodeRequest(request({ requiredResources: { classes: { items: [] } } })), 'classes')).toEqual({
      state: 'absent',
    });
    const present = readRequired(decodeRequest(request({ requiredResources: { classes: { items: [item, item2] } } })), 'classes');
    expect(present).toEqual({ state: 'present', items: [item2.resource, item.resource] });
  });

  it('passes earlier steps through and replaces a key whole, never merging', () => {
    const req = request({
      desired: {
        composite: { resource: { status: { fromStep1: true } }, connectionDetails: {}, ready: Ready.READY_UNSPECIFIED },
        resources: {
          cm: { resource: { apiVersion: 'v1', kind: 'ConfigMap', data: { old: 'x' } }, connectionDetails: {}, ready: Ready.READY_FALSE },
          other: { resource: { apiVersion: 'v1', kind: 'Secret' }, connectionDetails: {}, ready: Ready.READY_TRUE },
        },
      },
    });
    const before = structuredClone(req);
    const rsp = handler('echo', echo)(req);
    expect(rsp.desired?.resources['cm']?.resource).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', data: { n: '7' } });
    expect(rsp.desired?.resources['other']).toEqual({ resource: { apiVersion: 'v1', kind: 'Secret' }, connectionDetails: {}, ready: Ready.READY_TRUE });
    expect(rsp.desired?.composite?.resource).toEqual({ status: { state: 'pending', count: 0 } });
    expect(req).toEqual(before);
  });

  it('omits requirements when a core asks for none, so the requirements loop stops after one call', () => {
    const rsp = encodeResponse(request(), { resources: {}, conditions: [], results: [], requirements: {} });
    expect(rsp.requirements).toBeUndefined();
    expect(rsp.desired?.composite).toBeUndefined();
  });

  it('turns an exception in a core into a Fatal result, never a failed call, and tells the listener', () => {
    const told: string[] = [];
    const suite = onInternalError((name, err) => told.push(`${name}: ${(err as Error).message}`));
    try {
      const rsp = handler('boom', () => {
        throw new Error('kaput');
      })(request());
      expect(rsp.results).toEqual([{ severity: Severity.SEVERITY_FATAL, message: 'boom: internal error: kaput', target: Target.TARGET_COMPOSITE }]);
      expect(rsp.conditions).toEqual([]);
    } finally {
      onInternalError(suite);
    }
    expect(told).toEqual(['boom: kaput']);
    // The suite's listener (test/setup/no-internal-error.ts) is back: it fails any other test that gets here.
    expect(suite).toBeTypeOf('function');
  });

  it('decodes credentials and connection details as UTF-8', () => {
    const req = decodeRequest(
      request({
        credentials: { creds: { credentialData: { data: { token: Buffer.from('s3cret') } } } },
        observed: {
          composite: { resource: { apiVersion: 'x.io/v1', kind: 'X' }, connectionDetails: {}, ready: 0 },
          resources: { a: { resource: { apiVersion: 'v1', kind: 'Secret' }, connectionDetails: { k: Buffer.from('v') }, ready: 0 } },
        },
      }),
    );
    expect(req.credentials).toEqual({ creds: { token: 's3cret' } });
    expect(req.observed['a']?.connectionDetails).toEqual({ k: 'v' });
  });
});

describe('parseServeFlags', () => {
  it('has the function spec defaults and reads TLS_SERVER_CERTS_DIR', () => {
    expect(parseServeFlags([], {})).toEqual({ address: '0.0.0.0:9443', insecure: false, tlsCertsDir: '/tls/server', debug: false });
    expect(parseServeFlags([], { TLS_SERVER_CERTS_DIR: '/env/certs' }).tlsCertsDir).toBe('/env/certs');
    expect(parseServeFlags(['--tls-certs-dir', '/a', '--insecure', '-d'], { TLS_SERVER_CERTS_DIR: '/env' })).toEqual({
      address: '0.0.0.0:9443',
      insecure: true,
      tlsCertsDir: '/a',
      debug: true,
    });
    expect(parseServeFlags(['--tls-server-certs-dir', '/b'], {}).tlsCertsDir).toBe('/b');
  });

  it('rejects an unknown flag with node:util\'s message', () => {
    expect(() => parseServeFlags(['--bogus'], {})).toThrow(/Unknown option '--bogus'/);
  });
});

function call(client: ReturnType<typeof dial> | grpc.Client, req: RunFunctionRequest): Promise<RunFunctionResponse> {
  return new Promise((resolve, reject) => {
    (client as ReturnType<typeof dial>).runFunction(req, { deadline: Date.now() + 10_000 }, (err, rsp) =>
      err ? reject(err) : resolve(rsp),
    );
  });
}

describe('transports', () => {
  it('serves RunFunction insecurely', async () => {
    const { server, port } = await startServer('echo', echo, { address: '127.0.0.1:0', insecure: true, tlsCertsDir: '', debug: false });
    try {
      const client = dial(`127.0.0.1:${port}`);
      const rsp = await call(client, request());
      expect(rsp.meta?.tag).toBe('tag-1');
      expect(rsp.conditions[0]?.status).toBe(Status.STATUS_CONDITION_TRUE);
      client.close();
    } finally {
      server.forceShutdown();
    }
  });

  describe('mTLS with certificates generated here', () => {
    let dir: string;
    let ca: { cert: string; private: string };
    let server: grpc.Server;
    let port: number;
    let client: { cert: string; key: string };

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'mp-tls-'));
      ca = await generate([{ name: 'commonName', value: 'modelplane-test-ca' }], {
        keySize: 2048,
        algorithm: 'sha256',
        extensions: [
          { name: 'basicConstraints', cA: true, critical: true },
          { name: 'keyUsage', keyCertSign: true, digitalSignature: true, critical: true },
        ],
      });
      const leaf = await generate([{ name: 'commonName', value: 'localhost' }], {
        keySize: 2048,
        algorithm: 'sha256',
        ca: { key: ca.private, cert: ca.cert },
        extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] }],
      });
      const clientLeaf = await generate([{ name: 'commonName', value: 'crossplane' }], {
        keySize: 2048,
        algorithm: 'sha256',
        ca: { key: ca.private, cert: ca.cert },
      });
      writeFileSync(join(dir, 'ca.crt'), ca.cert);
      writeFileSync(join(dir, 'tls.crt'), leaf.cert);
      writeFileSync(join(dir, 'tls.key'), leaf.private);
      client = { cert: clientLeaf.cert, key: clientLeaf.private };
      ({ server, port } = await startServer('echo', echo, { address: '127.0.0.1:0', insecure: false, tlsCertsDir: dir, debug: false }));
    });
    afterAll(() => server?.forceShutdown());

    it('answers a client with a certificate signed by ca.crt', async () => {
      const Client = grpc.makeGenericClientConstructor(
        (await import('@crossplane-org/function-sdk-typescript')).FunctionRunnerServiceService,
        'F',
      );
      const c = new Client(
        `localhost:${port}`,
        grpc.credentials.createSsl(Buffer.from(ca.cert), Buffer.from(client.key), Buffer.from(client.cert)),
      );
      const rsp = await call(c, request());
      expect(rsp.meta?.tag).toBe('tag-1');
      expect(rsp.results[0]?.message).toBe('careful');
      c.close();
    });

    it('refuses a client without a certificate', async () => {
      const Client = grpc.makeGenericClientConstructor(
        (await import('@crossplane-org/function-sdk-typescript')).FunctionRunnerServiceService,
        'F',
      );
      const c = new Client(`localhost:${port}`, grpc.credentials.createSsl(Buffer.from(ca.cert)));
      await expect(call(c, request())).rejects.toThrow(/UNAVAILABLE|handshake|certificate/i);
      c.close();
    });

    it('names the missing file when the certs dir is empty', async () => {
      const empty = mkdtempSync(join(tmpdir(), 'mp-empty-'));
      await expect(
        startServer('echo', echo, { address: '127.0.0.1:0', insecure: false, tlsCertsDir: empty, debug: false }),
      ).rejects.toThrow(`cannot read ${join(empty, 'ca.crt')}: give --tls-certs-dir a directory with tls.key, tls.crt and ca.crt, or pass --insecure`);
    });
  });
});
