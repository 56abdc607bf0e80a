/**
 * Structural validation of core Kubernetes kinds (which have no CRD under
 * ../shared/crds) against the OpenAPI models of @kubernetes/client-node
 * 2.0.1 (generated from Kubernetes 1.34's OpenAPI): every field must be one
 * the model declares (unknown fields are errors, as the API server's strict
 * field validation reports them), with the declared type. Required fields and
 * value formats are not checked. The models are imported from the package's
 * generated folder: its index pulls in an HTTP stack that does not load on
 * Node 20.
 */
import * as models from '@kubernetes/client-node/dist/gen/models/all.js';

/** The client-node model of each core kind we compose. */
const MODELS: Record<string, string> = {
  'apps/v1 Deployment': 'V1Deployment',
  'v1 Service': 'V1Service',
  'v1 ServiceAccount': 'V1ServiceAccount',
  'v1 ConfigMap': 'V1ConfigMap',
  'rbac.authorization.k8s.io/v1 Role': 'V1Role',
  'rbac.authorization.k8s.io/v1 RoleBinding': 'V1RoleBinding',
  'resource.k8s.io/v1 ResourceClaimTemplate': 'V1ResourceClaimTemplate',
  'discovery.k8s.io/v1 EndpointSlice': 'V1EndpointSlice',
  'v1 PersistentVolumeClaim': 'V1PersistentVolumeClaim',
  'v1 Secret': 'V1Secret',
  'batch/v1 Job': 'V1Job',
  'policy/v1 PodDisruptionBudget': 'V1PodDisruptionBudget',
  'networking.k8s.io/v1 NetworkPolicy': 'V1NetworkPolicy',
};

interface Attribute {
  baseName: string;
  type: string;
}
type Model = { getAttributeTypeMap(): Attribute[] };

/** True when `apiVersion kind` is a core kind this validator knows. */
export function isCoreKind(apiVersion: string, kind: string): boolean {
  return `${apiVersion} ${kind}` in MODELS;
}

/**
 * The structural errors of a core object, `path: problem`, in document order.
 * @throws Error when the kind is not one of {@link MODELS}
 */
export function validateCore(obj: { apiVersion: string; kind: string }): string[] {
  const model = MODELS[`${obj.apiVersion} ${obj.kind}`];
  if (model === undefined) throw new Error(`no core model for ${obj.apiVersion} ${obj.kind}`);
  const errors: string[] = [];
  walk(model, obj, '', errors);
  return errors;
}

function walk(type: string, v: unknown, path: string, errors: string[]): void {
  const at = path || '<root>';
  const array = /^Array<(.+)>$/.exec(type);
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (array) {
    if (!Array.isArray(v)) return void errors.push(`${at}: expected array`);
    for (const [i, x] of v.entries()) walk(array[1]!, x, `${path}[${i}]`, errors);
  } else if (map) {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return void errors.push(`${at}: expected map`);
    for (const [k, x] of Object.entries(v)) walk(map[1]!, x, `${path}[${k}]`, errors);
  } else if (type === 'string' || type === 'Date') {
    if (typeof v !== 'string') errors.push(`${at}: expected string`);
  } else if (type === 'number') {
    if (typeof v !== 'number') errors.push(`${at}: expected number`);
  } else if (type === 'boolean') {
    if (typeof v !== 'boolean') errors.push(`${at}: expected boolean`);
  } else if (type === 'IntOrString') {
    if (typeof v !== 'string' && !Number.isInteger(v)) errors.push(`${at}: expected integer or string`);
  } else if (type === 'any' || type === 'object') {
    // free-form
  } else {
    const m = (models as unknown as Record<string, Model | undefined>)[type];
    if (m === undefined) return void errors.push(`${at}: unknown model ${type}`);
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return void errors.push(`${at}: expected object (${type})`);
    const attrs = new Map(m.getAttributeTypeMap().map((a) => [a.baseName, a.type]));
    for (const [k, x] of Object.entries(v)) {
      const t = attrs.get(k);
      const p = path ? `${path}.${k}` : k;
      if (t === undefined) errors.push(`${p}: unknown field in ${type}`);
      else walk(t, x, p, errors);
    }
  }
}
