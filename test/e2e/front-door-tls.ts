/**
 * The front door over HTTPS through real Traefik (docs/front-door.md), run
 * right after the 401 step (front-door.ts), on the same keyed ModelService:
 *
 * 1. A certificate for `models.modelplane.test`, issued by the dev control
 *    plane's own CA (cli/dev/pki.ts, `<state>/pki/ca.crt`), stored as the
 *    kubernetes.io/tls Secret `modelplane-system/front-door-tls`.
 * 2. Every InferenceGateway patched with `spec.hostname` and
 *    `spec.tls.secretRef` (that Secret); the step waits until the functions
 *    composed what TLS asks for: the Gateway's `websecure` listener naming the
 *    Secret, the redirect HTTPRoute, the service's route on `websecure` and
 *    its address `https://models.modelplane.test/default/keyed-stub`.
 * 3. Traefik runs with entryPoints `web` (127.0.0.1:8000) and `websecure`
 *    (127.0.0.1:8443); the step asks, inside the control plane's network
 *    namespace: over HTTPS (SNI and Host = the hostname, only the dev CA
 *    trusted, the right key) → 200 from the stub, the peer certificate's CN
 *    the hostname; over plain HTTP (Host = the hostname) → 301 with
 *    `Location: https://models.modelplane.test/…`.
 * 4. The gateways are patched back (hostname and tls removed) and the step
 *    waits for the service's address to be plain http again.
 */
import { readFileSync } from 'node:fs';
import { Pki } from '../../cli/dev/pki.js';
import { devPaths } from '../../cli/dev/state.js';
import { E2E_DIR, eventually, kubectl, kubectlJson, type Obj } from './harness.js';
import { NS, nodeInside, RIGHT, SERVICE, withTraefik } from './front-door.js';

/** The hostname the step serves. */
export const TLS_HOST = 'models.modelplane.test';
const SECRET = 'front-door-tls';
const SYSTEM = 'modelplane-system';

/** What the HTTPS step saw. */
export interface OverHttps {
  /** The service's address once TLS was composed. */
  address: string;
  https: { status: number; object: string | undefined; peerCN: string | undefined; authorized: boolean };
  http: { status: number; location: string | null };
  logs: string;
}

function patchGateways(spec: Record<string, unknown>): void {
  for (const g of kubectlJson<{ items: Obj[] }>(['get', 'inferencegateways']).items) {
    const r = kubectl(['patch', 'inferencegateway', g.metadata.name, '--type', 'merge', '-p', JSON.stringify({ spec })]);
    if (r.code !== 0) throw new Error(`patch gateway ${g.metadata.name}: ${r.stderr}`);
  }
}

const serviceAddress = (): string => String(kubectlJson<Obj>(['get', 'modelservice', '-n', NS, SERVICE]).status?.['address'] ?? '');

/** Runs the step; the gateways are patched back and every process stopped before it returns. */
export async function overHttps(): Promise<OverHttps> {
  const pki = new Pki(devPaths(E2E_DIR).pki);
  const leaf = await pki.leaf({ name: 'front-door-tls', cn: TLS_HOST, dns: [TLS_HOST] });
  kubectl(['delete', 'secret', SECRET, '-n', SYSTEM, '--ignore-not-found']);
  const secret = kubectl(['create', 'secret', 'tls', SECRET, '-n', SYSTEM, `--cert=${leaf.crt}`, `--key=${leaf.key}`]);
  if (secret.code !== 0) throw new Error(`tls Secret: ${secret.stderr}`);
  const ca = readFileSync(pki.caCrt, 'utf8');
  patchGateways({ hostname: TLS_HOST, tls: { secretRef: { name: SECRET, namespace: SYSTEM } } });
  try {
    const want = `https://${TLS_HOST}/${NS}/${SERVICE}`;
    await eventually('TLS composed: websecure listener, redirect route, the service on websecure at its https address', () => {
      const gw = kubectlJson<Obj>(['get', 'gateways.gateway.networking.k8s.io', '-n', SYSTEM, 'modelplane']);
      const listeners = (gw.spec?.['listeners'] ?? []) as { name: string; hostname?: string; tls?: { certificateRefs?: { name: string }[] } }[];
      const websecure = listeners.find((l) => l.name === 'websecure');
      const redirect = kubectl(['get', 'httproutes', '-n', SYSTEM, 'modelplane-https-redirect', '-o', 'name']).code === 0;
      const route = kubectlJson<{ items: Obj[] }>(['get', 'httproutes', '-n', NS]).items.find((r) => r.metadata.name.startsWith(SERVICE));
      const parents = (route?.spec?.['parentRefs'] ?? []) as { sectionName?: string }[];
      return websecure?.hostname === TLS_HOST &&
        websecure.tls?.certificateRefs?.[0]?.name === SECRET &&
        redirect &&
        parents.some((p) => p.sectionName === 'websecure') &&
        serviceAddress() === want
        ? true
        : undefined;
    });
    const address = serviceAddress();
    const seen = await withTraefik({ websecure: true }, async ({ log }) => {
      const https = (): OverHttps['https'] => {
        const script = `const req = require('node:https').request({ host: '127.0.0.1', port: 8443, servername: ${JSON.stringify(TLS_HOST)}, ca: ${JSON.stringify(ca)},
            method: 'POST', path: ${JSON.stringify(`/${NS}/${SERVICE}/v1/chat/completions`)},
            headers: { host: ${JSON.stringify(TLS_HOST)}, 'content-type': 'application/json', authorization: ${JSON.stringify(`Bearer ${RIGHT}`)} } }, (res) => {
          const peer = res.socket.getPeerCertificate(); const authorized = res.socket.authorized;
          let t = ''; res.on('data', (c) => (t += c)); res.on('end', () => { let o; try { o = JSON.parse(t).object; } catch {}
            console.log(JSON.stringify({ status: res.statusCode, object: o, peerCN: peer && peer.subject ? peer.subject.CN : undefined, authorized })); });
        });
        req.on('error', () => console.log(JSON.stringify({ status: 0, authorized: false })));
        req.end('{"model":"stub","messages":[]}');`;
        return JSON.parse(nodeInside(script)) as OverHttps['https'];
      };
      const http = (): OverHttps['http'] => {
        const script = `require('node:http').get({ host: '127.0.0.1', port: 8000, path: ${JSON.stringify(`/${NS}/${SERVICE}/v1/models`)}, headers: { host: ${JSON.stringify(TLS_HOST)} } }, (res) => {
            res.resume(); console.log(JSON.stringify({ status: res.statusCode, location: res.headers.location ?? null })); })
          .on('error', () => console.log(JSON.stringify({ status: 0, location: null })));`;
        return JSON.parse(nodeInside(script)) as OverHttps['http'];
      };
      // Traefik serves once its providers have synced: the stub's 200 over HTTPS says listener, certificate and route are in.
      await eventually('Traefik serves the keyed service over HTTPS', () => (https().status === 200 ? true : undefined), {
        timeoutMs: 120_000,
        state: () => log.text,
      });
      return { https: https(), http: http(), logs: log.text };
    });
    return { address, ...seen };
  } finally {
    patchGateways({ hostname: null, tls: null });
  }
}

/** After {@link overHttps}: waits for the service's address to be plain http again; returns it. */
export async function backToHttp(): Promise<string> {
  return eventually('the service is back on http', () => (serviceAddress().startsWith('http://') ? serviceAddress() : undefined));
}
