/**
 * The LeaderWorkerSet controller of each workload API server
 * (`sigs.k8s.io/lws`, built from its module by scripts/kube-build.sh): what a
 * gang (a Leader/Worker member) is run by in a real cluster, where the
 * serving stack installs it with its Helm chart. Here it runs out of cluster,
 * one per workload API server, as the chart configures it except where a
 * cluster's network is missing (docs/workload-clusters.md):
 *
 * - its webhooks (LeaderWorkerSet defaulting and validation; the pod webhook
 *   that labels each pod with its group and worker index and gives it the
 *   leader's address) are reached by URL on 127.0.0.1 instead of through a
 *   Service, with a certificate of the dev CA instead of its own rotating one
 *   (`internalCertManagement` off);
 * - one replica, so no leader election; no metrics endpoint.
 *
 * Its CRD and webhook configurations are applied by `dev up` before it
 * starts (the chart's own order: CRDs, then the webhooks with the manager).
 */
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { KubeObject } from '../../functions/lib/function.js';
import { REPO_ROOT } from '../functions.js';
import type { WorkloadServer } from './state.js';

/** The module's CRD (`config/crd/bases`) and version, copied by kube-build. */
export const LWS_DIR = join(REPO_ROOT, '.cache', 'lws');
/** The LeaderWorkerSet CRD file in {@link LWS_DIR}. */
export const LWS_CRD = join(LWS_DIR, 'leaderworkerset.x-k8s.io_leaderworkersets.yaml');

/**
 * The controller's configuration file (`config.lws.x-k8s.io/v1alpha1`
 * Configuration, the `--config` the chart mounts).
 *
 * @param certDir a directory holding tls.crt and tls.key for 127.0.0.1
 */
export function lwsConfig(w: WorkloadServer, certDir: string): string {
  return stringify({
    apiVersion: 'config.lws.x-k8s.io/v1alpha1',
    kind: 'Configuration',
    leaderElection: { leaderElect: false },
    internalCertManagement: { enable: false },
    webhook: { host: '127.0.0.1', port: w.lwsWebhookPort, certDir },
    metrics: { bindAddress: '0' },
    health: { healthProbeBindAddress: `127.0.0.1:${w.lwsHealthPort}` },
  });
}

/**
 * The chart's webhook configurations (the module's `config/webhook/manifests.yaml`
 * with its patches: the pod webhooks only for pods labelled
 * `leaderworkerset.sigs.k8s.io/name`), each reaching the controller by URL.
 *
 * @param caBundle PEM of the CA that signed the controller's certificate
 */
export function lwsWebhookConfigurations(w: WorkloadServer, caBundle: string): KubeObject[] {
  const clientConfig = (path: string) => ({ url: `https://127.0.0.1:${w.lwsWebhookPort}${path}`, caBundle: Buffer.from(caBundle).toString('base64') });
  const lwsRule = (operations: string[]) => ({ apiGroups: ['leaderworkerset.x-k8s.io'], apiVersions: ['v1'], operations, resources: ['leaderworkersets'] });
  const podRule = (operations: string[]) => ({ apiGroups: [''], apiVersions: ['v1'], operations, resources: ['pods'] });
  const lwsPods = { matchExpressions: [{ key: 'leaderworkerset.sigs.k8s.io/name', operator: 'Exists' }] };
  const hook = (name: string, path: string, rule: JsonRule, objectSelector?: typeof lwsPods) => ({
    name,
    admissionReviewVersions: ['v1'],
    clientConfig: clientConfig(path),
    failurePolicy: 'Fail',
    sideEffects: 'None',
    rules: [rule],
    ...(objectSelector ? { objectSelector } : {}),
  });
  return [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'lws-mutating-webhook-configuration' },
      webhooks: [
        hook('mleaderworkerset.kb.io', '/mutate-leaderworkerset-x-k8s-io-v1-leaderworkerset', lwsRule(['CREATE', 'UPDATE'])),
        hook('mpod.kb.io', '/mutate--v1-pod', podRule(['CREATE']), lwsPods),
      ],
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'lws-validating-webhook-configuration' },
      webhooks: [
        hook('vleaderworkerset.kb.io', '/validate-leaderworkerset-x-k8s-io-v1-leaderworkerset', lwsRule(['CREATE', 'UPDATE'])),
        hook('vpod.kb.io', '/validate--v1-pod', podRule(['CREATE', 'UPDATE']), lwsPods),
      ],
    },
  ];
}

type JsonRule = { apiGroups: string[]; apiVersions: string[]; operations: string[]; resources: string[] };
