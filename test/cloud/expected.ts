/**
 * Helpers the cloud whole-response tests share: goldens under
 * `test/cloud/golden/` (reviewed desired resources of one acceptance case,
 * written once from the spec and checked against its literal facts), and
 * small functions that express another case as a change to a golden. Never
 * built with production code.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { ComposeResult, DesiredResource, JsonObject, KubeObject } from '../../functions/lib/function.js';

/** Desired resources by key. */
export type Resources = ComposeResult['resources'];

/** A golden's desired resources (a fresh copy each call). */
export function golden(file: string): Resources {
  return parse(readFileSync(new URL(`./golden/${file}`, import.meta.url), 'utf8')) as Resources;
}

/** `resources` with `keys` marked ready. */
export function ready(resources: Resources, ...keys: string[]): Resources {
  const out = { ...resources };
  for (const k of keys) {
    if (!out[k]) throw new Error(`ready(): no key ${k}`);
    out[k] = { resource: out[k]!.resource, ready: true };
  }
  return out;
}

/** `resources` without `keys`. */
export function without(resources: Resources, ...keys: string[]): Resources {
  const out = { ...resources };
  for (const k of keys) {
    if (!out[k]) throw new Error(`without(): no key ${k}`);
    delete out[k];
  }
  return out;
}

/** A not-ready desired resource. */
export const body = (resource: KubeObject): DesiredResource => ({ resource });

/** `resources` with `spec.providerConfigRef` of `keys` replaced by `ref`. */
export function withProviderConfigRef(resources: Resources, ref: JsonObject, keys: readonly string[]): Resources {
  const out = structuredClone(resources);
  for (const k of keys) {
    const spec = out[k]?.resource['spec'] as JsonObject | undefined;
    if (!spec) throw new Error(`withProviderConfigRef(): no key ${k}`);
    spec['providerConfigRef'] = { ...ref };
  }
  return out;
}

/** The `spec.forProvider` of `key` in `resources`. */
export function forProvider(resources: Resources, key: string): JsonObject {
  const fp = (resources[key]?.resource['spec'] as JsonObject | undefined)?.['forProvider'];
  if (!fp) throw new Error(`forProvider(): no key ${key}`);
  return fp as JsonObject;
}
