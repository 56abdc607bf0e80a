/**
 * `modelplane selector EXPRESSION --class FILE... [--output text|json]`:
 * does my DRA selector match this hardware? Compiles the CEL expression as a
 * Kubernetes 1.34 API server would for a ResourceClaim, then evaluates it on
 * every device of every InferenceClass found in the files (YAML streams or
 * directories; other kinds are skipped), in file and document order.
 *
 * Exit codes: 0 when the selector compiled and evaluated without error on
 * every device (whatever it matched); 4 when it errored on some device (a
 * selector that errors is not a clean match: Kubernetes treats the device as
 * not allocatable); 2 when it does not compile (the message and a caret line
 * go to stderr); 1 when a file cannot be read or parsed.
 */
import {
  compileSelector,
  type InferenceClassDevice,
  isCompileError,
  matchDevice,
} from '@modelplane/cel';
import { loadManifests, UserError } from './load.js';

/** One line of the answer. */
export interface SelectorResult {
  /** InferenceClass name. */
  readonly class: string;
  /** Device name within the class (spec.devices[*].name). */
  readonly device: string;
  /** Null when evaluation failed; see `error`. */
  readonly matched: boolean | null;
  readonly error: string | null;
}

/** Where output goes; defaults to the process streams. */
export interface SelectorIO {
  readonly stdout: (s: string) => void;
  readonly stderr: (s: string) => void;
}

const processIO: SelectorIO = {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
};

/** The devices of every InferenceClass in the files, in order. */
export function classDevices(files: readonly string[]): { class: string; device: InferenceClassDevice; index: number }[] {
  const out: { class: string; device: InferenceClassDevice; index: number }[] = [];
  for (const doc of loadManifests(...files)) {
    const o = doc.object as { kind?: unknown; metadata?: { name?: unknown }; spec?: { devices?: unknown } };
    if (o.kind !== 'InferenceClass') continue;
    const name = typeof o.metadata?.name === 'string' ? o.metadata.name : `${doc.file}:${doc.line}`;
    const devices = Array.isArray(o.spec?.devices) ? (o.spec.devices as InferenceClassDevice[]) : [];
    devices.forEach((device, index) => {
      out.push({ class: name, device, index });
    });
  }
  return out;
}

/** Evaluates the selector on every class device; the compile error when it does not compile. */
export function evaluateSelector(expression: string, files: readonly string[]): SelectorResult[] | ReturnType<typeof compileSelector> {
  const compiled = compileSelector(expression);
  if (isCompileError(compiled)) return compiled;
  return classDevices(files).map(({ class: cls, device, index }) => {
    const r = matchDevice(compiled, device);
    const name = typeof device.name === 'string' ? device.name : `devices[${index}]`;
    return r.error === undefined
      ? { class: cls, device: name, matched: r.matched, error: null }
      : { class: cls, device: name, matched: null, error: r.error };
  });
}

function table(results: readonly SelectorResult[]): string {
  if (results.length === 0) return 'no InferenceClass devices found\n';
  const rows = [['CLASS', 'DEVICE', 'RESULT'], ...results.map((r) => [r.class, r.device, r.error !== null ? `error: ${r.error}` : r.matched ? 'matched' : 'not matched'])];
  const widths = [0, 1].map((c) => Math.max(...rows.map((row) => row[c]!.length)));
  const lines = rows.map((row) => `${row[0]!.padEnd(widths[0]!)}  ${row[1]!.padEnd(widths[1]!)}  ${row[2]}`.trimEnd());
  return `${lines.join('\n')}\n`;
}

/**
 * Runs the command and returns its exit code (0 clean, 4 evaluation errors
 * on some device, 2 compile error, 1 unreadable input or no InferenceClass
 * device in the files). Never throws for user input.
 */
export async function runSelector(
  expression: string,
  opts: { class: string[]; output: 'text' | 'json' },
  io: SelectorIO = processIO,
): Promise<number> {
  let results: ReturnType<typeof evaluateSelector>;
  try {
    results = evaluateSelector(expression, opts.class);
  } catch (err) {
    if (err instanceof UserError) {
      io.stderr(`modelplane selector: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
  if (!Array.isArray(results)) {
    io.stderr(`modelplane selector: the selector does not compile:\n${results.toString()}\n`);
    return 2;
  }
  if (results.length === 0) {
    io.stderr(`modelplane selector: ${opts.class.join(', ')}: no InferenceClass with devices found\n`);
    return 1;
  }
  io.stdout(opts.output === 'json' ? `${JSON.stringify(results, null, 2)}\n` : table(results));
  const failed = results.filter((r) => r.error !== null);
  if (failed.length > 0) {
    io.stderr(`modelplane selector: the selector failed on ${failed.length} of ${results.length} devices (${failed.map((r) => `${r.class}/${r.device}`).join(', ')})\n`);
    return 4;
  }
  return 0;
}
