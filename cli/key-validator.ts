/**
 * The key validator behind ModelService API keys (functions/compose-model-service/auth.ts):
 * the HTTP endpoint Traefik's forwardAuth Middleware asks before a request
 * reaches any endpoint.
 *
 * Protocol: `GET|POST|… /<namespace>/<secret>` with the client's headers
 * (Traefik forwardAuth copies them). 200 (empty body) when `Authorization` is
 * `Bearer <key>` and `<key>` equals one of the Secret's values (each data
 * value is one key, base64-decoded, surrounding whitespace trimmed); else 401
 * with `WWW-Authenticate: Bearer realm="modelplane"` and an OpenAI-style JSON
 * error, which Traefik returns to the client unchanged. Keys are compared in
 * constant time per key (node:crypto timingSafeEqual on SHA-256 digests).
 * A Secret that cannot be read, or has no key, refuses everyone (fail closed).
 *
 * Never logged or returned: key values and the Authorization header. The
 * `onDecision` hook receives only namespace, secret and the decision.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** Reads the keys of Secret `<namespace>/<name>`: its values, decoded; [] when absent. */
export type KeySource = (namespace: string, name: string) => Promise<string[]>;

/** The JSON body of a refusal (OpenAI's error shape). */
export const UNAUTHORIZED_BODY = JSON.stringify({
  error: { message: 'Missing or invalid API key: send Authorization: Bearer <key>', type: 'invalid_request_error', code: 'invalid_api_key' },
});

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/** True when `header` is `Bearer <k>` with `k` one of `keys` (constant time per key). */
export function bearerMatches(header: string | undefined, keys: readonly string[]): boolean {
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header ?? '');
  if (!m) return false;
  const given = digest(m[1]!);
  let ok = false;
  for (const k of keys) if (k !== '' && timingSafeEqual(given, digest(k))) ok = true;
  return ok;
}

/** The request handler of the validator over `source`. */
export function keyValidator(
  source: KeySource,
  onDecision: (d: { namespace: string; secret: string; allowed: boolean }) => void = () => {},
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const parts = (req.url ?? '/').split('?')[0]!.split('/').filter((p) => p !== '');
    const refuse = () => {
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="modelplane"' });
      res.end(UNAUTHORIZED_BODY);
    };
    if (parts.length !== 2) return refuse();
    const [namespace, secret] = parts.map(decodeURIComponent) as [string, string];
    source(namespace, secret)
      .catch(() => [] as string[])
      .then((keys) => {
        const allowed = bearerMatches(req.headers['authorization'], keys);
        onDecision({ namespace, secret, allowed });
        if (!allowed) return refuse();
        res.writeHead(200);
        res.end();
      });
  };
}

/** A key source over the Kubernetes API: GET /api/v1/namespaces/<ns>/secrets/<name> through `get`. */
export function secretKeySource(get: (path: string) => Promise<{ status: number; body: string }>): KeySource {
  return async (namespace, name) => {
    const r = await get(`/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets/${encodeURIComponent(name)}`);
    if (r.status !== 200) return [];
    const data = (JSON.parse(r.body) as { data?: Record<string, string> }).data ?? {};
    return Object.keys(data)
      .sort()
      .map((k) => Buffer.from(data[k] ?? '', 'base64').toString('utf8').trim())
      .filter((k) => k !== '');
  };
}

/** Starts the validator on `host:port` (0 = any free port); resolves once listening. */
export function startKeyValidator(source: KeySource, host = '127.0.0.1', port = 0): Promise<Server> {
  const server = createServer(keyValidator(source));
  return new Promise((resolve) => server.listen(port, host, () => resolve(server)));
}
