/**
 * `modelplane serve [NAME...|--all] [--base-port 9443]`: starts our functions
 * with `--insecure` on consecutive loopback ports and prints the `Function`
 * manifests that point `crossplane render` at them (Development runtime).
 * Runs until interrupted; stops every function on exit.
 */
import type { ChildProcess } from 'node:child_process';
import { folderOf, functionFolders, functionName, spawnFunction } from './functions.js';
import { UserError } from './load.js';
import { toYaml } from './render/output.js';

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
    spec: { package: `xpkg.modelplane.ai/modelplane/function-${folder}:v0.1.0` },
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

/** Starts the functions; resolves with the children once all serve. */
export async function runServe(names: string[], opts: { all?: boolean; basePort: number }): Promise<ChildProcess[]> {
  const folders = selectFolders(names, opts.all ?? false);
  const children: ChildProcess[] = [];
  const stop = () => {
    for (const c of children) c.kill('SIGTERM');
  };
  process.on('SIGINT', () => {
    stop();
    process.exit(0);
  });
  process.on('SIGTERM', () => {
    stop();
    process.exit(0);
  });
  process.on('exit', stop);
  const settled = await Promise.allSettled(folders.map((f, i) => spawnFunction(f, opts.basePort + i)));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    // Stop the ones that did start: nothing is left holding a port.
    for (const s of settled) if (s.status === 'fulfilled') s.value.child.kill('SIGTERM');
    throw failed.reason;
  }
  const started = settled.map((s) => (s as PromiseFulfilledResult<Awaited<ReturnType<typeof spawnFunction>>>).value);
  for (const [i, s] of started.entries()) {
    children.push(s.child);
    process.stdout.write(`---\n${toYaml(developmentFunction(folders[i]!, `127.0.0.1:${s.port}`))}`);
  }
  process.stderr.write(`serving ${folders.length} function(s) on 127.0.0.1:${opts.basePort}-${opts.basePort + folders.length - 1}; Ctrl-C stops them\n`);
  return children;
}
