/**
 * Node groups, their launch templates and the EFA security group
 * (docs/clouds.md#eks-node-groups, docs/clouds.md#node-labels-and-taints,
 * docs/clouds.md#the-system-pool).
 *
 * Guarantees:
 * - Every node group is managed with `[Observe, Create, Update, Delete]` (no
 *   LateInitialize, so the cluster autoscaler owns `desiredSize`) and sets the
 *   initial size only through `initProvider.scalingConfig.desiredSize`.
 * - Nodes carry `modelplane.ai/pool`; GPU pools also `modelplane.ai/gpu` and
 *   the taint `nvidia.com/gpu=true:NO_SCHEDULE`.
 * - A Spot pool (`capacityType: Spot`) buys Spot instances (node group
 *   `capacityType: SPOT`); a capacity-block pool `CAPACITY_BLOCK`; any other
 *   pool sets no capacity type (on-demand). docs/capacity-types.md#eks
 * - A pool with a capacity block or EFA launches through its own launch
 *   template (`child_name(<xr>, "lt-<pool>")`, version `$Latest`) and then
 *   sets neither instanceTypes nor diskSize on the node group.
 * - EFA templates get one interface per network card of the instance type
 *   (card 0 `efa` on device 0, the others `efa-only` on device 1), with the
 *   observed EFA and cluster security group ids, in that order, once known.
 */
import { getPath, type JsonObject, type KubeObject } from '../lib/function.js';
import type { EKSClusterNodePool } from '../lib/generated/eksclusters.js';
import { childName } from '../lib/names.js';
import { controllerRef, EC2, EKS, type EksContext, externalName, LABEL, mr, usesLaunchTemplate } from './aws.js';
import { privateSubnetName } from './network.js';

/** Key and name of the injected system pool. */
export const SYSTEM_POOL = 'system';

/** Network cards per EFA instance type; any other type has 1. */
export const EFA_NETWORK_CARDS: Readonly<Record<string, number>> = {
  'p5.48xlarge': 32,
  'p5e.48xlarge': 32,
  'p5en.48xlarge': 16,
  'p4d.24xlarge': 4,
  'p4de.24xlarge': 4,
};

/** Network cards of an instance type (1 unless listed in {@link EFA_NETWORK_CARDS}). */
export function networkCards(instanceType: string): number {
  return EFA_NETWORK_CARDS[instanceType] ?? 1;
}

/** Launch template name of a pool: `child_name(<xr>, "lt-<pool>")`. */
export function launchTemplateName(ctx: EksContext, pool: string): string {
  return childName(ctx.name, `lt-${pool}`);
}

const NODE_GROUP_POLICIES = ['Observe', 'Create', 'Update', 'Delete'];

function nodeGroup(ctx: EksContext, forProvider: JsonObject, desiredSize: number): KubeObject {
  return mr(
    ctx,
    EKS,
    'NodeGroup',
    {
      clusterNameSelector: controllerRef(),
      nodeRoleArnSelector: controllerRef({ [LABEL.iamRole]: 'node' }),
      ...forProvider,
    },
    {
      spec: {
        managementPolicies: [...NODE_GROUP_POLICIES],
        initProvider: { scalingConfig: { desiredSize } },
      },
    },
  );
}

/** The injected system node group (key `nodegroup-system`): m6i.xlarge, 1–2 nodes, private subnets. */
export function systemNodeGroup(ctx: EksContext): KubeObject {
  return nodeGroup(
    ctx,
    {
      amiType: 'AL2023_x86_64_STANDARD',
      instanceTypes: ['m6i.xlarge'],
      subnetIdSelector: controllerRef({ [LABEL.subnetTier]: 'private' }),
      scalingConfig: { minSize: 1, maxSize: 2 },
      labels: { [LABEL.pool]: SYSTEM_POOL },
    },
    1,
  );
}

/**
 * The node group of a user pool (key `nodegroup-<pool>`); `instanceType` is
 * the pool's, checked present by the caller.
 */
export function poolNodeGroup(ctx: EksContext, pool: EKSClusterNodePool, instanceType: string): KubeObject {
  const gpu = pool.role === 'GPU';
  const fp: JsonObject = { amiType: gpu ? 'AL2023_x86_64_NVIDIA' : 'AL2023_x86_64_STANDARD' };
  if (usesLaunchTemplate(pool)) {
    fp['launchTemplate'] = { name: launchTemplateName(ctx, pool.name), version: '$Latest' };
    if (pool.capacityBlock) fp['capacityType'] = 'CAPACITY_BLOCK';
  } else {
    fp['instanceTypes'] = [instanceType];
    fp['diskSize'] = pool.diskSizeGb;
  }
  // A Spot pool with a capacity block is refused by validate.ts before this.
  if (pool.capacityType === 'Spot' && !pool.capacityBlock) fp['capacityType'] = 'SPOT';
  if (pool.zones && pool.zones.length > 0) {
    fp['subnetIdRefs'] = pool.zones.map((az) => ({ name: privateSubnetName(ctx.name, az) }));
  } else {
    fp['subnetIdSelector'] = controllerRef({ [LABEL.subnetTier]: 'private' });
  }
  fp['scalingConfig'] = { minSize: pool.minNodeCount, maxSize: pool.maxNodeCount };
  if (gpu && pool.gpu) {
    fp['labels'] = { [LABEL.gpu]: pool.gpu.acceleratorType, [LABEL.pool]: pool.name };
    fp['taint'] = [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NO_SCHEDULE' }];
  } else {
    fp['labels'] = { [LABEL.pool]: pool.name };
  }
  return nodeGroup(ctx, fp, pool.nodeCount);
}

/**
 * The launch template of a capacity-block or EFA pool (key
 * `launch-template-<pool>`): root volume `/dev/xvda` of `diskSizeGb` GB, the
 * capacity-block market and reservation, and/or the EFA interfaces.
 */
export function launchTemplate(ctx: EksContext, pool: EKSClusterNodePool, instanceType: string): KubeObject {
  const fp: JsonObject = {
    name: launchTemplateName(ctx, pool.name),
    instanceType,
    blockDeviceMappings: [{ deviceName: '/dev/xvda', ebs: { volumeSize: pool.diskSizeGb } }],
  };
  if (pool.capacityBlock) {
    fp['instanceMarketOptions'] = { marketType: 'capacity-block' };
    fp['capacityReservationSpecification'] = {
      capacityReservationPreference: 'capacity-reservations-only',
      capacityReservationTarget: { capacityReservationId: pool.capacityBlock.capacityReservationId },
    };
  }
  if (pool.fabric === 'EFA') fp['networkInterfaces'] = efaInterfaces(ctx, instanceType);
  return mr(ctx, EC2, 'LaunchTemplate', fp);
}

/**
 * One interface per network card. Security groups are literal ids read back
 * from AWS (the EFA group's external name, then the cluster's security
 * group), omitted until known: never refs, never a public IP.
 */
function efaInterfaces(ctx: EksContext, instanceType: string): JsonObject[] {
  const groups: string[] = [];
  const efa = externalName(ctx, 'efa-security-group');
  if (efa) groups.push(efa);
  const sg = getPath(ctx.observed['cluster'], 'status', 'atProvider', 'vpcConfig', 'clusterSecurityGroupId');
  if (typeof sg === 'string' && sg) groups.push(sg);
  return Array.from({ length: networkCards(instanceType) }, (_, card) => {
    const nic: JsonObject = {
      networkCardIndex: card,
      deviceIndex: card === 0 ? 0 : 1,
      interfaceType: card === 0 ? 'efa' : 'efa-only',
    };
    if (groups.length > 0) nic['securityGroups'] = [...groups];
    return nic;
  });
}

/**
 * The EFA security group shared by every EFA pool, and its all-traffic
 * self-referencing ingress and egress rules (3 keys).
 */
export function efaSecurityGroup(ctx: EksContext): Record<string, KubeObject> {
  const self = () => controllerRef({ [LABEL.fabric]: 'EFA' });
  const rule = (kind: string) =>
    mr(ctx, EC2, kind, { ipProtocol: '-1', referencedSecurityGroupIdSelector: self(), securityGroupIdSelector: self() });
  return {
    'efa-security-group': mr(
      ctx,
      EC2,
      'SecurityGroup',
      {
        name: `${ctx.name}-efa`,
        description: 'EFA OS-bypass traffic between gang nodes',
        vpcIdSelector: controllerRef(),
      },
      { name: childName(ctx.name, 'efa-sg'), labels: { [LABEL.fabric]: 'EFA' } },
    ),
    'efa-security-group-ingress': rule('SecurityGroupIngressRule'),
    'efa-security-group-egress': rule('SecurityGroupEgressRule'),
  };
}
