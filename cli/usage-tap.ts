/**
 * The usage tap (docs/ai-gateway.md#usage): the key validator's answer to a
 * counted ModelService's request, between the front door's key check and
 * the service's backends. Traefik reads no response body, so tokens are
 * counted here.
 *
 * Protocol:
 * - `<any method> /usage-tap/<namespace>/<service>/<tokens-per-minute-<n>|unlimited>/<rest>`
 *   (the path the service's route rewrites to; functions/lib/usage-tap.ts):
 *   the request is forwarded, body streamed, to the upstream (the gateway's
 *   `metered` listener) as `/<namespace>/<service>/<rest>` with the same
 *   query, method and headers, `Accept-Encoding: identity` (the tap reads
 *   plain bodies) and `X-Modelplane-Request-Id` set; the response streams
 *   back to the client as it arrives, status and headers unchanged.
 * - The caller is the `X-Modelplane-Caller` the key check set
 *   (`anonymous` on a service without keys).
 * - Tokens: the last `usage` object of the response, from a JSON body or
 *   from the `data:` events of a `text/event-stream` (OpenAI's final chunk
 *   with `stream_options.include_usage`); `prompt_tokens` /
 *   `completion_tokens` / `total_tokens` (or `input_tokens` /
 *   `output_tokens`); total defaults to their sum.
 * - With a token limit, each (caller, service) has a bucket of `n` tokens
 *   refilled at `n` per minute; a request that arrives with the bucket at or
 *   below zero gets 429 with `Retry-After` (whole seconds until it is above
 *   zero) and an OpenAI-style error (`code: tokens_per_minute_exceeded`); a
 *   response spends its total tokens when it ends (the bucket may go below
 *   zero: a request in flight is never cut).
 * - One JSON log line per request ({@link UsageLine}); Prometheus counters
 *   `modelplane_gateway_tokens_total{caller,service,type}` (type `prompt` or
 *   `completion`) and `modelplane_gateway_token_limited_total{caller,service}`
 *   in the registry the validator serves at `/metrics`.
 * - Upstream unreachable before a response: 502 with an OpenAI-style error;
 *   a response cut after it started is cut for the client too.
 */
import { randomUUID } from 'node:crypto';
import { type ClientRequest, type IncomingHttpHeaders, type IncomingMessage, request, type ServerResponse } from 'node:http';
import { Counter, type Registry } from 'prom-client';
import { CALLER_HEADER } from '../functions/lib/key-scope.js';
import { parseUsageTapPath, REQUEST_ID_HEADER, USAGE_TAP_PATH } from '../functions/lib/usage-tap.js';

/** Tokens one response reported. */
export interface TokenUsage {
  prompt: number;
  completion: number;
  total: number;
}

/** The usage log's line for one request (docs/ai-gateway.md#usage). */
export interface UsageLine {
  msg: 'usage';
  requestId: string;
  caller: string;
  /** `<namespace>/<service>`. */
  service: string;
  method: string;
  /** The path the service's route answers, without the query. */
  path: string;
  status: number;
  /** Milliseconds from the request's arrival at the tap to the response's last byte out (or the client's going away). */
  durationMs: number;
  /** True for a `text/event-stream` response. */
  stream: boolean;
  promptTokens?: number;
  completionTokens?: number;
  totalTokens?: number;
  /** True when the token budget refused the request (status 429, never forwarded). */
  limited?: boolean;
  /** True when the client or the upstream went away before the response ended. */
  aborted?: boolean;
}

/** Bytes of a JSON body (or of one SSE line) read for `usage`; a longer one passes through uncounted. */
export const MAX_READ_BYTES = 8 * 1024 * 1024;

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);

/** The token counts of an OpenAI-style `usage` object; undefined when it names none. */
export function usageOf(value: unknown): TokenUsage | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const u = value as Record<string, unknown>;
  const prompt = num(u['prompt_tokens']) ?? num(u['input_tokens']);
  const completion = num(u['completion_tokens']) ?? num(u['output_tokens']);
  const total = num(u['total_tokens']);
  if (prompt === undefined && completion === undefined && total === undefined) return undefined;
  return { prompt: prompt ?? 0, completion: completion ?? 0, total: total ?? (prompt ?? 0) + (completion ?? 0) };
}

/**
 * Reads `usage` from a response body as it streams: a JSON body
 * (`application/json` or `+json`) whole, or a `text/event-stream` line by
 * line (LF or CRLF; the last `data:` event carrying a non-null `usage`
 * wins). Holds at most {@link MAX_READ_BYTES} (the body, or one line);
 * other content types are not held at all. Linear in the bytes read.
 */
export class UsageReader {
  private readonly sse: boolean;
  private readonly json: boolean;
  private buffered: Buffer[] = [];
  private size = 0;
  private overflow = false;
  private last: TokenUsage | undefined;
  /** The SSE line being read: its pieces (never re-joined until its newline arrives), and their size. */
  private pending: Buffer[] = [];
  private pendingSize = 0;

  constructor(contentType: string | undefined) {
    this.sse = /^text\/event-stream\b/i.test(contentType ?? '');
    this.json = /^application\/([\w.+-]*\+)?json\b/i.test(contentType ?? '');
  }

  /** True when the response is a server-sent event stream. */
  get stream(): boolean {
    return this.sse;
  }

  push(chunk: Buffer): void {
    if (this.sse) {
      let start = 0;
      for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
        this.endLine(chunk.subarray(start, nl));
        start = nl + 1;
      }
      if (start < chunk.length) this.keep(chunk.subarray(start));
      return;
    }
    if (!this.json || this.overflow) return;
    this.size += chunk.length;
    if (this.size > MAX_READ_BYTES) {
      this.overflow = true;
      this.buffered = [];
      return;
    }
    this.buffered.push(chunk);
  }

  private keep(piece: Buffer): void {
    if (this.pendingSize < 0) return; // the line in progress is over the limit: skipped to its end
    this.pendingSize += piece.length;
    if (this.pendingSize > MAX_READ_BYTES) {
      this.pending = [];
      this.pendingSize = -1;
      return;
    }
    this.pending.push(piece);
  }

  private endLine(tail: Buffer): void {
    const skipped = this.pendingSize < 0;
    const line = skipped ? undefined : Buffer.concat([...this.pending, tail]).toString('utf8');
    this.pending = [];
    this.pendingSize = 0;
    if (line !== undefined) this.line(line);
  }

  private line(raw: string): void {
    const line = raw.replace(/\r$/, '');
    if (!line.startsWith('data:')) return;
    const data = line.slice(5).trim();
    if (data === '' || data === '[DONE]') return;
    try {
      const u = usageOf((JSON.parse(data) as Record<string, unknown>)['usage']);
      if (u) this.last = u;
    } catch {
      // not JSON: not a usage event
    }
  }

  /** The usage the body reported, once it has ended; undefined when it reported none. */
  result(): TokenUsage | undefined {
    if (this.sse) {
      if (this.pendingSize > 0) this.endLine(Buffer.alloc(0));
      return this.last;
    }
    if (this.overflow || this.buffered.length === 0) return undefined;
    try {
      const body = JSON.parse(Buffer.concat(this.buffered).toString('utf8')) as unknown;
      return typeof body === 'object' && body !== null ? usageOf((body as Record<string, unknown>)['usage']) : undefined;
    } catch {
      return undefined;
    }
  }
}

/**
 * Token buckets per (caller, service): `perMinute` tokens, refilled
 * continuously at `perMinute` per 60 s. `now` is the clock in milliseconds.
 */
export class TokenBudgets {
  private readonly buckets = new Map<string, { balance: number; at: number; perMinute: number }>();
  private spends = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** The balance of a bucket now (a bucket never charged is full). */
  private balance(b: { balance: number; at: number; perMinute: number } | undefined, perMinute: number, t: number): number {
    if (b === undefined) return perMinute;
    return Math.min(perMinute, b.balance + ((t - b.at) * perMinute) / 60_000);
  }

  /** Seconds until `key` may send again (the fewest whole seconds after which its balance is above zero, at least 1), or 0 when it may now. */
  retryAfter(key: string, perMinute: number): number {
    const balance = this.balance(this.buckets.get(key), perMinute, this.now());
    if (balance > 0) return 0;
    return Math.floor((-balance * 60) / perMinute) + 1;
  }

  /** Spends `tokens` from `key`'s bucket (which may go below zero). Full buckets are forgotten now and then (they cost nothing to recreate). */
  spend(key: string, perMinute: number, tokens: number): void {
    const t = this.now();
    this.buckets.set(key, { balance: this.balance(this.buckets.get(key), perMinute, t) - tokens, at: t, perMinute });
    if (++this.spends % 1024 !== 0) return;
    for (const [k, b] of this.buckets) if (this.balance(b, b.perMinute, t) >= b.perMinute) this.buckets.delete(k);
  }

  /** How many buckets are held (for tests). */
  get size(): number {
    return this.buckets.size;
  }
}

/** The body of the 429 of a spent token budget. */
export function tokenLimitBody(service: string, perMinute: number, retryAfterSeconds: number): string {
  return JSON.stringify({
    error: {
      message: `This API key has spent its ${perMinute} tokens per minute on ${service}: retry after ${retryAfterSeconds} s`,
      type: 'rate_limit_exceeded',
      code: 'tokens_per_minute_exceeded',
    },
  });
}

/** Hop-by-hop headers (RFC 9110 §7.6.1) a proxy does not forward. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

/** `headers` without the hop-by-hop ones, nor those the `Connection` header names. */
function forwardable(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const named = new Set(
    String(headers['connection'] ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter((h) => h !== ''),
  );
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !HOP_BY_HOP.has(k) && !named.has(k)) out[k] = v;
  return out;
}

/** What the tap needs: the upstream base URL (`http://host:port`), the registry its counters go in, and where lines go. */
export interface UsageTapOptions {
  upstream: string;
  registry: Registry;
  log?: (line: UsageLine) => void;
  now?: () => number;
  newId?: () => string;
}

/** The usage tap: counts, limits and forwards tapped requests. */
export class UsageTap {
  private readonly upstream: URL;
  private readonly budgets: TokenBudgets;
  private readonly now: () => number;
  private readonly newId: () => string;
  private readonly log: (line: UsageLine) => void;
  private readonly tokens: Counter<'caller' | 'service' | 'type'>;
  private readonly limited: Counter<'caller' | 'service'>;
  private readonly logged = new WeakSet<UsageLine>();

  constructor(opts: UsageTapOptions) {
    this.upstream = new URL(opts.upstream);
    this.now = opts.now ?? Date.now;
    this.budgets = new TokenBudgets(this.now);
    this.newId = opts.newId ?? randomUUID;
    this.log = opts.log ?? (() => {});
    this.tokens = new Counter({
      name: 'modelplane_gateway_tokens_total',
      help: 'Tokens the engines reported for requests through the front door, by caller, service and type (prompt, completion).',
      labelNames: ['caller', 'service', 'type'] as const,
      registers: [opts.registry],
    });
    this.limited = new Counter({
      name: 'modelplane_gateway_token_limited_total',
      help: 'Requests refused with 429 because the caller had spent its tokens per minute on the service.',
      labelNames: ['caller', 'service'] as const,
      registers: [opts.registry],
    });
  }

  /** Answers `req` when its path is under {@link USAGE_TAP_PATH}; returns false (nothing written) otherwise. A path naming no service is a 404. */
  handle(req: IncomingMessage, res: ServerResponse): boolean {
    const raw = req.url ?? '/';
    const q = raw.indexOf('?');
    const path = q < 0 ? raw : raw.slice(0, q);
    if (!path.startsWith(`${USAGE_TAP_PATH}/`)) return false;
    const tapped = parseUsageTapPath(path);
    if (tapped === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end(`want ${USAGE_TAP_PATH}/<namespace>/<service>/tokens-per-minute-<n>|unlimited/<path>`);
      return true;
    }
    const started = this.now();
    const callerHeader = req.headers[CALLER_HEADER.toLowerCase()];
    const caller = typeof callerHeader === 'string' && callerHeader !== '' ? callerHeader : 'anonymous';
    const service = `${tapped.namespace}/${tapped.service}`;
    const requestId = this.newId();
    const line: UsageLine = { msg: 'usage', requestId, caller, service, method: req.method ?? 'GET', path: tapped.upstreamPath, status: 0, durationMs: 0, stream: false };
    const budgetKey = `${caller}\n${service}`;
    const perMinute = tapped.tokensPerMinute;
    if (perMinute !== undefined) {
      const wait = this.budgets.retryAfter(budgetKey, perMinute);
      if (wait > 0) {
        req.resume();
        this.limited.inc({ caller, service });
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(wait) });
        res.end(tokenLimitBody(service, perMinute, wait));
        this.log({ ...line, status: 429, limited: true });
        return true;
      }
    }
    const headers = forwardable(req.headers);
    headers['accept-encoding'] = 'identity';
    headers[REQUEST_ID_HEADER.toLowerCase()] = requestId;
    const badGateway = () => {
      if (res.headersSent) return;
      line.status = 502;
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `The gateway could not reach ${service}'s backends`, type: 'server_error', code: 'bad_gateway' } }));
    };
    // The line is written once the client has the last byte (or went away).
    res.on('finish', () => this.finish(line, started));
    let upstream: ClientRequest;
    try {
      upstream = request(
        {
          protocol: this.upstream.protocol,
          hostname: this.upstream.hostname.replace(/^\[(.*)\]$/, '$1'),
          port: this.upstream.port,
          method: req.method,
          path: tapped.upstreamPath + (q < 0 ? '' : raw.slice(q)),
          headers,
        },
        (up) => {
          const reader = new UsageReader(up.headers['content-type']);
          line.status = up.statusCode ?? 502;
          line.stream = reader.stream;
          res.writeHead(line.status, forwardable(up.headers));
          res.flushHeaders();
          up.on('data', (chunk: Buffer) => {
            reader.push(chunk);
            // Backpressure: a slow client slows the backend, the tap holds no more than one chunk.
            if (!res.write(chunk)) {
              up.pause();
              res.once('drain', () => up.resume());
            }
          });
          up.on('end', () => {
            const usage = reader.result();
            if (usage) {
              line.promptTokens = usage.prompt;
              line.completionTokens = usage.completion;
              line.totalTokens = usage.total;
              this.tokens.inc({ caller, service, type: 'prompt' }, usage.prompt);
              this.tokens.inc({ caller, service, type: 'completion' }, usage.completion);
              if (perMinute !== undefined) this.budgets.spend(budgetKey, perMinute, usage.total);
            }
            res.end();
          });
          up.on('error', () => {
            line.aborted = true;
            res.destroy();
            this.finish(line, started);
          });
        },
      );
    } catch {
      req.resume();
      badGateway();
      return true;
    }
    upstream.on('error', badGateway);
    res.on('close', () => {
      if (!res.writableFinished) {
        line.aborted = true;
        upstream.destroy();
        this.finish(line, started);
      }
    });
    req.pipe(upstream);
    return true;
  }

  private finish(line: UsageLine, started: number): void {
    if (this.logged.has(line)) return;
    this.logged.add(line);
    line.durationMs = Math.max(0, Math.round(this.now() - started));
    this.log(line);
  }
}
