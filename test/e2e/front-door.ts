/**
 * The front door through real Traefik on the real control plane
 * (docs/front-door.md), the e2e suite's last step: Traefik v3.7.13 (built by
 * `npm run traefik:build`) runs inside the control plane's network namespace
 * with its Gateway API and Kubernetes CRD providers reading the API server,
 * so it routes by the GatewayClass, Gateway, HTTPRoute and Middleware our
 * functions composed there; our key validator runs as its ServiceAccount; a
 * stub OpenAI endpoint (a few lines of Node) is the ModelEndpoint's URL.
 *
 * Changed for loopback, and only that: the stub listens on 10.96.200.1, added
 * to the namespace's loopback device (an EndpointSlice refuses 127/8); the InferenceGateway's
 * `spec.auth.validatorURL` points at the validator's loopback port (the
 * composed default is the in-cluster Service name, which nothing resolves
 * here), which also makes the gateway default `None` for services without
 * their own auth. Traefik reads the API server as a ServiceAccount bound to
 * cluster-admin (Traefik's own RBAC is not what is tested).
 *
 * Last in the suite: the dev runtime also simulates Gateway and HTTPRoute
 * status on the control plane, which a real Traefik writes too.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { inNetns } from '../../cli/dev/processes.js';
import { devPaths, readState } from '../../cli/dev/state.js';
import { condition, E2E_DIR, eventually, kubectl, kubectlJson, type Obj, ROOT } from './harness.js';

/** The Traefik binary the step runs. */
export const TRAEFIK = join(ROOT, '.cache', 'bin', 'traefik');
/** Why the step cannot run here, if it cannot. */
export function frontDoorUnavailable(): string | undefined {
  return existsSync(TRAEFIK) ? undefined : 'Traefik is not built (npm run traefik:build; .ci/run builds it where Go is)';
}

/** The namespace and name of the step's keyed ModelService. */
export const NS = 'default';
export const SERVICE = 'keyed-stub';
export const RIGHT = 'sk-front-door-right';
export const VALIDATOR_PORT = 18080;
/** A second address of the namespace's loopback device the validator answers on, for its EndpointSlice (not 127/8). */
export const VALIDATOR_HOST = '10.96.200.2';
export const STUB_PORT = 18081;
/** The stub's second port, a backend that always answers 429 or 503 (ai-gateway.ts overflow). */
export const STUB_BUSY_PORT = 18082;
/** Traefik's metrics entryPoint (Prometheus, GET /metrics). */
export const METRICS_PORT = 18090;
/** The stub's address: on the namespace's loopback device, but not 127/8 (an EndpointSlice may not name a loopback address). */
export const STUB_HOST = '10.96.200.1';
export const WEB_PORT = 8000; // the composed Gateway's listener port: Traefik binds the entryPoint of that port
/** The composed Gateway's `metered` listener port (the usage tap sends counted requests back there). */
export const METERED_PORT = 8002;
/** The tokens the stub reports per answer. */
export const STUB_USAGE = { prompt: 10, completion: 20 } as const;
/** The composed Gateway's HTTPS listener port (InferenceGateway spec.tls): entryPoint `websecure`. */
const WEBSECURE_PORT = 8443;

/** Traefik's CRDs (IngressRoute, Middleware, …: its CRD provider watches every kind), from the module it was built from. */
function traefikCrds(): string {
  // The released module at the pinned version: the build links a copy of it (tools/traefik/go.mod replaces it).
  const version = /^require github\.com\/traefik\/traefik\/v3 (\S+)$/m.exec(readFileSync(join(ROOT, 'tools', 'traefik', 'go.mod'), 'utf8'))?.[1];
  if (!version) throw new Error('tools/traefik/go.mod does not require github.com/traefik/traefik/v3');
  const dir = execFileSync('go', ['mod', 'download', '-json', `github.com/traefik/traefik/v3@${version}`], { cwd: join(ROOT, 'tools', 'traefik'), encoding: 'utf8' });
  const moduleDir = (JSON.parse(dir) as { Dir: string }).Dir;
  return readFileSync(join(moduleDir, 'docs', 'content', 'reference', 'dynamic-configuration', 'kubernetes-crd-definition-v1.yml'), 'utf8');
}

/** A kubeconfig of ServiceAccount `namespace/name` (a fresh token) for the control plane, written to `file`. */
function serviceAccountKubeconfig(namespace: string, name: string, file: string): { server: string; token: string; ca: string } {
  const token = kubectl(['create', 'token', name, '-n', namespace, '--duration', '1h']);
  if (token.code !== 0) throw new Error(`kubectl create token ${namespace}/${name}: ${token.stderr}`);
  const paths = devPaths(E2E_DIR);
  const admin = parseYaml(readFileSync(paths.kubeconfig, 'utf8')) as { clusters: { cluster: { server: string } }[] };
  const server = admin.clusters[0]!.cluster.server;
  const ca = join(paths.pki, 'ca.crt');
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'cp', cluster: { server, 'certificate-authority': ca } }],
      users: [{ name, user: { token: token.stdout.trim() } }],
      contexts: [{ name: 'cp', context: { cluster: 'cp', user: name } }],
      'current-context': 'cp',
    }),
  );
  return { server, token: token.stdout.trim(), ca };
}

const STUB = `
const http = require('node:http');
http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    // The usage tap's request id only when the request came through the tap (ai-gateway.ts).
    const id = req.headers['x-modelplane-request-id'];
    process.stdout.write(JSON.stringify({ path: req.url, authorization: req.headers['authorization'] ?? null, caller: req.headers['x-modelplane-caller'] ?? null, ...(id ? { requestId: id } : {}) }) + '\\n');
    // The usage an engine reports (ai-gateway.ts counts it through the usage tap): in the body, or in the stream's last chunk.
    const usage = { prompt_tokens: ${STUB_USAGE.prompt}, completion_tokens: ${STUB_USAGE.completion}, total_tokens: ${STUB_USAGE.prompt + STUB_USAGE.completion} };
    if (body.includes('"stream":true')) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: ' + JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'hello' } }], usage: null }) + '\\n\\n');
      res.end('data: ' + JSON.stringify({ object: 'chat.completion.chunk', choices: [], usage }) + '\\n\\ndata: [DONE]\\n\\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'hello' } }], usage }));
  });
}).listen(${STUB_PORT}, '${STUB_HOST}', () => process.stdout.write('listening\\n'));
// A full or failing first-priority backend (ai-gateway.ts): 429 on a path of service overflow-429, else 503.
http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    process.stdout.write(JSON.stringify({ path: req.url, authorization: null, caller: req.headers['x-modelplane-caller'] ?? null, busy: true }) + '\\n');
    res.writeHead(req.url.includes('/overflow-429/') ? 429 : 503, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"busy"}}');
  });
}).listen(${STUB_BUSY_PORT}, '${STUB_HOST}');
`;

/** A process started inside the control plane's network namespace, its output appended to `log`. */
function startInside(name: string, argv: string[], log: { text: string }): ChildProcess {
  const a = inNetns(readState(E2E_DIR)!.netns, argv);
  const c = spawn(a[0]!, a.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
  c.stdout!.on('data', (d: Buffer) => (log.text += `[${name}] ${d}`));
  c.stderr!.on('data', (d: Buffer) => (log.text += `[${name}] ${d}`));
  return c;
}

/** `node -e script` inside the control plane's network namespace; its stdout, trimmed. */
export function nodeInside(script: string): string {
  const a = inNetns(readState(E2E_DIR)!.netns, [process.execPath, '-e', script]);
  return execFileSync(a[0]!, a.slice(1), { encoding: 'utf8' }).trim();
}

/**
 * `modelplane key-validator` as its pod runs it (ServiceAccount
 * modelplane-system/modelplane-key-validator's own token, nothing more),
 * inside the namespace, asked `GET <path>` with `Bearer <key>` for each
 * `[name, path, key?]`: the status per name, the validator's stdout (one line
 * per decision) once every decision is logged, and its stderr.
 */
export async function validatorAsItsServiceAccount(asks: [string, string, string?][]): Promise<{ answers: Record<string, number>; log: string; stderr: string }> {
  const kc = join(E2E_DIR, 'key-validator.kubeconfig');
  serviceAccountKubeconfig('modelplane-system', 'modelplane-key-validator', kc);
  const out = { text: '' };
  let stderr = '';
  const child = startInside('validator', [process.execPath, join(ROOT, 'bin', 'modelplane.js'), 'key-validator', '--listen', '127.0.0.1:0', '--kubeconfig', kc], out);
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  try {
    const address = await new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', () => {
        const m = /"address":"([^"]+)"/.exec(out.text);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`key-validator exited ${code}: ${out.text}`)));
    });
    const answers: Record<string, number> = {};
    for (const [name, path, key] of asks) {
      const headers = JSON.stringify(key ? { authorization: `Bearer ${key}` } : {});
      answers[name] = Number(nodeInside(`fetch(${JSON.stringify(`http://${address}${path}`)}, { headers: ${headers} }).then((r) => console.log(r.status))`));
    }
    await eventually('every decision logged', () => ((out.text.match(/"key check"/g) ?? []).length === asks.length ? true : undefined), { timeoutMs: 30_000 });
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
    return { answers, log: out.text, stderr };
  } finally {
    child.kill('SIGKILL');
  }
}

/** What the step saw: the answers through Traefik, and what the stub received. */
export interface FrontDoor {
  noKey: { status: number; challenge: string | null };
  wrongKey: number;
  rightKey: { status: number; object: string | undefined };
  /** Requests the stub endpoint received (path, and the Authorization and X-Modelplane-Caller headers it saw). */
  reached: { path: string; authorization: string | null; caller: string | null; requestId?: string | null; busy?: boolean }[];
  /** Logs of the validator and Traefik, for a failure message. */
  logs: string;
}

/** Runs the step; every process it starts is stopped before it returns. */
export async function throughTraefik(): Promise<FrontDoor> {
  const crds = kubectl(['apply', '--server-side', '-f', '-'], { input: traefikCrds() });
  if (crds.code !== 0) throw new Error(`Traefik CRDs: ${crds.stderr}`);
  const setup = kubectl(['apply', '-f', '-'], {
    input: `apiVersion: v1
kind: ServiceAccount
metadata: {name: traefik-e2e, namespace: modelplane-system}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: traefik-e2e}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects: [{kind: ServiceAccount, name: traefik-e2e, namespace: modelplane-system}]
---
apiVersion: v1
kind: Secret
metadata: {name: stub-keys, namespace: ${NS}}
stringData: {ci: ${RIGHT}}
---
apiVersion: modelplane.ai/v1alpha1
kind: ModelEndpoint
metadata: {name: stub, namespace: ${NS}, labels: {modelplane.ai/deployment: stub}}
spec: {url: 'http://${STUB_HOST}:${STUB_PORT}'}
---
apiVersion: modelplane.ai/v1alpha1
kind: ModelService
metadata: {name: ${SERVICE}, namespace: ${NS}}
spec:
  endpoints: [{selector: {matchLabels: {modelplane.ai/deployment: stub}}}]
  auth: {type: APIKey, apiKeys: {secretRef: {name: stub-keys}}}
`,
  });
  if (setup.code !== 0) throw new Error(`front-door objects: ${setup.stderr}`);
  for (const g of kubectlJson<{ items: Obj[] }>(['get', 'inferencegateways', '-A']).items) {
    const ns = g.metadata.namespace ? ['-n', g.metadata.namespace] : [];
    const patch = JSON.stringify({ spec: { auth: { type: 'None', validatorURL: `http://127.0.0.1:${VALIDATOR_PORT}` } } });
    const r = kubectl(['patch', 'inferencegateway', g.metadata.name, ...ns, '--type', 'merge', '-p', patch]);
    if (r.code !== 0) throw new Error(`patch gateway: ${r.stderr}`);
  }
  await eventually('the keyed service routes to the stub with its key Middleware', () => {
    const ms = kubectlJson<Obj>(['get', 'modelservice', '-n', NS, SERVICE]);
    const mw = kubectl(['get', 'middlewares.traefik.io', '-n', NS, '-o', 'jsonpath={.items[*].spec.forwardAuth.address}']).stdout;
    const rules = (kubectlJson<{ items: Obj[] }>(['get', 'httproutes', '-n', NS]).items.find((r) => r.metadata.name.startsWith(SERVICE))?.spec?.['rules'] ??
      []) as { backendRefs?: unknown[] }[];
    return ms.status?.['auth'] === 'APIKey' &&
      condition(ms, 'Authenticated') === 'True' &&
      mw.includes(`http://127.0.0.1:${VALIDATOR_PORT}/${NS}/stub-keys`) &&
      rules.some((r) => (r.backendRefs ?? []).length > 0)
      ? true
      : undefined;
  });

  return withTraefik({ websecure: false }, async ({ reached, log }) => {
    const url = `http://127.0.0.1:${WEB_PORT}/${NS}/${SERVICE}/v1/chat/completions`;
    const ask = (key?: string): { status: number; challenge: string | null; object?: string } => {
      const script = `fetch(${JSON.stringify(url)}, { method: 'POST', headers: ${JSON.stringify({ 'content-type': 'application/json', 'x-modelplane-caller': 'forged', ...(key ? { authorization: `Bearer ${key}` } : {}) })}, body: '{"model":"stub","messages":[]}' })
        .then(async (r) => { const t = await r.text(); let o; try { o = JSON.parse(t).object; } catch {} console.log(JSON.stringify({ status: r.status, challenge: r.headers.get('www-authenticate'), object: o })); })
        .catch(() => console.log(JSON.stringify({ status: 0, challenge: null })))`;
      return JSON.parse(nodeInside(script)) as { status: number; challenge: string | null; object?: string };
    };
    // Traefik routes once its providers have synced: the validator's 401 says route and Middleware are in.
    await eventually('Traefik routes the keyed service', () => (ask().status === 401 ? true : undefined), { timeoutMs: 120_000, state: () => log.text });
    const noKey = ask();
    const wrongKey = ask('sk-wrong').status;
    const right = ask(RIGHT);
    await new Promise((r) => setTimeout(r, 500));
    return { noKey: { status: noKey.status, challenge: noKey.challenge }, wrongKey, rightKey: { status: right.status, object: right.object }, reached, logs: log.text };
  });
}

/** The stub's received requests and the processes' logs, while {@link withTraefik} runs. */
export interface Running {
  reached: FrontDoor['reached'];
  log: { text: string };
}

/**
 * Runs `body` while the stub endpoint, the key validator and Traefik run
 * inside the control plane's network namespace; Traefik's entryPoint `web` on
 * 127.0.0.1:8000 and, with `websecure`, `websecure` on 127.0.0.1:8443 (its
 * Gateway API provider maps a listener to the entryPoint of the listener's
 * port). Every process it starts is stopped before it returns.
 */
export async function withTraefik<T>(opts: { websecure: boolean }, body: (r: Running) => Promise<T>): Promise<T> {
  const children: ChildProcess[] = [];
  const log = { text: '' };
  const start = (name: string, argv: string[]) => {
    const c = startInside(name, argv, log);
    children.push(c);
    return c;
  };
  for (const host of [STUB_HOST, VALIDATOR_HOST]) {
    const lo = inNetns(readState(E2E_DIR)!.netns, ['ip', 'addr', 'replace', `${host}/32`, 'dev', 'lo']);
    execFileSync(lo[0]!, lo.slice(1));
  }
  try {
    const reached: FrontDoor['reached'] = [];
    const stub = start('stub', [process.execPath, '-e', STUB]);
    stub.stdout!.on('data', (d: Buffer) => {
      for (const line of d.toString().split('\n')) if (line.startsWith('{')) reached.push(JSON.parse(line) as FrontDoor['reached'][number]);
    });
    const validatorKc = join(E2E_DIR, 'front-door-validator.kubeconfig');
    serviceAccountKubeconfig('modelplane-system', 'modelplane-key-validator', validatorKc);
    // Every address of the namespace: forwardAuth asks 127.0.0.1, and Traefik sends /v1/models to the
    // selectorless Service modelplane-key-validator whose EndpointSlice names VALIDATOR_HOST (ai-gateway.ts).
    // Its usage tap sends counted requests back to Traefik's metered entryPoint (docs/ai-gateway.md#usage).
    start('validator', [
      process.execPath,
      join(ROOT, 'bin', 'modelplane.js'),
      'key-validator',
      '--listen',
      `0.0.0.0:${VALIDATOR_PORT}`,
      '--kubeconfig',
      validatorKc,
      '--usage-upstream',
      `http://127.0.0.1:${METERED_PORT}`,
    ]);
    const tk = serviceAccountKubeconfig('modelplane-system', 'traefik-e2e', join(E2E_DIR, 'front-door-traefik.kubeconfig'));
    const k8s = (p: string) => [`--providers.${p}.endpoint=${tk.server}`, `--providers.${p}.token=${tk.token}`, `--providers.${p}.certAuthFilePath=${tk.ca}`];
    start('traefik', [
      TRAEFIK,
      `--entryPoints.web.address=127.0.0.1:${WEB_PORT}`,
      ...(opts.websecure ? [`--entryPoints.websecure.address=127.0.0.1:${WEBSECURE_PORT}`] : []),
      `--entryPoints.metered.address=127.0.0.1:${METERED_PORT}`,
      '--providers.kubernetesgateway=true',
      ...k8s('kubernetesgateway'),
      '--providers.kubernetescrd=true',
      ...k8s('kubernetescrd'),
      '--log.level=ERROR',
      // The usage log the InferenceGateway composes into Traefik's values (docs/ai-gateway.md#usage).
      '--accesslog=true',
      '--accesslog.format=json',
      '--accesslog.fields.headers.defaultmode=drop',
      '--accesslog.fields.headers.names.X-Modelplane-Caller=keep',
      '--accesslog.fields.headers.names.X-Modelplane-Request-Id=keep',
      // Requests by caller, as the InferenceGateway's Traefik values ask (docs/ai-gateway.md#usage).
      '--metrics.prometheus=true',
      '--metrics.prometheus.addServicesLabels=true',
      '--metrics.prometheus.headerlabels.caller=X-Modelplane-Caller',
      '--metrics.prometheus.entryPoint=metrics',
      `--entryPoints.metrics.address=127.0.0.1:${METRICS_PORT}`,
      '--global.checkNewVersion=false',
      '--global.sendAnonymousUsage=false',
    ]);
    return await body({ reached, log });
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1000));
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  }
}
