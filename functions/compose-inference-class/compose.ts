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
 */
import { compareStrings } from '../lib/order.js';
import { type ComposeRequest, type ComposeResult, condition, emptyResult, getPath, type JsonObject } from '../lib/function.js';

/** True when a class provisioned this way can serve multi-node (Leader + Worker) gangs. */
export function supportsMultiNode(provider: unknown): boolean {
  return provider !== 'Vultr';
}

/** Composes an InferenceClass: no resources, `Accepted`, Ready, published devices. */
export function compose(req: ComposeRequest): ComposeResult {
  const devices = getPath(req.composite, 'spec', 'devices');
  const published = (Array.isArray(devices) ? (devices as JsonObject[]) : [])
    .map((d): JsonObject => ({ ...d, claim: d['claim'] ?? 'DRA', count: d['count'] ?? 1 }))
    .sort((a, b) => compareStrings(String(a['name']), String(b['name'])));
  const result = emptyResult();
  result.status = {
    devices: published,
    multiNode: supportsMultiNode(getPath(req.composite, 'spec', 'provisioning', 'provider')),
  };
  result.ready = true;
  result.conditions.push(condition('Accepted', true, 'Available'));
  return result;
}
