/**
 * The EKS cluster's VPC: public and private subnets per zone, the internet
 * and NAT gateways, route tables, default routes and associations
 * (docs/clouds.md#eks-networking).
 *
 * Guarantees:
 * - Zone i is `<region>` + letter `a`+i; its private CIDR is the public one
 *   with the third octet plus 48 (10.0.0.0/20 → 10.0.48.0/20).
 * - Divergence from the reference: a subnet CIDR that is not `a.b.c.d/n`, or
 *   whose private counterpart would overflow the octet (third octet > 207),
 *   is invalid input reported by {@link zonesOf} instead of a malformed CIDR
 *   sent to AWS.
 * - 20 keys for the default 3 zones; 5 more per extra zone.
 */
import type { KubeObject } from '../lib/function.js';
import { childName } from '../lib/names.js';
import { controllerRef, EC2, type EksContext, LABEL, mr, type Zone } from './aws.js';

/** `spec.networking.vpcCidr` default. */
export const DEFAULT_VPC_CIDR = '10.0.0.0/16';
/** `spec.networking.subnetCidrs` default: three /20s in zones a, b, c. */
export const DEFAULT_SUBNET_CIDRS: readonly string[] = ['10.0.0.0/20', '10.0.16.0/20', '10.0.32.0/20'];
/** Offset added to the third octet of a public subnet CIDR to get its private subnet. */
export const PRIVATE_OCTET_OFFSET = 48;

const CIDR = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/;

/**
 * The cluster's zones from its subnet CIDRs, or the messages naming each bad CIDR.
 * @param name XR name (subnet MR names hash it)
 */
export function zonesOf(
  name: string,
  region: string,
  cidrs: readonly string[],
): { zones: Zone[] } | { errors: string[] } {
  const zones: Zone[] = [];
  const errors: string[] = [];
  cidrs.forEach((cidr, index) => {
    const field = `spec.networking.subnetCidrs[${index}]`;
    const m = CIDR.exec(cidr);
    const octets = m ? m.slice(1, 5).map(Number) : [];
    if (!m || octets.some((o) => o > 255) || Number(m[5]) > 32) {
      errors.push(`${field}: "${cidr}" is not an IPv4 CIDR (a.b.c.d/n); set an IPv4 CIDR such as 10.0.0.0/20.`);
      return;
    }
    const third = octets[2]! + PRIVATE_OCTET_OFFSET;
    if (third > 255) {
      errors.push(
        `${field}: ${cidr} has no private counterpart (third octet ${octets[2]} + ${PRIVATE_OCTET_OFFSET} exceeds 255); use a CIDR whose third octet is at most ${255 - PRIVATE_OCTET_OFFSET}.`,
      );
      return;
    }
    const az = `${region}${String.fromCharCode(97 + index)}`;
    zones.push({
      index,
      az,
      publicCidr: cidr,
      privateCidr: `${octets[0]}.${octets[1]}.${third}.${octets[3]}/${m[5]}`,
      publicSubnet: publicSubnetName(name, az),
      privateSubnet: privateSubnetName(name, az),
    });
  });
  return errors.length > 0 ? { errors } : { zones };
}

/** Public subnet MR name: `child_name(<xr>, "subnet-<az>")`. */
export function publicSubnetName(name: string, az: string): string {
  return childName(name, `subnet-${az}`);
}

/** Private subnet MR name: `child_name(<xr>, "private-subnet-<az>")`; node groups and mount targets reference it. */
export function privateSubnetName(name: string, az: string): string {
  return childName(name, `private-subnet-${az}`);
}

const tier = (t: 'public' | 'private') => ({ [LABEL.subnetTier]: t });
const zoneTier = (az: string, t: 'public' | 'private') => ({ [LABEL.zone]: az, [LABEL.subnetTier]: t });

/** Every networking resource by key: VPC, subnets, gateways, routes, associations. */
export function networkResources(ctx: EksContext): Record<string, KubeObject> {
  const out: Record<string, KubeObject> = {};
  const vpc = () => ({ vpcIdSelector: controllerRef() });
  out['vpc'] = mr(ctx, EC2, 'VPC', { cidrBlock: ctx.vpcCidr, enableDnsHostnames: true, enableDnsSupport: true });
  for (const z of ctx.zones) {
    out[`subnet-${z.index}`] = mr(
      ctx,
      EC2,
      'Subnet',
      {
        availabilityZone: z.az,
        cidrBlock: z.publicCidr,
        mapPublicIpOnLaunch: true,
        tags: { 'kubernetes.io/role/elb': '1' },
        ...vpc(),
      },
      { name: z.publicSubnet, labels: zoneTier(z.az, 'public') },
    );
    out[`private-subnet-${z.index}`] = mr(
      ctx,
      EC2,
      'Subnet',
      { availabilityZone: z.az, cidrBlock: z.privateCidr, mapPublicIpOnLaunch: false, ...vpc() },
      { name: z.privateSubnet, labels: zoneTier(z.az, 'private') },
    );
  }
  out['internet-gateway'] = mr(ctx, EC2, 'InternetGateway', vpc());
  out['nat-eip'] = mr(ctx, EC2, 'EIP', { domain: 'vpc' });
  // A single NAT gateway, in the first zone's public subnet.
  out['nat-gateway'] = mr(ctx, EC2, 'NATGateway', {
    allocationIdSelector: controllerRef(),
    subnetIdSelector: controllerRef(zoneTier(`${ctx.region}a`, 'public')),
  });
  out['route-table'] = mr(ctx, EC2, 'RouteTable', vpc(), { labels: tier('public') });
  out['route-default'] = mr(ctx, EC2, 'Route', {
    destinationCidrBlock: '0.0.0.0/0',
    gatewayIdSelector: controllerRef(),
    routeTableIdSelector: controllerRef(tier('public')),
  });
  out['private-route-table'] = mr(ctx, EC2, 'RouteTable', vpc(), { labels: tier('private') });
  out['private-route-default'] = mr(ctx, EC2, 'Route', {
    destinationCidrBlock: '0.0.0.0/0',
    natGatewayIdSelector: controllerRef(),
    routeTableIdSelector: controllerRef(tier('private')),
  });
  for (const z of ctx.zones) {
    out[`route-table-association-${z.index}`] = mr(ctx, EC2, 'RouteTableAssociation', {
      routeTableIdSelector: controllerRef(tier('public')),
      subnetIdSelector: controllerRef(zoneTier(z.az, 'public')),
    });
    out[`private-route-table-association-${z.index}`] = mr(ctx, EC2, 'RouteTableAssociation', {
      routeTableIdSelector: controllerRef(tier('private')),
      subnetIdSelector: controllerRef(zoneTier(z.az, 'private')),
    });
  }
  return out;
}
