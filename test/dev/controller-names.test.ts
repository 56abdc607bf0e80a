/**
 * The controllers the dev control plane asks kube-controller-manager for
 * (cli/dev/components.ts) are ones it knows: an unknown name makes it exit at
 * start-up ("is not in the list of known controllers"), which leaves the
 * control plane without garbage collection. Read from the built binary's own
 * `--help`; skipped where it is not built.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, CONTROL_PLANE_CONTROLLERS, WORKLOAD_CONTROLLERS } from '../../cli/dev/components.js';

const KCM = join(BIN, 'kube-controller-manager');
const why = existsSync(KCM) ? undefined : 'kube-controller-manager is not built (npm run kube:build)';

describe('kube-controller-manager controller names', () => {
  it.skipIf(why !== undefined)(`every name is one the built binary knows${why ? ` (skipped: ${why})` : ''}`, () => {
    const help = execFileSync(KCM, ['--help'], { encoding: 'utf8' });
    const known = new Set((/All controllers: ([^\n]+)/.exec(help)?.[1] ?? '').split(',').map((n) => n.trim()));
    expect(known.size).toBeGreaterThan(20);
    const asked = [...CONTROL_PLANE_CONTROLLERS, ...WORKLOAD_CONTROLLERS].filter((n) => n !== '*').map((n) => n.replace(/^-/, ''));
    expect(asked.filter((n) => !known.has(n))).toEqual([]);
    expect(CONTROL_PLANE_CONTROLLERS).toContain('horizontal-pod-autoscaler-controller');
  });
});
