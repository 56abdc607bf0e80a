#!/usr/bin/env node
// `npm run build`: type-checks cli/ and functions/ (tsc -p tsconfig.build.json
// --noEmit), bundles them into dist/ with esbuild, then writes
// dist/.build-stamp dated when the build started, so bin/modelplane.js runs
// dist/ only while no source is newer.
// `--if-possible` (what `prepare` passes on `npm ci`): a failed compile
// warns and leaves no stamp (the CLI then runs the sources through tsx)
// instead of failing the install. `--outdir DIR` builds into DIR instead of
// dist/, and `--no-check` skips the type check (bench/coldstart.bench.ts:
// a type error elsewhere in the tree does not stop a benchmark).
//
// The bundle (start-up time: the CLI's and each function's cold start): one
// esbuild build, ESM, code-split, whose entry points are every module loaded
// by path: dist/cli/main.js, and dist/functions/<f>/main.js (the image's
// ENTRYPOINT) and dist/functions/<f>/compose.js (the cores `modelplane plan`
// imports) of every function. Shared code lands once in dist/chunks/, so the
// CLI and the cores it loads share one zod, one SDK. Resolving and compiling
// ~400 small modules was about half of a function's cold start and of a
// quickstart plan. Left out of the bundle (loaded from node_modules as
// before): packages that read files beside their own code or are large and
// only used by `modelplane dev` (see EXTERNAL).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Every .yaml/.yml file under dir, recursively, sorted (as functions/lib/schema/registry.ts yamlFiles); none when dir does not exist (the Dockerfile builds without apis/). */
function yamlFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .flatMap((e) => {
      const p = join(dir, e);
      if (statSync(p).isDirectory()) return yamlFiles(p);
      return /\.ya?ml$/.test(e) ? [p] : [];
    });
}
/**
 * Packages loaded from node_modules at run time, not bundled: @grpc/proto-loader
 * (protobufjs; grpc-js loads it only for channelz/ORCA, reading .proto files
 * beside its own code), and what only `modelplane dev`/`package` use
 * (@kubernetes/client-node, @peculiar/x509, tar-stream, selfsigned), so the
 * bundle stays small; tsx and esbuild are tools, never bundled.
 */
const EXTERNAL = ['@grpc/proto-loader', '@kubernetes/client-node', '@peculiar/x509', 'tar-stream', 'selfsigned', 'tsx', 'tsx/*', 'esbuild'];

/** Every module loaded by path (see the header), as paths relative to root. */
function entryPoints() {
  const folders = readdirSync(join(root, 'functions'))
    .filter((f) => f !== 'lib' && existsSync(join(root, 'functions', f, 'main.ts')))
    .sort();
  return ['cli/main.ts', ...folders.flatMap((f) => [`functions/${f}/main.ts`, `functions/${f}/compose.ts`])];
}

/**
 * JSON modules as `JSON.parse` of their text: V8 parses a JSON string several
 * times faster than the same data as an object literal (the Gateway API CRD
 * bundle is 600 KB).
 */
const jsonAsParse = {
  name: 'json-as-parse',
  setup(build) {
    build.onLoad({ filter: /\.json$/ }, (args) => ({
      contents: `export default JSON.parse(${JSON.stringify(readFileSync(args.path, 'utf8'))});`,
      loader: 'js',
    }));
  },
};

const lenient = process.argv.includes('--if-possible');
const outArg = process.argv.indexOf('--outdir');
const out = outArg >= 0 ? resolve(process.argv[outArg + 1]) : join(root, 'dist');
const started = new Date();
rmSync(out, { recursive: true, force: true });
function missing(what) {
  if (lenient) {
    process.stderr.write(`modelplane build: ${what} is not installed (npm ci --omit=dev?); the CLI will run the sources through tsx\n`);
    process.exit(0);
  }
  throw new Error(`${what} is not installed: run npm ci`);
}
const requireHere = createRequire(join(root, 'package.json'));
let tsc;
let esbuild;
try {
  tsc = requireHere.resolve('typescript/bin/tsc');
} catch {
  missing('typescript');
}
try {
  esbuild = await import(requireHere.resolve('esbuild'));
} catch {
  missing('esbuild');
}
const r = process.argv.includes('--no-check')
  ? { status: 0 }
  : spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--noEmit'], { stdio: 'inherit', cwd: root });
if (r.status !== 0) {
  process.stderr.write(`modelplane build: tsc failed${lenient ? '; the CLI will run the sources through tsx' : ''}\n`);
  process.exit(lenient ? 0 : (r.status ?? 1));
}
try {
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: entryPoints(),
    outdir: out,
    outbase: '.',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: true,
    chunkNames: 'chunks/[name]-[hash]',
    external: EXTERNAL,
    plugins: [jsonAsParse],
    logLevel: 'warning',
    // CommonJS packages in the bundle (grpc-js, pino, commander, ...) call require() for Node's built-ins
    banner: { js: "import { createRequire as __modelplaneRequire } from 'node:module';\nconst require = __modelplaneRequire(import.meta.url);" },
  });
} catch (err) {
  process.stderr.write(`modelplane build: esbuild failed${lenient ? '; the CLI will run the sources through tsx' : ''}: ${err.message}\n`);
  rmSync(out, { recursive: true, force: true });
  process.exit(lenient ? 0 : 1);
}
// apis/ parsed ahead of time (functions/lib/schema/registry.ts ParsedDocs): the SHA-256 of each
// file's text → its documents, as parseYamlDocs returns them; a file with a YAML error is left out
// (the CLI then parses it and reports the error as before).
const parsedDocs = {};
for (const file of yamlFiles(join(root, 'apis'))) {
  const text = readFileSync(file, 'utf8');
  const docs = parseAllDocuments(text);
  if (docs.some((d) => d.errors.length > 0)) continue;
  parsedDocs[createHash('sha256').update(text, 'utf8').digest('hex')] = docs
    .map((d) => d.toJS({ maxAliasCount: -1 }))
    .filter((d) => d !== null && d !== undefined);
}
writeFileSync(join(out, 'yaml-docs.json'), JSON.stringify(parsedDocs));
const stamp = join(out, '.build-stamp');
writeFileSync(stamp, `built ${started.toISOString()}\n`);
utimesSync(stamp, started, started);
