/**
 * The production {@link DeviceMatcher}: DRA device selectors compiled and
 * evaluated by the project's CEL library (the `@modelplane/cel` package in `packages/cel/`,
 * docs/kinds/modeldeployment.md#device-selectors, docs/design.md#cel-as-kubernetes-enforces-it), which behaves as Kubernetes' DRA allocator does.
 *
 * Guarantees: a selector that does not compile (syntax, types, non-bool
 * result, longer than 10 KiB, estimated cost over 1,000,000) is a compile
 * error carrying the library's message; evaluation never throws, and a device
 * that cannot be converted (bad quantity or version) or a selector that errors
 * or exceeds the runtime cost limit on it does not match.
 */
import {
  type CelDevice,
  type CompiledSelector,
  compileSelector,
  type DeviceError,
  type InferenceClassDevice,
  isCompileError,
  matchDevice,
  prepareDevice,
} from '@modelplane/cel';
import type { DeviceMatcher } from './matcher.js';

/** Compiles and evaluates selectors with the `@modelplane/cel` package. */
export const celMatcher: DeviceMatcher<CompiledSelector, CelDevice | DeviceError> = {
  compile(source) {
    const c = compileSelector(source);
    return isCompileError(c) ? { ok: false, error: c.message } : { ok: true, selector: c };
  },
  device: (d) => prepareDevice(d as InferenceClassDevice),
  matches: (selector, device) => device.kind !== 'DeviceError' && matchDevice(selector, device).matched,
  error: (selector, device) => (device.kind === 'DeviceError' ? device.message : matchDevice(selector, device).error),
};
