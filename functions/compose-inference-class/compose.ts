/**
 * compose-inference-class: an InferenceClass is a pure data resource (a
 * hardware recipe). Its function composes nothing; it accepts the recipe and
 * publishes what the scheduler reads of it.
 *
 * Guarantees (spec/platform-side.md §6, spec/README.md item 7):
 * - condition `Accepted` = True, reason `Available`, and the XR marked Ready;
 * - `status.multiNode` is `false` for a class provisioned on Vultr (VKE has no
 *   GPU fabric) and `true` for every other class: a hint for users; the
 *   fleet scheduler decides per pool from the InferenceCluster's published
 *   fabric and capabilities, never from this;
 * - `status.devices` echoes the declared devices with the XRD's defaults
 *   applied (`claim: DRA`, `count: 1`), sorted by name.
 * Schema validation (required fields, enums, CEL rules) is the API server's
 * job: the XRD carries every rule, so an invalid class never reaches here.
 * One check is repeated here because a miss is silent (a selector compares
 * the capacity and matches nothing): a capacity value that is not a
 * Kubernetes quantity (`46GB`; the XRD's pattern, k8s.io/apimachinery
 * resource.Quantity) is `Accepted` False `InvalidQuantity` and a Warning
 * naming the field, and the class is not Ready.
 */
import { isQuantity } from '../lib/cel/quantity.js';
import { compareStrings } from '../lib/order.js';
import { type ComposeRequest, type ComposeResult, condition, emptyResult, getPath, type JsonObject, warning } from '../lib/function.js';

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

/** Composes an InferenceClass: no resources, `Accepted`, Ready, published devices. */
export function compose(req: ComposeRequest): ComposeResult {
  const devices = getPath(req.composite, 'spec', 'devices');
  const declared = Array.isArray(devices) ? (devices as JsonObject[]) : [];
  const published = declared
    .map((d): JsonObject => ({ ...d, claim: d['claim'] ?? 'DRA', count: d['count'] ?? 1 }))
    .sort((a, b) => compareStrings(String(a['name']), String(b['name'])));
  const result = emptyResult();
  result.status = {
    devices: published,
    multiNode: supportsMultiNode(getPath(req.composite, 'spec', 'provisioning', 'provider')),
  };
  const bad = invalidQuantities(declared);
  if (bad.length > 0) {
    const messages = bad.map((b) => msgInvalidQuantity(b.field, b.value));
    result.ready = false;
    result.conditions.push(condition('Accepted', false, 'InvalidQuantity', messages.join('; ')));
    for (const m of messages) result.results.push(warning(m));
    return result;
  }
  result.ready = true;
  result.conditions.push(condition('Accepted', true, 'Available'));
  return result;
}
