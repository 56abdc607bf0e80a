/**
 * Suite-wide setup (vitest.config.ts `setupFiles`): a test that makes one of
 * our cores throw fails, even when the SDK adapter turned the exception into
 * its `internal error` Fatal and the test looked only at other fields. The
 * Fatal is a last resort for bugs; every input, however broken, gets an
 * answer that names the field (docs/design.md#three-outcomes). A test that means to throw
 * installs its own listener with `onInternalError` and restores this one.
 */
import { afterEach } from 'vitest';
import { onInternalError } from '../../functions/lib/sdk.js';

const seen: string[] = [];

onInternalError((name, err) => {
  seen.push(`${name}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
});

afterEach(() => {
  if (seen.length === 0) return;
  const thrown = seen.splice(0);
  throw new Error(`a core threw and answered with its internal-error Fatal (read the input, name the field):\n${thrown.join('\n')}`);
});
