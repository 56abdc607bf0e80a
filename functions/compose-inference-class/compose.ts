/**
 * compose-inference-class: an InferenceClass is a pure data resource (a
 * hardware recipe). Its function composes nothing; it accepts the recipe and
 * publishes what the scheduler reads of it.
 *
 * Guarantees (docs/kinds/inferenceclass.md#what-the-function-does, docs/design.md#multi-node-needs-a-fabric):
 * - condition `Accepted` = True, reason `Available`, and the XR marked Ready;
 * - `status.multiNode` is `false` for a class provisioned on Vultr (VKE has no
 *   GPU fabric) and `true` for every other class: a hint for users; the
 *   fleet scheduler decides per pool from the InferenceCluster's published
 *   fabric and capabilities, never from this;
 * - `status.devices` echoes the declared devices with the XRD's defaults
 *   applied (`claim: DRA`, `count: 1`), sorted by name.
 * - Checked first, because a miss is silent (a selector compares the
 *   capacity and matches nothing): a capacity value that is not a
 *   Kubernetes quantity (`46GB`; the XRD's pattern, k8s.io/apimachinery
 *   resource.Quantity) is `Accepted` False `InvalidQuantity` and a Warning
 *   naming the field, and the class is not Ready.
 * - The class is read through its generated parser (XRD defaults, types,
 *   bounds and CEL rules): a class the API server would refuse (a device that
 *   is not an object, a missing name, a broken rule) is `Accepted` False
 *   `InvalidSpec` with a Warning naming each field, the XR is not Ready, and
 *   the status published before is kept as it was (the scheduler keeps
 *   placing on what it knew), never thrown away or half rewritten.
 */
import { isQuantity } from '@modelplane/cel';
import { type InferenceClass, parseInferenceClass } from '../lib/generated/inferenceclasses.js';
import { compareStrings } from '../lib/order.js';
import { type ComposeRequest, type ComposeResult, condition, emptyResult, getPath, type JsonObject, warning } from '../lib/function.js';
import { readComposite } from '../lib/xr.js';

/** Condition type and reasons. */
export const Accepted = 'Accepted';
export const Reason = { Available: 'Available', InvalidSpec: 'InvalidSpec' } as const;

/** The message of a class the XRD rejects. */
export const msgInvalidClass = (problem: string): string => `Invalid InferenceClass: ${problem}`;

/** The message for a capacity value that is not a quantity. */
export const msgInvalidQuantity = (field: string, value: string): string =>
  `${field}: ${JSON.stringify(value)} is not a Kubernetes quantity (e.g. 46068Mi or 48G; units Ki Mi Gi Ti Pi Ei or k M G T P E); a selector comparing it matches no device`;

/** `spec.devices[i].capacity[name].value` fields whose value is not a quantity, with their values, in device then name order. */
export function invalidQuantities(devices: readonly JsonObject[]): { field: string; value: string }[] {
  const out: { field: string; value: string }[] = [];
  devices.forEach((d, i) => {
    const capacity = d['capacity'];
    if (!capacity || typeof capacity !== 'object' || Array.isArray(capacity)) return;
    for (const name of Object.keys(capacity).sort(compareStrings)) {
      const value = getPath((capacity as JsonObject)[name], 'value');
      if (typeof value === 'string' && !isQuantity(value)) out.push({ field: `spec.devices[${i}].capacity[${name}].value`, value });
    }
  });
  return out;
}

/** True when a class provisioned this way can serve multi-node (Leader + Worker) gangs. */
export function supportsMultiNode(provider: unknown): boolean {
  return provider !== 'Vultr';
}

/** Devices sorted by name, as `status.devices` publishes them. */
function byName(devices: JsonObject[]): JsonObject[] {
  return devices.sort((a, b) => compareStrings(String(a['name']), String(b['name'])));
}

/** Composes an InferenceClass: no resources, `Accepted`, Ready, published devices. */
export function compose(req: ComposeRequest): ComposeResult {
  const result = emptyResult();
  // A capacity that is not a quantity first: the parser would refuse it too, but this names the value and its fix.
  const devices = getPath(req.composite, 'spec', 'devices');
  // Entries that are not objects stand in as {} so each field names its real index.
  const entries = Array.isArray(devices) ? devices.map((d): JsonObject => (typeof d === 'object' && d !== null && !Array.isArray(d) ? (d as JsonObject) : {})) : [];
  const bad = invalidQuantities(entries);
  if (bad.length > 0) {
    const declared = (devices as unknown[]).filter((d): d is JsonObject => typeof d === 'object' && d !== null && !Array.isArray(d));
    result.status = {
      devices: byName(declared.map((d): JsonObject => ({ ...d, claim: d['claim'] ?? 'DRA', count: d['count'] ?? 1 }))),
      multiNode: supportsMultiNode(getPath(req.composite, 'spec', 'provisioning', 'provider')),
    };
    const messages = bad.map((q) => msgInvalidQuantity(q.field, q.value));
    result.ready = false;
    result.conditions.push(condition(Accepted, false, 'InvalidQuantity', messages.join('; ')));
    for (const m of messages) result.results.push(warning(m));
    return result;
  }
  const read = readComposite<InferenceClass>(req.composite, parseInferenceClass);
  if (!read.ok) {
    const message = msgInvalidClass(read.problem);
    const kept = keptStatus(req.composite['status']);
    if (kept !== undefined) result.status = kept;
    result.ready = false;
    result.conditions.push(condition(Accepted, false, Reason.InvalidSpec, message));
    result.results.push(warning(message));
    return result;
  }
  const spec = read.xr.spec;
  result.status = { devices: byName(spec.devices.map((d): JsonObject => ({ ...d }))), multiNode: supportsMultiNode(spec.provisioning?.provider) };
  result.ready = true;
  result.conditions.push(condition(Accepted, true, Reason.Available));
  return result;
}

/**
 * The published fields of the observed status (`devices`, `multiNode`), as
 * they were, to write back unchanged while the spec is invalid; undefined
 * when the XR has published nothing readable.
 */
function keptStatus(status: unknown): JsonObject | undefined {
  if (typeof status !== 'object' || status === null || Array.isArray(status)) return undefined;
  const s = status as JsonObject;
  const out: JsonObject = {};
  if (Array.isArray(s['devices'])) out['devices'] = s['devices'];
  if (typeof s['multiNode'] === 'boolean') out['multiNode'] = s['multiNode'];
  return Object.keys(out).length > 0 ? out : undefined;
}
