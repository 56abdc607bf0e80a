/**
 * The codec micro-benchmark (docs/design.md#our-own-runfunction-codec): our codec (functions/lib/wire/) beside
 * the SDK's ts-proto codec on one RunFunctionRequest and its response: decode
 * the request and encode the response (the server's share), and the reverse
 * (the client's). Medians in ms over `n` runs after 3 warm-ups.
 *
 * `codecBench` runs in the calling process; `codecBenchInOwnProcess` writes the
 * two messages' bytes to a temporary folder and runs the same rows in a fresh
 * Node process that holds nothing else, as a function server does (a process
 * holding a large heap makes every decode pay for old-generation collections
 * over it, which a function server never has). Run directly:
 * `tsx bench/codec.ts REQUEST.bin RESPONSE.bin N`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RunFunctionRequest, RunFunctionResponse } from '@crossplane-org/function-sdk-typescript';
import { decodeRunFunctionRequest, decodeRunFunctionResponse, encodeRunFunctionRequest, encodeRunFunctionResponse } from '../functions/lib/wire/codec.js';

const f = (ms: number) => ms.toFixed(1).padStart(7);

/** Median ms of `fn` over `n` runs after 3 warm-ups. */
function median(fn: () => unknown, n: number): number {
  for (let i = 0; i < 3; i++) fn();
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor((times.length - 1) / 2)]!;
}

/**
 * Prints the four rows and the server share for `req`/`rsp` under `label`.
 * The target (>= 4x) is printed beside the share when `targeted`: the
 * figure of a process that holds only the request, as a function server
 * does; in a process holding much else, both codecs pay for its
 * old-generation GC and the share says more about the process than the codec.
 */
export function codecBench(label: string, req: RunFunctionRequest, rsp: RunFunctionResponse, n: number, targeted = true): void {
  const reqBytes = encodeRunFunctionRequest(req);
  const rspBytes = encodeRunFunctionResponse(rsp);
  const rows: [string, () => unknown, () => unknown][] = [
    ['decode request', () => RunFunctionRequest.decode(reqBytes), () => decodeRunFunctionRequest(reqBytes)],
    ['encode response', () => RunFunctionResponse.encode(rsp).finish(), () => encodeRunFunctionResponse(rsp)],
    ['encode request', () => RunFunctionRequest.encode(req).finish(), () => encodeRunFunctionRequest(req)],
    ['decode response', () => RunFunctionResponse.decode(rspBytes), () => decodeRunFunctionResponse(rspBytes)],
  ];
  process.stdout.write(
    `codec on ${label}: request ${(reqBytes.length / 1e6).toFixed(2)} MB, response ${(rspBytes.length / 1e6).toFixed(2)} MB\n` +
      '  operation           SDK ms    ours ms   ratio\n',
  );
  let sdkServer = 0;
  let oursServer = 0;
  for (const [name, sdk, ours] of rows) {
    const a = median(sdk, n);
    const b = median(ours, n);
    if (name === 'decode request' || name === 'encode response') {
      sdkServer += a;
      oursServer += b;
    }
    process.stdout.write(`  ${name.padEnd(16)} ${f(a)}   ${f(b)}   ${(a / b).toFixed(1).padStart(5)}x\n`);
  }
  const target = targeted ? '(target >= 4x)' : "(the target is the fresh process's figure)";
  process.stdout.write(`  server share (decode request + encode response): ${(sdkServer / oursServer).toFixed(1)}x the SDK ${target}\n`);
}

/** {@link codecBench} in a fresh Node process holding only the two messages. */
export function codecBenchInOwnProcess(label: string, req: RunFunctionRequest, rsp: RunFunctionResponse, n: number): void {
  const dir = mkdtempSync(join(tmpdir(), 'codec-bench-'));
  try {
    writeFileSync(join(dir, 'req.bin'), encodeRunFunctionRequest(req));
    writeFileSync(join(dir, 'rsp.bin'), encodeRunFunctionResponse(rsp));
    const out = execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), join(dir, 'req.bin'), join(dir, 'rsp.bin'), String(n), label], {
      encoding: 'utf8',
    });
    process.stdout.write(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [reqFile, rspFile, n, label] = process.argv.slice(2);
  const req = decodeRunFunctionRequest(new Uint8Array(readFileSync(reqFile!)));
  const rsp = decodeRunFunctionResponse(new Uint8Array(readFileSync(rspFile!)));
  codecBench(label ?? reqFile!, req, rsp, Number(n ?? 10));
}
