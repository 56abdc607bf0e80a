/** Runs the `modelplane` command as a user does, collecting its exit code and output. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../../cli/functions.js';

/** The outcome of one `modelplane` run. */
export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Spawns `node bin/modelplane.js ...args` in the repository root. */
export function modelplane(...args: string[]): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/modelplane.js'), ...args], { cwd: REPO_ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
