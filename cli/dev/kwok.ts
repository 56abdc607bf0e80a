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

const NOT_DELETED = `    - key: '.metadata.deletionTimestamp'
      operator: 'DoesNotExist'`;

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

/** Our pod stages (see the module comment); `modelLoadSeconds` is the engines' Running → Ready time. */
export function podStages(modelLoadSeconds: number): string {
  const loadMs = Math.round(modelLoadSeconds * 1000);
  return `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-start
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
${NOT_DELETED}
    - key: '.status.podIP'
      operator: 'DoesNotExist'
  delay:
    durationMilliseconds: 1000
  next:
${runningStatus(false)}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-ready-engine
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
${NOT_DELETED}
    - key: '.status.phase'
      operator: 'In'
      values: ['Running']
    - key: '.status.conditions.[] | select( .type == "Ready" ) | .status'
      operator: 'In'
      values: ['False']
    - key: '.spec.resourceClaims'
      operator: 'Exists'
  delay:
    durationMilliseconds: ${loadMs}
  next:
${runningStatus(true)}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-ready
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
${NOT_DELETED}
    - key: '.status.phase'
      operator: 'In'
      values: ['Running']
    - key: '.status.conditions.[] | select( .type == "Ready" ) | .status'
      operator: 'In'
      values: ['False']
    - key: '.spec.resourceClaims'
      operator: 'DoesNotExist'
  delay:
    durationMilliseconds: 1000
  next:
${runningStatus(true)}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-complete
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
${NOT_DELETED}
    - key: '.status.phase'
      operator: 'In'
      values: ['Running']
    - key: '.metadata.ownerReferences.[].kind'
      operator: 'In'
      values: ['Job']
  delay:
    durationMilliseconds: 2000
  next:
    statusTemplate: |
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
      phase: Succeeded
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-delete
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: 'Exists'
    - key: '.metadata.finalizers'
      operator: 'DoesNotExist'
  delay:
    durationMilliseconds: 0
    durationFrom:
      expressionFrom: '.metadata.deletionTimestamp'
  next:
    delete: true
`;
}

/** The whole kwok configuration: kwok's node stages from `stagesDir`, then ours. */
export function kwokConfig(stagesDir: string, modelLoadSeconds: number): string {
  const nodes = KWOK_NODE_STAGE_FILES.map((f) => readFileSync(join(stagesDir, f), 'utf8').trim());
  return `${[...nodes, podStages(modelLoadSeconds).trim()].join('\n---\n')}\n`;
}
