/**
 * The render engine: one XR reconcile through a Composition's pipeline, as
 * `crossplane composition render` of CLI v2.3 runs it
 * (docs/composition.md#how-crossplane-runs-a-pipeline,
 * docs/composition.md#the-requirements-loop,
 * docs/composition.md#what-our-harness-reproduces).
 *
 * Guarantees:
 * - Each step gets observed (XR + observed composed resources), the desired
 *   state accumulated so far (an empty State for the first step), its input,
 *   the context, its credentials and its bootstrap requirements, with all five
 *   capabilities and a tag that is the SHA-256 of the request's encoding.
 * - The requirements loop calls a step at most 6 times and stops when the
 *   requirements equal the previous call's (protobuf equality: absent is not
 *   empty); required resources are resolved from the supplied ones with the
 *   new engine's selector semantics.
 * - The first Fatal result stops the pipeline; the output then holds the XR
 *   with `Synced=False` and the fatal message, and `fatal` is set (exit 3).
 * - The output is deterministic: same inputs, same documents.
 *
 * Deliberate divergences from the real engine: none known; differences found
 * by the conformance test (`test/conformance/`) are fixed here or listed in
 * its allow-list with a reason.
 */
import { createHash } from 'node:crypto';
import {
  Capability,
  Ready,
  type Requirements,
  type Resource,
  type ResourceSelector,
  RunFunctionRequest,
  type RunFunctionResponse,
  Severity,
  Status,
} from '@crossplane-org/function-sdk-typescript';
import { encodeRunFunctionRequest } from '../../functions/lib/wire/codec.js';
import { setKey } from '../../functions/lib/wire/reader.js';
import { type Condition, type JsonObject, type KubeObject, NOW_CONTEXT_KEY, sortByNamespacedName } from '../../functions/lib/function.js';
import type { FunctionRuntime } from '../functions.js';
import { UserError } from '../load.js';
import { postProcess } from './compose.js';
import { requirementsEqual } from './requirements.js';
import { groupOf } from '../objects.js';
import { deterministicUid, FIXED_TIME, inListSelector, RESOURCE_NAME_ANNOTATION } from './xr.js';

/** Everything one render takes. */
export interface RenderInputs {
  xr: KubeObject;
  composition: KubeObject;
  /** Observed composed resources, each annotated with its composition resource name. */
  observed: KubeObject[];
  /** Resources available to requirements. */
  required: KubeObject[];
  /**
   * Resolves a selector instead of scanning `required` (an indexed store, as
   * `modelplane plan` has). Must follow {@link resolveSelector}'s semantics.
   */
  resolve?: (sel: ResourceSelector) => KubeObject[];
  /** Secrets for step credentials (only `data` is read, base64). */
  credentials: KubeObject[];
  /** Context seeded into the first step. */
  context: JsonObject;
  /** Where the Composition came from, for error messages. @default "composition" */
  compositionFile?: string;
  /**
   * Compute `meta.tag` (SHA-256 of the request). Functions only echo it, so
   * `modelplane plan`, which runs thousands of steps, skips the cost.
   * @default true
   */
  computeTag?: boolean;
}

/** A function result as render reports it with `-r`. */
export interface RenderResult {
  step: string;
  severity: 'Normal' | 'Warning' | 'Fatal';
  reason: string;
  message: string;
}

/** What one render produced. */
export interface RenderOutput {
  /** The XR as render prints it. */
  xr: KubeObject;
  /** Composed resources, sorted by composition resource name. */
  composed: KubeObject[];
  /** Readiness of each composed resource by composition resource name. */
  readiness: Record<string, boolean>;
  results: RenderResult[];
  /** The Composition's name (render's SelectComposition event). */
  compositionName?: string;
  /** The context after the last step that ran. */
  context: JsonObject;
  /** The message of the first Fatal result, when the pipeline stopped on one. */
  fatal?: string;
  /** Requirement selectors of the last call of each step, for callers that iterate. */
  requirements: Record<string, ResourceSelector>;
}

/** Maximum calls of one step in the requirements loop (crossplane `MaxRequirementsIterations` + 1). */
export const MAX_STEP_CALLS = 6;

const ALL_CAPABILITIES = [
  Capability.CAPABILITY_CAPABILITIES,
  Capability.CAPABILITY_REQUIRED_RESOURCES,
  Capability.CAPABILITY_CREDENTIALS,
  Capability.CAPABILITY_CONDITIONS,
  Capability.CAPABILITY_REQUIRED_SCHEMAS,
];

interface PipelineStep {
  step: string;
  functionRef: { name: string };
  input?: JsonObject;
  credentials?: { name: string; source: string; secretRef?: { namespace: string; name: string } }[];
  requirements?: {
    requiredResources?: {
      requirementName: string;
      apiVersion: string;
      kind: string;
      namespace?: string;
      name?: string;
      matchLabels?: Record<string, string>;
    }[];
  };
}

/**
 * Checks a Composition against an XR as render does.
 * @throws UserError naming the field: not Pipeline mode, compositeTypeRef mismatch, selector labels.
 */
export function checkComposition(xr: KubeObject, composition: KubeObject, file = 'composition'): PipelineStep[] {
  if (composition.kind !== 'Composition' || !String(composition.apiVersion).startsWith('apiextensions.crossplane.io/')) {
    throw new UserError(`${file}: kind is ${composition.apiVersion}/${composition.kind}, want apiextensions.crossplane.io/v1 Composition`);
  }
  const spec = (composition['spec'] ?? {}) as JsonObject;
  const mode = spec['mode'] ?? 'Pipeline';
  if (mode !== 'Pipeline') throw new UserError(`${file}: spec.mode is ${String(mode)}, render supports only Pipeline`);
  const ref = (spec['compositeTypeRef'] ?? {}) as JsonObject;
  if (ref['apiVersion'] !== xr.apiVersion || ref['kind'] !== xr.kind) {
    throw new UserError(
      `${file}: spec.compositeTypeRef is ${String(ref['apiVersion'])}/${String(ref['kind'])}, but the XR is ${xr.apiVersion}/${xr.kind}`,
    );
  }
  const selector = (((xr['spec'] as JsonObject | undefined)?.['crossplane'] as JsonObject | undefined)?.['compositionSelector'] ??
    (xr['spec'] as JsonObject | undefined)?.['compositionSelector']) as { matchLabels?: Record<string, string> } | undefined;
  const labels = composition.metadata?.labels ?? {};
  for (const [k, v] of Object.entries(selector?.matchLabels ?? {})) {
    if (labels[k] !== v) throw new UserError(`${file}: metadata.labels lacks ${k}=${v} that the XR's compositionSelector requires`);
  }
  const pipeline = spec['pipeline'];
  if (!Array.isArray(pipeline) || pipeline.length === 0) throw new UserError(`${file}: spec.pipeline has no steps`);
  pipeline.forEach((s: PipelineStep, i) => {
    if (!s?.step || !s.functionRef?.name) throw new UserError(`${file}: spec.pipeline[${i}] needs step and functionRef.name`);
  });
  return pipeline as PipelineStep[];
}

/** Resolves one selector against the supplied resources (new-engine semantics, docs/composition.md#required-resources-in-render). */
export function resolveSelector(sel: ResourceSelector, pool: readonly KubeObject[]): KubeObject[] {
  if (sel.matchName !== undefined) {
    const hit = pool.find(
      (o) =>
        o.apiVersion === sel.apiVersion &&
        o.kind === sel.kind &&
        o.metadata?.name === sel.matchName &&
        (o.metadata?.namespace ?? '') === (sel.namespace ?? ''),
    );
    return hit ? [hit] : [];
  }
  const group = groupOf(sel.apiVersion);
  return sortByNamespacedName(pool.filter((o) => o.kind === sel.kind && groupOf(o.apiVersion) === group && inListSelector(o, sel)));
}

/**
 * A copy of `v` with every object's keys sorted (as `Object.fromEntries` of
 * the sorted keys orders them); byte arrays are kept. An explicit stack, not
 * recursion: objects may nest 10,000 levels (functions/lib/wire).
 */
function sortKeys(v: unknown): unknown {
  const stack: [unknown, JsonObject | unknown[]][] = [];
  const copy = (x: unknown): unknown => {
    if (!x || typeof x !== 'object' || x instanceof Uint8Array) return x;
    const c: JsonObject | unknown[] = Array.isArray(x) ? [] : {};
    stack.push([x, c]);
    return c;
  };
  const root = copy(v);
  while (stack.length > 0) {
    const [src, dst] = stack.pop()!;
    if (Array.isArray(src)) for (const x of src) (dst as unknown[]).push(copy(x));
    else for (const k of Object.keys(src as JsonObject).sort()) setKey(dst as JsonObject, k, copy((src as JsonObject)[k]));
  }
  return root;
}

/** SHA-256 (hex) of the request's encoding with map keys sorted: a stable tag. */
export function requestTag(req: RunFunctionRequest): string {
  const canonical = sortKeys({ ...req, meta: undefined }) as RunFunctionRequest;
  return createHash('sha256').update(encodeRunFunctionRequest(canonical)).digest('hex');
}

function credentialsFor(step: PipelineStep, secrets: readonly KubeObject[]): RunFunctionRequest['credentials'] {
  const out: RunFunctionRequest['credentials'] = {};
  for (const c of step.credentials ?? []) {
    if (c.source !== 'Secret' || !c.secretRef) continue;
    const secret = secrets.find(
      (s) => s.kind === 'Secret' && s.metadata?.name === c.secretRef!.name && s.metadata?.namespace === c.secretRef!.namespace,
    );
    if (!secret) {
      throw new UserError(`step ${step.step}: credentials ${c.name}: Secret ${c.secretRef.namespace}/${c.secretRef.name} not found in --function-credentials`);
    }
    const data: Record<string, Buffer> = {};
    for (const [k, v] of Object.entries((secret['data'] ?? {}) as Record<string, string>)) data[k] = Buffer.from(v, 'base64');
    out[c.name] = { credentialData: { data } };
  }
  return out;
}

const SEVERITY_NAME: Partial<Record<Severity, RenderResult['severity']>> = {
  [Severity.SEVERITY_NORMAL]: 'Normal',
  [Severity.SEVERITY_WARNING]: 'Warning',
  [Severity.SEVERITY_FATAL]: 'Fatal',
};
const STATUS_NAME: Partial<Record<Status, Condition['status']>> = {
  [Status.STATUS_CONDITION_TRUE]: 'True',
  [Status.STATUS_CONDITION_FALSE]: 'False',
  [Status.STATUS_CONDITION_UNKNOWN]: 'Unknown',
};
const SYSTEM_CONDITIONS = new Set(['Ready', 'Synced', 'Healthy', 'UpToDate', 'Responsive']);

/** Prepares the XR as render does: UID, resourceVersion 999, composite label, compositionRef, resourceRefs. */
export function prepareXR(xr: KubeObject, composition: KubeObject, observed: readonly KubeObject[]): KubeObject {
  const out = { ...xr };
  out.metadata = { ...(out.metadata ?? {}) };
  out.metadata.uid ??= deterministicUid(xr);
  out.metadata['resourceVersion'] = '999';
  out.metadata.labels = { 'crossplane.io/composite': out.metadata.name ?? '', ...(out.metadata.labels ?? {}) };
  const spec = { ...((out['spec'] ?? {}) as JsonObject) };
  const machinery = { ...((spec['crossplane'] ?? {}) as JsonObject) };
  machinery['compositionRef'] = { name: composition.metadata?.name ?? '' };
  if (observed.length > 0) {
    // As the real engine's InjectResourceRefs: the namespace is kept only when the XR has none.
    machinery['resourceRefs'] = observed.map((o) => ({
      apiVersion: o.apiVersion,
      kind: o.kind,
      name: o.metadata?.name ?? '',
      ...(!xr.metadata?.namespace && o.metadata?.namespace ? { namespace: o.metadata.namespace } : {}),
    }));
  }
  spec['crossplane'] = machinery;
  out['spec'] = spec;
  return out;
}

/**
 * Renders one XR. Function errors (a step that cannot be reached, a
 * requirements loop that does not stabilise) throw UserError; a Fatal result
 * does not throw: it sets `fatal` on the output.
 */
export async function render(inputs: RenderInputs, runtime: FunctionRuntime): Promise<RenderOutput> {
  const steps = checkComposition(inputs.xr, inputs.composition, inputs.compositionFile);
  const observedByName: Record<string, Resource> = {};
  for (const o of inputs.observed) {
    const key = o.metadata?.annotations?.[RESOURCE_NAME_ANNOTATION];
    if (!key) {
      throw new UserError(`observed resource ${o.kind}/${o.metadata?.name ?? '?'} has no ${RESOURCE_NAME_ANNOTATION} annotation`);
    }
    observedByName[key] = { resource: o, connectionDetails: {}, ready: Ready.READY_UNSPECIFIED };
  }
  const xr = prepareXR(inputs.xr, inputs.composition, inputs.observed);
  const uid = xr.metadata!.uid!;
  for (const o of inputs.observed) {
    const owner = (o.metadata?.['ownerReferences'] as { controller?: boolean; uid?: string }[] | undefined)?.find((r) => r.controller);
    if (owner && owner.uid !== uid) {
      throw new UserError(`observed resource ${o.kind}/${o.metadata?.name ?? '?'} is controlled by uid ${owner.uid}, not by the XR (${uid})`);
    }
  }

  const resolve = inputs.resolve ?? ((sel: ResourceSelector) => resolveSelector(sel, inputs.required));
  const items = (sel: ResourceSelector) => ({ items: resolve(sel).map((o) => ({ resource: o, connectionDetails: {}, ready: 0 })) });
  let desired: RunFunctionRequest['desired'] = { composite: undefined, resources: {} };
  // The time functions measure durations against (cluster health): render's fixed time unless the context names one.
  let context: JsonObject = { [NOW_CONTEXT_KEY]: FIXED_TIME, ...structuredClone(inputs.context) };
  const conditions: Condition[] = [];
  const results: RenderResult[] = [];
  let lastRequirements: Record<string, ResourceSelector> = {};
  let fatal: string | undefined;

  for (const step of steps) {
    const bootstrap: RunFunctionRequest['requiredResources'] = {};
    for (const r of step.requirements?.requiredResources ?? []) {
      const sel: ResourceSelector = {
        apiVersion: r.apiVersion,
        kind: r.kind,
        ...(r.name !== undefined ? { matchName: r.name } : {}),
        ...(r.matchLabels !== undefined ? { matchLabels: { labels: r.matchLabels } } : {}),
        ...(r.namespace !== undefined ? { namespace: r.namespace } : {}),
      };
      bootstrap[r.requirementName] = items(sel);
    }
    const req: RunFunctionRequest = RunFunctionRequest.fromPartial({
      observed: { composite: { resource: xr, connectionDetails: {}, ready: Ready.READY_UNSPECIFIED }, resources: observedByName },
      desired,
      ...(step.input !== undefined ? { input: step.input } : {}),
      context,
      credentials: credentialsFor(step, inputs.credentials),
      requiredResources: bootstrap,
      extraResources: {},
      requiredSchemas: {},
    });
    req.meta = { tag: inputs.computeTag === false ? '' : requestTag(req), capabilities: ALL_CAPABILITIES };

    let rsp: RunFunctionResponse | undefined;
    let previous: Requirements | undefined;
    for (let call = 0; call < MAX_STEP_CALLS; call++) {
      rsp = await runtime.run(step.functionRef.name, req);
      if (rsp.results.some((r) => r.severity === Severity.SEVERITY_FATAL)) break;
      // Before the first call the previous requirements are nil, so a step
      // that asks for nothing is called once.
      if (requirementsEqual(rsp.requirements, previous)) break;
      if (call === MAX_STEP_CALLS - 1) {
        throw new UserError(`step ${step.step}: requirements didn't stabilize after the maximum number of iterations (5)`);
      }
      previous = rsp.requirements;
      const required = { ...bootstrap };
      for (const [name, sel] of Object.entries(rsp.requirements?.resources ?? {})) {
        required[name] = items(sel);
      }
      const extra: RunFunctionRequest['extraResources'] = {};
      for (const [name, sel] of Object.entries(rsp.requirements?.extraResources ?? {})) {
        extra[name] = items(sel);
      }
      req.requiredResources = required;
      req.extraResources = extra;
      req.context = rsp.context ?? {};
    }
    rsp = rsp!;
    lastRequirements = { ...lastRequirements, ...(rsp.requirements?.resources ?? {}) };
    for (const r of rsp.results) {
      const severity = SEVERITY_NAME[r.severity] ?? 'Normal';
      results.push({ step: step.step, severity, reason: r.reason || 'ComposeResources', message: r.message });
      if (severity === 'Fatal' && fatal === undefined) fatal = r.message;
    }
    if (fatal !== undefined) break;
    for (const c of rsp.conditions) {
      if (SYSTEM_CONDITIONS.has(c.type)) continue;
      const cond: Condition = { type: c.type, status: STATUS_NAME[c.status] ?? 'Unknown', reason: c.reason };
      if (c.message) cond.message = c.message;
      const at = conditions.findIndex((x) => x.type === c.type);
      if (at >= 0) conditions[at] = cond;
      else conditions.push(cond);
    }
    desired = rsp.desired ?? { composite: undefined, resources: {} };
    context = (rsp.context ?? {}) as JsonObject;
  }

  const post = postProcess({ xr, desired, observedByName, conditions, uid, ...(fatal !== undefined ? { fatal } : {}) });
  return {
    ...post,
    results,
    compositionName: inputs.composition.metadata?.name ?? '',
    context,
    requirements: lastRequirements,
    ...(fatal !== undefined ? { fatal } : {}),
  };
}
