/**
 * Which key Secrets open a ModelService (docs/ai-gateway.md#scoped-keys):
 * the Secrets its effective auth accepts, split by each Secret's scope
 * annotations (functions/lib/key-scope.ts) into those that open this service
 * (`allowed`: their keys are served) and those that do not (`denied`: their
 * keys get 403, not 401, so a caller learns the key is right but the service
 * is not theirs).
 *
 * Guarantees:
 * - Only Secrets with at least one non-empty value count; names sorted.
 * - A Secret whose scope annotation is malformed is denied (fail closed) and
 *   named in a Warning with the annotation and the fix.
 * - The validator's address encodes the split:
 *   `<validatorURL>/<namespace>/<allowed,…>[?denied=<denied,…>]`; with one
 *   allowed Secret and none denied it is `<validatorURL>/<namespace>/<name>`,
 *   the form older validators read.
 */
import { type Condition, condition, type KubeObject, type Result, warning } from '../lib/function.js';
import { keyScope, type ScopedService, scopeOpens } from '../lib/key-scope.js';
import {
  Authenticated,
  AuthReason,
  describeKeys,
  type EffectiveAuth,
  hasKey,
  msgAnonymous,
  msgAPIKey,
  msgNone,
  msgSecretEmpty,
  msgSecretNotFound,
} from './auth.js';

/** The split of the accepted key Secrets for one service. */
export interface KeyAccess {
  namespace: string;
  /** Secrets whose keys open the service. */
  allowed: string[];
  /** Secrets accepted by the auth but scoped away from this service. */
  denied: string[];
  /** One message per Secret whose scope annotation could not be read. */
  invalid: string[];
  /** Accepted Secrets without a non-empty key. */
  empty: string[];
}

/** Splits `secrets` (the ones `auth` names, as read) for `service`. */
export function keyAccess(auth: Extract<EffectiveAuth, { type: 'APIKey' }>, secrets: readonly KubeObject[], service: ScopedService): KeyAccess {
  const out: KeyAccess = { namespace: auth.keys.namespace, allowed: [], denied: [], invalid: [], empty: [] };
  const sorted = [...secrets].sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  for (const s of sorted) {
    const name = s.metadata?.name ?? '';
    if (!hasKey(s)) {
      out.empty.push(name);
      continue;
    }
    const scope = keyScope(s.metadata?.annotations);
    if (scope.kind === 'invalid') {
      out.invalid.push(`key Secret ${out.namespace}/${name}: ${scope.message}; its keys are refused here (403) until the annotation is fixed`);
      out.denied.push(name);
    } else if (scopeOpens(scope, service)) out.allowed.push(name);
    else out.denied.push(name);
  }
  return out;
}

/** The forwardAuth address of a service with `access` (see the module comment). */
export function validatorAddress(validatorURL: string, access: KeyAccess): string {
  const base = `${validatorURL}/${access.namespace}/${access.allowed.join(',')}`;
  return access.denied.length > 0 ? `${base}?denied=${access.denied.join(',')}` : base;
}

/** Condition message when some Secret opens the service. */
export function msgKeysOpen(auth: Extract<EffectiveAuth, { type: 'APIKey' }>, access: KeyAccess): string {
  const from = auth.from === 'service' ? 'spec.auth' : 'the InferenceGateway default spec.auth';
  const names = access.allowed.map((n) => `${access.namespace}/${n}`).join(', ');
  const denied =
    access.denied.length > 0
      ? `; keys of ${access.denied.map((n) => `${access.namespace}/${n}`).join(', ')} get 403 (their modelplane.ai/services or modelplane.ai/service-selector does not name this service)`
      : '';
  return `requests need Authorization: Bearer <key> with a key from Secret ${names} (${from})${denied}`;
}

/** Condition message when the accepted Secrets exist but none opens the service. */
export function msgKeysScopedOut(auth: Extract<EffectiveAuth, { type: 'APIKey' }>, access: KeyAccess): string {
  return `no key of ${describeKeys(auth.keys)} opens this service: ${access.denied.map((n) => `${access.namespace}/${n}`).join(', ')} name other services in modelplane.ai/services or modelplane.ai/service-selector, so every key gets 403; add this service to one of them`;
}

/** Condition message when no accepted Secret exists (selector form). */
export function msgNoKeySecrets(auth: Extract<EffectiveAuth, { type: 'APIKey' }>): string {
  return `no Secret matches: ${describeKeys(auth.keys)} are none, so every request is refused with 401 until one exists with at least one non-empty key`;
}

/** What the auth of a service says once its key Secrets are read. */
export interface AuthVerdict {
  /** False when no key can open the service (the route stays, fail closed). */
  ok: boolean;
  conditions: Condition[];
  results: Result[];
  /** The split, for an APIKey service. */
  access?: KeyAccess;
}

/**
 * The `Authenticated` condition and Warnings of `auth` with its key Secrets
 * `secrets` as read (`undefined`: the named Secret does not exist).
 */
export function authVerdict(auth: EffectiveAuth, secrets: readonly KubeObject[] | undefined, service: ScopedService): AuthVerdict {
  if (auth.type === 'None') return { ok: true, conditions: [condition(Authenticated, false, AuthReason.AnonymousByChoice, msgNone(auth.from))], results: [] };
  if (auth.type === 'Anonymous') return { ok: true, conditions: [condition(Authenticated, false, AuthReason.Anonymous, msgAnonymous)], results: [] };
  const byName = 'name' in auth.keys ? auth.keys : undefined;
  const refused = (reason: string, message: string, access?: KeyAccess): AuthVerdict => ({
    ok: false,
    conditions: [condition(Authenticated, false, reason, message)],
    results: [warning(message)],
    ...(access ? { access } : {}),
  });
  if (byName !== undefined && (secrets === undefined || secrets.length === 0)) {
    return refused(AuthReason.KeySecretNotFound, msgSecretNotFound(byName.namespace, byName.name));
  }
  const access = keyAccess(auth, secrets ?? [], service);
  const invalid = access.invalid.map((m) => warning(m));
  if (access.allowed.length === 0 && access.denied.length === 0) {
    if (byName !== undefined) return refused(AuthReason.KeySecretEmpty, msgSecretEmpty(byName.namespace, byName.name), access);
    return refused(AuthReason.KeySecretNotFound, msgNoKeySecrets(auth), access);
  }
  if (access.allowed.length === 0) {
    const v = refused(AuthReason.KeyScopeExcludes, msgKeysScopedOut(auth, access), access);
    return { ...v, results: [...invalid, ...v.results] };
  }
  const message =
    byName !== undefined && access.denied.length === 0 ? msgAPIKey(byName.namespace, byName.name, auth.from) : msgKeysOpen(auth, access);
  return { ok: true, conditions: [condition(Authenticated, true, AuthReason.APIKey, message)], results: invalid, access };
}
