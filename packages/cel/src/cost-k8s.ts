/**
 * The Kubernetes side of the static cost estimate: the DRA size estimator
 * (dynamic-resource-allocation/cel/compile.go sizeEstimator: at most 32
 * domains, 32 ids per domain, 64-character attribute values, 63-character
 * driver) and library.CostEstimator.EstimateCallCost
 * (apiserver/pkg/cel/library/cost.go), which prices calls by function name.
 */
import { add, factor, fixed, MAX, mul, type Range, REGEX_LENGTH, sat, STRING_TRAVERSAL, UNIT_COST_METHODS, UNKNOWN } from './cost-range.js';
import type { Expr } from './ast.js';
import type { CelType } from './types.js';

/** An argument or receiver as the function estimators see it. */
export interface AstNode {
  readonly path: readonly string[] | undefined;
  readonly type: CelType;
  readonly expr: Expr | undefined;
  readonly size: Range | undefined;
}


interface Decl {
  readonly max: bigint;
  readonly elem?: Decl;
  readonly key?: Decl;
  readonly fields?: ReadonlyMap<string, Decl>;
}
const ATTRIBUTE: Decl = { max: 64n };
const ID: Decl = { max: 32n };
const DOMAIN: Decl = { max: 63n };
const QUANTITY_DECL: Decl = { max: 0n };
const INNER_ATTRIBUTES: Decl = { max: 32n, key: ID, elem: ATTRIBUTE };
const INNER_CAPACITY: Decl = { max: 32n, key: ID, elem: QUANTITY_DECL };
const DEVICE: Decl = {
  max: 0n,
  fields: new Map<string, Decl>([
    ['driver', { max: 63n }],
    ['allowMultipleAllocations', { max: 1n }],
    ['attributes', { max: 32n, key: DOMAIN, elem: INNER_ATTRIBUTES }],
    ['capacity', { max: 32n, key: DOMAIN, elem: INNER_CAPACITY }],
  ]),
};

/** dracel sizeEstimator.EstimateSize: the declared size bound of a path under `device`. */
export function draSize(path: readonly string[] | undefined): Range | undefined {
  if (!path || path.length === 0 || path[0] !== 'device') return undefined;
  let cur: Decl = DEVICE;
  for (const name of path.slice(1)) {
    if (name === '@items' || name === '@values') {
      if (!cur.elem) return undefined;
      cur = cur.elem;
    } else if (name === '@keys') {
      if (!cur.key) return undefined;
      cur = cur.key;
    } else {
      const f = cur.fields?.get(name);
      if (f) cur = f;
      else if (cur.elem === ATTRIBUTE) cur = ATTRIBUTE;
      else return undefined;
    }
  }
  return { min: 0n, max: cur.max };
}

/** library.CostEstimator.EstimateCallCost (Kubernetes), by function name. */
export function k8sEstimate(
  fn: string,
  id: string,
  target: AstNode | undefined,
  args: AstNode[],
  sizes: (path: readonly string[] | undefined) => Range | undefined = draSize,
): { cost: Range; size?: Range } | undefined {
  const sizeOf = (n: AstNode): Range => n.size ?? sizes(n.path) ?? UNKNOWN;
  if (UNIT_COST_METHODS.has(fn)) return { cost: fixed(1n) };
  switch (fn) {
    case 'isSorted':
    case 'sum':
    case 'max':
    case 'min':
    case 'indexOf':
    case 'lastIndexOf': {
      if (!target) return undefined;
      const elType = target.type.params[0];
      if (elType) {
        let elCost = fixed(1n);
        if (elType.kind === 'string' || elType.kind === 'bytes') {
          const elPath = target.path ? [...target.path, '@items'] : undefined;
          elCost = add(elCost, factor(sizes(elPath) ?? UNKNOWN, STRING_TRAVERSAL));
        }
        return { cost: mul(sizeOf(target), elCost) };
      }
      return { cost: factor(sizeOf(target), STRING_TRAVERSAL) };
    }
    case 'lowerAscii':
    case 'upperAscii':
    case 'substring':
    case 'trim':
      if (!target) return undefined;
      return { cost: factor(sizeOf(target), STRING_TRAVERSAL), size: sizeOf(target) };
    case 'replace': {
      if (!target || args.length < 2) return undefined;
      const sz = sizeOf(target);
      const toReplace = sizeOf(args[0]!);
      const replaceWith = sizeOf(args[1]!);
      let countMax: bigint;
      let countMin: bigint;
      let retainedMax = 0n;
      let retainedMin = 0n;
      if (toReplace.min === 0n) {
        countMax = sz.max < MAX ? sz.max + 1n : sz.max;
        retainedMax = sz.max;
      } else if (replaceWith.max <= toReplace.min) {
        countMax = 0n;
        retainedMax = sz.max;
      } else {
        countMax = BigInt(Math.ceil(Number(sz.max) / Number(toReplace.min)));
      }
      if (toReplace.max === 0n) {
        countMin = sz.min < MAX ? sz.min + 1n : sz.min;
        retainedMin = sz.min;
      } else if (toReplace.max <= replaceWith.min) {
        countMin = 0n;
        retainedMin = sz.min;
      } else {
        countMin = BigInt(Math.ceil(Number(sz.min) / Number(toReplace.max)));
      }
      const size = add(mul({ min: countMin, max: sat(countMax) }, replaceWith), { min: retainedMin, max: retainedMax });
      return { cost: factor(sz, 2 * STRING_TRAVERSAL), size };
    }
    case 'split': {
      if (!target) return undefined;
      const sz = sizeOf(target);
      let max = sz.max;
      const lit = args[1]?.expr;
      if (lit?.kind === 'lit' && typeof lit.value === 'bigint') max = BigInt.asUintN(64, lit.value);
      return { cost: factor(sz, 2 * STRING_TRAVERSAL), size: { min: 0n, max } };
    }
    case 'join': {
      if (!target) return undefined;
      let sz: Range = fixed(0n);
      const listSize = sizeOf(target);
      if (target.type.params[0]) {
        const elPath = target.path ? [...target.path, '@items'] : undefined;
        sz = mul(listSize, sizes(elPath) ?? UNKNOWN);
      }
      if (args.length > 0) {
        const sep = sizeOf(args[0]!);
        const seps = { min: listSize.min > 0n ? listSize.min - 1n : 0n, max: listSize.max > 0n ? listSize.max - 1n : 0n };
        sz = add(sz, mul(sep, seps));
      }
      return { cost: factor(sz, STRING_TRAVERSAL), size: sz };
    }
    case 'find':
    case 'findAll': {
      if (!target || args.length < 1) return undefined;
      const sz = sizeOf(target);
      const str = factor(add(sz, fixed(1n)), STRING_TRAVERSAL);
      const re = factor(sizeOf(args[0]!), REGEX_LENGTH);
      return { cost: mul(str, re), size: { min: 0n, max: sz.max } };
    }
    case 'cidr':
    case 'isIP':
    case 'isCIDR':
    case 'quantity':
    case 'isQuantity':
    case 'semver':
    case 'isSemver':
      if (args.length < 1) return undefined;
      return { cost: factor(sizeOf(args[0]!), STRING_TRAVERSAL) };
    case 'url': {
      if (args.length !== 1) return undefined;
      const sz = sizeOf(args[0]!);
      return { cost: factor(sz, STRING_TRAVERSAL), size: sz };
    }
    case 'getScheme':
    case 'getHostname':
    case 'getHost':
    case 'getPort':
    case 'getEscapedPath':
    case 'getQuery':
    case 'format.named':
      return { cost: fixed(1n) };
    case 'validate':
      if (args.length < 1) return undefined;
      return { cost: factor(factor(sizeOf(args[0]!), STRING_TRAVERSAL), 128 * REGEX_LENGTH) };
    case 'ip':
      if (id === 'cidr_ip') return { cost: fixed(1n) };
      if (args.length < 1) return undefined;
      return { cost: factor(sizeOf(args[0]!), STRING_TRAVERSAL) };
    case 'ip.isCanonical':
      if (args.length < 1) return undefined;
      return { cost: factor(sizeOf(args[0]!), 2 * STRING_TRAVERSAL) };
    case 'masked':
    case 'prefixLength':
    case 'family':
    case 'isUnspecified':
    case 'isLoopback':
    case 'isLinkLocalMulticast':
    case 'isLinkLocalUnicast':
    case 'isGlobalUnicast':
      return { cost: fixed(1n) };
    case 'containsIP':
    case 'containsCIDR': {
      if (args.length < 1) return undefined;
      const ipSize: Range = { min: 4n, max: 16n };
      let cost = factor(add(ipSize, ipSize), STRING_TRAVERSAL);
      if (fn === 'containsCIDR') cost = add(add(cost, factor(ipSize, STRING_TRAVERSAL)), fixed(1n));
      if (id === 'cidr_contains_ip_string' || id === 'cidr_contains_cidr_string') cost = add(cost, factor(sizeOf(args[0]!), STRING_TRAVERSAL));
      return { cost };
    }
    case '_==_': {
      if (args.length !== 2) return undefined;
      const [l, r] = [args[0]!.type, args[1]!.type];
      if (l.name === r.name && l.kind === 'struct' && (l.name === 'kubernetes.Quantity' || l.name === 'kubernetes.Semver')) return { cost: fixed(1n) };
      if (l.name === r.name && l.kind === 'opaque' && (l.name === 'net.IP' || l.name === 'net.CIDR')) return { cost: fixed(1n) };
      if (l.name === r.name && l.kind === 'struct' && l.name === 'kubernetes.NamedFormat') return { cost: factor({ min: 1n, max: 64n }, STRING_TRAVERSAL) };
      if (l.name === r.name && l.kind === 'struct' && l.name === 'kubernetes.URL') {
        // Kubernetes takes both sizes from the right-hand side.
        const rs = args[1]!.size;
        const max = rs ? rs.max : 1n;
        return { cost: factor({ min: 1n, max }, STRING_TRAVERSAL) };
      }
      return undefined;
    }
  }
  return undefined;
}
