/**
 * compose-usages: protects the ProviderConfig every Helm Release and
 * provider-kubernetes Object uses, so that deleting a ServingStack uninstalls
 * the releases before their credentials disappear (docs/kinds/servingstack.md#providerconfig-protection).
 * Runs after compose-serving-stack and reads the desired state it built.
 *
 * Guarantees:
 * - A "consumer" is a desired resource whose (API group, kind) is
 *   (`helm.m.crossplane.io`, `Release`) or (`kubernetes.m.crossplane.io`,
 *   `Object`), any version, with a non-empty `spec.providerConfigRef.name`.
 * - Each consumer `<key>` gains label `modelplane.ai/usage-consumer=<key>`
 *   (other labels and its ready flag kept) and gets one Usage
 *   `usage-pc-<key>` in the XR namespace: `of` the ProviderConfig (same API
 *   version as the consumer), `by` the consumer selected by controller and
 *   that label, `replayDeletion: true`, always ready. One Usage per consumer
 *   because a Usage's `by` selector binds a single resource.
 * - A `usage-pc-<key>` already in the desired state is never overwritten:
 *   Warning `cannot compose Usage: desired resource '<usage key>' already
 *   exists`, and that consumer is left unlabelled.
 * - A Usage already composed (observed `usage-pc-<key>`) whose `<key>` is
 *   still desired but no longer reads as a consumer (apiVersion, kind or
 *   `spec.providerConfigRef.name` garbage) is kept as it is, with a Warning
 *   naming the fields: an earlier step's briefly unreadable object never
 *   lifts the protection (docs/design.md#keep-what-exists). It goes with its consumer.
 * - Everything else passes through untouched; without an XR namespace
 *   nothing is composed.
 * Deliberate divergence: keys are visited in sorted order (the reference uses
 * map order), so collision warnings come out in the same order every time.
 */
import {
  type ComposeRequest,
  type ComposeResult,
  type DesiredResource,
  emptyResult,
  getPath,
  type KubeObject,
  keepObserved,
  warning,
} from '../lib/function.js';
import { apiGroup, usage } from '../lib/objects.js';

/** Label stamped on each consumer; its Usage selects the consumer by it. */
export const CONSUMER_LABEL = 'modelplane.ai/usage-consumer';

const CONSUMER_KINDS = new Set(['helm.m.crossplane.io/Release', 'kubernetes.m.crossplane.io/Object']);

/** The ProviderConfig name a consumer uses, or `undefined` when the object is not a consumer. */
export function consumedProviderConfig(obj: KubeObject): string | undefined {
  const apiVersion: unknown = obj.apiVersion;
  if (typeof apiVersion !== 'string' || !CONSUMER_KINDS.has(`${apiGroup(apiVersion)}/${String(obj.kind)}`)) return undefined;
  const name = getPath(obj, 'spec', 'providerConfigRef', 'name');
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/**
 * `Usage '<usage key>' is kept as it is: desired resource '<key>' no longer
 * reads as a ProviderConfig consumer (<apiVersion> <kind>, spec.providerConfigRef.name <name>)`.
 */
export function msgUsageKept(usageKey: string, key: string, obj: KubeObject): string {
  const pc = getPath(obj, 'spec', 'providerConfigRef', 'name');
  const show = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : `<${v === null ? 'null' : Array.isArray(v) ? 'list' : typeof v}>`);
  return `Usage '${usageKey}' is kept as it is: desired resource '${key}' no longer reads as a ProviderConfig consumer (apiVersion ${show(obj.apiVersion)}, kind ${show(obj.kind)}, spec.providerConfigRef.name ${show(pc)})`;
}

/** Message when a Usage key is taken. */
export function errUsageExists(key: string): string {
  return `cannot compose Usage: desired resource '${key}' already exists`;
}

/** Composes one Usage per ProviderConfig consumer in the desired state. */
export function compose(req: ComposeRequest): ComposeResult {
  const result = emptyResult();
  const namespace = req.composite.metadata?.namespace;
  if (typeof namespace !== 'string' || namespace === '') return result;
  const taken = new Set(Object.keys(req.desired));
  for (const key of Object.keys(req.desired).sort()) {
    const desired = req.desired[key]!;
    const pcName = consumedProviderConfig(desired.resource);
    const usageKey = `usage-pc-${key}`;
    if (pcName === undefined) {
      // Still desired but unreadable as a consumer: its Usage, already composed, stays as it is.
      const seen = req.observed[usageKey];
      if (seen !== undefined && !taken.has(usageKey)) {
        taken.add(usageKey);
        result.resources[usageKey] = { ...keepObserved({ [usageKey]: seen })[usageKey]!, ready: true };
        result.results.push(warning(msgUsageKept(usageKey, key, desired.resource)));
      }
      continue;
    }
    if (taken.has(usageKey)) {
      result.results.push(warning(errUsageExists(usageKey)));
      continue;
    }
    taken.add(usageKey);
    // only metadata.labels changes: the rest is shared with the request, never copied (a Release can
    // carry hundreds of KB of values or CRDs) nor mutated
    const resource: KubeObject = { ...desired.resource };
    resource.metadata = { ...(resource.metadata ?? {}) };
    resource.metadata.labels = { ...(resource.metadata.labels ?? {}), [CONSUMER_LABEL]: key };
    const labelled: DesiredResource = { resource };
    if (desired.ready !== undefined) labelled.ready = desired.ready;
    result.resources[key] = labelled;
    result.resources[usageKey] = {
      resource: usage({
        namespace,
        of: { apiVersion: resource.apiVersion, kind: 'ProviderConfig', resourceRef: { name: pcName } },
        by: {
          apiVersion: resource.apiVersion,
          kind: resource.kind,
          resourceSelector: { matchControllerRef: true, matchLabels: { [CONSUMER_LABEL]: key } },
        },
        replayDeletion: true,
      }),
      ready: true,
    };
  }
  return result;
}
