/**
 * The SDK adapter: with our RunFunction codec (./wire/: the protobuf bytes)
 * and each function's `main.ts`, the only code that touches protobuf, gRPC or
 * `@crossplane-org/function-sdk-typescript` (the source of the types and the
 * service definition).
 *
 * - {@link decodeRequest} turns a RunFunctionRequest into a plain
 *   {@link ComposeRequest}; {@link encodeResponse} turns a
 *   {@link ComposeResult} into a RunFunctionResponse. Desired resources and the
 *   XR status are written whole (the SDK's own setters deep-merge and
 *   concatenate arrays, docs/composition.md#the-sdk-and-where-we-differ-from-it);
 *   the request is never
 *   mutated (the SDK's `to()` aliases `req.desired`). Objects are shared, not
 *   copied: a response may reference the request's objects.
 * - {@link handler} wraps a pure core: an exception inside it becomes a Fatal
 *   result naming the function, never a crashed call (Crossplane keeps every
 *   composed resource when a step is Fatal,
 *   docs/composition.md#how-crossplane-runs-a-pipeline).
 * - {@link serve} starts the gRPC server with the flags of the function spec
 *   (docs/composition.md#transport-and-flags): `--insecure`, `--address` (default `0.0.0.0:9443`),
 *   `--tls-certs-dir` (also `TLS_SERVER_CERTS_DIR`, default `/tls/server`;
 *   `--tls-server-certs-dir` is accepted as the SDK's spelling) and `--debug`.
 *   With TLS, client certificates are required and verified against `ca.crt`
 *   (mTLS, as the Go SDK does; the TS SDK leaves them optional).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import {
  FunctionRunner,
  Ready,
  type Resource,
  type RunFunctionRequest,
  type RunFunctionResponse,
  Severity,
  Status,
  Target,
} from '@crossplane-org/function-sdk-typescript';
import { pino, type Logger } from 'pino';
import {
  type ComposeRequest,
  type ComposeResult,
  type DesiredResource,
  fatal,
  NOW_CONTEXT_KEY,
  type JsonObject,
  type KubeObject,
  type ObservedResource,
} from './function.js';
import { RunFunctionService, undecodable } from './wire/service.js';

export * from './function.js';

/** A pure function core. */
export type ComposeFn = (req: ComposeRequest) => ComposeResult;

/** Default response TTL in seconds (the SDKs' default). */
export const DEFAULT_TTL_SECONDS = 60;

function decodeBytes(map: Record<string, Buffer | Uint8Array> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(map ?? {}).sort()) {
    out[key] = Buffer.from(map![key]!).toString('utf8');
  }
  return out;
}

/**
 * Decodes a RunFunctionRequest into the plain request a core takes. The
 * objects are shared with `req`, not copied: cores are pure and never mutate
 * their inputs (`modelplane plan` hands them frozen objects, so a core that
 * tried would fail loudly).
 */
export function decodeRequest(req: RunFunctionRequest): ComposeRequest {
  const composite = (req.observed?.composite?.resource ?? {}) as KubeObject;
  const observed: Record<string, ObservedResource> = {};
  for (const [key, r] of Object.entries(req.observed?.resources ?? {})) {
    observed[key] = {
      resource: (r.resource ?? {}) as KubeObject,
      connectionDetails: decodeBytes(r.connectionDetails),
    };
  }
  const desired: Record<string, DesiredResource> = {};
  for (const [key, r] of Object.entries(req.desired?.resources ?? {})) {
    const d: DesiredResource = { resource: (r.resource ?? {}) as KubeObject };
    if (r.ready === Ready.READY_TRUE) d.ready = true;
    else if (r.ready === Ready.READY_FALSE) d.ready = false;
    desired[key] = d;
  }
  const required: Record<string, KubeObject[]> = {};
  // extra_resources is the deprecated spelling of required_resources.
  for (const source of [req.extraResources, req.requiredResources]) {
    for (const [key, r] of Object.entries(source ?? {})) {
      required[key] = (r.items ?? []).map((i) => (i.resource ?? {}) as KubeObject);
    }
  }
  const credentials: Record<string, Record<string, string>> = {};
  for (const [key, c] of Object.entries(req.credentials ?? {})) {
    credentials[key] = decodeBytes(c.credentialData?.data);
  }
  const out: ComposeRequest = {
    composite,
    observed,
    desired,
    required,
    context: (req.context ?? {}) as JsonObject,
    credentials,
  };
  const at = (req.context as JsonObject | undefined)?.[NOW_CONTEXT_KEY];
  const fixed = typeof at === 'string' ? Date.parse(at) : Number.NaN;
  out.now = Number.isNaN(fixed) ? Date.now() : fixed;
  const desiredStatus = req.desired?.composite?.resource?.['status'];
  if (desiredStatus && typeof desiredStatus === 'object') out.desiredStatus = desiredStatus as JsonObject;
  if (req.input) out.input = req.input as JsonObject;
  return out;
}

function toReady(ready: boolean | undefined): Ready {
  if (ready === true) return Ready.READY_TRUE;
  if (ready === false) return Ready.READY_FALSE;
  return Ready.READY_UNSPECIFIED;
}

const SEVERITY: Record<string, Severity> = {
  Normal: Severity.SEVERITY_NORMAL,
  Warning: Severity.SEVERITY_WARNING,
  Fatal: Severity.SEVERITY_FATAL,
};
const STATUS: Record<string, Status> = {
  True: Status.STATUS_CONDITION_TRUE,
  False: Status.STATUS_CONDITION_FALSE,
  Unknown: Status.STATUS_CONDITION_UNKNOWN,
};

/**
 * Encodes a core's result as the RunFunctionResponse to `req`: the tag is
 * echoed, the TTL is the result's (default 60 s), the context is passed on,
 * earlier steps' desired resources pass through except where the result
 * replaces a key whole, and the XR status is replaced whole when the result
 * sets one. Requirements are omitted (not sent empty) when there are none, so
 * Crossplane's requirements loop stabilises after one call
 * (docs/composition.md#the-requirements-loop).
 */
export function encodeResponse(req: RunFunctionRequest, result: ComposeResult): RunFunctionResponse {
  const resources: Record<string, Resource> = {};
  for (const [key, r] of Object.entries(req.desired?.resources ?? {})) {
    resources[key] = r;
  }
  for (const key of Object.keys(result.resources).sort()) {
    const r = result.resources[key]!;
    resources[key] = { resource: r.resource, connectionDetails: {}, ready: toReady(r.ready) };
  }
  const prior = req.desired?.composite;
  let composite: Resource | undefined = prior ? { ...prior, resource: prior.resource ? { ...prior.resource } : undefined } : undefined;
  if (result.status !== undefined || result.ready !== undefined) {
    composite ??= { resource: {}, connectionDetails: {}, ready: Ready.READY_UNSPECIFIED };
    composite.resource ??= {};
    if (result.status !== undefined) composite.resource['status'] = result.status;
    if (result.ready !== undefined) composite.ready = toReady(result.ready);
  }
  const rsp: RunFunctionResponse = {
    meta: { tag: req.meta?.tag ?? '', ttl: { seconds: result.ttlSeconds ?? DEFAULT_TTL_SECONDS, nanos: 0 } },
    desired: { composite, resources },
    results: result.results.map((r) => ({
      severity: SEVERITY[r.severity]!,
      message: r.message,
      ...(r.reason ? { reason: r.reason } : {}),
      target: Target.TARGET_COMPOSITE,
    })),
    context: req.context ?? {},
    conditions: result.conditions.map((c) => ({
      type: c.type,
      status: STATUS[c.status]!,
      reason: c.reason,
      ...(c.message ? { message: c.message } : {}),
      target: Target.TARGET_COMPOSITE,
    })),
    requirements: undefined,
  };
  const names = Object.keys(result.requirements).sort();
  if (names.length > 0) {
    const selectors: Record<string, import('@crossplane-org/function-sdk-typescript').ResourceSelector> = {};
    for (const name of names) {
      const s = result.requirements[name]!;
      selectors[name] = {
        apiVersion: s.apiVersion,
        kind: s.kind,
        ...(s.matchName !== undefined ? { matchName: s.matchName } : {}),
        ...(s.matchLabels !== undefined ? { matchLabels: { labels: { ...s.matchLabels } } } : {}),
        ...(s.namespace !== undefined ? { namespace: s.namespace } : {}),
      };
    }
    rsp.requirements = { extraResources: {}, resources: selectors, schemas: {} };
  }
  return rsp;
}

/** Called with each exception {@link runCompose} turns into the internal-error Fatal. */
export type InternalErrorListener = (name: string, err: unknown) => void;

let internalErrorListener: InternalErrorListener | undefined;

/**
 * Sets the listener told of every exception a core throws (the test suite's
 * setup, test/setup/no-internal-error.ts, fails any test that reaches the
 * internal-error Fatal: it is a last resort, never an answer); returns the
 * previous listener, to restore it.
 */
export function onInternalError(listener: InternalErrorListener | undefined): InternalErrorListener | undefined {
  const previous = internalErrorListener;
  internalErrorListener = listener;
  return previous;
}

/**
 * Runs a core on a decoded request, turning an exception into a Fatal result
 * (`<name>: internal error: <message>`) so the gRPC call never fails and
 * Crossplane keeps everything composed.
 */
export function runCompose(name: string, compose: ComposeFn, req: ComposeRequest): ComposeResult {
  try {
    return compose(req);
  } catch (err) {
    internalErrorListener?.(name, err);
    const message = err instanceof Error ? err.message : String(err);
    return {
      resources: {},
      conditions: [],
      results: [fatal(`${name}: internal error: ${message}`)],
      requirements: {},
    };
  }
}

/**
 * The full RunFunction of a core: decode, run (never throwing), encode. A
 * request the gRPC deserializer could not decode (functions/lib/wire/service.ts:
 * malformed bytes, or JSON nested beyond the 10,000-level limit) is answered
 * with a Fatal result `<name>: cannot decode the RunFunctionRequest: <why>`.
 */
export function handler(name: string, compose: ComposeFn): (req: RunFunctionRequest) => RunFunctionResponse {
  return (req) => {
    const reason = undecodable(req);
    if (reason !== undefined) {
      return encodeResponse(req, {
        resources: {},
        conditions: [],
        results: [fatal(`${name}: cannot decode the RunFunctionRequest: ${reason}`)],
        requirements: {},
      });
    }
    return encodeResponse(req, runCompose(name, compose, decodeRequest(req)));
  };
}

/** Flags every function binary takes (docs/composition.md#transport-and-flags). */
export interface ServeFlags {
  /** Listen address, `host:port`. @default "0.0.0.0:9443" */
  address: string;
  /** Serve without TLS. Wins over a certs dir. */
  insecure: boolean;
  /** Directory with tls.key, tls.crt, ca.crt. @default $TLS_SERVER_CERTS_DIR or "/tls/server" */
  tlsCertsDir: string;
  debug: boolean;
}

/**
 * Parses the standard flags.
 * @throws TypeError on an unknown flag or a missing value (node:util's message).
 */
export function parseServeFlags(argv: string[], env: NodeJS.ProcessEnv = process.env): ServeFlags {
  const { values } = parseArgs({
    args: argv,
    allowPositionals: false,
    options: {
      address: { type: 'string', default: '0.0.0.0:9443' },
      insecure: { type: 'boolean', default: false },
      'tls-certs-dir': { type: 'string' },
      'tls-server-certs-dir': { type: 'string' },
      debug: { type: 'boolean', short: 'd', default: false },
    },
  });
  return {
    address: values.address,
    insecure: values.insecure,
    tlsCertsDir:
      values['tls-certs-dir'] ?? values['tls-server-certs-dir'] ?? env['TLS_SERVER_CERTS_DIR'] ?? '/tls/server',
    debug: values.debug,
  };
}

/**
 * Server credentials for the flags: insecure, or mTLS from `tlsCertsDir`
 * (client certificates required and checked against ca.crt).
 * @throws Error naming the missing file when a certificate cannot be read.
 */
export function serverCredentials(flags: ServeFlags): grpc.ServerCredentials {
  if (flags.insecure) return grpc.ServerCredentials.createInsecure();
  const read = (file: string) => {
    const path = join(flags.tlsCertsDir, file);
    try {
      return readFileSync(path);
    } catch {
      throw new Error(`cannot read ${path}: give --tls-certs-dir a directory with tls.key, tls.crt and ca.crt, or pass --insecure`);
    }
  };
  return grpc.ServerCredentials.createSsl(read('ca.crt'), [{ private_key: read('tls.key'), cert_chain: read('tls.crt') }], true);
}

/**
 * Starts a gRPC server for a core, with our RunFunction codec
 * (functions/lib/wire/) on the wire, and resolves with the server and the port
 * it is bound to (useful with `--address 127.0.0.1:0`).
 */
export async function startServer(
  name: string,
  compose: ComposeFn,
  flags: ServeFlags,
  logger: Logger = pino({ level: 'silent' }),
): Promise<{ server: grpc.Server; port: number }> {
  const run = handler(name, compose);
  const runner = new FunctionRunner({ RunFunction: async (req) => run(req) }, logger);
  const server = new grpc.Server({
    'grpc.max_receive_message_length': 64 * 1024 * 1024,
    'grpc.max_send_message_length': 64 * 1024 * 1024,
    // grpc-js binds with SO_REUSEPORT by default: a second server on a port in use
    // would start without error and share its connections. Refuse instead.
    'grpc.so_reuseport': 0,
  });
  // our codec (functions/lib/wire/codec.ts) as the serializers: one pass, no depth trap
  server.addService(RunFunctionService, {
    runFunction: (
      call: grpc.ServerUnaryCall<RunFunctionRequest, RunFunctionResponse>,
      callback: grpc.sendUnaryData<RunFunctionResponse>,
    ) => {
      runner.RunFunction(call.request, logger).then(
        (rsp) => callback(null, rsp),
        (err: unknown) => callback(err as grpc.ServiceError),
      );
    },
  });
  const credentials = serverCredentials(flags);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(flags.address, credentials, (err, p) => (err ? reject(err) : resolve(p)));
  });
  return { server, port };
}

/**
 * The whole of a function's `main.ts`: parse the flags, start the server,
 * log where it listens, shut down on SIGINT/SIGTERM. Bad flags or unreadable
 * certificates print one line and exit 2 / 1, never a stack trace.
 */
export function serve(name: string, compose: ComposeFn, argv: string[] = process.argv.slice(2)): void {
  let flags: ServeFlags;
  try {
    flags = parseServeFlags(argv);
  } catch (err) {
    process.stderr.write(`${name}: ${(err as Error).message}\nflags: --insecure --address HOST:PORT --tls-certs-dir DIR --debug\n`);
    process.exit(2);
  }
  const logger = pino({
    level: flags.debug ? 'debug' : 'info',
    formatters: { level: (label) => ({ severity: label.toUpperCase() }) },
  });
  startServer(name, compose, flags, logger).then(
    ({ server, port }) => {
      logger.info({ function: name, address: flags.address, port, insecure: flags.insecure }, 'serving');
      const stop = () => server.tryShutdown(() => process.exit(0));
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    },
    (err: unknown) => {
      process.stderr.write(`${name}: ${(err as Error).message}\n`);
      process.exit(1);
    },
  );
}
