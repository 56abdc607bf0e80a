/**
 * Scoped API keys (docs/ai-gateway.md#scoped-keys): which ModelServices the
 * keys of one key Secret open, read from the Secret's annotations.
 *
 * - `modelplane.ai/services`: a comma- or space-separated list of
 *   `<namespace>/<name>` (one service) or `<namespace>/*` (every service of
 *   that namespace).
 * - `modelplane.ai/service-selector`: a Kubernetes label selector in its
 *   string form (`team=a,tier!=batch`, `env in (prod,staging)`, `gpu`,
 *   `!internal`: the syntax of `kubectl get -l`, k8s.io/apimachinery
 *   labels.Parse) over the ModelService's labels.
 *
 * A Secret with neither opens every service that accepts it (the service's
 * or the gateway's `spec.auth.apiKeys` names it). With one or both, it opens
 * a service named by the list OR matched by the selector. A malformed
 * annotation opens nothing (fail closed) and is reported by name.
 *
 * Pure: no I/O; the ModelService function evaluates scopes at compose time
 * and the key validator only compares keys.
 */

/** Annotation listing the services a key Secret opens. */
export const SERVICES_ANNOTATION = 'modelplane.ai/services';
/** Annotation holding a label selector over the services a key Secret opens. */
export const SERVICE_SELECTOR_ANNOTATION = 'modelplane.ai/service-selector';
/** Request header carrying the caller's identity to the backend (`<secret namespace>/<secret name>/<key name>`). */
export const CALLER_HEADER = 'X-Modelplane-Caller';

/** One requirement of a label selector (k8s.io/apimachinery/pkg/labels). */
export type Requirement =
  | { key: string; op: 'in' | 'notin'; values: string[] }
  | { key: string; op: 'exists' | '!' };

const KEY = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

/**
 * Parses a label selector string into requirements (all must hold). Throws
 * an Error naming the offending part when the string is not a selector.
 */
export function parseLabelSelector(source: string): Requirement[] {
  const out: Requirement[] = [];
  // Split on commas outside parentheses.
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of source) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  for (const raw of parts) {
    const p = raw.trim();
    if (p === '') throw new Error(`empty requirement in "${source}"`);
    const checkKey = (k: string) => {
      if (!KEY.test(k)) throw new Error(`"${k}" is not a label key`);
      return k;
    };
    const checkValue = (v: string) => {
      if (!VALUE.test(v) || v.length > 63) throw new Error(`"${v}" is not a label value`);
      return v;
    };
    const set = /^(\S+)\s+(in|notin)\s*\(([^()]*)\)$/.exec(p);
    const equality = set ? null : /^([^\s=!]+)\s*(==|=|!=)\s*(\S*)$/.exec(p);
    const absent = set || equality ? null : /^!\s*(\S+)$/.exec(p);
    if (set) {
      const values = set[3]!.split(',').map((v) => checkValue(v.trim()));
      out.push({ key: checkKey(set[1]!), op: set[2] as 'in' | 'notin', values });
    } else if (equality) {
      out.push({ key: checkKey(equality[1]!), op: equality[2] === '!=' ? 'notin' : 'in', values: [checkValue(equality[3]!)] });
    } else if (absent) {
      out.push({ key: checkKey(absent[1]!), op: '!' });
    } else if (/^\S+$/.test(p)) {
      out.push({ key: checkKey(p), op: 'exists' });
    } else throw new Error(`"${p}" is not a requirement (key, !key, key=value, key!=value, key in (a,b), key notin (a,b))`);
  }
  return out;
}

/** True when `labels` satisfy every requirement (notin and != hold when the key is absent, as in Kubernetes). */
export function labelsMatch(requirements: readonly Requirement[], labels: Readonly<Record<string, string>>): boolean {
  return requirements.every((r) => {
    const has = Object.hasOwn(labels, r.key);
    switch (r.op) {
      case 'exists':
        return has;
      case '!':
        return !has;
      case 'in':
        return has && r.values.includes(labels[r.key]!);
      default:
        return !has || !r.values.includes(labels[r.key]!);
    }
  });
}

/** The scope of one key Secret. `all`: no scope annotation, so every service that accepts the Secret. */
export type KeyScope =
  | { kind: 'all' }
  | { kind: 'scoped'; services: { namespace: string; name: string | '*' }[]; selector?: Requirement[] }
  | { kind: 'invalid'; message: string };

/** The scope a key Secret's annotations declare (see the module comment). */
export function keyScope(annotations: Readonly<Record<string, string>> | undefined): KeyScope {
  const list = annotations?.[SERVICES_ANNOTATION];
  const sel = annotations?.[SERVICE_SELECTOR_ANNOTATION];
  if (list === undefined && sel === undefined) return { kind: 'all' };
  const services: { namespace: string; name: string }[] = [];
  for (const entry of (list ?? '').split(/[\s,]+/).filter((e) => e !== '')) {
    const m = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-a-z0-9.]*[a-z0-9])?|\*)$/.exec(entry);
    if (!m) return { kind: 'invalid', message: `annotation ${SERVICES_ANNOTATION}: "${entry}" is not <namespace>/<name> or <namespace>/*` };
    services.push({ namespace: m[1]!, name: m[3]! });
  }
  if (sel === undefined) return { kind: 'scoped', services };
  try {
    return { kind: 'scoped', services, selector: parseLabelSelector(sel) };
  } catch (err) {
    return { kind: 'invalid', message: `annotation ${SERVICE_SELECTOR_ANNOTATION}: ${(err as Error).message}` };
  }
}

/** A ModelService as a scope sees it. */
export interface ScopedService {
  namespace: string;
  name: string;
  labels: Readonly<Record<string, string>>;
}

/** True when a Secret of scope `scope` opens `service`. */
export function scopeOpens(scope: KeyScope, service: ScopedService): boolean {
  if (scope.kind === 'all') return true;
  if (scope.kind === 'invalid') return false;
  if (scope.services.some((s) => s.namespace === service.namespace && (s.name === '*' || s.name === service.name))) return true;
  return scope.selector !== undefined && labelsMatch(scope.selector, service.labels);
}
