/**
 * `--xrd PATH`: check the XR against its XRD and apply the schema's defaults
 * before rendering, as `crossplane render --xrd` does (docs/composition.md#inputs-and-flags).
 * Validation is `crossplane resource validate`'s: OpenAPI, unknown fields,
 * and the `x-kubernetes-validations` rules (functions/lib/schema).
 */
import type { KubeObject } from '../functions/lib/function.js';
import { formatFieldError, validateObject, type Xrd, xrdToCrdSchema } from '../functions/lib/schema/index.js';
import { loadOne, UserError } from './load.js';

/**
 * Returns the XR with its XRD's defaults applied.
 * @throws UserError when the XRD is not for this XR's group/kind, or naming the
 * first invalid field of the XR (`<xr file>: <field>: <problem>`).
 */
export function applyXrd(xr: KubeObject, xrdPath: string, xrPath: string): KubeObject {
  const xrd = loadOne(xrdPath, 'CompositeResourceDefinition');
  if (xrd.kind !== 'CompositeResourceDefinition') {
    throw new UserError(`${xrdPath}: kind is ${xrd.kind}, want CompositeResourceDefinition`);
  }
  const spec = (xrd['spec'] ?? {}) as { group?: string; names?: { kind?: string } };
  const group = xr.apiVersion.split('/')[0];
  if (spec.group !== group || spec.names?.kind !== xr.kind) {
    throw new UserError(`${xrPath}: XR is ${xr.apiVersion}/${xr.kind}, but ${xrdPath} defines ${spec.group}/${spec.names?.kind}`);
  }
  const kind = xrdToCrdSchema(xrd as unknown as Xrd);
  if (kind.apiVersion !== xr.apiVersion) {
    throw new UserError(`${xrPath}: apiVersion ${xr.apiVersion} is not the referenceable version ${kind.apiVersion} of ${xrdPath}`);
  }
  const result = validateObject(kind.schema, xr, { scope: kind.scope });
  const first = result.errors[0];
  if (first) {
    const more = result.errors.length > 1 ? ` (and ${result.errors.length - 1} more)` : '';
    throw new UserError(`${xrPath}: ${formatFieldError(first)}${more}`);
  }
  return result.value as KubeObject;
}
