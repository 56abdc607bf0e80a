/**
 * The key validator behind ModelService API keys (functions/compose-model-service/auth.ts):
 * the HTTP endpoint Traefik's forwardAuth Middleware asks before a request
 * reaches any endpoint.
 *
 * Protocol: `GET /healthz` → 200 `ok` (the pod's probes). `GET|POST|…
 * /<namespace>/<secret>` with the client's headers
 * (Traefik forwardAuth copies them). 200 (empty body) when `Authorization` is
 * `Bearer <key>` and `<key>` equals one of the Secret's values (each data
 * value is one key, base64-decoded, surrounding whitespace trimmed); else 401
 * with `WWW-Authenticate: Bearer realm="modelplane"` and an OpenAI-style JSON
 * error, which Traefik returns to the client unchanged. Keys are compared in
 * constant time per key (node:crypto timingSafeEqual on SHA-256 digests).
 * A Secret that cannot be read, or has no key, refuses everyone (fail closed).
 *
 * Never logged or returned: key values and the Authorization header. The
 * `onDecision` hook receives only namespace, secret, the decision and, when
 * the Secret could not be read, why (`unreadable`: the API status, never a
 * value).
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

/** One answer of the validator, as logged: never a key. */
export interface Decision {
  namespace: string;
  secret: string;
  allowed: boolean;
  /** Why the Secret's keys could not be read (e.g. `GET …: 403`), when they could not. */
  unreadable?: string;
}

/** The request handler of the validator over `source`. */
export function keyValidator(
  source: KeySource,
  onDecision: (d: Decision) => void = () => {},
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === '/healthz') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
      return;
    }
    const parts = path.split('/').filter((p) => p !== '');
    const refuse = () => {
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="modelplane"' });
      res.end(UNAUTHORIZED_BODY);
    };
    if (parts.length !== 2) return refuse();
    const [namespace, secret] = parts.map(decodeURIComponent) as [string, string];
    let unreadable: string | undefined;
    source(namespace, secret)
      .catch((err: unknown) => {
        unreadable = err instanceof Error ? err.message : String(err);
        return [] as string[];
      })
      .then((keys) => {
        const allowed = bearerMatches(req.headers['authorization'], keys);
        onDecision(unreadable === undefined ? { namespace, secret, allowed } : { namespace, secret, allowed, unreadable });
        if (!allowed) return refuse();
        res.writeHead(200);
        res.end();
      });
  };
}

/**
 * A key source over the Kubernetes API: GET /api/v1/namespaces/<ns>/secrets/<name> through `get`.
 * Rejects with `GET <path>: <status>` when the answer is not 200 (404 no such Secret, 403 no Role
 * lets the validator read it, 0 no answer), so the caller refuses the request and a cache does
 * not keep the failure.
 */
export function secretKeySource(get: (path: string) => Promise<{ status: number; body: string }>): KeySource {
  return async (namespace, name) => {
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets/${encodeURIComponent(name)}`;
    const r = await get(path);
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status === 0 ? 'no answer' : r.status}`);
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

/**
 * `source` with each Secret's keys kept for `ttlMs` milliseconds (default 5 s),
 * so a burst of requests reads a Secret once, and a rotated or revoked key
 * takes effect within `ttlMs`. A failed read is not kept. `now` is the clock
 * (ms), injectable for tests.
 */
export function cachedKeySource(source: KeySource, ttlMs = 5000, now: () => number = Date.now): KeySource {
  const cache = new Map<string, { at: number; keys: Promise<string[]> }>();
  return (namespace, name) => {
    const id = `${namespace}/${name}`;
    const hit = cache.get(id);
    if (hit && now() - hit.at < ttlMs) return hit.keys;
    const keys = source(namespace, name);
    cache.set(id, { at: now(), keys });
    keys.catch(() => cache.delete(id));
    return keys;
  };
}

/**
 * A raw GET over the Kubernetes API as the kubeconfig at `kubeconfig` (or, when
 * undefined, the pod's own ServiceAccount: `KubeConfig.loadFromCluster`, the
 * token and CA under /var/run/secrets/kubernetes.io/serviceaccount). Never
 * rejects: a transport error is status 0.
 */
export async function kubeGet(kubeconfig?: string): Promise<(path: string) => Promise<{ status: number; body: string }>> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const { request } = await import('node:https');
  const kc = new KubeConfig();
  if (kubeconfig === undefined) kc.loadFromCluster();
  else kc.loadFromFile(kubeconfig);
  const server = new URL(kc.getCurrentCluster()?.server ?? 'https://kubernetes.default.svc');
  return async (path) => {
    const opts: import('node:https').RequestOptions = {
      method: 'GET',
      host: server.hostname,
      port: server.port || 443,
      path,
      headers: { Accept: 'application/json' },
    };
    await kc.applyToHTTPSOptions(opts);
    return new Promise((resolve) => {
      const req = request(opts, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', () => resolve({ status: 0, body: '' }));
      });
      req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
      req.on('error', () => resolve({ status: 0, body: '' }));
      req.end();
    });
  };
}

/**
 * `modelplane key-validator`: serves the validator on `listen` (`host:port`)
 * with keys read through the Kubernetes API as `kubeconfig` (default: the
 * pod's ServiceAccount), cached 5 s. Logs one JSON line per decision
 * (namespace, secret, allowed; never a key), and stops on SIGTERM/SIGINT
 * after the requests in flight. Resolves with the listening server.
 * Throws when `listen` is not `host:port` or the kubeconfig cannot be loaded.
 */
export async function runKeyValidator(opts: { listen: string; kubeconfig?: string }): Promise<Server> {
  const m = /^(.*):(\d{1,5})$/.exec(opts.listen);
  if (!m || Number(m[2]) > 65535) throw new Error(`--listen ${opts.listen}: want host:port, e.g. 0.0.0.0:8080`);
  const host = m[1] === '' ? '0.0.0.0' : m[1]!.replace(/^\[(.*)\]$/, '$1');
  const source = cachedKeySource(secretKeySource(await kubeGet(opts.kubeconfig)));
  const log = (d: Decision) => process.stdout.write(`${JSON.stringify({ msg: 'key check', ...d })}\n`);
  const server = createServer(keyValidator(source, log));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(Number(m[2]), host, () => resolve());
  });
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ msg: 'key validator listening', address: typeof address === 'object' && address ? `${address.address}:${address.port}` : opts.listen })}\n`);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => server.close(() => process.exit(0)));
  return server;
}
