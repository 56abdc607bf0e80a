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
 * - The class is read through its generated parser (XRD defaults, types,
 *   bounds and CEL rules): a class the API server would refuse (a device that
 *   is not an object, a missing name, a broken rule) is `Accepted` False
 *   `InvalidSpec` with a Warning naming each field, the XR is not Ready, and
 *   the status published before is kept as it was (the scheduler keeps
 *   placing on what it knew), never thrown away or half rewritten.
 */
import { type InferenceClass, parseInferenceClass } from '../lib/generated/inferenceclasses.js';
import { compareStrings } from '../lib/order.js';
import { type ComposeRequest, type ComposeResult, condition, emptyResult, type JsonObject, warning } from '../lib/function.js';
import { readComposite } from '../lib/xr.js';

/** Condition type and reasons. */
export const Accepted = 'Accepted';
export const Reason = { Available: 'Available', InvalidSpec: 'InvalidSpec' } as const;

/** The message of a class the XRD rejects. */
export const msgInvalidClass = (problem: string): string => `Invalid InferenceClass: ${problem}`;

/** True when a class provisioned this way can serve multi-node (Leader + Worker) gangs. */
export function supportsMultiNode(provider: unknown): boolean {
  return provider !== 'Vultr';
}

/** Composes an InferenceClass: no resources, `Accepted`, Ready, published devices. */
export function compose(req: ComposeRequest): ComposeResult {
  const result = emptyResult();
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
  const published = spec.devices
    .map((d): JsonObject => ({ ...d }))
    .sort((a, b) => compareStrings(String(a['name']), String(b['name'])));
  result.status = { devices: published, multiNode: supportsMultiNode(spec.provisioning?.provider) };
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
