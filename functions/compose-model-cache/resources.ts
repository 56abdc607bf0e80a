/**
 * The objects a ModelCache composes on each cluster that can hold it
 * (docs/kinds/modelcache.md#what-is-composed): the RWX PVC, the propagated auth Secret and the
 * hydrate Job, each wrapped in a provider-kubernetes Object
 * (docs/kinds/modelreplica.md#remote-objects).
 *
 * Guarantees:
 * - Remote names are the reference's (`child_name("modelcache", ns, name)`,
 *   `…-auth`, `…-hydrate`), in namespace `default`, labelled
 *   `modelplane.ai/modelcache: <name>`; compose-model-replica mounts the PVC
 *   by the same name (a pod can only mount a PVC of its own namespace).
 * - The PVC requests `<sizeGiB>Gi` ReadWriteMany on the cluster's declared
 *   class and is ready when `Bound`; the Job is ready when `Complete` and is
 *   never deleted by Crossplane (management policies without Delete; its
 *   `ttlSecondsAfterFinished` cleans it up on the cluster). The Secret uses
 *   provider-kubernetes' default readiness.
 * - The hydrate script is the reference's, segments joined with "; "; repo
 *   and revision are single-quoted only when they hold a character outside
 *   `[A-Za-z0-9._/-]` (Hub ids never do, so the reference's text is kept).
 */
import type { JsonObject, KubeObject } from '../lib/function.js';
import { childName } from '../lib/names.js';
import { kubernetesObject } from '../lib/objects.js';

/** Remote namespace of every cache object (the replica's pods run there too). */
export const REMOTE_NAMESPACE = 'default';
/** Label naming the ModelCache on its remote objects. */
export const CACHE_LABEL = 'modelplane.ai/modelcache';
/** The hydrate Job's image and the marker it leaves on a staged volume. */
export const HYDRATE_IMAGE = 'python:3.11-slim';
export const MOUNT_PATH = '/mnt/artifact';
export const MARKER = `${MOUNT_PATH}/.modelplane-hydrated`;
/** Readiness of the PVC (Bound) and the Job (Complete=True). */
export const PVC_BOUND_QUERY = 'has(object.status) && has(object.status.phase) && object.status.phase == "Bound"';
export const JOB_COMPLETE_QUERY =
  'has(object.status) && has(object.status.conditions) && object.status.conditions.exists(c, c.type == "Complete" && c.status == "True")';

/** The names of a cache's remote objects. */
export function pvcName(namespace: string, cache: string): string {
  return childName('modelcache', namespace, cache);
}
export function authName(namespace: string, cache: string): string {
  return childName('modelcache', namespace, cache, 'auth');
}
export function hydrateName(namespace: string, cache: string): string {
  return childName('modelcache', namespace, cache, 'hydrate');
}

/** What the builders need to know about the cache. */
export interface CacheSource {
  name: string;
  namespace: string;
  repo: string;
  revision?: string | undefined;
  sizeGiB: number;
}

function wrap(manifest: KubeObject, providerConfig: string, extra: JsonObject = {}): KubeObject {
  return kubernetesObject({
    manifest,
    providerConfigRef: { kind: 'ClusterProviderConfig', name: providerConfig },
    ...extra,
  });
}

/** `pvc-<cluster>`: the ReadWriteMany volume on the cluster's declared class. */
export function pvc(c: CacheSource, providerConfig: string, storageClass: string): KubeObject {
  return wrap(
    {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: pvcName(c.namespace, c.name), namespace: REMOTE_NAMESPACE, labels: { [CACHE_LABEL]: c.name } },
      spec: {
        accessModes: ['ReadWriteMany'],
        storageClassName: storageClass,
        resources: { requests: { storage: `${c.sizeGiB}Gi` } },
      },
    },
    providerConfig,
    { readiness: { policy: 'DeriveFromCelQuery', celQuery: PVC_BOUND_QUERY } },
  );
}

/** `auth-<cluster>`: the Hub token copied for the hydrate Job (data base64, verbatim). */
export function authSecret(c: CacheSource, providerConfig: string, data: Record<string, string>): KubeObject {
  return wrap(
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: authName(c.namespace, c.name), namespace: REMOTE_NAMESPACE, labels: { [CACHE_LABEL]: c.name } },
      data: { ...data },
    },
    providerConfig,
  );
}

const SAFE = /^[A-Za-z0-9._/-]+$/;

/** A shell word: as is when safe, else single-quoted. */
export function shellWord(s: string): string {
  return SAFE.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The hydrate script (docs/kinds/modelcache.md#the-hydrate-job). */
export function hydrateScript(repo: string, revision?: string): string {
  const rev = revision ? ` --revision ${shellWord(revision)}` : '';
  return [
    'set -e',
    `if [ -f ${MARKER} ]; then echo 'already hydrated, skipping'; exit 0; fi`,
    'pip install --quiet huggingface_hub',
    `hf download ${shellWord(repo)}${rev} --local-dir ${MOUNT_PATH}`,
    `touch ${MARKER}`,
  ].join('; ');
}

/** `hydrate-<cluster>`: downloads the weights onto the PVC once. `tokenKey` set: HF_TOKEN from the propagated Secret. */
export function hydrateJob(c: CacheSource, providerConfig: string, tokenKey: string | undefined): KubeObject {
  const labels = { [CACHE_LABEL]: c.name };
  const env = tokenKey === undefined ? [] : [{ name: 'HF_TOKEN', valueFrom: { secretKeyRef: { name: authName(c.namespace, c.name), key: tokenKey } } }];
  return wrap(
    {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: hydrateName(c.namespace, c.name), namespace: REMOTE_NAMESPACE, labels },
      spec: {
        backoffLimit: 3,
        ttlSecondsAfterFinished: 180,
        template: {
          metadata: { labels: { ...labels } },
          spec: {
            restartPolicy: 'OnFailure',
            containers: [
              {
                name: 'hydrate',
                image: HYDRATE_IMAGE,
                command: ['/bin/sh', '-c', hydrateScript(c.repo, c.revision)],
                env,
                volumeMounts: [{ name: 'artifact', mountPath: MOUNT_PATH }],
              },
            ],
            volumes: [{ name: 'artifact', persistentVolumeClaim: { claimName: pvcName(c.namespace, c.name) } }],
          },
        },
      },
    },
    providerConfig,
    {
      readiness: { policy: 'DeriveFromCelQuery', celQuery: JOB_COMPLETE_QUERY },
      managementPolicies: ['Observe', 'Create', 'Update', 'LateInitialize'],
    },
  );
}
