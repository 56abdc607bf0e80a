/**
 * Assembles every remote object of a replica, by desired key, in a fixed
 * order (docs/kinds/modelreplica.md#remote-objects): per engine in spec order its
 * workload, its claim templates, its PodDisruptionBudget
 * (`disruption-budget-<engine>`, lifecycle.ts) and NetworkPolicy
 * (`network-policy-<engine>`, network.ts), then `inference-pool`, `model-route` and
 * the PodMonitor `pod-monitor` (metrics.ts, docs/observability.md) and the six EPP objects.
 *
 * Guarantees:
 * - Backend choice: an engine with a Standalone member runs natively
 *   (Deployment); otherwise Leader + Worker runs as a LeaderWorkerSet. The
 *   Dynamo backend is never selected.
 * - Unified serving (the default) takes the KV block size from the first
 *   engine's serving args; PrefillDecode takes it from the decode engine's,
 *   and decorates the prefill/decode serving pods.
 * - A decode `--port` that is not a usable port is returned as an error
 *   naming the argument, never thrown
 *   (docs/design.md#bad-engine-flags-are-input-errors).
 */
import type { KubeObject } from '../lib/function.js';
import { disaggregatedConfig, eppObjects, unifiedConfig } from './epp.js';
import { DEFAULT_DECODE_PORT, decodePort, kvBlockSize } from './flags.js';
import { disruptionBudget, type Lifecycle, readLifecycle } from './lifecycle.js';
import { lwsWorkload } from './lws.js';
import { applyObservability, podMonitor } from './metrics.js';
import { nativeWorkload, type Workload } from './native.js';
import { networkPolicy } from './network.js';
import { applyPrefillDecode, inferencePool, modelRoute, servingArgs } from './routing.js';
import { ENGINE_PORT, type Replica, roleOf } from './types.js';

/** How provider-kubernetes decides an Object is ready. */
export type ReadinessKind = 'workload' | 'created';

/** One remote object: its desired key, manifest and readiness policy. */
export interface RemoteObject {
  key: string;
  manifest: KubeObject;
  /** `workload`: DeriveFromCelQuery on Available; `created`: SuccessfulCreate. */
  readiness: ReadinessKind;
}

/** Error text of a decode `--port` that gives no usable port. */
export const errDecodePort = (field: string, value: string | undefined): string =>
  `${field}: --port ${value === undefined ? 'has no value' : `"${value}" is not a port number (1-65535)`}; ` +
  `give the decode engine its own port, e.g. --port=${DEFAULT_DECODE_PORT}`;
/** Error text of a decode `--port` that collides with the pd-sidecar. */
export const errDecodePortTaken = (field: string): string =>
  `${field}: --port ${ENGINE_PORT} is the pd-sidecar's port; give the decode engine another port, e.g. --port=${DEFAULT_DECODE_PORT}`;

/** The workload of one engine, by backend. */
export function workloadOf(replica: Replica, index: number, lc: Lifecycle): Workload {
  const engine = replica.spec.engines[index]!;
  return engine.members.some((m) => roleOf(m) === 'Standalone')
    ? nativeWorkload(replica, engine, lc)
    : lwsWorkload(replica, engine, lc);
}

function decodeField(replica: Replica, w: Workload, argIndex: number): string {
  const e = replica.spec.engines.indexOf(w.engine);
  const m = w.engine.members.indexOf(w.servingMember);
  return `spec.engines[${e}].members[${m}].template.spec.containers[0].args[${argIndex}]`;
}

function budgetOf(w: Workload): KubeObject {
  const spec = w.manifest['spec'] as { replicas: number; leaderWorkerTemplate?: { size: number } };
  return disruptionBudget({
    kind: w.manifest.kind ?? '',
    name: w.manifest.metadata?.name ?? '',
    copies: spec.replicas,
    size: spec.leaderWorkerTemplate?.size,
  }) as KubeObject;
}

/** Every remote object of the replica, or the error that prevents composing them. */
export function assemble(replica: Replica, otlpEndpoint?: string): { objects: RemoteObject[] } | { error: string } {
  const lc = readLifecycle(replica);
  if ('error' in lc) return lc;
  const workloads = replica.spec.engines.map((_, i) => workloadOf(replica, i, lc));
  let config: string;
  if (replica.spec.serving?.mode === 'PrefillDecode') {
    const prefill = workloads.find((w) => w.engine.phase === 'Prefill');
    const decode = workloads.find((w) => w.engine.phase === 'Decode');
    if (!prefill || !decode) {
      return { error: 'spec.engines: PrefillDecode serving requires one engine with phase Prefill and one with phase Decode' };
    }
    const port = decodePort(servingArgs(decode));
    if ('index' in port) return { error: errDecodePort(decodeField(replica, decode, port.index), port.value) };
    if (port.port === ENGINE_PORT) {
      const index = servingArgs(decode).findIndex((a) => a === '--port' || a.startsWith('--port='));
      return { error: errDecodePortTaken(decodeField(replica, decode, index)) };
    }
    applyPrefillDecode(replica, prefill, decode, port.port, lc);
    config = disaggregatedConfig(kvBlockSize(servingArgs(decode)));
  } else {
    config = unifiedConfig(kvBlockSize(servingArgs(workloads[0]!)));
  }

  applyObservability(replica, workloads, otlpEndpoint);

  const objects: RemoteObject[] = [];
  const ids = workloads.map((w) => ({ kind: w.manifest.kind ?? '', name: w.manifest.metadata?.name ?? '' }));
  for (const [i, w] of workloads.entries()) {
    objects.push({ key: w.key, manifest: w.manifest, readiness: 'workload' });
    for (const c of w.claims) objects.push({ key: c.key, manifest: c.manifest, readiness: 'created' });
    objects.push({ key: `disruption-budget-${w.engine.name}`, manifest: budgetOf(w), readiness: 'created' });
    objects.push({ key: `network-policy-${w.engine.name}`, manifest: networkPolicy(replica.name, ids[i]!, ids), readiness: 'created' });
  }
  objects.push({ key: 'inference-pool', manifest: inferencePool(replica), readiness: 'created' });
  objects.push({ key: 'model-route', manifest: modelRoute(replica), readiness: 'created' });
  objects.push({ key: 'pod-monitor', manifest: podMonitor(replica, workloads), readiness: 'created' });
  for (const [key, manifest] of eppObjects(replica.name, config)) {
    objects.push({ key, manifest, readiness: key === 'epp' ? 'workload' : 'created' });
  }
  return { objects };
}
