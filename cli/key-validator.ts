/**
 * The key validator behind ModelService API keys (functions/compose-model-service/auth.ts,
 * docs/ai-gateway.md): the HTTP endpoint Traefik's forwardAuth Middleware
 * asks before a request reaches any endpoint, and the front door's
 * `/v1/models`.
 *
 * Protocol:
 * - `GET /healthz` → 200 `ok` (the pod's probes).
 * - `/scale-from-zero/<namespace>/<deployment>/…` → 503 with `Retry-After`,
 *   and `GET /metrics` (the demand at zero, and the usage tap's counters):
 *   scale-from-zero.ts.
 * - `/usage-tap/<namespace>/<service>/…` → the usage tap: usage-tap.ts.
 * - `GET|POST|… /<namespace>/<allowed>[?denied=<denied>]`, `<allowed>` and
 *   `<denied>` comma-separated Secret names of `<namespace>`, with the
 *   client's headers (Traefik forwardAuth copies them): 200 (empty body)
 *   with `X-Modelplane-Caller: <namespace>/<secret>/<key name>` when
 *   `Authorization` is `Bearer <key>` and `<key>` is one of the values of an
 *   allowed Secret (each data value is one key, base64-decoded, surrounding
 *   whitespace trimmed; its data key is its name); 403 with an OpenAI-style
 *   error when it is a key of a denied Secret (a right key scoped to other
 *   services); else 401 with `WWW-Authenticate: Bearer realm="modelplane"`.
 *   Traefik returns 401/403 to the client unchanged.
 * - `GET /v1/models`: the OpenAI model list of the ModelServices the
 *   caller's key opens (those whose `status.apiKeys.allowed` holds the key's
 *   Secret) and the anonymous ones; without `Authorization` the anonymous
 *   ones only; 401 for a key no listed Secret holds.
 *
 * Keys are compared in constant time per key (node:crypto timingSafeEqual on
 * SHA-256 digests). A Secret that cannot be read, or has no key, matches no
 * key (fail closed). Never logged or returned: key values and the
 * Authorization header. The `onDecision` hook receives the namespace, the
 * Secrets asked, the decision, the caller (`<ns>/<secret>/<key name>`), the
 * service the request was for (from Traefik's `X-Forwarded-Uri`) and, when a
 * Secret could not be read, why (`unreadable`: the API status, never a
 * value).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { CALLER_HEADER } from '../functions/lib/key-scope.js';
import { DEFAULT_USAGE_UPSTREAM } from '../functions/lib/usage-tap.js';
import { ScaleFromZero } from './scale-from-zero.js';
import { type UsageLine, UsageTap } from './usage-tap.js';

/** One key of a Secret: its data key (the key's name) and its value. */
export interface NamedKey {
  name: string;
  value: string;
}

/** Reads the keys of Secret `<namespace>/<name>`: its values, decoded, with their data keys; [] when it has none. */
export type KeySource = (namespace: string, name: string) => Promise<NamedKey[]>;

/** A ModelService as `/v1/models` reads it. */
export interface ListedService {
  namespace: string;
  name: string;
  /** `metadata.creationTimestamp` in seconds since the epoch. */
  created: number;
  /** `status.auth`: APIKey, None or Anonymous. */
  auth?: string;
  /** `status.address`. */
  address?: string;
  /** `status.apiKeys`. */
  apiKeys?: { namespace: string; allowed: string[]; denied: string[] };
}

/** Lists every ModelService (all namespaces). */
export type ServiceSource = () => Promise<ListedService[]>;

const openAIError = (message: string, type: string, code: string) => JSON.stringify({ error: { message, type, code } });

/** The JSON body of a refusal (OpenAI's error shape). */
export const UNAUTHORIZED_BODY = openAIError('Missing or invalid API key: send Authorization: Bearer <key>', 'invalid_request_error', 'invalid_api_key');
/** The JSON body of a right key on a service outside its scope. */
export const FORBIDDEN_BODY = openAIError(
  'This API key does not open this service: its Secret\'s modelplane.ai/services or modelplane.ai/service-selector does not name it',
  'invalid_request_error',
  'service_not_allowed',
);

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

const bearerOf = (header: string | undefined): string | undefined => /^Bearer[ ]+(\S+)\s*$/i.exec(header ?? '')?.[1];

/** The key of `keys` that `header` (`Bearer <k>`) carries, compared in constant time per key; undefined when none. */
export function matchingKey(header: string | undefined, keys: readonly NamedKey[]): NamedKey | undefined {
  const given = bearerOf(header);
  if (given === undefined) return undefined;
  const d = digest(given);
  let found: NamedKey | undefined;
  for (const k of keys) if (k.value !== '' && timingSafeEqual(d, digest(k.value)) && found === undefined) found = k;
  return found;
}

/** True when `header` is `Bearer <k>` with `k` one of `keys` (constant time per key). */
export function bearerMatches(header: string | undefined, keys: readonly string[]): boolean {
  return matchingKey(
    header,
    keys.map((value) => ({ name: '', value })),
  ) !== undefined;
}

/** One answer of the validator, as logged: never a key. */
export interface Decision {
  namespace: string;
  /** The Secrets asked (allowed ones, comma-separated). */
  secret: string;
  allowed: boolean;
  /** 200, 401 or 403. */
  status?: number;
  /** `<namespace>/<secret>/<key name>` of the key that matched. */
  caller?: string;
  /** `<namespace>/<name>` of the ModelService the request was for (from X-Forwarded-Uri). */
  service?: string;
  /** Why a Secret's keys could not be read (e.g. `GET …: 403`), when they could not. */
  unreadable?: string;
}

/** The service a forwarded request was for: the first two segments of `X-Forwarded-Uri`. */
function forwardedService(req: IncomingMessage): string | undefined {
  const uri = req.headers['x-forwarded-uri'];
  const m = typeof uri === 'string' ? /^\/([^/?]+)\/([^/?]+)/.exec(uri) : null;
  return m ? `${m[1]}/${m[2]}` : undefined;
}

/** The first key among `secrets` (of `namespace`) that `header` carries, with its Secret. */
async function findKey(
  source: KeySource,
  namespace: string,
  secrets: readonly string[],
  header: string | undefined,
  problems: string[],
): Promise<{ secret: string; key: NamedKey } | undefined> {
  for (const secret of secrets) {
    const keys = await source(namespace, secret).catch((err: unknown) => {
      problems.push(err instanceof Error ? err.message : String(err));
      return [] as NamedKey[];
    });
    const key = matchingKey(header, keys);
    if (key) return { secret, key };
  }
  return undefined;
}

const names = (csv: string | null | undefined): string[] => (csv ?? '').split(',').filter((n) => n !== '');

/** The request handler of the validator over `source` (and, for `/v1/models`, `services`). */
export function keyValidator(
  source: KeySource,
  onDecision: (d: Decision) => void = () => {},
  services: ServiceSource = async () => [],
  zero: ScaleFromZero = new ScaleFromZero(),
  tap?: UsageTap,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://validator');
    } catch {
      res.writeHead(400, { 'content-type': 'text/plain' });
      res.end('bad request target');
      return;
    }
    const path = url.pathname;
    if (path === '/healthz') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
      return;
    }
    // Standby endpoints of deployments at zero, and the demand they record (scale-from-zero.ts).
    if (zero.handle(path, req, res)) return;
    // Counted services' requests, on their way to the backends (usage-tap.ts).
    if (tap?.handle(req, res)) return;
    const refuse = (status: 401 | 403) => {
      res.writeHead(status, status === 401 ? { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="modelplane"' } : { 'content-type': 'application/json' });
      res.end(status === 401 ? UNAUTHORIZED_BODY : FORBIDDEN_BODY);
    };
    if (path === '/v1/models') {
      listModels(source, services, req.headers['authorization']).then(
        (list) => {
          if (list === undefined) return refuse(401);
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ object: 'list', data: list }));
        },
        () => {
          res.writeHead(503, { 'content-type': 'application/json' });
          res.end(openAIError('The model list cannot be read right now', 'server_error', 'unavailable'));
        },
      );
      return;
    }
    const parts = path.split('/');
    if (parts.length !== 3 || parts[0] !== '' || parts[1] === '') return refuse(401);
    const namespace = decodeURIComponent(parts[1]!);
    const allowed = names(decodeURIComponent(parts[2]!));
    const denied = names(url.searchParams.get('denied'));
    const header = req.headers['authorization'];
    const service = forwardedService(req);
    const problems: string[] = [];
    void (async () => {
      const hit = await findKey(source, namespace, allowed, header, problems);
      const wrongScope = hit === undefined && (await findKey(source, namespace, denied, header, problems)) !== undefined;
      const status = hit ? 200 : wrongScope ? 403 : 401;
      const caller = hit ? `${namespace}/${hit.secret}/${hit.key.name}` : undefined;
      onDecision({
        namespace,
        secret: allowed.join(','),
        allowed: status === 200,
        status,
        ...(caller ? { caller } : {}),
        ...(service ? { service } : {}),
        ...(problems.length > 0 ? { unreadable: problems.join('; ') } : {}),
      });
      if (status !== 200) return refuse(status);
      res.writeHead(200, { [CALLER_HEADER]: caller! });
      res.end();
    })();
  };
}

/**
 * The `/v1/models` entries for `authorization`: undefined when a key is sent
 * that no listed Secret holds (401). Sorted by id (`<namespace>/<name>`).
 */
export async function listModels(source: KeySource, services: ServiceSource, authorization: string | undefined): Promise<object[] | undefined> {
  const all = await services();
  let secret: string | undefined;
  if (authorization !== undefined) {
    const secrets = new Set<string>();
    for (const s of all) for (const n of [...(s.apiKeys?.allowed ?? []), ...(s.apiKeys?.denied ?? [])]) secrets.add(`${s.apiKeys!.namespace}/${n}`);
    for (const id of [...secrets].sort()) {
      const [ns, name] = id.split('/') as [string, string];
      const keys = await source(ns, name).catch(() => [] as NamedKey[]);
      if (matchingKey(authorization, keys)) {
        secret = id;
        break;
      }
    }
    if (secret === undefined) return undefined;
  }
  const opens = (s: ListedService) =>
    s.auth === 'None' || s.auth === 'Anonymous' || (secret !== undefined && (s.apiKeys?.allowed ?? []).some((n) => `${s.apiKeys?.namespace}/${n}` === secret));
  return all
    .filter(opens)
    .map((s) => ({ id: `${s.namespace}/${s.name}`, object: 'model', created: s.created, owned_by: s.namespace, ...(s.address ? { url: s.address } : {}) }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
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
      .map((k) => ({ name: k, value: Buffer.from(data[k] ?? '', 'base64').toString('utf8').trim() }))
      .filter((k) => k.value !== '');
  };
}

/**
 * A service source over the Kubernetes API: GET
 * /apis/modelplane.ai/v1alpha1/modelservices (every namespace) through `get`,
 * each item read for its name, creation time and status. Rejects with `GET
 * <path>: <status>` when the answer is not 200.
 */
export function modelServiceSource(get: (path: string) => Promise<{ status: number; body: string }>): ServiceSource {
  return async () => {
    const path = '/apis/modelplane.ai/v1alpha1/modelservices';
    const r = await get(path);
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status === 0 ? 'no answer' : r.status}`);
    type Item = { metadata?: { name?: string; namespace?: string; creationTimestamp?: string }; status?: { auth?: string; address?: string; apiKeys?: ListedService['apiKeys'] } };
    const items = (JSON.parse(r.body) as { items?: Item[] }).items ?? [];
    return items.map((i) => ({
      namespace: i.metadata?.namespace ?? '',
      name: i.metadata?.name ?? '',
      created: Math.floor(Date.parse(i.metadata?.creationTimestamp ?? '') / 1000) || 0,
      ...(i.status?.auth ? { auth: i.status.auth } : {}),
      ...(i.status?.address ? { address: i.status.address } : {}),
      ...(i.status?.apiKeys ? { apiKeys: { namespace: i.status.apiKeys.namespace, allowed: i.status.apiKeys.allowed ?? [], denied: i.status.apiKeys.denied ?? [] } } : {}),
    }));
  };
}

/** `source` answered from memory for `ttlMs` milliseconds (default 5 s) after each successful read. */
export function cachedServiceSource(source: ServiceSource, ttlMs = 5000, now: () => number = Date.now): ServiceSource {
  let kept: { at: number; list: Promise<ListedService[]> } | undefined;
  return () => {
    if (kept && now() - kept.at < ttlMs) return kept.list;
    const list = source();
    const entry = { at: now(), list };
    kept = entry;
    list.catch(() => {
      if (kept === entry) kept = undefined;
    });
    return list;
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
  const cache = new Map<string, { at: number; keys: Promise<NamedKey[]> }>();
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
 * pod's ServiceAccount), cached 5 s, and `/v1/models` from the ModelServices'
 * status (cached 5 s). Logs one JSON line per decision (namespace, secret,
 * allowed, status, caller, service; never a key) and one per tapped request
 * (usage-tap.ts, forwarded to `usageUpstream`, default the gateway's
 * `metered` listener), and stops on SIGTERM/SIGINT
 * after the requests in flight. Resolves with the listening server.
 * Throws when `listen` is not `host:port` or the kubeconfig cannot be loaded.
 */
export async function runKeyValidator(opts: { listen: string; kubeconfig?: string; usageUpstream?: string }): Promise<Server> {
  const m = /^(.*):(\d{1,5})$/.exec(opts.listen);
  if (!m || Number(m[2]) > 65535) throw new Error(`--listen ${opts.listen}: want host:port, e.g. 0.0.0.0:8080`);
  const host = m[1] === '' ? '0.0.0.0' : m[1]!.replace(/^\[(.*)\]$/, '$1');
  const get = await kubeGet(opts.kubeconfig);
  const source = cachedKeySource(secretKeySource(get));
  const services = cachedServiceSource(modelServiceSource(get));
  const log = (d: Decision) => process.stdout.write(`${JSON.stringify({ msg: 'key check', ...d })}\n`);
  const zero = new ScaleFromZero();
  const upstream = opts.usageUpstream ?? DEFAULT_USAGE_UPSTREAM;
  if (!/^http:\/\/[^/]+$/.test(upstream)) throw new Error(`--usage-upstream ${upstream}: want http://host:port (no path; https is not spoken), e.g. ${DEFAULT_USAGE_UPSTREAM}`);
  const tap = new UsageTap({ upstream, registry: zero.registry, log: (line: UsageLine) => process.stdout.write(`${JSON.stringify(line)}\n`) });
  const server = createServer(keyValidator(source, log, services, zero, tap));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(Number(m[2]), host, () => resolve());
  });
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ msg: 'key validator listening', address: typeof address === 'object' && address ? `${address.address}:${address.port}` : opts.listen })}\n`);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => server.close(() => process.exit(0)));
  return server;
}
