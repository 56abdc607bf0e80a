/**
 * Our RunFunction codec: `RunFunctionRequest` and `RunFunctionResponse`
 * (apiextensions.fn.proto.v1, crossplane/proto/fn/v1/run_function.proto) to
 * and from protobuf bytes, with the SDK's types
 * (`@crossplane-org/function-sdk-typescript`, which stays the source of the
 * types and the service definition) and the SDK's bytes: encoding any
 * message gives exactly the bytes the SDK's ts-proto code gives, and
 * decoding gives the same object (test/lib/wire.test.ts proves both on every
 * example request and on fuzzed ones).
 *
 * What differs is the cost and the depth: every `google.protobuf.Struct`
 * (resources, context, input, schemas) is decoded straight into plain JSON
 * in one pass over the bytes and encoded likewise (./build.ts, the fast
 * path, and ./reader.ts; ./writer.ts), without the SDK's intermediate `Struct`/`Value` messages or
 * its 100-message recursion limit (about 32 JSON levels). Ours is
 * {@link MAX_JSON_DEPTH} JSON levels, beyond Crossplane's own protobuf limit
 * of 10,000 nested messages, and no function recurses per level.
 *
 * Malformed input is stricter than ts-proto (see ./reader.ts): a
 * {@link WireError}. Embedded messages repeated on the wire replace each
 * other, as ts-proto does.
 */
export { decodeRunFunctionRequest, decodeRunFunctionResponse } from './decode.js';
export { encodeRunFunctionRequest, encodeRunFunctionResponse } from './encode.js';
export { MAX_JSON_DEPTH, WireDepthError, WireError } from './reader.js';
