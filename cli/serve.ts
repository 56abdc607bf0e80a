/**
 * `modelplane serve [NAME...|--all] [--base-port 9443] [--tls-certs-dir DIR]`:
 * serves our functions from this one process, each on its own loopback port
 * (consecutive from the base port, in folder order), until interrupted.
 *
 * - Without `--tls-certs-dir` (insecure, for `crossplane render`): prints the
 *   `Function` manifests that point render at them (Development runtime).
 * - With `--tls-certs-dir DIR` (mTLS as Crossplane core dials functions: the
 *   directory holds tls.crt, tls.key and the ca.crt client certificates must
 *   chain to; the certificate needs an IP SAN for 127.0.0.1): prints the
 *   `Function` manifests annotated with each endpoint, which core with
 *   `--package-runtime=External` reads from the active FunctionRevision's
 *   `status.endpoint` (`modelplane dev up` sets it).
 *
 * One process for all (no child processes): nothing is left running when it
 * stops (SIGINT, SIGTERM or SIGHUP) or when its parent dies (checked every
 * 500 ms; not with `--detached`, for a daemon its starter stops by pid), and
 * it answers as soon as the modules are loaded.
 */
import type { Server } from '@grpc/grpc-js';
import { type ServeFlags, startServer } from '../functions/lib/sdk.js';
import { folderOf, functionFolders, functionName, loadCompose } from './functions.js';
import { UserError } from './load.js';
import { PACKAGE_VERSION } from './package.js';
import { toYaml } from './render/output.js';

/** Annotation on a served Function manifest: the endpoint core should dial. */
export const ENDPOINT_ANNOTATION = 'modelplane.ai/endpoint';

/** The Function manifest for one of ours served at `target`. */
export function developmentFunction(folder: string, target: string): object {
  return {
    apiVersion: 'pkg.crossplane.io/v1',
    kind: 'Function',
    metadata: {
      name: functionName(folder),
      annotations: {
        'render.crossplane.io/runtime': 'Development',
        'render.crossplane.io/runtime-development-target': target,
      },
    },
    spec: { package: `xpkg.modelplane.ai/modelplane/function-${folder}:${PACKAGE_VERSION}` },
  };
}

/** The Function manifest for core (External package runtime), with the endpoint to set on its revision. */
export function externalRuntimeFunction(folder: string, target: string): object {
  return {
    apiVersion: 'pkg.crossplane.io/v1',
    kind: 'Function',
    metadata: { name: functionName(folder), annotations: { [ENDPOINT_ANNOTATION]: target } },
    spec: { package: `xpkg.modelplane.ai/modelplane/function-${folder}:${PACKAGE_VERSION}` },
  };
}

/** Resolves NAME arguments (folder or Function name) to folders. @throws UserError for an unknown name. */
export function selectFolders(names: string[], all: boolean): string[] {
  if (all || names.length === 0) return functionFolders();
  return names.map((n) => {
    const folder = functionFolders().includes(n) ? n : folderOf(n);
    if (!folder) throw new UserError(`unknown function ${n}; known: ${functionFolders().join(', ')}`);
    return folder;
  });
}

/** The port each function of {@link functionFolders} is served on from `basePort`. */
export function functionPorts(basePort: number): Map<string, number> {
  return new Map(functionFolders().map((f, i) => [functionName(f), basePort + i]));
}

/** Options of {@link runServe}. */
export interface ServeOptions {
  all?: boolean;
  basePort: number;
  /** mTLS from this directory instead of insecure. */
  tlsCertsDir?: string;
  /** Where manifests go. @default process.stdout */
  out?: NodeJS.WritableStream;
  /** Keep serving when the parent exits (a daemon stopped by pid: `modelplane dev up` starts it so). @default false */
  detached?: boolean;
}

/**
 * Starts the servers and resolves with them once all listen. A port in use
 * stops the ones already started and rejects naming it.
 */
export async function runServe(names: string[], opts: ServeOptions): Promise<Server[]> {
  const folders = selectFolders(names, opts.all ?? false);
  const ports = opts.all || names.length === 0 ? functionPorts(opts.basePort) : new Map(folders.map((f, i) => [functionName(f), opts.basePort + i]));
  const servers: Server[] = [];
  const stop = () => {
    for (const s of servers) s.forceShutdown();
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      stop();
      process.exit(0);
    });
  }
  // When the parent dies the process is re-parented (ppid changes): stop too, so nothing is left running.
  // Not for a daemon (`--detached`): its starter exits on purpose and stops it by pid.
  const parent = process.ppid;
  if (!opts.detached) {
    setInterval(() => {
      if (process.ppid !== parent) {
        stop();
        process.exit(0);
      }
    }, 500).unref();
  }
  const flags = (port: number): ServeFlags => ({
    address: `127.0.0.1:${port}`,
    insecure: opts.tlsCertsDir === undefined,
    tlsCertsDir: opts.tlsCertsDir ?? '',
    debug: false,
  });
  try {
    for (const folder of folders) {
      const port = ports.get(functionName(folder))!;
      try {
        const { server } = await startServer(folder, await loadCompose(folder), flags(port));
        servers.push(server);
      } catch (err) {
        throw new UserError(`function ${functionName(folder)}: cannot serve on 127.0.0.1:${port}: ${(err as Error).message}`);
      }
    }
  } catch (err) {
    stop();
    throw err;
  }
  const out = opts.out ?? process.stdout;
  for (const folder of folders) {
    const target = `127.0.0.1:${ports.get(functionName(folder))}`;
    out.write(`---\n${toYaml(opts.tlsCertsDir ? externalRuntimeFunction(folder, target) : developmentFunction(folder, target))}`);
  }
  const range = `127.0.0.1:${opts.basePort}-${opts.basePort + folders.length - 1}`;
  const how = opts.tlsCertsDir
    ? `mTLS (${opts.tlsCertsDir}); core with --package-runtime=External dials each active FunctionRevision's status.endpoint (annotated ${ENDPOINT_ANNOTATION})`
    : 'insecure, for crossplane render';
  process.stderr.write(`serving ${folders.length} function(s) on ${range}, ${how}; Ctrl-C stops them\n`);
  return servers;
}
