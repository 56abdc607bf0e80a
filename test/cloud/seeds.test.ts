/**
 * The seed clusters (../shared/corpus/seeds: the three demo EKS clusters and
 * the Vultr demo cluster), as the EKSCluster / VultrCluster XRs under
 * examples/, compose to their full resource sets (docs/clouds.md:
 * EKS first pass 50 keys; Vultr 1 before the cluster is Ready, 4 after),
 * and every composed object is valid against its real CRD. The goldens of
 * those folders are checked byte for byte by test/render/golden.test.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { compose as composeEks } from '../../functions/compose-eks-cluster/compose.js';
import { compose as composeVultr } from '../../functions/compose-vultr-cluster/compose.js';
import { getPath, type KubeObject, type ObservedResource } from '../../functions/lib/function.js';
import { formatFieldError } from '../../functions/lib/schema/index.js';
import { repoRoot, validateAgainstCrd } from '../helpers/crd.js';
import { request } from '../builders/cloud.js';

const docs = (file: string): KubeObject[] =>
  parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJSON() as KubeObject | null)
    .filter((d): d is KubeObject => d !== null);

function load(folder: string): { xr: KubeObject; observed: Record<string, ObservedResource> } {
  const dir = join(repoRoot, 'examples', folder);
  const observed: Record<string, ObservedResource> = {};
  const observedFile = join(dir, 'observed.yaml');
  for (const o of existsSync(observedFile) ? docs(observedFile) : []) {
    observed[o.metadata!.annotations!['crossplane.io/composition-resource-name']!] = { resource: o, connectionDetails: {} };
  }
  return { xr: docs(join(dir, 'xr.yaml'))[0]!, observed };
}

/** Same known validator gap as crds.test.ts: escaped `__namespace__` in CEL. */
const UNESCAPED_NAMESPACE_RULE = 'spec: Invalid value: "object": spec.forProvider.namespace is a required parameter';

const cases = [
  { folder: 'eks-cluster-us-east', keys: 50, compose: composeEks },
  { folder: 'eks-cluster-us-west', keys: 50, compose: composeEks },
  { folder: 'eks-cluster-eu-central', keys: 50, compose: composeEks },
  { folder: 'eks-cluster-efa-capacity-block', keys: 57, compose: composeEks },
  { folder: 'vultr-cluster-first-pass', keys: 1, compose: composeVultr },
  { folder: 'vultr-cluster-ready', keys: 4, compose: composeVultr },
];

describe('seed clusters', () => {
  it.each(cases)('$folder composes $keys keys, every one valid against its CRD', ({ folder, keys, compose }) => {
    const { xr, observed } = load(folder);
    const got = compose(request(xr, observed));
    expect([got.conditions, got.results]).toEqual([[], []]);
    expect(Object.keys(got.resources)).toHaveLength(keys);
    const invalid = Object.entries(got.resources).flatMap(([key, d]) => {
      const hasNamespace = getPath(d.resource, 'spec', 'forProvider', 'namespace') !== undefined;
      return validateAgainstCrd(d.resource)
        .errors.map(formatFieldError)
        .filter((e) => !(hasNamespace && e === UNESCAPED_NAMESPACE_RULE))
        .map((e) => `${key}: ${e}`);
    });
    expect(invalid).toEqual([]);
  });
});
