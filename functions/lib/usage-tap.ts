/**
 * The usage tap (docs/ai-gateway.md#usage): where a counted ModelService's
 * requests go between the front door's key check and the service's backends,
 * shared by the ModelService function (which routes through it), the
 * InferenceGateway function (which opens the gateway's `metered` listener the
 * tap sends requests back to) and the key validator (cli/usage-tap.ts, which
 * is the tap).
 *
 * The path: the client-facing route rewrites `/<namespace>/<service>/<rest>`
 * to `/usage-tap/<namespace>/<service>/<limit>/<rest>` (limit
 * `tokens-per-minute-<n>` or `unlimited`) and
 * sends it to the validator; the tap counts, and forwards
 * `/<namespace>/<service>/<rest>` to the gateway's `metered` listener, where
 * the service's second route holds its real backends. The limit rides in the
 * path the route composes, so no client can send its own.
 */

/** Path prefix of a tapped request at the validator. */
export const USAGE_TAP_PATH = '/usage-tap';
/** The Gateway listener (and Traefik entryPoint) the tap sends requests back to: not exposed on the gateway's Service. */
export const METERED_LISTENER = 'metered';
/** Its port, on the Gateway listener and Traefik's entryPoint alike. */
export const METERED_PORT = 8002;
/** The ClusterIP Service in Traefik's namespace that reaches the `metered` entryPoint. */
export const METERED_SERVICE = { name: 'modelplane-metered', namespace: 'traefik-system' } as const;
/** Where the in-cluster validator sends tapped requests: {@link METERED_SERVICE}'s address. */
export const DEFAULT_USAGE_UPSTREAM = `http://${METERED_SERVICE.name}.${METERED_SERVICE.namespace}.svc.cluster.local:${METERED_PORT}`;
/** Request header carrying the tap's id for a request, kept in Traefik's access log so its line joins the tap's. */
export const REQUEST_ID_HEADER = 'X-Modelplane-Request-Id';

/** The limit segment of a service without a token budget. */
export const UNLIMITED = 'unlimited';

/**
 * The tap path prefix of `<namespace>/<service>`, always with its limit
 * segment (`tokens-per-minute-<n>`, or {@link UNLIMITED}), so no segment of
 * the client's path is ever read as a limit; always ends in `/`.
 */
export function usageTapPrefix(namespace: string, service: string, tokensPerMinute?: number): string {
  const limit = tokensPerMinute !== undefined ? `tokens-per-minute-${Math.floor(tokensPerMinute)}` : UNLIMITED;
  return `${USAGE_TAP_PATH}/${namespace}/${service}/${limit}/`;
}

/** A tapped request's path, read. */
export interface TappedPath {
  namespace: string;
  service: string;
  /** Tokens per minute per caller; undefined when the service has no token limit. */
  tokensPerMinute?: number;
  /** The path the service's route answers: `/<namespace>/<service>/<rest>`. */
  upstreamPath: string;
}

/**
 * Reads `/usage-tap/<namespace>/<service>/<limit>/<rest>` (limit
 * `tokens-per-minute-<n>` or `unlimited`); undefined when the path is not
 * under {@link USAGE_TAP_PATH}, names no service, or has no valid limit
 * segment (a whole number ≥ 1).
 */
export function parseUsageTapPath(path: string): TappedPath | undefined {
  const prefix = `${USAGE_TAP_PATH}/`;
  if (!path.startsWith(prefix)) return undefined;
  const parts = path.slice(prefix.length).split('/');
  const [namespace, service, limit] = parts;
  if (!namespace || !service || limit === undefined) return undefined;
  let tokensPerMinute: number | undefined;
  if (limit !== UNLIMITED) {
    const m = /^tokens-per-minute-(\d+)$/.exec(limit);
    if (!m) return undefined;
    tokensPerMinute = Number(m[1]);
    if (!Number.isSafeInteger(tokensPerMinute) || tokensPerMinute < 1) return undefined;
  }
  return { namespace, service, ...(tokensPerMinute !== undefined ? { tokensPerMinute } : {}), upstreamPath: `/${namespace}/${service}/${parts.slice(3).join('/')}` };
}
