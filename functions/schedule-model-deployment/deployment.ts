/**
 * Reads a ModelDeployment XR, in either of its two shapes, into the
 * scheduler's {@link DeploymentSpec}.
 *
 * Guarantees:
 * - The canonical form (`spec.template.spec.*`, labels in
 *   `spec.template.metadata`) and the flat form (`spec.engines`,
 *   `spec.clusterSelector`, ... directly under `spec`) give the same
 *   DeploymentSpec; only the field paths in messages differ
 *   (docs/design.md#both-modeldeployment-shapes). Exactly one shape must be used.
 * - The XRD's defaults are applied (the generated zod parser), so a render
 *   without the API server sees what the cluster would: `copies: 1`,
 *   `role: Standalone`, `count: 1`, `operator: Equal`.
 * - The XR is read through its generated parser (types, bounds, unknown
 *   fields, the XRD's CEL rules; its status left out): invalid input is
 *   returned as field-path messages, never thrown.
 * - A deployment without `metadata.namespace` (a manifest rendered as
 *   written, e.g. the demo seed) is in namespace `default`, as kubectl applies it.
 */
import type { JsonObject, KubeObject } from '../lib/function.js';
import { type ModelDeploymentSpec, type ModelDeploymentTemplateSpecEngine, parseModelDeployment } from '../lib/generated/modeldeployments.js';
import { withoutNulls } from '../lib/json.js';
import { issueMessage } from '../lib/zod-issues.js';
import { type PlacementPolicy, readPolicy } from './policy.js';
import { type AutoscalingSpec, autoscalingProblems, DEFAULT_PROMETHEUS_ADDRESS } from './autoscaling.js';
import type { DeviceRequestSpec, EngineSpec, MemberSpec, Toleration } from '../lib/fleet/model.js';

/** What the scheduler and the composer need of a ModelDeployment. */
export interface DeploymentSpec {
  name: string;
  namespace: string;
  /** Desired replicas (0..100). */
  replicas: number;
  /** Where the engines live: `spec.template.spec` (canonical) or `spec` (flat form). */
  specPath: string;
  engines: EngineSpec[];
  tolerations: Toleration[];
  /** `clusterSelector.matchLabels`, omitted when absent or empty. */
  clusterLabels?: Record<string, string>;
  /** `modelCacheRef.name`, when set. */
  cacheRef?: string;
  /** The `serving` block as written minus `readyWithin` (`{mode}`), when set: what the replicas carry. */
  serving?: JsonObject;
  /** `serving.readyWithin` as written (a Go duration such as `10m`), when set: the cold-start bar (coldstart.ts). */
  readyWithin?: string;
  /** `spec.template.metadata.labels` (canonical form only), {} when none. */
  labels: Record<string, string>;
  /** `spec.strategy.rollingUpdate`, resolved against `replicas` ({@link resolveRollingUpdate}). */
  rollout: RolloutBounds;
  /** `spec.placement` (policy.ts, docs/placement-policy.md), defaults applied. */
  policy: PlacementPolicy;
  /** `spec.autoscaling` (autoscaling.ts, docs/autoscaling.md), defaults applied, when set. */
  autoscaling?: AutoscalingSpec;
}

/** How many replicas may be in motion during a rollout, in replicas. */
export interface RolloutBounds {
  /** Replicas placed above `replicas` while replicas of the previous spec still run. @default 1 */
  maxSurge: number;
  /** Replicas of the previous spec that may go before their replacement is Ready. @default 0 */
  maxUnavailable: number;
}

/** Message: both bounds written as 0 (Kubernetes rejects this for a Deployment too). */
export const MSG_BOTH_ZERO = 'spec.strategy.rollingUpdate: maxSurge and maxUnavailable must not both be 0; set maxSurge to 1 (the default)';

/** `spec.strategy.rollingUpdate.<field>: "<v>" is not an integer or a percentage like "25%"`. */
export function msgBadIntOrPercent(field: string, v: string): string {
  return `spec.strategy.rollingUpdate.${field}: ${JSON.stringify(v)} is not an integer or a percentage like "25%"`;
}

/**
 * An int-or-percent against `total`, as Kubernetes' intstr.GetScaledValueFromIntOrPercent:
 * an integer as is, `N%` scaled and rounded up (`roundUp`) or down; undefined for a
 * malformed string. Negative values read as 0.
 */
export function scaleIntOrPercent(v: number | string, total: number, roundUp: boolean): number | undefined {
  if (typeof v === 'number') return Math.max(0, Math.floor(v));
  const m = /^(\d+)%$/.exec(v);
  if (m === null) return /^\d+$/.test(v) ? Number.parseInt(v, 10) : undefined;
  const scaled = (Number.parseInt(m[1]!, 10) * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}

/**
 * Resolves `spec.strategy.rollingUpdate` (defaults maxSurge 1, maxUnavailable 0)
 * against `replicas`, as Kubernetes' deployment util ResolveFenceposts does:
 * surge rounds up, unavailable down, and when both resolve to 0 unavailable
 * becomes 1. Errors (field-path messages): a malformed value, or both written as 0.
 */
export function resolveRollingUpdate(ru: { maxSurge?: number | string; maxUnavailable?: number | string } | undefined, replicas: number): { ok: true; bounds: RolloutBounds } | { ok: false; errors: string[] } {
  const surgeIn = ru?.maxSurge ?? 1;
  const unavailIn = ru?.maxUnavailable ?? 0;
  const errors: string[] = [];
  const surge = scaleIntOrPercent(surgeIn, replicas, true);
  const unavail = scaleIntOrPercent(unavailIn, replicas, false);
  if (surge === undefined) errors.push(msgBadIntOrPercent('maxSurge', String(surgeIn)));
  if (unavail === undefined) errors.push(msgBadIntOrPercent('maxUnavailable', String(unavailIn)));
  if (surge === undefined || unavail === undefined) return { ok: false, errors };
  const zero = (v: number | string) => v === 0 || v === '0' || v === '0%';
  if (zero(surgeIn) && zero(unavailIn)) return { ok: false, errors: [MSG_BOTH_ZERO] };
  return { ok: true, bounds: { maxSurge: surge, maxUnavailable: surge === 0 && unavail === 0 ? 1 : unavail } };
}

/** The outcome of reading a ModelDeployment. */
export type DeploymentRead = { ok: true; deployment: DeploymentSpec } | { ok: false; errors: string[] };

/** Message when both or neither shape is used; the XRD's rule has the same text. */
export const MSG_ONE_SHAPE = 'spec: exactly one of spec.template (canonical form) or spec.engines (flat form) must be set';

/** Renders a zod issue path as a Kubernetes field path: `spec.engines[0].name`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out === '' ? String(p) : `.${String(p)}`;
  }
  return out;
}

/**
 * Reads the XR. Errors: a spec that does not parse against the XRD schema
 * (`<field path>: <zod message>`, sorted), or both/neither shapes.
 */
export function readDeployment(xr: KubeObject): DeploymentRead {
  const { status: _status, ...rest } = xr;
  // Null fields are pruned first, as the API server does for non-nullable fields (lib/xr.ts).
  const parsed = parseModelDeployment(withoutNulls(rest));
  if (!parsed.success) {
    const errors = parsed.error.issues.map((i) => `${fieldPath(i.path)}: ${issueMessage(i)}`);
    return { ok: false, errors: [...new Set(errors)].sort() };
  }
  const spec = parsed.data.spec as ModelDeploymentSpec;
  const canonical = spec.template !== undefined;
  if (canonical === (spec.engines !== undefined)) return { ok: false, errors: [MSG_ONE_SHAPE] };
  const rollout = resolveRollingUpdate(spec.strategy?.rollingUpdate, spec.replicas);
  if (!rollout.ok) return { ok: false, errors: rollout.errors };
  const policy = readPolicy(spec.placement, spec.replicas);
  if (!policy.ok) return { ok: false, errors: policy.errors };
  const autoscaling = spec.autoscaling && { ...spec.autoscaling, metrics: { ...spec.autoscaling.metrics }, prometheusAddress: spec.autoscaling.prometheusAddress ?? DEFAULT_PROMETHEUS_ADDRESS };
  if (autoscaling) {
    const problems = autoscalingProblems(autoscaling);
    if (problems.length > 0) return { ok: false, errors: problems };
  }
  const body = canonical ? spec.template!.spec : spec;
  const specPath = canonical ? 'spec.template.spec' : 'spec';
  const meta = parsed.data.metadata;
  const d: DeploymentSpec = {
    name: meta?.name ?? '',
    // The API server always sets it; a manifest rendered as written (the demo seed) means `default`, as kubectl does.
    namespace: meta?.namespace || 'default',
    replicas: spec.replicas,
    specPath,
    engines: (body.engines ?? []).map((e, i) => readEngine(e, `${specPath}.engines[${i}]`)),
    tolerations: (body.tolerations ?? []).map((t) => ({ ...t })),
    labels: { ...(spec.template?.metadata?.labels ?? {}) },
    rollout: rollout.bounds,
    policy: policy.policy,
  };
  const matchLabels = body.clusterSelector?.matchLabels;
  if (matchLabels && Object.keys(matchLabels).length > 0) d.clusterLabels = { ...matchLabels };
  if (body.modelCacheRef) d.cacheRef = body.modelCacheRef.name;
  if (autoscaling) d.autoscaling = autoscaling;
  if (body.serving) {
    const { readyWithin, ...serving } = body.serving;
    d.serving = serving;
    if (readyWithin) d.readyWithin = readyWithin;
  }
  return { ok: true, deployment: d };
}

function readEngine(e: ModelDeploymentTemplateSpecEngine, path: string): EngineSpec {
  const copies = e.copies ?? 1;
  const members = e.members.map((m, mi): MemberSpec => {
    const role = m.role ?? 'Standalone';
    const pods = role === 'Worker' && m.worker ? m.worker.nodes : 1;
    const requests = (m.nodeSelector?.devices ?? []).map((dev, di): DeviceRequestSpec => {
      const at = `${path}.members[${mi}].nodeSelector.devices[${di}]`;
      const kept = dev.selectors.map((s, si) => ({ cel: s.cel ?? '', path: `${at}.selectors[${si}]` })).filter((s) => s.cel !== '');
      return { name: dev.name, count: dev.count ?? 1, selectors: kept.map((s) => s.cel), selectorPaths: kept.map((s) => s.path) };
    });
    const member: MemberSpec = { role, pods, nodes: pods * copies, requests, template: m.template as JsonObject };
    if (m.worker) member.workerNodes = m.worker.nodes;
    return member;
  });
  const engine: EngineSpec = { name: e.name, copies, members, gang: members.some((m) => m.role === 'Leader') };
  if (e.phase) engine.phase = e.phase;
  return engine;
}
