/**
 * The plain-data contract between a composition function's pure core and its
 * gRPC shell.
 *
 * A function core is `compose(request: ComposeRequest): ComposeResult`. It
 * never sees protobuf: `functions/lib/sdk.ts` decodes a RunFunctionRequest
 * into a {@link ComposeRequest} and encodes the {@link ComposeResult} back.
 * The same core runs in-process (tests, `modelplane plan`) and behind gRPC.
 *
 * Guarantees of the helpers here:
 * - Required resources are read in three states (not fetched yet, fetched and
 *   absent, present), so "not fetched yet" can never be mistaken for "gone"
 *   (docs/design.md#not-fetched-yet-is-not-absent; Crossplane
 *   `internal/xfn/required_resources.go`).
 * - Desired resources and status are whole objects: a key a core returns
 *   replaces what earlier pipeline steps had under that key; keys it does not
 *   return pass through untouched (docs/composition.md#the-response: "a function must pass
 *   through everything it has no opinion on").
 * - Nothing here reads a clock or depends on map order.
 */

/** A JSON object, as carried by a protobuf Struct (every number is a double). */
export type JsonObject = { [key: string]: unknown };

/** Kubernetes object metadata, the fields our functions read or write. */
export interface ObjectMeta {
  name?: string;
  namespace?: string;
  generateName?: string;
  uid?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  [key: string]: unknown;
}

/** A Kubernetes object as plain JSON. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata?: ObjectMeta;
  [key: string]: unknown;
}

/** Condition status as Kubernetes spells it. */
export type ConditionStatus = 'True' | 'False' | 'Unknown';

/**
 * A condition a function sets on its XR. Crossplane applies it to the XR's
 * `status.conditions`, ignoring the system types Ready, Synced, Healthy,
 * UpToDate and Responsive (docs/composition.md#the-response).
 */
export interface Condition {
  /** PascalCase type, e.g. `ReplicasScheduled`. */
  type: string;
  status: ConditionStatus;
  /** PascalCase reason, e.g. `InvalidNodeSelector`. */
  reason: string;
  /** Human-readable detail; omitted when empty. */
  message?: string;
}

/** Result (event) severity. A Fatal result stops the pipeline at this step. */
export type Severity = 'Normal' | 'Warning' | 'Fatal';

/** A function result: surfaced as an event on the XR. */
export interface Result {
  severity: Severity;
  message: string;
  /** PascalCase reason; Crossplane defaults it to `ComposeResources`. */
  reason?: string;
}

/**
 * Selects required resources. Exactly one of `matchName`/`matchLabels`, or
 * neither to select every object of the kind. An omitted `namespace` means
 * cluster-scoped for `matchName` and all namespaces for a list.
 */
export interface ResourceSelector {
  apiVersion: string;
  kind: string;
  matchName?: string;
  matchLabels?: Record<string, string>;
  namespace?: string;
}

/** Readiness of a desired composed resource; `undefined` is unspecified (not ready). */
export type Readiness = boolean | undefined;

/** A desired composed resource: the whole object this step wants, and its readiness. */
export interface DesiredResource {
  resource: KubeObject;
  /** `true` marks it ready; `false` or omitted leaves it counted as not ready. */
  ready?: boolean;
}

/** An observed composed resource as Crossplane hands it to the function. */
export interface ObservedResource {
  resource: KubeObject;
  /** Connection details, decoded as UTF-8 strings. */
  connectionDetails: Record<string, string>;
}

/** What a function core is given. Built by `sdk.ts` or by an in-process caller. */
export interface ComposeRequest {
  /** The observed XR: metadata, spec, status. */
  composite: KubeObject;
  /** Observed composed resources by composition resource name. */
  observed: Record<string, ObservedResource>;
  /** Desired composed resources accumulated by earlier pipeline steps. */
  desired: Record<string, DesiredResource>;
  /** The desired XR status accumulated by earlier steps, if any. */
  desiredStatus?: JsonObject;
  /**
   * Required resources by requirement name. A key is present only once
   * Crossplane has fetched it (possibly with zero items).
   */
  required: Record<string, KubeObject[]>;
  /** The step's `input` block, if any. */
  input?: JsonObject;
  /** The pipeline context. */
  context: JsonObject;
  /** Credentials by name, each a map of key to bytes decoded as UTF-8. */
  credentials: Record<string, Record<string, string>>;
  /**
   * Now, in ms since the epoch: what durations (cluster health,
   * lib/health.ts) are measured against. The core never reads a clock: the
   * gRPC entry (sdk.ts) passes the pipeline context's {@link NOW_CONTEXT_KEY}
   * when set (`modelplane plan` and `render` set their fixed time there),
   * else the clock. @default {@link DEFAULT_NOW}
   */
  now?: number;
}

/** Pipeline context key carrying the time a call is made at (RFC 3339), for reproducible renders. */
export const NOW_CONTEXT_KEY = 'modelplane.ai/now';
/** The `now` of a request that names none: render's fixed time, 2024-01-01T00:00:00Z. */
export const DEFAULT_NOW = Date.UTC(2024, 0, 1);

/** What a function core returns. */
export interface ComposeResult {
  /**
   * Desired composed resources this step writes, whole. Keys earlier steps
   * wrote and this step does not return are passed through unchanged.
   */
  resources: Record<string, DesiredResource>;
  /** The whole desired XR status; omitted leaves earlier steps' status as is. */
  status?: JsonObject;
  /** Overrides the XR's derived readiness when set. */
  ready?: boolean;
  conditions: Condition[];
  results: Result[];
  /** Requirements: must be re-declared on every call. */
  requirements: Record<string, ResourceSelector>;
  /** Response TTL in seconds. @default 60 */
  ttlSeconds?: number;
}

/** The state of one requirement, read from {@link ComposeRequest.required}. */
export type RequiredRead<T = KubeObject> =
  | { state: 'pending' }
  | { state: 'absent' }
  | { state: 'present'; items: T[] };

/**
 * Reads a requirement in its three states. Items are sorted by namespace then
 * name so a core never depends on the order Crossplane lists them in.
 */
export function readRequired(req: ComposeRequest, name: string): RequiredRead {
  const items = req.required[name];
  if (items === undefined) return { state: 'pending' };
  if (items.length === 0) return { state: 'absent' };
  return { state: 'present', items: sortByNamespacedName(items) };
}

/** Sorts objects by (namespace, name), without mutating the input. */
export function sortByNamespacedName<T extends KubeObject>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => {
    const ka = `${a.metadata?.namespace ?? ''}/${a.metadata?.name ?? ''}`;
    const kb = `${b.metadata?.namespace ?? ''}/${b.metadata?.name ?? ''}`;
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
}

/** A result with no resources, conditions, results or requirements. */
export function emptyResult(): ComposeResult {
  return { resources: {}, conditions: [], results: [], requirements: {} };
}

/** Builds a condition; an empty message is omitted, as the protocol does. */
export function condition(
  type: string,
  status: ConditionStatus | boolean,
  reason: string,
  message?: string,
): Condition {
  const s: ConditionStatus = typeof status === 'boolean' ? (status ? 'True' : 'False') : status;
  return message ? { type, status: s, reason, message } : { type, status: s, reason };
}

/** A Normal result. */
export function normal(message: string, reason?: string): Result {
  return reason ? { severity: 'Normal', message, reason } : { severity: 'Normal', message };
}

/** A Warning result. */
export function warning(message: string, reason?: string): Result {
  return reason ? { severity: 'Warning', message, reason } : { severity: 'Warning', message };
}

/** A Fatal result: Crossplane stops the pipeline at this step. */
export function fatal(message: string, reason?: string): Result {
  return reason ? { severity: 'Fatal', message, reason } : { severity: 'Fatal', message };
}

/**
 * The status of condition `type` on an object's `status.conditions`, or
 * `Unknown` when the object, its status or the condition is missing.
 */
export function conditionStatus(obj: KubeObject | undefined, type: string): ConditionStatus {
  const status = obj?.['status'];
  if (typeof status !== 'object' || status === null) return 'Unknown';
  const conditions = (status as JsonObject)['conditions'];
  if (!Array.isArray(conditions)) return 'Unknown';
  for (const c of conditions) {
    if (typeof c === 'object' && c !== null && (c as JsonObject)['type'] === type) {
      const s = (c as JsonObject)['status'];
      return s === 'True' || s === 'False' ? s : 'Unknown';
    }
  }
  return 'Unknown';
}

/**
 * Condition `type` of an object read in four states: its status (`True`,
 * `False`, `Unknown`), `absent` (no status yet, no conditions yet, or no
 * such condition), or `unreadable` with the field and the problem when
 * `status.conditions` is there but cannot be read: not a list, an entry that
 * is not a condition, a status that is not True/False/Unknown, or two
 * conditions of the type that disagree. Callers keep what they had on
 * `unreadable` instead of reading it as "not ready".
 */
export type ConditionRead =
  | { state: ConditionStatus }
  | { state: 'absent' }
  | { state: 'unreadable'; field: string; problem: string };

/** Reads condition `type` of an object; see {@link ConditionRead}. */
export function readCondition(obj: KubeObject | undefined, type: string): ConditionRead {
  const status = obj?.['status'];
  if (status === undefined) return { state: 'absent' };
  if (typeof status !== 'object' || status === null || Array.isArray(status)) {
    return { state: 'unreadable', field: 'status', problem: 'is not an object' };
  }
  const conditions = (status as JsonObject)['conditions'];
  if (conditions === undefined) return { state: 'absent' };
  if (!Array.isArray(conditions)) return { state: 'unreadable', field: 'status.conditions', problem: 'is not a list' };
  let found: ConditionStatus | undefined;
  for (const [i, c] of conditions.entries()) {
    const at = `status.conditions[${i}]`;
    if (typeof c !== 'object' || c === null || Array.isArray(c) || typeof (c as JsonObject)['type'] !== 'string') {
      return { state: 'unreadable', field: at, problem: 'is not a condition with a type' };
    }
    if ((c as JsonObject)['type'] !== type) continue;
    const s = (c as JsonObject)['status'];
    if (s !== 'True' && s !== 'False' && s !== 'Unknown') {
      return { state: 'unreadable', field: `${at}.status`, problem: 'is not True, False or Unknown' };
    }
    if (found !== undefined && found !== s) return { state: 'unreadable', field: at, problem: `is a second ${type} condition that disagrees` };
    found = s;
  }
  return found === undefined ? { state: 'absent' } : { state: found };
}

/** True only when the object carries condition `Ready` with status `True`. */
export function isReady(obj: KubeObject | undefined): boolean {
  return conditionStatus(obj, 'Ready') === 'True';
}

/**
 * The observed composed resources passed through as desired, each marked
 * ready as observed. Used on error paths so that nothing already composed is
 * deleted because an input was briefly missing (docs/design.md#keep-what-exists).
 * Only `apiVersion`, `kind`, `metadata` (name, namespace, labels, annotations
 * minus Crossplane's own) and `spec` are kept: status is never desired.
 */
export function keepObserved(observed: Record<string, ObservedResource>): Record<string, DesiredResource> {
  const out: Record<string, DesiredResource> = {};
  for (const key of Object.keys(observed).sort()) {
    const obs = observed[key]!.resource;
    const { status: _status, metadata, ...rest } = obs;
    const kept: KubeObject = { ...rest, apiVersion: obs.apiVersion, kind: obs.kind };
    const meta = stripServerMetadata(metadata);
    if (meta) kept.metadata = meta;
    out[key] = isReady(obs) ? { resource: kept, ready: true } : { resource: kept };
  }
  return out;
}

const SERVER_METADATA = new Set([
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'managedFields',
  'ownerReferences',
  'finalizers',
  'selfLink',
]);

function stripServerMetadata(meta: ObjectMeta | undefined): ObjectMeta | undefined {
  if (!meta) return undefined;
  const out: ObjectMeta = {};
  for (const [k, v] of Object.entries(meta)) {
    if (SERVER_METADATA.has(k)) continue;
    out[k] = v;
  }
  if (out.annotations) {
    const annotations = Object.fromEntries(
      // Crossplane's bookkeeping annotations go; the external name stays, so a
      // passed-through resource keeps naming the same external resource.
      Object.entries(out.annotations).filter(([k]) => !k.startsWith('crossplane.io/') || k === 'crossplane.io/external-name'),
    );
    if (Object.keys(annotations).length > 0) out.annotations = annotations;
    else delete out.annotations;
  }
  if (out.labels) {
    const labels = Object.fromEntries(Object.entries(out.labels).filter(([k]) => !k.startsWith('crossplane.io/')));
    if (Object.keys(labels).length > 0) out.labels = labels;
    else delete out.labels;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Reads a nested field by path, or `undefined` when any step is missing. */
export function getPath(obj: unknown, ...path: (string | number)[]): unknown {
  let cur: unknown = obj;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[p];
  }
  return cur;
}
