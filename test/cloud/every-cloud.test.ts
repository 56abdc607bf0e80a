/**
 * What every cloud-cluster function does alike, as one table over the five
 * clouds (docs/clouds.md#invalid-input; the shared checks live in
 * functions/lib/cloud-cluster.ts): the same request composes the same bytes;
 * a spec that does not parse holds, keeps every observed child and names the
 * field; a pool named `system` and a pool name that cannot label nodes are
 * refused with the pool's path, and nothing new is composed for them. Each
 * cloud's own behaviour is in its file (eks.test.ts, gke.test.ts, ...).
 */
import { describe, expect, it } from 'vitest';
import { compose as composeAks } from '../../functions/compose-aks-cluster/compose.js';
import { compose as composeEks } from '../../functions/compose-eks-cluster/compose.js';
import { compose as composeGke } from '../../functions/compose-gke-cluster/compose.js';
import { compose as composeNebius } from '../../functions/compose-nebius-cluster/compose.js';
import { compose as composeVultr } from '../../functions/compose-vultr-cluster/compose.js';
import type { ComposeRequest, ComposeResult, JsonObject, KubeObject } from '../../functions/lib/function.js';
import {
  aksPool,
  aksXr,
  gcpProviderConfig,
  gkePool,
  gkeXr,
  nebiusPool,
  nebiusProviderConfig,
  nebiusXr,
  poolA,
  poolL40s,
  request,
  seen,
  eksXr,
  vultrXr,
} from '../builders/cloud.js';

/** One cloud: its function, its XR kind and a valid pool, the required resources it reads, what reserves `system`. */
interface Cloud {
  readonly kind: string;
  readonly compose: (req: ComposeRequest) => ComposeResult;
  readonly xr: (pools: JsonObject[]) => KubeObject;
  readonly pool: () => JsonObject;
  readonly required: Record<string, KubeObject[]>;
  readonly systemPool: string;
  /** What a pool named `Bad_Name-` gets: the shared label-value check, or the XRD's own pattern. */
  readonly badName: { readonly reason: string; readonly message: string };
}

const LABEL_VALUE_MESSAGE = {
  reason: 'InvalidNodePool',
  message:
    "spec.nodePools[0].name: \"Bad_Name-\" is not a Kubernetes label value (at most 63 letters, digits, '-', '_' or '.', beginning and ending with a letter or digit), so it cannot label the pool's nodes; rename the pool. Nothing new is composed for this pool; what exists is kept.",
};

const CLOUDS: readonly Cloud[] = [
  { kind: 'EKSCluster', compose: composeEks, xr: (p) => eksXr(p), pool: poolA, required: {}, systemPool: 'the injected system node group', badName: LABEL_VALUE_MESSAGE },
  {
    kind: 'GKECluster',
    compose: composeGke,
    xr: (p) => gkeXr(p),
    pool: () => gkePool(),
    required: { 'gcp-provider-config': [gcpProviderConfig()] },
    systemPool: 'the injected system node pool',
    badName: LABEL_VALUE_MESSAGE,
  },
  {
    kind: 'AKSCluster',
    compose: composeAks,
    xr: (p) => aksXr(p),
    pool: () => aksPool(),
    required: {},
    systemPool: "the cluster's default node pool",
    badName: {
      reason: 'InvalidSpec',
      message: 'AKSCluster spec is invalid: spec.nodePools[0].name: Invalid string: must match pattern /^[a-z][a-z0-9]{0,11}$/. Fix the fields named; nothing is changed until then.',
    },
  },
  {
    kind: 'NebiusCluster',
    compose: composeNebius,
    xr: (p) => nebiusXr(p),
    pool: () => nebiusPool(),
    required: { 'nebius-provider-config': [nebiusProviderConfig()] },
    systemPool: 'the injected system node group',
    badName: LABEL_VALUE_MESSAGE,
  },
  { kind: 'VultrCluster', compose: composeVultr, xr: (p) => vultrXr(p), pool: () => poolL40s(), required: {}, systemPool: "the cluster's inline system pool", badName: LABEL_VALUE_MESSAGE },
];

/** The SpecValid condition and the matching Warning result a held or refused spec gets. */
function refused(reason: string, message: string): Pick<ComposeResult, 'conditions' | 'results'> {
  return { conditions: [{ type: 'SpecValid', status: 'False', reason, message }], results: [{ severity: 'Warning', message, reason }] };
}

describe.each(CLOUDS)('$kind', (cloud) => {
  const compose = (pools: JsonObject[], observed = {}) => cloud.compose(request(cloud.xr(pools), observed, cloud.required));

  it('composes byte-identical output for the same request', () => {
    const observed = { cluster: seen('example.io/v1', 'Cluster', { ready: true }) };
    const first = JSON.stringify(compose([cloud.pool()], observed));
    expect(first.length).toBeGreaterThan(1000);
    expect(JSON.stringify(compose([cloud.pool()], observed))).toBe(first);
  });

  it('holds a spec that does not parse, keeps what it observed and names the field', () => {
    const got = compose([{ ...cloud.pool(), nodeCount: 'two' }], { cluster: seen('example.io/v1', 'Cluster', { ready: true }) });
    expect(Object.keys(got.resources)).toEqual(['cluster']);
    expect(got).toMatchObject(
      refused('InvalidSpec', `${cloud.kind} spec is invalid: spec.nodePools[0].nodeCount: Invalid input: expected number, received string. Fix the fields named; nothing is changed until then.`),
    );
  });

  it('refuses a pool named system, naming what the name is reserved for', () => {
    const got = compose([{ ...cloud.pool(), name: 'system' }]);
    expect(got).toMatchObject(
      refused('InvalidNodePool', `spec.nodePools[0].name: "system" is reserved for ${cloud.systemPool}; rename the pool. Nothing new is composed for this pool; what exists is kept.`),
    );
  });

  it('refuses a pool name that cannot label its nodes', () => {
    expect(compose([{ ...cloud.pool(), name: 'Bad_Name-' }])).toMatchObject(refused(cloud.badName.reason, cloud.badName.message));
  });
});
