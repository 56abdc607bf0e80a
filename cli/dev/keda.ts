/**
 * KEDA and the Prometheus it queries on the dev control plane
 * (docs/autoscaling.md#on-the-dev-control-plane): the real KEDA operator and
 * metrics adapter, and a real Prometheus, built from their Go modules by
 * scripts/keda-build.sh (tools/keda/go.mod), started by `dev up` when built.
 *
 * - The operator turns each ScaledObject into an HPA and scales 0 ↔ 1
 *   itself; it serves the adapter over mTLS gRPC on 127.0.0.1:9666.
 * - The adapter serves `external.metrics.k8s.io` behind the API server's
 *   aggregation layer: APIService `v1beta1.external.metrics.k8s.io` names
 *   Service keda/keda-metrics-apiserver, an ExternalName Service for
 *   `localhost` (the aggregator dials `<externalName>:<port>`; a ClusterIP
 *   would need a proxy, an EndpointSlice refuses 127/8), port 6444.
 * - The control plane's kube-controller-manager runs the HPA controller
 *   (components.ts), which asks the adapter for the triggers' values.
 * - Prometheus on 127.0.0.1:9090 scrapes what `<dir>/prometheus/targets/*.json`
 *   lists (file service discovery, re-read on change): the e2e step writes
 *   the key validator and the engine stub there. It stands in for the fleet
 *   view the InferenceGateway will compose; `spec.autoscaling.prometheusAddress`
 *   points at it.
 *
 * Certificates: one dev-CA leaf for the operator's gRPC server, the adapter's
 * gRPC client and its serving certificate (127.0.0.1, localhost and the
 * Service's DNS name the aggregator verifies).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../functions/lib/function.js';
import { REPO_ROOT } from '../functions.js';
import { BIN } from './components.js';
import { Pki } from './pki.js';
import type { DevPaths } from './state.js';

/** KEDA's CRDs and version, copied from its module by scripts/keda-build.sh. */
export const KEDA_DIR = join(REPO_ROOT, '.cache', 'keda');
/** The binaries scripts/keda-build.sh builds. */
export const KEDA_BINARIES = ['keda-operator', 'keda-adapter', 'prometheus'] as const;
/** Where each listens (127.0.0.1). */
export const KEDA_PORTS = { prometheus: 9090, operatorMetrics: 8100, operatorProbes: 8101, operatorGrpc: 9666, adapter: 6444, adapterMetrics: 8102 } as const;
/** The namespace of KEDA's objects. */
export const KEDA_NAMESPACE = 'keda';
/** The Prometheus address an autoscaled deployment on the dev control plane names (`spec.autoscaling.prometheusAddress`). */
export const DEV_PROMETHEUS_ADDRESS = `http://127.0.0.1:${KEDA_PORTS.prometheus}`;

/** Why KEDA cannot run here (not built), or undefined. */
export function kedaUnavailable(): string | undefined {
  const missing = KEDA_BINARIES.filter((b) => !existsSync(join(BIN, b)));
  if (missing.length > 0 || !existsSync(join(KEDA_DIR, 'version'))) return `KEDA is not built (${missing.join(', ') || 'its CRDs'} missing: npm run keda:build)`;
  return undefined;
}

/** The dev paths of KEDA and Prometheus under the control plane's directory. */
export function kedaPaths(p: DevPaths) {
  return {
    certs: join(p.dir, 'keda-certs'),
    prometheusConfig: join(p.dir, 'prometheus', 'prometheus.yml'),
    prometheusData: join(p.dir, 'prometheus', 'data'),
    /** File service discovery: each `*.json` a list of `{targets, labels}`. */
    prometheusTargets: join(p.dir, 'prometheus', 'targets'),
  };
}

/** Writes the certificate directory (ca.crt, tls.crt, tls.key) and Prometheus's configuration. */
export async function writeKedaFiles(p: DevPaths): Promise<void> {
  const k = kedaPaths(p);
  const pki = new Pki(p.pki);
  const leaf = await pki.leaf({
    name: 'keda',
    cn: 'keda',
    ips: ['127.0.0.1'],
    dns: ['localhost', `keda-metrics-apiserver.${KEDA_NAMESPACE}.svc`, `keda-operator.${KEDA_NAMESPACE}.svc`],
  });
  mkdirSync(k.certs, { recursive: true });
  writeFileSync(join(k.certs, 'ca.crt'), readFileSync(pki.caCrt));
  writeFileSync(join(k.certs, 'tls.crt'), readFileSync(leaf.crt));
  writeFileSync(join(k.certs, 'tls.key'), readFileSync(leaf.key), { mode: 0o600 });
  for (const d of [k.prometheusData, k.prometheusTargets]) mkdirSync(d, { recursive: true });
  writeFileSync(
    k.prometheusConfig,
    [
      'global: {scrape_interval: 5s, evaluation_interval: 5s}',
      'scrape_configs:',
      '- job_name: dev',
      '  file_sd_configs:',
      `  - files: ['${join(k.prometheusTargets, '*.json')}']`,
      '',
    ].join('\n'),
  );
}

/** Prometheus's command line. */
export function prometheusArgs(p: DevPaths): string[] {
  const k = kedaPaths(p);
  return [
    join(BIN, 'prometheus'),
    `--config.file=${k.prometheusConfig}`,
    `--storage.tsdb.path=${k.prometheusData}`,
    `--web.listen-address=127.0.0.1:${KEDA_PORTS.prometheus}`,
    '--storage.tsdb.retention.time=1d',
    '--log.level=warn',
  ];
}

/** The operator's command line (KUBECONFIG and the namespace come from {@link kedaEnv}). */
export function kedaOperatorArgs(p: DevPaths): string[] {
  return [
    join(BIN, 'keda-operator'),
    `--metrics-bind-address=127.0.0.1:${KEDA_PORTS.operatorMetrics}`,
    `--health-probe-bind-address=127.0.0.1:${KEDA_PORTS.operatorProbes}`,
    `--metrics-service-bind-address=127.0.0.1:${KEDA_PORTS.operatorGrpc}`,
    `--cert-dir=${kedaPaths(p).certs}`,
    '--enable-cert-rotation=false',
    '--enable-webhook-patching=false',
    '--enable-apiservice-patching=false',
    '--leader-elect=false',
    '--zap-log-level=info',
  ];
}

/** The adapter's command line: serving for the aggregator, and a client of the API server as `kubeconfig`. */
export function kedaAdapterArgs(p: DevPaths): string[] {
  const certs = kedaPaths(p).certs;
  return [
    join(BIN, 'keda-adapter'),
    `--secure-port=${KEDA_PORTS.adapter}`,
    '--bind-address=127.0.0.1',
    `--cert-dir=${certs}`,
    `--tls-cert-file=${join(certs, 'tls.crt')}`,
    `--tls-private-key-file=${join(certs, 'tls.key')}`,
    `--authentication-kubeconfig=${p.kubeconfig}`,
    `--authorization-kubeconfig=${p.kubeconfig}`,
    `--lister-kubeconfig=${p.kubeconfig}`,
    `--metrics-service-address=127.0.0.1:${KEDA_PORTS.operatorGrpc}`,
    `--port=${KEDA_PORTS.adapterMetrics}`,
  ];
}

/** The environment of the operator and the adapter. */
export function kedaEnv(p: DevPaths): NodeJS.ProcessEnv {
  return { KUBECONFIG: p.kubeconfig, POD_NAMESPACE: KEDA_NAMESPACE, KEDA_CLUSTER_OBJECT_NAMESPACE: KEDA_NAMESPACE, WATCH_NAMESPACE: '' };
}

/** KEDA's CRDs (every file of `.cache/keda/crds`, each one document). */
export function kedaCrdFiles(): string {
  return join(KEDA_DIR, 'crds');
}

/** The namespace, the adapter's ExternalName Service and its APIService (caBundle: the dev CA, PEM). */
export function kedaObjects(caPem: string): KubeObject[] {
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: KEDA_NAMESPACE } },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'keda-metrics-apiserver', namespace: KEDA_NAMESPACE },
      spec: { type: 'ExternalName', externalName: 'localhost', ports: [{ name: 'https', port: KEDA_PORTS.adapter }] },
    },
    {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1beta1.external.metrics.k8s.io' },
      spec: {
        group: 'external.metrics.k8s.io',
        version: 'v1beta1',
        service: { name: 'keda-metrics-apiserver', namespace: KEDA_NAMESPACE, port: KEDA_PORTS.adapter },
        caBundle: Buffer.from(caPem).toString('base64'),
        groupPriorityMinimum: 100,
        versionPriority: 100,
      },
    },
  ];
}
