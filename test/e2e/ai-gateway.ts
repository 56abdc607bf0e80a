/**
 * The front door as an AI gateway through real Traefik (docs/ai-gateway.md),
 * the e2e suite's last step, after the 401 and HTTPS steps (front-door.ts):
 *
 * 1. Namespace `teams` with two key Secrets labelled
 *    `modelplane.ai/api-keys: "true"`, one per team, each scoped by
 *    `modelplane.ai/services` to its own service; two ModelServices over the
 *    stub endpoint, `teams/chat` (team A's, limited to 2 requests per second
 *    per caller) and `teams/code` (team B's), each with `spec.auth` selecting
 *    the team Secrets.
 * 2. A selectorless Service `modelplane-system/modelplane-key-validator` and
 *    its EndpointSlice naming the validator's second loopback address (the
 *    composed Deployment and Service are not there: the gateway's
 *    validatorURL points at the validator process), so the composed
 *    `/v1/models` route reaches it.
 * 3. With Traefik, the validator (as its own ServiceAccount: the composed
 *    Roles and ClusterRole are what let it read) and the stub running, the
 *    step asks: each team's key on each service (200 / 403), `/v1/models` with
 *    each key, three concurrent requests with team A's key (2 served, 1 429
 *    with Retry-After), and reads Traefik's access log for the caller of
 *    every request the stub served.
 * 4. Overflow: services `overflow-429` and `overflow-503` put the stub's busy
 *    port (always 429, or always 503) at priority 0 and the stub at priority
 *    1; five requests each must all be served by the stub, the busy backend
 *    asked each time on 429 but only three times on 503 (then ejected by
 *    Traefik's passive health check).
 * 5. Traefik's Prometheus metrics count team A's requests by caller.
 */
import { eventually, kubectl, kubectlJson, type Obj } from './harness.js';
import { METRICS_PORT, nodeInside, STUB_BUSY_PORT, STUB_HOST, STUB_PORT, VALIDATOR_HOST, VALIDATOR_PORT, WEB_PORT, withTraefik } from './front-door.js';

/** Sets every InferenceGateway's spec.auth.validatorURL; returns what the first one had. */
function setValidatorURL(validatorURL: string): string | undefined {
  let before: string | undefined;
  for (const g of kubectlJson<{ items: Obj[] }>(['get', 'inferencegateways']).items) {
    before ??= (g.spec?.['auth'] as { validatorURL?: string } | undefined)?.validatorURL;
    const r = kubectl(['patch', 'inferencegateway', g.metadata.name, '--type', 'merge', '-p', JSON.stringify({ spec: { auth: { validatorURL } } })]);
    if (r.code !== 0) throw new Error(`patch gateway: ${r.stderr}`);
  }
  return before;
}

/** JSON objects in process output: a line is told by its fields (output is prefixed per chunk, not per line). */
function jsonLines(text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of text.split('\n')) {
    const i = line.indexOf('{"');
    if (i < 0) continue;
    try {
      out.push(JSON.parse(line.slice(i)) as Record<string, unknown>);
    } catch {
      // not a JSON line
    }
  }
  return out;
}

/** The namespace of the step's services and key Secrets. */
export const TEAMS = 'teams';
/** Team A's and team B's keys. */
export const KEY_A = 'sk-team-a-0123456789';
export const KEY_B = 'sk-team-b-0123456789';

/** What the step saw. */
export interface AiGateway {
  /** Status per `<key>-><service>`. */
  calls: Record<string, number>;
  /** `/v1/models` ids per key. */
  models: Record<string, string[]>;
  /** Statuses of three concurrent requests with team A's key to teams/chat, sorted, and the 429's Retry-After. */
  burst: { statuses: number[]; retryAfter: string | null };
  /** Callers the stub saw, per path it was asked. */
  reached: { path: string; caller: string | null }[];
  /** Access log lines of the stub's requests: [path, caller]. */
  usage: [string, string | null][];
  /** A served access log line of team A's: the usage fields it carries. */
  usageLine: Record<string, unknown> | undefined;
  /** Per overflow service: the statuses of five requests, and how many reached the busy and the stub backend. */
  overflow: Record<string, { statuses: number[]; busy: number; stub: number }>;
  /** traefik_service_requests_total lines labelled with team A's caller. */
  metrics: string[];
  /** Tokens counted through the usage tap on teams/tokens (docs/ai-gateway.md#usage). */
  tokens: {
    /** A streamed request's status, and whether its stream reached `[DONE]`. */
    stream: { status: number; done: boolean };
    /** The request after the budget is spent: status, Retry-After, error code. */
    limited: { status: number; retryAfter: string | null; code: string | null };
    /** The tap's usage lines for teams/tokens, in order. */
    lines: Record<string, unknown>[];
    /** Traefik's access log line of the metered route for the first counted request (joined by its request id). */
    joined: Record<string, unknown> | undefined;
    /** The validator's modelplane_gateway_* series for teams/tokens. */
    metrics: string[];
  };
  logs: string;
}

/** Team A's token budget on teams/tokens: the stub's answers cost 30 each, so two are served and the third is refused. */
export const TOKENS_PER_MINUTE = 50;

/** The two overflow services: the busy backend (429 on the first, 503 on the second; front-door.ts) first, the stub next. */
const OVERFLOW = ['overflow-429', 'overflow-503'] as const;

const OBJECTS = `apiVersion: v1
kind: Namespace
metadata: {name: ${TEAMS}}
---
apiVersion: v1
kind: Secret
metadata:
  name: team-a
  namespace: ${TEAMS}
  labels: {modelplane.ai/api-keys: "true"}
  annotations: {modelplane.ai/services: '${TEAMS}/chat, ${TEAMS}/tokens'}
stringData: {ci: ${KEY_A}}
---
apiVersion: v1
kind: Secret
metadata:
  name: team-b
  namespace: ${TEAMS}
  labels: {modelplane.ai/api-keys: "true"}
  annotations: {modelplane.ai/services: ${TEAMS}/code}
stringData: {laptop: ${KEY_B}}
---
apiVersion: modelplane.ai/v1alpha1
kind: ModelEndpoint
metadata: {name: stub, namespace: ${TEAMS}, labels: {modelplane.ai/deployment: stub}}
spec: {url: 'http://${STUB_HOST}:${STUB_PORT}'}
---
apiVersion: modelplane.ai/v1alpha1
kind: ModelService
metadata: {name: chat, namespace: ${TEAMS}}
spec:
  endpoints: [{selector: {matchLabels: {modelplane.ai/deployment: stub}}}]
  auth: {type: APIKey, apiKeys: {secretSelector: {matchLabels: {modelplane.ai/api-keys: "true"}}}}
  rateLimit: {requestsPerSecond: 2}
---
apiVersion: modelplane.ai/v1alpha1
kind: ModelService
metadata: {name: tokens, namespace: ${TEAMS}}
spec:
  endpoints: [{selector: {matchLabels: {modelplane.ai/deployment: stub}}}]
  auth: {type: APIKey, apiKeys: {secretSelector: {matchLabels: {modelplane.ai/api-keys: "true"}}}}
  rateLimit: {tokensPerMinute: ${TOKENS_PER_MINUTE}}
---
apiVersion: modelplane.ai/v1alpha1
kind: ModelService
metadata: {name: code, namespace: ${TEAMS}}
spec:
  endpoints: [{selector: {matchLabels: {modelplane.ai/deployment: stub}}}]
  auth: {type: APIKey, apiKeys: {secretSelector: {matchLabels: {modelplane.ai/api-keys: "true"}}}}
---
apiVersion: modelplane.ai/v1alpha1
kind: ModelEndpoint
metadata: {name: busy, namespace: ${TEAMS}, labels: {modelplane.ai/deployment: busy}}
spec: {url: 'http://${STUB_HOST}:${STUB_BUSY_PORT}'}
${OVERFLOW.map(
  (name) => `---
apiVersion: modelplane.ai/v1alpha1
kind: ModelService
metadata: {name: ${name}, namespace: ${TEAMS}}
spec:
  endpoints:
  - {priority: 0, selector: {matchLabels: {modelplane.ai/deployment: busy}}}
  - {priority: 1, selector: {matchLabels: {modelplane.ai/deployment: stub}}}
  auth: {type: None}
`,
).join('')}---
apiVersion: v1
kind: Service
metadata: {name: modelplane-key-validator, namespace: modelplane-system}
spec:
  ports: [{name: http, port: 8080, targetPort: ${VALIDATOR_PORT}, protocol: TCP}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: modelplane-key-validator-e2e
  namespace: modelplane-system
  labels: {kubernetes.io/service-name: modelplane-key-validator}
addressType: IPv4
ports: [{name: http, port: ${VALIDATOR_PORT}, protocol: TCP}]
endpoints: [{addresses: ['${VALIDATOR_HOST}'], conditions: {ready: true}}]
`;

/** Runs the step; every process it starts is stopped before it returns. */
export async function asAiGateway(): Promise<AiGateway> {
  // The usage tap's backend is an EndpointSlice naming the validator, which refuses a loopback address:
  // the gateway names the validator's second address for this step (every service's forwardAuth follows).
  const validatorBefore = setValidatorURL(`http://${VALIDATOR_HOST}:${VALIDATOR_PORT}`);
  try {
    return await aiGatewaySteps();
  } finally {
    // The tap's EndpointSlice would name a loopback validator URL once it is restored, which the API server refuses.
    kubectl(['delete', 'modelservice', '-n', TEAMS, 'tokens', '--ignore-not-found', '--wait=false']);
    if (validatorBefore !== undefined) setValidatorURL(validatorBefore);
  }
}

async function aiGatewaySteps(): Promise<AiGateway> {
  const applied = kubectl(['apply', '-f', '-'], { input: OBJECTS });
  if (applied.code !== 0) throw new Error(`ai-gateway objects: ${applied.stderr}`);
  await eventually('both team services composed with their key split and the rate limit', () => {
    const svc = (name: string) => kubectlJson<Obj>(['get', 'modelservice', '-n', TEAMS, name]);
    const chat = svc('chat');
    const code = svc('code');
    const mws = kubectl(['get', 'middlewares.traefik.io', '-n', TEAMS, '-o', 'jsonpath={range .items[*]}{.metadata.name}{" "}{end}']).stdout;
    // The API server returns object keys sorted: compare the fields, not a serialisation in our order.
    const split = (o: Obj) => {
      const k = o.status?.['apiKeys'] as { namespace?: string; allowed?: string[]; denied?: string[] } | undefined;
      return JSON.stringify(k ? [k.namespace, k.allowed, k.denied] : null);
    };
    return split(chat) === JSON.stringify([TEAMS, ['team-a'], ['team-b']]) &&
      split(code) === JSON.stringify([TEAMS, ['team-b'], ['team-a']]) &&
      mws.includes('chat-rate-limit-') &&
      kubectl(['get', 'traefikservices.traefik.io', '-n', TEAMS, '-o', 'name']).stdout.split('\n').filter((l) => l.includes('/overflow-')).length === 6 &&
      kubectl(['get', 'httproute', '-n', 'modelplane-system', 'modelplane-models']).code === 0
      ? true
      : undefined;
  });

  return withTraefik({ websecure: false }, async ({ reached, log }) => {
    const base = `http://127.0.0.1:${WEB_PORT}`;
    const call = (service: string, key: string | undefined): number => {
      const headers = { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) };
      const script = `fetch(${JSON.stringify(`${base}/${TEAMS}/${service}/v1/chat/completions`)}, { method: 'POST', headers: ${JSON.stringify(headers)}, body: '{"model":"stub","messages":[]}' })
        .then((r) => console.log(r.status)).catch(() => console.log(0))`;
      return Number(nodeInside(script));
    };
    // Traefik routes once its providers have synced: team A's key served on chat says route and Middlewares are in.
    await eventually('Traefik routes the team services', () => (call('code', KEY_B) === 200 ? true : undefined), { timeoutMs: 120_000, state: () => log.text });
    await new Promise((r) => setTimeout(r, 1100)); // a fresh rate-limit bucket for team A
    const calls: Record<string, number> = {
      'a->chat': call('chat', KEY_A),
      'a->code': call('code', KEY_A),
      'b->code': call('code', KEY_B),
      'b->chat': call('chat', KEY_B),
    };
    const models: Record<string, string[]> = {};
    for (const [who, key] of [
      ['a', KEY_A],
      ['b', KEY_B],
    ] as const) {
      const script = `fetch(${JSON.stringify(`${base}/v1/models`)}, { headers: { authorization: 'Bearer ${key}' } })
        .then(async (r) => console.log(JSON.stringify(r.status === 200 ? (await r.json()).data.map((m) => m.id) : [r.status])))`;
      models[who] = (JSON.parse(nodeInside(script)) as string[]).filter((id) => id.startsWith(`${TEAMS}/`));
    }
    await new Promise((r) => setTimeout(r, 1100)); // a full bucket again
    const burstScript = `Promise.all([0, 1, 2].map(() => fetch(${JSON.stringify(`${base}/${TEAMS}/chat/v1/chat/completions`)}, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer ${KEY_A}' }, body: '{}' })))
      .then((rs) => console.log(JSON.stringify({ statuses: rs.map((r) => r.status).sort(), retryAfter: rs.find((r) => r.status === 429)?.headers.get('retry-after') ?? null })))`;
    const burst = JSON.parse(nodeInside(burstScript)) as AiGateway['burst'];
    const overflow: AiGateway['overflow'] = {};
    for (const service of OVERFLOW) {
      const statuses: number[] = [];
      // Open services (auth None) pass a client's Authorization through: call them without a key.
      for (let i = 0; i < 5; i++) statuses.push(call(service, undefined));
      await new Promise((r) => setTimeout(r, 500)); // the stub's last lines reach us
      const seen = reached.filter((r) => r.path.startsWith(`/${TEAMS}/${service}/`));
      overflow[service] = { statuses, busy: seen.filter((r) => r.busy === true).length, stub: seen.filter((r) => r.busy !== true).length };
    }
    const tokens = await countTokens(call, reached, log);
    const metricsText = nodeInside(`fetch('http://127.0.0.1:${METRICS_PORT}/metrics').then((r) => r.text()).then((t) => console.log(t))`);
    const metrics = metricsText.split('\n').filter((l) => l.startsWith('traefik_service_requests_total{') && l.includes('caller="teams/team-a/ci"'));
    await new Promise((r) => setTimeout(r, 1000)); // Traefik writes its access log lines
    let usageLine: Record<string, unknown> | undefined;
    const usage: [string, string | null][] = [];
    for (const line of log.text.split('\n')) {
      const i = line.indexOf('{"');
      // Output is prefixed per chunk, not per line: an access log line is told by its fields, not by the [traefik] prefix.
      if (i < 0) continue;
      try {
        const entry = JSON.parse(line.slice(i)) as Record<string, unknown>;
        const path = entry['RequestPath'];
        if (typeof path === 'string' && /^\/teams\/(chat|code)\//.test(path) && entry['DownstreamStatus'] === 200) {
          usage.push([path, (entry['request_X-Modelplane-Caller'] as string | undefined) ?? null]);
          if (path.startsWith(`/${TEAMS}/chat/`)) usageLine ??= entry;
        }
      } catch {
        // not a JSON line
      }
    }
    return {
      calls,
      models,
      burst,
      reached: reached.filter((r) => /^\/teams\/(chat|code)\//.test(r.path)).map((r) => ({ path: r.path, caller: r.caller })),
      usage,
      usageLine,
      overflow,
      metrics,
      tokens: { ...tokens, ...usageRecords(log.text) },
      logs: log.text,
    };
  });
}

type Running = Parameters<Parameters<typeof withTraefik>[1]>[0];

/**
 * teams/tokens through the usage tap: waits for TokensCounted (poking the XR
 * so it sees its metered route accepted) and for Traefik to send a request
 * through the tap (the stub sees the tap's request id); that first counted
 * request spends 30 of 50 tokens. Then a streamed request is served (50 - 30
 * - 30 < 0) and the next one is refused.
 */
async function countTokens(call: (service: string, key: string | undefined) => number, reached: Running['reached'], log: Running['log']) {
  await eventually(
    'teams/tokens TokensCounted True (its metered route accepted by Traefik)',
    () => {
      const svc = kubectlJson<Obj>(['get', 'modelservice', '-n', TEAMS, 'tokens']);
      if (svc.status?.conditions?.find((c) => c.type === 'TokensCounted')?.status === 'True') return true;
      kubectl(['annotate', 'modelservice', '-n', TEAMS, 'tokens', `modelplane.ai/e2e-poke=${Date.now()}`, '--overwrite']);
      return undefined;
    },
    { timeoutMs: 180_000, state: () => JSON.stringify(kubectlJson<Obj>(['get', 'modelservice', '-n', TEAMS, 'tokens']).status?.conditions) },
  );
  // Checked before each call, so exactly one request goes through the tap here (the stub's line arrives between polls).
  await eventually(
    'Traefik sends teams/tokens through the usage tap',
    () => {
      if (reached.some((r) => r.path.startsWith(`/${TEAMS}/tokens/`) && typeof r.requestId === 'string')) return true;
      call('tokens', KEY_A);
      return undefined;
    },
    { timeoutMs: 120_000, state: () => log.text.slice(-2000) },
  );
  const url = JSON.stringify(`http://127.0.0.1:${WEB_PORT}/${TEAMS}/tokens/v1/chat/completions`);
  const headers = JSON.stringify({ 'content-type': 'application/json', authorization: `Bearer ${KEY_A}` });
  const stream = JSON.parse(
    nodeInside(`fetch(${url}, { method: 'POST', headers: ${headers}, body: '{"model":"stub","stream":true,"stream_options":{"include_usage":true}}' })
      .then(async (r) => console.log(JSON.stringify({ status: r.status, done: (await r.text()).includes('[DONE]') })))`),
  ) as AiGateway['tokens']['stream'];
  const limited = JSON.parse(
    nodeInside(`fetch(${url}, { method: 'POST', headers: ${headers}, body: '{"model":"stub"}' })
      .then(async (r) => console.log(JSON.stringify({ status: r.status, retryAfter: r.headers.get('retry-after'), code: (await r.json().catch(() => ({}))).error?.code ?? null })))`),
  ) as AiGateway['tokens']['limited'];
  const metrics = nodeInside(`fetch('http://127.0.0.1:${VALIDATOR_PORT}/metrics').then((r) => r.text()).then((t) => console.log(t))`)
    .split('\n')
    .filter((l) => l.startsWith('modelplane_gateway_') && l.includes(`service="${TEAMS}/tokens"`));
  await new Promise((r) => setTimeout(r, 1000)); // the tap's and Traefik's last lines
  return { stream, limited, metrics };
}

/** The tap's usage lines for teams/tokens, and Traefik's metered-route line for the first one. */
function usageRecords(text: string): Pick<AiGateway['tokens'], 'lines' | 'joined'> {
  const all = jsonLines(text);
  const lines = all.filter((l) => l['msg'] === 'usage' && l['service'] === `${TEAMS}/tokens`);
  const first = lines[0]?.['requestId'];
  const joined = all.find((l) => typeof first === 'string' && l['request_X-Modelplane-Request-Id'] === first);
  return { lines, joined };
}
