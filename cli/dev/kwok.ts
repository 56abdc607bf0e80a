/**
 * kwok's configuration for the dev workload cluster (`<dir>/kwok.yaml`):
 * kwok's own node stages (initialize, heartbeat with a lease; copied from
 * its module by scripts/kube-build.sh into `.cache/kwok/`) and our pod
 * stages, which play the kubelet of a GPU node that runs a model server:
 *
 * 1. `pod-start` (a pod bound to a kwok node, no pod IP yet, after 1 s):
 *    Running, containers started but not ready, pod IP from kwok's CIDR;
 * 2. `pod-ready-engine` (a pod with `spec.resourceClaims`: an engine that
 *    claims devices, `modelLoadSeconds` after it started): Ready, the time a
 *    model server takes to load its weights;
 *    `pod-ready` (any other pod, after 1 s): Ready;
 *    `pod-complete` (a Running pod of a Job, 2 s after it started): Succeeded,
 *    its containers exited 0 (a cache's weight download, instantly);
 * 3. `pod-delete` (a pod being deleted, no finalizers left): removed at its
 *    `metadata.deletionTimestamp`, which the API server sets to the deletion
 *    time plus the pod's `terminationGracePeriodSeconds`: the kubelet's
 *    graceful termination with an engine that drains for its whole grace
 *    period.
 *
 * Probes are not run (no container runs): readiness is the load time above.
 * docs/workload-clusters.md explains what is real and what is simulated.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Seconds an engine pod takes from Running to Ready when `dev up --model-load` is not given. */
export const DEFAULT_MODEL_LOAD_SECONDS = 10;

/** The annotation kwok manages nodes by (kwokArgs). */
export const KWOK_NODE_ANNOTATION = 'kwok.x-k8s.io/node';

/** kwok's own node stage files, in `.cache/kwok/`. */
export const KWOK_NODE_STAGE_FILES = ['node-initialize.yaml', 'node-heartbeat-with-lease.yaml'];

const NOT_DELETED = expr('.metadata.deletionTimestamp', 'DoesNotExist');

/** Conditions and container statuses of a started pod, ready or not. */
function runningStatus(ready: boolean): string {
  const r = ready ? 'True' : 'False';
  return `    statusTemplate: |
      {{ $now := Now }}
      {{ $root := . }}
      conditions:
      - lastTransitionTime: {{ or (index $root.status "startTime") $now | Quote }}
        status: "True"
        type: Initialized
      - lastTransitionTime: {{ $now | Quote }}
        status: "${r}"
        type: Ready
      - lastTransitionTime: {{ $now | Quote }}
        status: "${r}"
        type: ContainersReady
      containerStatuses:
      {{ range $index, $item := .spec.containers }}
      - image: {{ $item.image | Quote }}
        name: {{ $item.name | Quote }}
        ready: ${ready}
        restartCount: 0
        started: true
        state:
          running:
            startedAt: {{ or (index $root.status "startTime") $now | Quote }}
      {{ end }}
      hostIP: {{ NodeIPWith .spec.nodeName | Quote }}
      podIP: {{ or (index $root.status "podIP") (PodIPWith .spec.nodeName false .metadata.uid .metadata.name .metadata.namespace) | Quote }}
      phase: Running
      startTime: {{ or (index $root.status "startTime") $now | Quote }}`;
}

/** One selector expression of a stage: `key`, `operator` and optional `values`. */
function expr(key: string, operator: 'In' | 'Exists' | 'DoesNotExist', values?: string[]): string {
  const lines = [`    - key: '${key}'`, `      operator: '${operator}'`];
  if (values) lines.push(`      values: [${values.map((v) => `'${v}'`).join(', ')}]`);
  return lines.join('\n');
}

const RUNNING = expr('.status.phase', 'In', ['Running']);
const NOT_READY = expr('.status.conditions.[] | select( .type == "Ready" ) | .status', 'In', ['False']);

/** A kwok Stage on pods: matched by every expression, played after `delay` (YAML lines under `delay:`), then `next` (lines under `next:`). */
function podStage(name: string, expressions: string[], delay: string, next: string): string {
  return `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: ${name}
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
${expressions.join('\n')}
  delay:
${delay}
  next:
${next}`;
}

const after = (ms: number) => `    durationMilliseconds: ${ms}`;

/** Status of a pod whose Job container exited 0. */
const COMPLETED = `    statusTemplate: |
      {{ $now := Now }}
      {{ $root := . }}
      conditions:
      - lastTransitionTime: {{ $now | Quote }}
        status: "False"
        reason: PodCompleted
        type: Ready
      - lastTransitionTime: {{ $now | Quote }}
        status: "False"
        reason: PodCompleted
        type: ContainersReady
      containerStatuses:
      {{ range $index, $item := .spec.containers }}
      - image: {{ $item.image | Quote }}
        name: {{ $item.name | Quote }}
        ready: false
        restartCount: 0
        started: false
        state:
          terminated:
            exitCode: 0
            reason: Completed
            finishedAt: {{ $now | Quote }}
            startedAt: {{ or (index $root.status "startTime") $now | Quote }}
      {{ end }}
      phase: Succeeded`;

/** Our pod stages (see the module comment); `modelLoadSeconds` is the engines' Running → Ready time. */
export function podStages(modelLoadSeconds: number): string {
  const stages = [
    podStage('pod-start', [NOT_DELETED, expr('.status.podIP', 'DoesNotExist')], after(1000), runningStatus(false)),
    podStage('pod-ready-engine', [NOT_DELETED, RUNNING, NOT_READY, expr('.spec.resourceClaims', 'Exists')], after(Math.round(modelLoadSeconds * 1000)), runningStatus(true)),
    podStage('pod-ready', [NOT_DELETED, RUNNING, NOT_READY, expr('.spec.resourceClaims', 'DoesNotExist')], after(1000), runningStatus(true)),
    podStage('pod-complete', [NOT_DELETED, RUNNING, expr('.metadata.ownerReferences.[].kind', 'In', ['Job'])], after(2000), COMPLETED),
    podStage(
      'pod-delete',
      [expr('.metadata.deletionTimestamp', 'Exists'), expr('.metadata.finalizers', 'DoesNotExist')],
      `${after(0)}\n    durationFrom:\n      expressionFrom: '.metadata.deletionTimestamp'`,
      '    delete: true',
    ),
  ];
  return `${stages.join('\n---\n')}\n`;
}

/** The whole kwok configuration: kwok's node stages from `stagesDir`, then ours. */
export function kwokConfig(stagesDir: string, modelLoadSeconds: number): string {
  const nodes = KWOK_NODE_STAGE_FILES.map((f) => readFileSync(join(stagesDir, f), 'utf8').trim());
  return `${[...nodes, podStages(modelLoadSeconds).trim()].join('\n---\n')}\n`;
}
