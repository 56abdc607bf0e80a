/**
 * Encoding half of our RunFunction codec (./codec.ts has the contract).
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
import { Writer, writeStruct } from './writer.js';

type Json = Record<string, unknown>;
type RequestMeta = NonNullable<RunFunctionRequest['meta']>;
type ResponseMeta = NonNullable<RunFunctionResponse['meta']>;

// Back to front: each message's fields last first, maps in reverse key order.

function putStruct(w: Writer, obj: Json | undefined, tag: number): void {
  if (obj === undefined) return;
  const mark = w.mark();
  writeStruct(w, obj);
  w.close(mark, tag);
}

function putString(w: Writer, s: string | undefined, tag: number, omitEmpty: boolean): void {
  if (s === undefined || (omitEmpty && s === '')) return;
  w.string(s);
  w.byteTag(tag);
}

function putEnum(w: Writer, v: number | undefined, tag: number, omitZero: boolean): void {
  if (v === undefined || (omitZero && v === 0)) return;
  w.int32(v);
  w.byteTag(tag);
}

/** A map field: each entry `{1: key (omitted when ""), 2: value}` under `tag`, in `Object.keys` order. */
function putMap<V>(w: Writer, map: Record<string, V>, tag: number, value: (w: Writer, v: V) => void): void {
  const keys = Object.keys(map);
  for (let i = keys.length - 1; i >= 0; i--) {
    const key = keys[i]!;
    const mark = w.mark();
    value(w, map[key]!);
    putString(w, key, 10, true);
    w.close(mark, tag);
  }
}

/** A message-valued map entry's value (field 2), omitted when undefined. */
function messageValue<V>(put: (w: Writer, v: V) => void): (w: Writer, v: V | undefined) => void {
  return (w, v) => {
    if (v === undefined) return;
    const mark = w.mark();
    put(w, v);
    w.close(mark, 18);
  };
}

function bytesValueOut(w: Writer, v: Uint8Array): void {
  if (v.length === 0) return;
  w.bytes(v);
  w.byteTag(18);
}

function stringValueOut(w: Writer, v: string): void {
  putString(w, v, 18, true);
}

function putResource(w: Writer, m: Resource): void {
  putEnum(w, m.ready, 24, true);
  putMap(w, m.connectionDetails, 18, bytesValueOut);
  putStruct(w, m.resource, 10);
}
const resourceValue = messageValue(putResource);

function putState(w: Writer, m: State): void {
  putMap(w, m.resources, 18, resourceValue);
  putMessage(w, m.composite, 10, putResource);
}

function putMessage<M>(w: Writer, m: M | undefined, tag: number, put: (w: Writer, m: M) => void): void {
  if (m === undefined) return;
  const mark = w.mark();
  put(w, m);
  w.close(mark, tag);
}

function putResources(w: Writer, m: Resources): void {
  for (let i = m.items.length - 1; i >= 0; i--) putMessage(w, m.items[i], 10, putResource);
}
const resourcesValue = messageValue(putResources);

const credentialsValue = messageValue((w: Writer, m: Credentials) => {
  putMessage(w, m.credentialData, 10, (w2, d) => putMap(w2, d.data, 10, bytesValueOut));
});

const schemaValue = messageValue((w: Writer, m: Schema) => putStruct(w, m.openapiV3, 10));

function putRequestMeta(w: Writer, m: RequestMeta): void {
  // ts-proto always writes the packed capabilities, even empty
  const mark = w.mark();
  for (let i = m.capabilities.length - 1; i >= 0; i--) w.int32(m.capabilities[i]!);
  w.close(mark, 18);
  putString(w, m.tag, 10, true);
}

/** Encodes a RunFunctionRequest: the SDK's exact bytes. @throws WireError / WireDepthError on a value protobuf cannot carry. */
export function encodeRunFunctionRequest(m: RunFunctionRequest): Buffer {
  const w = new Writer();
  putMap(w, m.requiredSchemas, 74, schemaValue);
  putMap(w, m.requiredResources, 66, resourcesValue);
  putMap(w, m.credentials, 58, credentialsValue);
  putMap(w, m.extraResources, 50, resourcesValue);
  putStruct(w, m.context, 42);
  putStruct(w, m.input, 34);
  putMessage(w, m.desired, 26, putState);
  putMessage(w, m.observed, 18, putState);
  putMessage(w, m.meta, 10, putRequestMeta);
  return w.finish();
}

function putSelector(w: Writer, m: ResourceSelector): void {
  putString(w, m.namespace, 42, false);
  putMessage(w, m.matchLabels, 34, (w2, l) => putMap(w2, l.labels, 10, stringValueOut));
  putString(w, m.matchName, 26, false);
  putString(w, m.kind, 18, true);
  putString(w, m.apiVersion, 10, true);
}
const selectorValue = messageValue(putSelector);
const schemaSelectorValue = messageValue((w: Writer, m: SchemaSelector) => {
  putString(w, m.kind, 18, true);
  putString(w, m.apiVersion, 10, true);
});

function putRequirements(w: Writer, m: Requirements): void {
  putMap(w, m.schemas, 26, schemaSelectorValue);
  putMap(w, m.resources, 18, selectorValue);
  putMap(w, m.extraResources, 10, selectorValue);
}

function putResponseMeta(w: Writer, m: ResponseMeta): void {
  putMessage(w, m.ttl, 18, (w2, d) => {
    if (d.nanos !== 0) {
      w2.int32(d.nanos);
      w2.byteTag(16);
    }
    if (d.seconds !== 0) {
      w2.int64(d.seconds);
      w2.byteTag(8);
    }
  });
  putString(w, m.tag, 10, true);
}

function putResult(w: Writer, m: Result): void {
  putEnum(w, m.target, 32, false);
  putString(w, m.reason, 26, false);
  putString(w, m.message, 18, true);
  putEnum(w, m.severity, 8, true);
}

function putCondition(w: Writer, m: Condition): void {
  putEnum(w, m.target, 40, false);
  putString(w, m.message, 34, false);
  putString(w, m.reason, 26, true);
  putEnum(w, m.status, 16, true);
  putString(w, m.type, 10, true);
}

/** Encodes a RunFunctionResponse: the SDK's exact bytes. @throws WireError / WireDepthError on a value protobuf cannot carry. */
export function encodeRunFunctionResponse(m: RunFunctionResponse): Buffer {
  const w = new Writer();
  putStruct(w, m.output, 58);
  for (let i = m.conditions.length - 1; i >= 0; i--) putMessage(w, m.conditions[i], 50, putCondition);
  putMessage(w, m.requirements, 42, putRequirements);
  putStruct(w, m.context, 34);
  for (let i = m.results.length - 1; i >= 0; i--) putMessage(w, m.results[i], 26, putResult);
  putMessage(w, m.desired, 18, putState);
  putMessage(w, m.meta, 10, putResponseMeta);
  return w.finish();
}
