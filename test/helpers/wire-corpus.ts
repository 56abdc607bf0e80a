/**
 * The RunFunction corpus of the codec tests and benchmarks: every request
 * (and its response) our functions see while the examples under examples/
 * render in-process, recorded as the SDK's protobuf bytes.
 */
import { RunFunctionRequest, RunFunctionResponse } from '@crossplane-org/function-sdk-typescript';
import { renderExample, renderExamples } from '../../cli/examples.js';
import { InProcessRuntime } from '../../cli/functions.js';
import { Writer } from '../../functions/lib/wire/writer.js';

export interface WireCase {
  /** `<example>/<function>#<n>` */
  name: string;
  request: Uint8Array;
  response: Uint8Array;
}

/** Renders every example once, recording each call's request and response bytes. */
export async function exampleCalls(): Promise<WireCase[]> {
  const inner = new InProcessRuntime();
  const out: WireCase[] = [];
  for (const dir of renderExamples()) {
    const example = dir.split('/').pop()!;
    let n = 0;
    await renderExample(dir, {
      run: async (fn, req) => {
        const rsp = await inner.run(fn, req);
        out.push({
          name: `${example}/${fn.replace(/^modelplane-function-/, '')}#${n++}`,
          request: RunFunctionRequest.encode(req).finish(),
          response: RunFunctionResponse.encode(rsp).finish(),
        });
        return rsp;
      },
      close: async () => {},
    });
  }
  return out;
}

/** Bytes of a Struct `{a: {a: ... {}}}` nested `levels` deep (the outermost counts), written without recursion. */
export function deepStruct(levels: number): Buffer {
  const w = new Writer();
  const end = w.mark();
  for (let i = 1; i < levels; i++) {
    w.close(end, 42); // Value.struct_value
    w.close(end, 18); // entry value
    w.string('a');
    w.byteTag(10); // entry key
    w.close(end, 10); // Struct.fields entry
  }
  return Buffer.from(w.finish());
}

/** The bytes of a RunFunctionRequest `{meta: {tag}, context: deepStruct(levels)}`. */
export function deepRequest(levels: number, tag = 'deep'): Buffer {
  const meta = RunFunctionRequest.encode(RunFunctionRequest.fromPartial({ meta: { tag } })).finish();
  const w = new Writer();
  w.bytes(deepStruct(levels));
  w.byteTag(42); // RunFunctionRequest.context
  return Buffer.concat([meta, w.finish()]);
}
