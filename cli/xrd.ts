/**
 * `--xrd PATH`: check the XR against its XRD and apply the schema's defaults
 * before rendering, as `crossplane render --xrd` does (crossplane.md §2.2).
 */
import type { KubeObject } from '../functions/lib/function.js';
import { loadOne, UserError } from './load.js';

/**
 * Returns the XR with its XRD's defaults applied.
 * @throws UserError when the XRD is not for this XR's group/kind, or the XR is invalid against it.
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
  return xr;
}
