/**
 * Decoding half of our RunFunction codec (./codec.ts has the contract).
 */
import type {
  Condition,
  Credentials,
  Requirements,
  Resource,
  ResourceSelector,
  Resources,
  Result,
  RunFunctionRequest,
  RunFunctionResponse,
  Schema,
  SchemaSelector,
  State,
} from '@crossplane-org/function-sdk-typescript';
import { decodeStruct, Reader, setKey, WireDepthError, WireError } from './reader.js';
import { buildStruct } from './build.js';

type Json = Record<string, unknown>;
type RequestMeta = NonNullable<RunFunctionRequest['meta']>;
type ResponseMeta = NonNullable<RunFunctionResponse['meta']>;


function struct(r: Reader, end: number, field: string): Json {
  const stop = r.delimited(end);
  const start = r.pos;
  const fast = buildStruct(r.buf, r.view, start, stop);
  if (fast !== undefined) {
    r.pos = stop;
    return fast;
  }
  try {
    return decodeStruct(r, stop);
  } catch (err) {
    throw within(err, field);
  }
}

/** Prefixes a depth error's path with the field it was found in (built only on the error path). */
function within(err: unknown, field: string): unknown {
  if (err instanceof WireDepthError) err.path.unshift(field);
  return err;
}

/** Decodes a map entry `{1: key, 2: value}`; the value decoder gets the entry's bounds. */
function entry<T>(r: Reader, end: number, value: (r: Reader, end: number) => T): [string, T | undefined] {
  const stop = r.delimited(end);
  let key = '';
  let v: T | undefined;
  while (r.pos < stop) {
    const t = r.tag();
    if (t === 10) key = r.string(stop);
    else if (t === 18) {
      try {
        v = value(r, stop);
      } catch (err) {
        throw within(err, `[${key}]`);
      }
    } else r.skip(t, stop);
  }
  return [key, v];
}

function stringValue(r: Reader, end: number): string {
  return r.string(end);
}
function bytesValue(r: Reader, end: number): Buffer {
  return r.bytes(end);
}

function resource(r: Reader, end: number): Resource {
  const stop = r.delimited(end);
  const m: Resource = { resource: undefined, connectionDetails: {}, ready: 0 };
  while (r.pos < stop) {
    const t = r.tag();
    if (t === 10) m.resource = struct(r, stop, 'resource');
    else if (t === 18) {
      const [k, v] = entry(r, stop, bytesValue);
      setKey(m.connectionDetails, k, v ?? Buffer.alloc(0));
    } else if (t === 24) m.ready = r.int32();
    else r.skip(t, stop);
  }
  return m;
}

function state(r: Reader, end: number, field: string): State {
  const stop = r.delimited(end);
  const m: State = { composite: undefined, resources: {} };
  try {
    while (r.pos < stop) {
      const t = r.tag();
      if (t === 10) m.composite = within2(resource, r, stop, 'composite');
      else if (t === 18) {
        const [k, v] = within2(resourceEntry, r, stop, 'resources');
        if (v !== undefined) setKey(m.resources, k, v);
      } else r.skip(t, stop);
    }
  } catch (err) {
    throw within(err, field);
  }
  return m;
}

function resourceEntry(r: Reader, end: number): [string, Resource | undefined] {
  return entry(r, end, resource);
}

/** Runs a decoder, prefixing a depth error with `field`. */
function within2<T>(decode: (r: Reader, end: number) => T, r: Reader, end: number, field: string): T {
  try {
    return decode(r, end);
  } catch (err) {
    throw within(err, field);
  }
}

function resources(r: Reader, end: number): Resources {
  const stop = r.delimited(end);
  const m: Resources = { items: [] };
  while (r.pos < stop) {
    const t = r.tag();
    if (t === 10) {
      try {
        m.items.push(resource(r, stop));
      } catch (err) {
        throw within(err, `items[${m.items.length}]`);
      }
    } else r.skip(t, stop);
  }
  return m;
}

function resourcesEntry(r: Reader, end: number): [string, Resources | undefined] {
  return entry(r, end, resources);
}
function schemaEntry(r: Reader, end: number): [string, Schema | undefined] {
  return entry(r, end, schema);
}

function credentials(r: Reader, end: number): Credentials {
  const stop = r.delimited(end);
  const m: Credentials = { credentialData: undefined };
  while (r.pos < stop) {
    const t = r.tag();
    if (t === 10) {
      const dataEnd = r.delimited(stop);
      const data: Record<string, Buffer> = {};
      while (r.pos < dataEnd) {
        const t2 = r.tag();
        if (t2 === 10) {
          const [k, v] = entry(r, dataEnd, bytesValue);
          setKey(data, k, v ?? Buffer.alloc(0));
        } else r.skip(t2, dataEnd);
      }
      m.credentialData = { data };
    } else r.skip(t, stop);
  }
  return m;
}

function schema(r: Reader, end: number): Schema {
  const stop = r.delimited(end);
  const m: Schema = { openapiV3: undefined };
  while (r.pos < stop) {
    const t = r.tag();
    if (t === 10) m.openapiV3 = struct(r, stop, 'openapiV3');
    else r.skip(t, stop);
  }
  return m;
}

function requestMeta(r: Reader, end: number): RequestMeta {
  const stop = r.delimited(end);
  const m: RequestMeta = { tag: '', capabilities: [] };
  while (r.pos < stop) {
    const t = r.tag();
    if (t === 10) m.tag = r.string(stop);
    else if (t === 16) m.capabilities.push(r.int32());
    else if (t === 18) {
      const packedEnd = r.delimited(stop);
      while (r.pos < packedEnd) m.capabilities.push(r.int32());
      if (r.pos > packedEnd) throw new WireError('packed field runs past its end');
    } else r.skip(t, stop);
  }
  return m;
}

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * Decodes a RunFunctionRequest.
 * @throws WireError on malformed bytes; WireDepthError (naming the limit and the field) beyond {@link MAX_JSON_DEPTH}.
 */
export function decodeRunFunctionRequest(bytes: Uint8Array): RunFunctionRequest {
  const r = new Reader(toBuffer(bytes));
  const end = bytes.length;
  const m: RunFunctionRequest = {
    meta: undefined,
    observed: undefined,
    desired: undefined,
    input: undefined,
    context: undefined,
    extraResources: {},
    credentials: {},
    requiredResources: {},
    requiredSchemas: {},
  };
  while (r.pos < end) {
    const t = r.tag();
    switch (t) {
      case 10:
        m.meta = requestMeta(r, end);
        break;
      case 18:
        m.observed = state(r, end, 'observed');
        break;
      case 26:
        m.desired = state(r, end, 'desired');
        break;
      case 34:
        m.input = struct(r, end, 'input');
        break;
      case 42:
        m.context = struct(r, end, 'context');
        break;
      case 50: {
        const [k, v] = within2(resourcesEntry, r, end, 'extraResources');
        if (v !== undefined) setKey(m.extraResources, k, v);
        break;
      }
      case 58: {
        const [k, v] = entry(r, end, credentials);
        if (v !== undefined) setKey(m.credentials, k, v);
        break;
      }
      case 66: {
        const [k, v] = within2(resourcesEntry, r, end, 'requiredResources');
        if (v !== undefined) setKey(m.requiredResources, k, v);
        break;
      }
      case 74: {
        const [k, v] = within2(schemaEntry, r, end, 'requiredSchemas');
        if (v !== undefined) setKey(m.requiredSchemas, k, v);
        break;
      }
      default:
        r.skip(t, end);
    }
  }
  return m;
}

function selector(r: Reader, end: number): ResourceSelector {
  const stop = r.delimited(end);
  const m: ResourceSelector = { apiVersion: '', kind: '', matchName: undefined, matchLabels: undefined, namespace: undefined };
  while (r.pos < stop) {
    const t = r.tag();
    if (t === 10) m.apiVersion = r.string(stop);
    else if (t === 18) m.kind = r.string(stop);
    else if (t === 26) m.matchName = r.string(stop);
    else if (t === 34) {
      const labelsEnd = r.delimited(stop);
      const labels: Record<string, string> = {};
      while (r.pos < labelsEnd) {
        const t2 = r.tag();
        if (t2 === 10) {
          const [k, v] = entry(r, labelsEnd, stringValue);
          setKey(labels, k, v ?? '');
        } else r.skip(t2, labelsEnd);
      }
      m.matchLabels = { labels };
    } else if (t === 42) m.namespace = r.string(stop);
    else r.skip(t, stop);
  }
  return m;
}

function schemaSelector(r: Reader, end: number): SchemaSelector {
  const stop = r.delimited(end);
  const m: SchemaSelector = { apiVersion: '', kind: '' };
  while (r.pos < stop) {
    const t = r.tag();
    if (t === 10) m.apiVersion = r.string(stop);
    else if (t === 18) m.kind = r.string(stop);
    else r.skip(t, stop);
  }
  return m;
}

function requirements(r: Reader, end: number): Requirements {
  const stop = r.delimited(end);
  const m: Requirements = { extraResources: {}, resources: {}, schemas: {} };
  while (r.pos < stop) {
    const t = r.tag();
    if (t === 10 || t === 18) {
      const [k, v] = entry(r, stop, selector);
      if (v !== undefined) setKey(t === 10 ? m.extraResources : m.resources, k, v);
    } else if (t === 26) {
      const [k, v] = entry(r, stop, schemaSelector);
      if (v !== undefined) setKey(m.schemas, k, v);
    } else r.skip(t, stop);
  }
  return m;
}

function responseMeta(r: Reader, end: number): ResponseMeta {
  const stop = r.delimited(end);
  const m: ResponseMeta = { tag: '', ttl: undefined };
  while (r.pos < stop) {
    const t = r.tag();
    if (t === 10) m.tag = r.string(stop);
    else if (t === 18) {
      const ttlEnd = r.delimited(stop);
      const ttl = { seconds: 0, nanos: 0 };
      while (r.pos < ttlEnd) {
        const t2 = r.tag();
        if (t2 === 8) ttl.seconds = r.int64();
        else if (t2 === 16) ttl.nanos = r.int32();
        else r.skip(t2, ttlEnd);
      }
      m.ttl = ttl;
    } else r.skip(t, stop);
  }
  return m;
}

function result(r: Reader, end: number): Result {
  const stop = r.delimited(end);
  const m: Result = { severity: 0, message: '', reason: undefined, target: undefined };
  while (r.pos < stop) {
    const t = r.tag();
    if (t === 8) m.severity = r.int32();
    else if (t === 18) m.message = r.string(stop);
    else if (t === 26) m.reason = r.string(stop);
    else if (t === 32) m.target = r.int32();
    else r.skip(t, stop);
  }
  return m;
}

function condition(r: Reader, end: number): Condition {
  const stop = r.delimited(end);
  const m: Condition = { type: '', status: 0, reason: '', message: undefined, target: undefined };
  while (r.pos < stop) {
    const t = r.tag();
    if (t === 10) m.type = r.string(stop);
    else if (t === 16) m.status = r.int32();
    else if (t === 26) m.reason = r.string(stop);
    else if (t === 34) m.message = r.string(stop);
    else if (t === 40) m.target = r.int32();
    else r.skip(t, stop);
  }
  return m;
}

/**
 * Decodes a RunFunctionResponse.
 * @throws WireError on malformed bytes; WireDepthError beyond {@link MAX_JSON_DEPTH}.
 */
export function decodeRunFunctionResponse(bytes: Uint8Array): RunFunctionResponse {
  const r = new Reader(toBuffer(bytes));
  const end = bytes.length;
  const m: RunFunctionResponse = {
    meta: undefined,
    desired: undefined,
    results: [],
    context: undefined,
    requirements: undefined,
    conditions: [],
    output: undefined,
  };
  while (r.pos < end) {
    const t = r.tag();
    switch (t) {
      case 10:
        m.meta = responseMeta(r, end);
        break;
      case 18:
        m.desired = state(r, end, 'desired');
        break;
      case 26:
        m.results.push(result(r, end));
        break;
      case 34:
        m.context = struct(r, end, 'context');
        break;
      case 42:
        m.requirements = requirements(r, end);
        break;
      case 50:
        m.conditions.push(condition(r, end));
        break;
      case 58:
        m.output = struct(r, end, 'output');
        break;
      default:
        r.skip(t, end);
    }
  }
  return m;
}

