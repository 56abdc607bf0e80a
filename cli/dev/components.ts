/**
 * The command line of each component of the dev control plane, and the
 * binaries they need (all under `.cache/bin/`, built from the Go modules in
 * tools/ by scripts/kube-build.sh and scripts/crossplane-build.sh).
 *
 * Everything listens on 127.0.0.1 inside the control plane's network
 * namespace (state.ts PORTS). The workload API server shares the etcd under
 * its own key prefix. Flags follow REAL-CONTROL-PLANE.md.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../functions.js';
import { FUNCTION_NODE_FLAGS } from '../node-flags.js';
import { LWS_CRD } from './lws.js';
import { type DevPaths, PORTS, type WorkloadServer } from './state.js';

/** Where the Go-built binaries are. */
export const BIN = join(REPO_ROOT, '.cache', 'bin');
/** Crossplane core's own CRDs (cluster/crds of the core module), copied by crossplane:build. */
export const CROSSPLANE_CRDS = join(REPO_ROOT, '.cache', 'crossplane', 'crds');
/** provider-kubernetes' package folder and version, copied by kube-build. */
export const PROVIDER_KUBERNETES_PACKAGE = join(REPO_ROOT, '.cache', 'provider-kubernetes');
/** kwok's own node stages (initialize, heartbeat with a lease) and its version, copied by kube-build. */
export const KWOK_STAGES = join(REPO_ROOT, '.cache', 'kwok');

/** Binaries (and copied folders) a control plane needs; the build script of each. */
export const REQUIRED: readonly { path: string; script: string }[] = [
  ...['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kubectl', 'kwok', 'lws-controller', 'registry', 'provider-kubernetes'].map((b) => ({
    path: join(BIN, b),
    script: 'scripts/kube-build.sh',
  })),
  { path: join(PROVIDER_KUBERNETES_PACKAGE, 'version'), script: 'scripts/kube-build.sh' },
  { path: join(KWOK_STAGES, 'version'), script: 'scripts/kube-build.sh' },
  { path: LWS_CRD, script: 'scripts/kube-build.sh' },
  ...['crossplane-core', 'crossplane'].map((b) => ({ path: join(BIN, b), script: 'scripts/crossplane-build.sh' })),
  { path: CROSSPLANE_CRDS, script: 'scripts/crossplane-build.sh' },
];

/** The required paths that do not exist. */
export function missingBinaries(): string[] {
  return REQUIRED.filter((r) => !existsSync(r.path)).map((r) => r.path);
}

const bin = (name: string) => join(BIN, name);

/** etcd, unsynced (a throwaway store). */
export function etcdArgs(p: DevPaths): string[] {
  const client = `http://127.0.0.1:${PORTS.etcdClient}`;
  const peer = `http://127.0.0.1:${PORTS.etcdPeer}`;
  return [
    bin('etcd'),
    `--data-dir=${p.etcd}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=default=${peer}`,
    '--unsafe-no-fsync',
    '--log-level=warn',
  ];
}

/**
 * kube-apiserver: the control plane's, or with `workload` one standing in
 * for a workload cluster (state.ts workloadServer; they share one serving
 * certificate, `pki/workload-apiserver.crt`).
 */
export function apiserverArgs(p: DevPaths, workload?: WorkloadServer): string[] {
  const cert = workload ? 'workload-apiserver' : 'apiserver';
  const name = workload ? `${workload.name}-apiserver` : 'apiserver';
  return [
    bin('kube-apiserver'),
    `--etcd-servers=http://127.0.0.1:${PORTS.etcdClient}`,
    `--etcd-prefix=${workload ? workload.etcdPrefix : '/registry'}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--secure-port=${workload ? workload.apiserverPort : PORTS.apiserver}`,
    '--endpoint-reconciler-type=none',
    `--tls-cert-file=${join(p.pki, `${cert}.crt`)}`,
    `--tls-private-key-file=${join(p.pki, `${cert}.key`)}`,
    `--client-ca-file=${join(p.pki, 'ca.crt')}`,
    `--service-account-key-file=${join(p.pki, 'sa.pub')}`,
    `--service-account-signing-key-file=${join(p.pki, 'sa.key')}`,
    '--service-account-issuer=https://kubernetes.default.svc',
    '--authorization-mode=RBAC',
    '--service-cluster-ip-range=10.96.0.0/16',
    '--enable-priority-and-fairness=false',
    // MutatingAdmissionPolicy is beta (off by default) in 1.35; the control plane uses one (admission.ts).
    '--feature-gates=MutatingAdmissionPolicy=true',
    '--runtime-config=admissionregistration.k8s.io/v1beta1=true',
    // The aggregation layer (the control plane's): KEDA's metrics adapter serves external.metrics.k8s.io
    // behind it (keda.ts); the API server proxies as front-proxy-client, the adapter trusts the dev CA.
    ...(workload
      ? []
      : [
          `--requestheader-client-ca-file=${join(p.pki, 'ca.crt')}`,
          '--requestheader-allowed-names=front-proxy-client',
          '--requestheader-username-headers=X-Remote-User',
          '--requestheader-group-headers=X-Remote-Group',
          '--requestheader-extra-headers-prefix=X-Remote-Extra-',
          `--proxy-client-cert-file=${join(p.pki, 'front-proxy-client.crt')}`,
          `--proxy-client-key-file=${join(p.pki, 'front-proxy-client.key')}`,
        ]),
    `--audit-log-path=${join(p.logs, `${name}-audit.log`)}`,
    `--audit-policy-file=${join(p.dir, 'audit-policy.yaml')}`,
    '--v=0',
  ];
}

/**
 * The audit policy (`logs/<apiserver>-audit.log`): one line per write
 * (create, update, patch, delete) at Metadata level, so a settled control
 * plane can be shown to write nothing. Leases are left out: the API server
 * renews its own identity lease every 10 s, whatever the fleet does.
 */
export const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  resources: [{group: coordination.k8s.io, resources: [leases]}]
- level: Metadata
  verbs: [create, update, patch, delete, deletecollection]
- level: None
`;

/**
 * The controllers of the control plane's kube-controller-manager: what
 * Crossplane needs of it (garbage collection, namespaces, service accounts),
 * and the HPA controller, which scales an autoscaled ModelDeployment through
 * the HPA its KEDA ScaledObject owns (keda.ts, docs/autoscaling.md).
 */
export const CONTROL_PLANE_CONTROLLERS = [
  'garbage-collector-controller',
  'namespace-controller',
  'serviceaccount-controller',
  'serviceaccount-token-controller',
  'horizontal-pod-autoscaler-controller',
];

/**
 * The controllers of a workload cluster's kube-controller-manager: every
 * default one (deployment, replicaset, statefulset, daemonset, job,
 * disruption, endpointslice, the DRA resourceclaim controller, node
 * lifecycle, ...) less those that need what no dev cluster has: a volume
 * provisioner and attacher (the cache's RWX volumes stay simulated:
 * runtime/clusters.ts), a cloud (service and node load balancers, routes)
 * and a pod network (node IPAM).
 */
export const WORKLOAD_CONTROLLERS = [
  '*',
  '-persistentvolume-binder-controller',
  '-persistentvolume-expander-controller',
  '-persistentvolume-protection-controller',
  '-persistentvolumeclaim-protection-controller',
  '-persistentvolume-attach-detach-controller',
  '-ephemeral-volume-controller',
  '-node-ipam-controller',
  '-service-lb-controller',
  '-node-route-controller',
  '-cloud-node-lifecycle-controller',
];

/** kube-controller-manager: the control plane's ({@link CONTROL_PLANE_CONTROLLERS}) or a workload cluster's ({@link WORKLOAD_CONTROLLERS}). */
export function controllerManagerArgs(p: DevPaths, workload?: WorkloadServer): string[] {
  return [
    bin('kube-controller-manager'),
    `--kubeconfig=${workload ? workload.controllerManagerKubeconfig : p.controllerManagerKubeconfig}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${workload ? workload.controllerManagerPort : PORTS.controllerManager}`,
    `--controllers=${(workload ? WORKLOAD_CONTROLLERS : CONTROL_PLANE_CONTROLLERS).join(',')}`,
    `--service-account-private-key-file=${join(p.pki, 'sa.key')}`,
    `--root-ca-file=${join(p.pki, 'ca.crt')}`,
    '--leader-elect=false',
    '--use-service-account-credentials=false',
  ];
}

/**
 * kube-scheduler of the workload cluster, with its default profile: DRA
 * (the DynamicResources plugin, GA in 1.34) allocates each pod's
 * ResourceClaims from the ResourceSlices the nodes publish.
 */
export function schedulerArgs(workload: WorkloadServer): string[] {
  return [
    bin('kube-scheduler'),
    `--kubeconfig=${workload.schedulerKubeconfig}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${workload.schedulerPort}`,
    '--leader-elect=false',
  ];
}

/**
 * kwok on the workload cluster: it plays the kubelet of the nodes annotated
 * `kwok.x-k8s.io/node: fake` (runtime/nodes.ts creates them), moving their
 * pods through the stages of `<dir>/kwok.yaml` (kwok.ts).
 */
export function kwokArgs(p: DevPaths, workload: WorkloadServer): string[] {
  return [
    bin('kwok'),
    `--kubeconfig=${workload.kwokKubeconfig}`,
    `--config=${p.kwokConfig}`,
    '--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake',
    // Heartbeats through node Leases (kwok's node-heartbeat-with-lease stage renews the status only
    // every 10 minutes): without one, the node lifecycle controller marks the node NotReady after
    // its 50-s grace period and sets every pod on it not Ready.
    '--node-lease-duration-seconds=40',
    `--server-address=127.0.0.1:${workload.kwokPort}`,
    '--node-ip=127.0.0.1',
    '--cidr=10.244.0.0/16',
  ];
}

/**
 * The LeaderWorkerSet controller of workload API server `w` (lws.ts), with
 * its configuration file; it reaches the server with the controller
 * manager's credentials (`KUBECONFIG`, set by `dev up`).
 */
export function lwsArgs(w: WorkloadServer): string[] {
  return [bin('lws-controller'), `--config=${w.lwsConfig}`];
}

/** The OCI registry packages are pushed to and pulled from. */
export function registryArgs(p: DevPaths): string[] {
  return [
    bin('registry'),
    `-address=127.0.0.1:${PORTS.registry}`,
    `-tls-cert=${join(p.pki, 'registry.crt')}`,
    `-tls-key=${join(p.pki, 'registry.key')}`,
    `-blobs=${p.blobs}`,
  ];
}

/**
 * The watch circuit breaker burst Modelplane needs of Crossplane core (its
 * default: 100 events per XR, refilled 1/s). Measured on this control plane
 * (core v2.3.4, `MODELPLANE_DEV_CORE_DEBUG=1 modelplane dev up`, one EKS
 * InferenceCluster): creating an EKSCluster maps about 380 watch events to
 * it within 20 s, though its 57 composed resources are written about twice
 * each. Core's watches replay existing objects of a kind as each new one is
 * composed (an object of a kind with N objects is seen about 3 x N times),
 * and an update counts twice (old and new object). With the default the
 * circuit opens during creation and, because it closes only on an event
 * after its 5-minute cooldown, a fleet that then settles keeps reporting
 * `WatchCircuitOpen`. docs/operating.md#installing-on-your-control-plane:
 * install Crossplane with the same flag.
 *
 * An InferenceCluster requires the ModelReplicas placed on it, so it hears
 * about every write to each of them: measured on the convergence bench's
 * fleet (`npm run bench -- convergence`, core v2.4.0), about 40 events per
 * replica over its life (created, its composed resources turning Ready one
 * by one in its status, deleted). With 100 deployments applied at once, 97
 * replicas first land on the one cluster Ready at that moment before the
 * ledger sends 87 of them elsewhere (docs/concepts.md#capacity-across-deployments),
 * and a burst of 1,000 opened that cluster's circuit (2,005 events
 * dropped). 5,000 covers a burst of about 120 replicas onto one cluster.
 */
export const CIRCUIT_BREAKER_BURST = 5000;

/**
 * Crossplane core (v2.4), out of cluster, with the External package runtime.
 * Realtime compositions are on (core's default, spelled out): core watches
 * each XR's composed resources and every resource its functions require, and
 * re-runs the XR on a change; a function's response TTL (60 s in ours) is
 * then its requeue interval, a backstop (tools/crossplane/README.md).
 *
 * Its webhook server is on, as in a Helm install: core's Usage controllers
 * run only with it, and its `/validate-no-usages` webhook is what refuses to
 * delete an object a Usage holds (a ProviderConfig while its Objects still
 * exist, docs/workload-clusters.md). It serves on 127.0.0.1 with the dev
 * CA's certificate; `coreWebhookConfiguration` points the API server at it.
 */
export function coreArgs(p: DevPaths): string[] {
  return [
    bin('crossplane-core'),
    'core',
    'start',
    `--webhook-port=${PORTS.coreWebhook}`,
    `--tls-server-certs-dir=${p.coreServerCerts}`,
    '--enable-realtime-compositions',
    ...(process.env['MODELPLANE_DEV_CORE_DEBUG'] ? ['--debug'] : []),
    `--circuit-breaker-burst=${CIRCUIT_BREAKER_BURST}`,
    '--package-runtime=External',
    `--xpkg-cache-dir=${p.xpkgCache}`,
    `--tls-client-certs-dir=${p.coreClientCerts}`,
    `--ca-bundle-path=${join(p.pki, 'ca.crt')}`,
  ];
}

/**
 * provider-kubernetes, out of cluster, every port on loopback, with its
 * watches on: an Object with `spec.watch: true` (every Object whose
 * readiness we derive from the remote status, functions/lib/objects.ts) is
 * re-observed when its remote object changes, not on the next poll.
 */
export function providerKubernetesArgs(): string[] {
  return [
    bin('provider-kubernetes'),
    '--enable-watches',
    `--webhook-port=${PORTS.providerKubernetesWebhook}`,
    `--metrics-bind-address=127.0.0.1:${PORTS.providerKubernetesMetrics}`,
    `--health-probe-bind-addr=127.0.0.1:${PORTS.providerKubernetesHealth}`,
    '--poll=1m',
  ];
}

/** One of our own commands, run with the Node that runs this one. */
export function modelplaneArgs(...args: string[]): string[] {
  return [process.execPath, join(REPO_ROOT, 'bin', 'modelplane.js'), ...args];
}

/** `modelplane serve ...`, with the Node flags a function image runs with (cli/node-flags.ts). */
export function serveArgs(...args: string[]): string[] {
  return [process.execPath, ...FUNCTION_NODE_FLAGS, join(REPO_ROOT, 'bin', 'modelplane.js'), 'serve', ...args];
}
