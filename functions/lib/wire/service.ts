/**
 * The FunctionRunnerService definition with our codec (./codec.ts) as its
 * gRPC serializers: the SDK's definition (path, names, streaming flags)
 * with `requestSerialize`/`requestDeserialize`/`responseSerialize`/
 * `responseDeserialize` replaced. Servers (functions/lib/sdk.ts) and clients
 * (cli/functions.ts, tests, benchmarks) both use it.
 *
 * A request the server cannot decode (malformed bytes, or JSON nested beyond
 * {@link MAX_JSON_DEPTH}) does not fail the call with gRPC INTERNAL, as a
 * throwing deserializer would: it decodes to a request carrying only its
 * `meta.tag` and the reason ({@link undecodable}), which the handler answers
 * with a Fatal result naming the reason. Likewise a response our encoder
 * refuses is sent as a Fatal response with the tag.
 */
import { FunctionRunnerServiceService, type RunFunctionRequest, type RunFunctionResponse, Severity, Target } from '@crossplane-org/function-sdk-typescript';
import {
  decodeRunFunctionRequest,
  decodeRunFunctionResponse,
  encodeRunFunctionRequest,
  encodeRunFunctionResponse,
  MAX_JSON_DEPTH,
} from './codec.js';
import { Reader } from './reader.js';
import { collectYoung } from './young.js';

export { MAX_JSON_DEPTH };

const UNDECODABLE = Symbol('undecodable');
type Marked = RunFunctionRequest & { [UNDECODABLE]?: string };

/** Why the server could not decode `req`, or undefined for a decoded request. */
export function undecodable(req: RunFunctionRequest): string | undefined {
  return (req as Marked)[UNDECODABLE];
}

/** The request's `meta.tag`, read without decoding anything else; '' when unreadable. */
function peekTag(bytes: Buffer): string {
  try {
    const r = new Reader(bytes);
    let tag = '';
    while (r.pos < bytes.length) {
      const t = r.tag();
      if (t !== 10) {
        r.skip(t, bytes.length);
        continue;
      }
      const end = r.delimited(bytes.length);
      while (r.pos < end) {
        const t2 = r.tag();
        if (t2 === 10) tag = r.string(end);
        else r.skip(t2, end);
      }
    }
    return tag;
  } catch {
    return '';
  }
}

/**
 * The server's request deserializer: never throws (see the module doc). A
 * large request is decoded after a young-generation collection (./young.ts).
 */
export function deserializeRequest(bytes: Buffer): RunFunctionRequest {
  collectYoung(bytes.length);
  try {
    return decodeRunFunctionRequest(bytes);
  } catch (err) {
    const req: Marked = {
      meta: { tag: peekTag(bytes), capabilities: [] },
      observed: undefined,
      desired: undefined,
      extraResources: {},
      credentials: {},
      requiredResources: {},
      requiredSchemas: {},
    };
    req[UNDECODABLE] = err instanceof Error ? err.message : String(err);
    return req;
  }
}

/** The server's response serializer: a response that cannot be encoded becomes a Fatal response with its tag. */
export function serializeResponse(rsp: RunFunctionResponse): Buffer {
  try {
    return encodeRunFunctionResponse(rsp);
  } catch (err) {
    return encodeRunFunctionResponse({
      meta: { tag: rsp.meta?.tag ?? '', ttl: { seconds: 60, nanos: 0 } },
      desired: undefined,
      results: [
        {
          severity: Severity.SEVERITY_FATAL,
          message: `cannot encode the RunFunctionResponse: ${err instanceof Error ? err.message : String(err)}`,
          target: Target.TARGET_COMPOSITE,
        },
      ],
      context: undefined,
      requirements: undefined,
      conditions: [],
      output: undefined,
    });
  }
}

/** FunctionRunnerService with our codec; pass to `server.addService` or `grpc.makeGenericClientConstructor`. */
export const RunFunctionService = {
  runFunction: {
    ...FunctionRunnerServiceService.runFunction,
    requestSerialize: (req: RunFunctionRequest): Buffer => encodeRunFunctionRequest(req),
    requestDeserialize: deserializeRequest,
    responseSerialize: serializeResponse,
    responseDeserialize: (bytes: Buffer): RunFunctionResponse => decodeRunFunctionResponse(bytes),
  },
} as const;
