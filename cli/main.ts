/**
 * The `modelplane` command line: plan, render, serve, selector. Bad input prints one line `modelplane <command>: <message>` and
 * exits 1; no stack trace reaches the user.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { REPO_ROOT } from './root.js';

// Every command's module is imported when that command runs, so `--help` and
// one command load only what they use (start-up time; bench/startup.ts).
const lazy = {
  plan: () => import('./plan.js'),
  render: () => import('./render.js'),
  selector: () => import('./selector.js'),
  serve: () => import('./serve.js'),
  functions: () => import('./functions.js'),
  keyValidator: () => import('./key-validator.js'),
  lifecycle: () => import('./dev/lifecycle.js'),
  quiet: () => import('./dev/quiet.js'),
  runtime: () => import('./dev/runtime/index.js'),
  state: () => import('./dev/state.js'),
  up: () => import('./dev/up.js'),
  workload: () => import('./dev/workload.js'),
};

const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
const collect = (value: string, previous: string[] = []) => [...previous, value];

function fail(command: string, err: unknown): never {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`modelplane ${command}: ${message}\n`);
  if ((err as Error | undefined)?.name !== 'UserError' && process.env['MODELPLANE_DEBUG']) process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
}

const program = new Command('modelplane')
  .description('Modelplane: fleet-level AI inference on Crossplane')
  .version(version)
  .showHelpAfterError()
  .configureOutput({ writeErr: (s) => process.stderr.write(s) })
  // Usage errors (unknown flag, bad value, missing argument) exit 2; help and version exit 0.
  .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2));

const PLAN_EXIT_CODES = `
Exit codes:
  0  converged, every replica placed, every cluster, gateway and service Ready
  1  invalid input (listed and left out), or a file that cannot be read
  2  usage: unknown flag, bad flag value, missing argument
  4  planned with problems, listed first: not converged, reconcile errors,
     unplaced replicas (see --allow-partial), False conditions, not Ready;
     with --lose: the fleet does not survive the loss; with
     --check-survivable: the loss of some cluster is not survivable
`;
const SELECTOR_EXIT_CODES = `
Exit codes:
  0  compiled and evaluated on every device without error (matched or not)
  1  a file cannot be read, or holds no InferenceClass device
  2  usage, or the expression does not compile (message and caret on stderr)
  4  evaluated with errors on some device (e.g. no such key), listed per device
`;

program
  .command('render')
  .description('render an XR through its Composition like `crossplane composition render` (CLI v2.3)')
  .argument('<xr>', 'file with the XR')
  .argument('<composition>', 'file with the Composition')
  .argument('<functions>', 'file or directory of pkg.crossplane.io Function objects')
  .option('-o, --observed-resources <path>', 'observed composed resources (file or directory)')
  .option('-e, --required-resources <path>', 'required resources (file or directory; repeatable)', collect)
  .option('--extra-resources <path>', 'deprecated spelling of --required-resources')
  .option('--context-files <key=path>', 'seed context key from a JSON/YAML file (repeatable)', collect)
  .option('--context-values <key=json>', 'seed context key from a JSON/YAML value (repeatable)', collect)
  .option('--function-credentials <path>', 'Secrets for step credentials (only data is read)')
  .option('-r, --include-function-results', 'print function results as Result documents')
  .option('-x, --include-full-xr', 'merge the input XR (spec, metadata) into the printed XR')
  .option('-c, --include-context', 'print the final context as a Context document')
  .option('--xrd <path>', 'validate the XR against this XRD and apply its defaults first')
  .option('--now <time>', 'the time durations are measured against (RFC 3339; default the fixed 2024-01-01T00:00:00Z)', (v) => {
    if (!/^\d{4}-\d\d-\d\dT/.test(v) || Number.isNaN(Date.parse(v))) throw new InvalidArgumentError('want an RFC 3339 time such as 2024-01-01T00:00:00Z');
    return v;
  })
  .option('--in-process', 'run our functions in this process instead of over gRPC')
  .action(async (xr: string, composition: string, functions: string, flags) => {
    try {
      process.exitCode = await (await lazy.render()).runRender(xr, composition, functions, flags);
    } catch (err) {
      fail('render', err);
    }
  });

program
  .command('plan')
  .description('plan the whole fleet in one process: where every replica lands, routes, every composed object')
  .argument('<paths...>', 'manifest files or directories (YAML streams)')
  .addOption(new Option('-o, --output <format>', 'report format').choices(['text', 'json', 'yaml']).default('text'))
  .option('--write <dir>', 'write every composed object as YAML, one file per object, a folder per XR')
  .option(
    '--rounds <n>',
    'maximum reconcile rounds per phase (platform, then developer); --together runs one phase of twice as many',
    (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1 || n > 1000) throw new InvalidArgumentError('want a whole number 1-1000');
      return n;
    },
    20,
  )
  .option('--together', 'apply developer kinds together with the platform instead of after it')
  .option('--allow-partial', 'unplaced replicas are not a problem (exit 0 instead of 4 when that is all)')
  .option('--state <path...>', 'the current fleet: an earlier --write directory or `kubectl get -o yaml` output; its replicas stay where they are')
  .option('--diff', 'with --state: print only what would be created (+), changed (~) or deleted (-)')
  .option('--now <time>', 'the time durations are measured against (RFC 3339; default the fixed 2024-01-01T00:00:00Z)', (v) => {
    const t = Date.parse(v);
    if (!/^\d{4}-\d\d-\d\dT/.test(v) || Number.isNaN(t)) throw new InvalidArgumentError('want an RFC 3339 time such as 2024-01-01T00:00:00Z');
    return t;
  })
  .option('--lose <cluster...>', 'what if: these InferenceClusters are lost once the plan converged; shows where every replica goes once their failover.after has passed')
  .option('--check-survivable', 'for every InferenceCluster: does losing it leave every deployment fully placed and Ready (N+1)?')
  .addHelpText('after', PLAN_EXIT_CODES)
  .action(async (paths: string[], flags) => {
    try {
      process.exitCode = await (await lazy.plan()).runPlan(paths, flags);
    } catch (err) {
      fail('plan', err);
    }
  });

program
  .command('selector')
  .description('does this DRA CEL selector match the devices of these InferenceClasses?')
  .argument('<expression>', 'a CEL expression over `device`, as in a ResourceClaim')
  .requiredOption('--class <file...>', 'files with InferenceClass manifests')
  .addOption(new Option('--output <format>', 'report format').choices(['text', 'json']).default('text'))
  .addHelpText('after', SELECTOR_EXIT_CODES)
  .action(async (expression: string, opts: { class: string[]; output: 'text' | 'json' }) => {
    try {
      process.exitCode = await (await lazy.selector()).runSelector(expression, opts);
    } catch (err) {
      fail('selector', err);
    }
  });

program
  .command('serve')
  .description('serve our functions from one process (insecure for crossplane render, or mTLS for Crossplane core) and print their Function manifests')
  .argument('[names...]', 'function folders or Function names (default: all)')
  .option('--all', 'serve every function')
  .option(
    '--base-port <port>',
    'port of the first function; the others follow',
    (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1 || n > 65535) throw new InvalidArgumentError('want a port number 1-65535');
      return n;
    },
    9443,
  )
  .option('--tls-certs-dir <dir>', 'serve mTLS (tls.crt, tls.key, ca.crt) as Crossplane core dials functions, instead of insecure')
  .option('--detached', 'keep serving when the parent process exits (a daemon stopped by pid, as modelplane dev up runs it)')
  .action(async (names: string[], opts: { all?: boolean; basePort: number; tlsCertsDir?: string; detached?: boolean }) => {
    try {
      const { functionFolders } = await lazy.functions();
      const { UserError } = await import('./load.js');
      const count = opts.all || names.length === 0 ? functionFolders().length : names.length;
      if (opts.basePort + count - 1 > 65535) {
        throw new UserError(`--base-port ${opts.basePort}: ${count} functions need ports up to ${opts.basePort + count - 1}; use a base port <= ${65536 - count}`);
      }
      await (await lazy.serve()).runServe(names, opts);
    } catch (err) {
      fail('serve', err);
    }
  });

program
  .command('key-validator')
  .description('serve the API-key validator Traefik forwardAuth asks (what the InferenceGateway runs in modelplane-system)')
  .option('--listen <host:port>', 'address to listen on', '127.0.0.1:8080')
  .option('--kubeconfig <file>', 'read key Secrets as this kubeconfig (default: the pod\'s ServiceAccount)')
  .option('--usage-upstream <url>', 'where the usage tap forwards counted requests (default: the gateway\'s metered listener in-cluster)')
  .action(async (opts: { listen: string; kubeconfig?: string; usageUpstream?: string }) => {
    try {
      await (await lazy.keyValidator()).runKeyValidator(opts);
    } catch (err) {
      fail('key-validator', err);
    }
  });

const dev = program
  .command('dev')
  .description('a real control plane on this machine (kube-apiserver, etcd, Crossplane core), no cloud needed')
  .option('--dir <dir>', 'where it keeps its state (default .cache/dev, or $MODELPLANE_DEV_DIR)')
  .option('--workload [n]', 'with kubectl (as --workload or --workload=N): workload API server N (default 0: the cluster an Existing InferenceCluster can point at)');
const devDirOf = async (cmd: Command) => (await lazy.state()).devDir((cmd.optsWithGlobals() as { dir?: string }).dir);

dev
  .command('up')
  .description('build what is missing, start everything, install Modelplane as users do (xpkg), say how to reach it')
  .option('--provider-crds <dir>', 'provider CRD snapshot (<group>/<plural>.yaml; default $MODELPLANE_PROVIDER_CRDS, else shared/crds beside the repository)')
  .option('--no-workload', 'do not start the workload API server an Existing InferenceCluster can point at')
  .addOption(
    new Option('--workloads <n>', 'workload API servers to run (default 1): simulated cloud clusters are given free ones, workload 0 while no Existing cluster adopts it').argParser((v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1 || n > 8) throw new InvalidArgumentError(`--workloads: "${v}" is not a whole number from 1 to 8`);
      return n;
    }),
  )
  .option('--keep', 'leave what started running when something fails')
  .addOption(
    new Option('--model-load <seconds>', 'seconds an engine pod on the workload cluster takes from Running to Ready (kwok; default 10)').argParser((v) => {
      const n = Number(v);
      if (!Number.isFinite(n) || n < 0 || n > 3600) throw new InvalidArgumentError(`--model-load: "${v}" is not a number of seconds from 0 to 3600`);
      return n;
    }),
  )
  .addOption(new Option('--inside').hideHelp())
  .action(async (opts: { providerCrds?: string; workload: boolean; workloads?: number; keep?: boolean; inside?: boolean; modelLoad?: number }, cmd: Command) => {
    try {
      const dir = await devDirOf(cmd);
      const { up, upInside } = await lazy.up();
      const o = {
        dir,
        workload: opts.workload,
        ...(opts.workloads !== undefined ? { workloads: opts.workloads } : {}),
        ...(opts.keep ? { keep: true } : {}),
        ...(opts.providerCrds ? { providerCrds: opts.providerCrds } : {}),
        ...(opts.modelLoad !== undefined ? { modelLoadSeconds: opts.modelLoad } : {}),
      };
      process.exitCode = opts.inside ? await upInside({ ...o, providerCrds: opts.providerCrds ?? '' }) : await up(o);
    } catch (err) {
      fail('dev up', err);
    }
  });

dev
  .command('down')
  .description('stop everything dev up started (by pid); nothing is left running')
  .option('--purge', 'also delete its directory (etcd data, certificates, packages)')
  .action(async (opts: { purge?: boolean }, cmd: Command) => {
    try {
      process.exitCode = await (await lazy.lifecycle()).down(await devDirOf(cmd), opts.purge ?? false);
    } catch (err) {
      fail('dev down', err);
    }
  });

dev
  .command('status')
  .description('what runs, by pid, and what it serves')
  .action(async (_opts: unknown, cmd: Command) => {
    try {
      process.exitCode = (await lazy.lifecycle()).status(await devDirOf(cmd));
    } catch (err) {
      fail('dev status', err);
    }
  });

dev
  .command('quiet')
  .description('is the fleet settled? lists every object written (new resourceVersion) during a window; exit 0 when none was')
  .option('--seconds <n>', 'how long to watch', (v) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1 || n > 3600) throw new InvalidArgumentError('want a whole number of seconds 1-3600');
    return n;
  }, 120)
  .addOption(new Option('--inside').hideHelp())
  .action(async (opts: { seconds: number; inside?: boolean }, cmd: Command) => {
    try {
      const dir = await devDirOf(cmd);
      const { runInside } = await lazy.lifecycle();
      process.exitCode = opts.inside ? await (await lazy.quiet()).quiet(opts.seconds) : runInside(dir, ['dev', '--dir', dir, 'quiet', '--inside', '--seconds', String(opts.seconds)]);
    } catch (err) {
      fail('dev quiet', err);
    }
  });

const workload = dev.command('workload').description('take the workload API server away and bring it back: a lost cluster, as the fleet sees one');
workload
  .command('stop')
  .description('stop the workload API server (its data is kept)')
  .action(async (_opts: unknown, cmd: Command) => {
    try {
      process.exitCode = await (await lazy.workload()).stopWorkload(await devDirOf(cmd));
    } catch (err) {
      fail('dev workload stop', err);
    }
  });
workload
  .command('start')
  .description('start the workload API server again, with the same flags and data')
  .addOption(new Option('--inside').hideHelp())
  .action(async (opts: { inside?: boolean }, cmd: Command) => {
    try {
      process.exitCode = await (await lazy.workload()).startWorkload(await devDirOf(cmd), opts.inside ?? false);
    } catch (err) {
      fail('dev workload start', err);
    }
  });

dev
  .command('kubectl')
  .description('run kubectl against the dev control plane (from any shell); `dev --workload[=N] kubectl ...` against a workload API server')
  .argument('[args...]', 'kubectl arguments')
  .allowUnknownOption()
  .helpOption(false)
  .action(() => {
    // handled before parsing (below), so every kubectl flag passes through untouched
  });

dev
  .command('runtime', { hidden: true })
  .description('the dev runtime (package runtime, simulated providers and cluster controllers); started by dev up')
  .requiredOption('--provider-crds <dir>')
  .action(async (opts: { providerCrds: string }, cmd: Command) => {
    try {
      await (await lazy.runtime()).runRuntime(await devDirOf(cmd), opts.providerCrds);
    } catch (err) {
      fail('dev runtime', err);
    }
  });

// `modelplane dev [--dir D] [--workload[=N]] kubectl ARGS...`: everything after `kubectl` is kubectl's.
const argv = process.argv.slice(2);
const kubectlAt = argv[0] === 'dev' ? argv.indexOf('kubectl') : -1;
const devFlags = kubectlAt > 0 ? argv.slice(1, kubectlAt) : [];
if (
  kubectlAt > 0 &&
  devFlags.every((a, i, all) => a === '--dir' || /^--workload(=\d+)?$/.test(a) || all[i - 1] === '--dir' || a.startsWith('--dir='))
) {
  const dirFlag = devFlags.find((a) => a.startsWith('--dir='))?.slice(6) ?? (devFlags.includes('--dir') ? devFlags[devFlags.indexOf('--dir') + 1] : undefined);
  try {
    const { kubectl } = await lazy.lifecycle();
    const workloadFlag = devFlags.find((a) => a.startsWith('--workload'));
    const workload = workloadFlag === undefined ? false : workloadFlag === '--workload' ? true : Number(workloadFlag.slice('--workload='.length));
    process.exitCode = kubectl((await lazy.state()).devDir(dirFlag), argv.slice(kubectlAt + 1), workload);
  } catch (err) {
    fail('dev kubectl', err);
  }
} else {
  await program.parseAsync(process.argv);
}
