/**
 * Reading engine flags the routing layer depends on
 * (docs/kinds/modelreplica.md#kv-block-size,
 * docs/kinds/modelreplica.md#prefilldecode).
 *
 * Guarantees:
 * - {@link kvBlockSize} is the reference's peek at the engine arguments: the first of
 *   `--block-size`/`--page-size` wins, in `--flag value` or `--flag=value`
 *   form; absent or not an integer gives 16. It never fails.
 * - {@link decodePort} never throws (docs/design.md#bad-engine-flags-are-input-errors, where the
 *   reference crashed): a `--port` that is not a port number comes back as an
 *   error naming the argument, which the caller reports as a Warning and a
 *   False condition. Absent gives 8001.
 */

/** The KV block size the EPP assumes when the engine does not say. */
export const DEFAULT_BLOCK_SIZE = 16;
/** The decode engine's port when `--port` is absent (the sidecar owns 8000). */
export const DEFAULT_DECODE_PORT = 8001;

/** The value of `flag` at `args[i]`, in space or `=` form, or `undefined` when `args[i]` is not that flag. */
function flagValue(args: readonly string[], i: number, flag: string): { value: string | undefined } | undefined {
  const a = args[i]!;
  if (a === flag) return { value: args[i + 1] };
  if (a.startsWith(`${flag}=`)) return { value: a.slice(flag.length + 1) };
  return undefined;
}

/** A base-10 integer with an optional sign, as Python's `int()` reads a flag value (surrounding spaces allowed). */
function parseInteger(s: string): number | undefined {
  const t = s.trim();
  return /^[+-]?\d+(_\d+)*$/.test(t) ? Number.parseInt(t.replaceAll('_', ''), 10) : undefined;
}

/** The KV block size in tokens, peeked from the serving engine's args. */
export function kvBlockSize(args: readonly string[]): number {
  for (let i = 0; i < args.length; i++) {
    for (const flag of ['--block-size', '--page-size']) {
      const hit = flagValue(args, i, flag);
      if (hit === undefined || hit.value === undefined) continue;
      return parseInteger(hit.value) ?? DEFAULT_BLOCK_SIZE;
    }
  }
  return DEFAULT_BLOCK_SIZE;
}

/** A decode port, or why the args do not give one (`index` is the position of the `--port` flag). */
export type PortRead = { port: number } | { index: number; value: string | undefined };

/** The decode engine's port from its `--port` flag (first occurrence wins). */
export function decodePort(args: readonly string[]): PortRead {
  for (let i = 0; i < args.length; i++) {
    const hit = flagValue(args, i, '--port');
    if (hit === undefined) continue;
    const port = hit.value === undefined ? undefined : parseInteger(hit.value);
    if (port === undefined || port < 1 || port > 65535) return { index: i, value: hit.value };
    return { port };
  }
  return { port: DEFAULT_DECODE_PORT };
}
