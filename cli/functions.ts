/**
 * Our functions and how to run them: in-process (the same code the gRPC
 * servers run) or as child processes over real gRPC on loopback.
 *
 * Naming: the function in folder `functions/<folder>/` is installed as the
 * Function `modelplane-function-<folder>` (Crossplane names a dependency
 * `<org>-<repo>` of its package `xpkg.modelplane.ai/modelplane/function-<folder>`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import type { RunFunctionRequest, RunFunctionResponse } from '@crossplane-org/function-sdk-typescript';
import { handler, type ComposeFn } from '../functions/lib/sdk.js';
import {
  decodeRunFunctionResponse,
  encodeRunFunctionRequest,
  encodeRunFunctionResponse,
} from '../functions/lib/wire/codec.js';
import { deserializeRequest, RunFunctionService } from '../functions/lib/wire/service.js';
import { UserError } from './load.js';
import { FUNCTION_NODE_FLAGS } from './node-flags.js';
import { CODE_ROOT, COMPILED, REPO_ROOT } from './root.js';

export { COMPILED, REPO_ROOT } from './root.js';
const FUNCTIONS_DIR = join(REPO_ROOT, 'functions');
/** Where the runnable function modules are: `dist/functions` (`.js`) when compiled, else `functions` (`.ts`, through tsx). */
const CODE_DIR = join(CODE_ROOT, 'functions');
const EXT = COMPILED ? '.js' : '.ts';
const NAME_PREFIX = 'modelplane-function-';

/** Folders of every function we ship (`functions/<folder>/main.ts`), sorted. */
export function functionFolders(): string[] {
  return readdirSync(FUNCTIONS_DIR)
    .filter((f) => f !== 'lib' && existsSync(join(FUNCTIONS_DIR, f, 'main.ts')))
    .sort();
}

/** `compose-inference-class` → `modelplane-function-compose-inference-class`. */
export function functionName(folder: string): string {
  return `${NAME_PREFIX}${folder}`;
}

/** The folder of one of our Function names, or undefined for a Function that is not ours. */
export function folderOf(name: string): string | undefined {
  if (!name.startsWith(NAME_PREFIX)) return undefined;
  const folder = name.slice(NAME_PREFIX.length);
  return functionFolders().includes(folder) ? folder : undefined;
}

/** Something that runs RunFunction for a named Function. */
export interface FunctionRuntime {
  run(functionName: string, req: RunFunctionRequest): Promise<RunFunctionResponse>;
  close(): Promise<void>;
}

const composeCache = new Map<string, ComposeFn>();

/** Loads the pure core of one of our functions. */
export async function loadCompose(folder: string): Promise<ComposeFn> {
  let fn = composeCache.get(folder);
  if (!fn) {
    const mod = (await import(pathToFileURL(join(CODE_DIR, folder, `compose${EXT}`)).href)) as { compose: ComposeFn };
    fn = mod.compose;
    composeCache.set(folder, fn);
  }
  return fn;
}

/**
 * Runs our functions in this process on the request objects as they are, with
 * no protobuf round trip: the fast path `modelplane plan` uses for thousands of
 * steps. Same cores, same encode/decode of the SDK adapter; only the wire
 * encoding (numbers as doubles, undefined dropped) is skipped, which our cores
 * do not depend on (the golden tests compare both paths).
 */
export class DirectRuntime implements FunctionRuntime {
  private readonly handlers = new Map<string, ReturnType<typeof handler>>();

  /** The error for a Function that is not one of ours. */
  protected notOurs(name: string): UserError {
    return new UserError(
      `function ${name} is not part of this release (no functions/${name.replace(/^modelplane-function-/, '')}/), so this kind cannot be composed yet`,
    );
  }

  async run(name: string, req: RunFunctionRequest): Promise<RunFunctionResponse> {
    let run = this.handlers.get(name);
    if (!run) {
      const folder = folderOf(name);
      if (!folder) throw this.notOurs(name);
      run = handler(folder, await loadCompose(folder));
      this.handlers.set(name, run);
    }
    return run(req);
  }
  async close(): Promise<void> {}
}

/**
 * Runs our functions in this process, with requests and responses
 * round-tripped through protobuf encoding (our codec, the same bytes as the
 * SDK's and the same decoder the gRPC servers use), so numbers become doubles
 * and undefined fields vanish exactly as they do over gRPC.
 */
export class InProcessRuntime extends DirectRuntime {
  protected override notOurs(name: string): UserError {
    return new UserError(`function ${name}: not one of ours; it can only be called over gRPC`);
  }

  override async run(name: string, req: RunFunctionRequest): Promise<RunFunctionResponse> {
    const wireReq = deserializeRequest(encodeRunFunctionRequest(req));
    const rsp = await super.run(name, wireReq);
    return decodeRunFunctionResponse(encodeRunFunctionResponse(rsp));
  }
}

const Client = grpc.makeGenericClientConstructor(RunFunctionService, 'FunctionRunnerService');
type RawClient = InstanceType<typeof Client> & {
  runFunction(
    req: RunFunctionRequest,
    opts: grpc.CallOptions,
    cb: (err: grpc.ServiceError | null, rsp: RunFunctionResponse) => void,
  ): void;
};

/** A started function server: a child process of ours, or an external target. */
interface Endpoint {
  client: RawClient;
  child?: ChildProcess;
}

/**
 * Starts one of our functions as a child process (`--insecure` on a free
 * loopback port, with the image's Node flags, cli/node-flags.ts) and resolves with its port once it logs that it is serving.
 * @throws UserError when the process exits or does not start within 60 s.
 */
export function spawnFunction(folder: string, port = 0): Promise<{ child: ChildProcess; port: number }> {
  const main = join(CODE_DIR, folder, `main${EXT}`);
  const child = spawn(
    process.execPath,
    [...FUNCTION_NODE_FLAGS, ...(COMPILED ? [] : ['--import', 'tsx']), main, '--insecure', '--address', `127.0.0.1:${port}`],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolvePort, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new UserError(`function ${functionName(folder)}: did not start within 60s`));
    }, 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      for (const line of out.split('\n')) {
        if (!line.includes('"serving"')) continue;
        try {
          const parsed = JSON.parse(line) as { port?: number };
          if (typeof parsed.port === 'number') {
            clearTimeout(timer);
            resolvePort({ child, port: parsed.port });
            return;
          }
        } catch {
          // a partial line: wait for more output
        }
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new UserError(`function ${functionName(folder)}: exited with code ${code}: ${err.trim().split('\n').pop() ?? ''}`));
    });
  });
}

/** Dials a gRPC target with insecure credentials. */
export function dial(target: string): RawClient {
  return new Client(target, grpc.credentials.createInsecure(), {
    'grpc.max_receive_message_length': 64 * 1024 * 1024,
    'grpc.max_send_message_length': 64 * 1024 * 1024,
  }) as RawClient;
}

/**
 * Runs Functions over real gRPC: each of ours is started as a child process
 * on first use; a Function annotated `render.crossplane.io/runtime:
 * Development` is dialled at its `runtime-development-target` (default
 * `localhost:9443`), as `crossplane render` does.
 */
export class GrpcRuntime implements FunctionRuntime {
  private readonly endpoints = new Map<string, Promise<Endpoint>>();

  /** @param developmentTargets Function name → gRPC target, for Development-runtime Functions. */
  constructor(private readonly developmentTargets: ReadonlyMap<string, string> = new Map()) {}

  private endpoint(name: string): Promise<Endpoint> {
    let ep = this.endpoints.get(name);
    if (!ep) {
      const target = this.developmentTargets.get(name);
      if (target !== undefined) {
        ep = Promise.resolve({ client: dial(target) });
      } else {
        const folder = folderOf(name);
        if (!folder) {
          throw new UserError(
            `function ${name}: not one of ours; annotate it render.crossplane.io/runtime: Development with a runtime-development-target`,
          );
        }
        ep = spawnFunction(folder).then(({ child, port }) => ({ client: dial(`127.0.0.1:${port}`), child }));
      }
      this.endpoints.set(name, ep);
    }
    return ep;
  }

  async run(name: string, req: RunFunctionRequest): Promise<RunFunctionResponse> {
    const { client } = await this.endpoint(name);
    return new Promise((resolveRsp, reject) => {
      client.runFunction(req, { deadline: Date.now() + 60_000 }, (err, rsp) => {
        if (err) reject(new UserError(`function ${name}: RunFunction failed: ${err.details || err.message}`));
        else resolveRsp(rsp);
      });
    });
  }

  async close(): Promise<void> {
    for (const ep of this.endpoints.values()) {
      try {
        const { client, child } = await ep;
        client.close();
        child?.kill('SIGTERM');
      } catch {
        // a function that failed to start has nothing to stop
      }
    }
    this.endpoints.clear();
  }
}
