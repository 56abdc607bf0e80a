/**
 * The runtime cost of CEL calls, as cel-go's CostTracker counts it
 * (interpreter/runtimecost.go) with the Kubernetes library's CallCost
 * (apiserver/pkg/cel/library/cost.go) and the ext.Sets trackers. The
 * interpreter adds 1 per identifier and selection and the list/map creation
 * costs; this module prices the calls. A call site picks its price function
 * once (see {@link callCost}).
 */
import { UNIT_COST_METHODS } from './cost-range.js';
import { CelFormat } from './format.js';
import { CelCIDR, CelIP } from './ip.js';
import { Quantity } from './quantity.js';
import { Semver } from './semver.js';
import { CelURL } from './url.js';
import { CelMap, CelOptional, type CelValue, codePointLength } from './values.js';

const STRING_TRAVERSAL = 0.1;
const REGEX_LENGTH = 0.25;


/** cel-go actualSize: Sizer size, an optional's inner size, else 1. */
function actualSize(v: CelValue): number {
  if (typeof v === 'string') return codePointLength(v);
  if (v instanceof Uint8Array || Array.isArray(v)) return v.length;
  if (v instanceof CelMap) return v.size;
  if (v instanceof CelOptional && v.hasValue()) return actualSize(v.value!);
  if (v instanceof CelIP) return v.bytes.length;
  if (v instanceof CelCIDR) return Math.ceil(v.bits / 8);
  return 1;
}

/** library traversalCost. */
function traversalCost(v: CelValue): number {
  if (typeof v === 'string') return Math.trunc(new TextEncoder().encode(v).length * STRING_TRAVERSAL);
  if (v instanceof Uint8Array) return Math.trunc(v.length * STRING_TRAVERSAL);
  if (Array.isArray(v)) return v.reduce((s: number, x: CelValue) => s + traversalCost(x), 0);
  if (v instanceof CelMap) {
    let c = 0;
    for (const [k, x] of v.entries()) c += traversalCost(k) + traversalCost(x);
    return c;
  }
  return 1;
}

const ceil = (x: number): number => Math.ceil(x);

const SIZE_COSTED_FUNCTIONS = new Set([
  'isSorted', 'sum', 'max', 'min', 'indexOf', 'lastIndexOf', 'lowerAscii', 'upperAscii', 'substring', 'trim', 'replace', 'split',
  'join', 'find', 'findAll', 'quantity', 'isQuantity', 'semver', 'isSemver', '_==_', '_!=_', 'cidr', 'isIP', 'isCIDR', 'ip',
  'ip.isCanonical', 'containsIP', 'containsCIDR', 'url', 'validate',
]);
const SIZE_COSTED_OVERLOADS = new Set([
  'list_sets_contains_list', 'list_sets_intersects_list', 'list_sets_equivalent_list', 'starts_with_string', 'ends_with_string',
  'string_to_bytes', 'bytes_to_string', 'strings_quote', 'in_list', 'less_string', 'greater_string', 'less_equals_string',
  'greater_equals_string', 'less_bytes', 'greater_bytes', 'less_equals_bytes', 'greater_equals_bytes', 'equals', 'not_equals',
  'add_string', 'add_bytes', 'matches_string', 'contains_string', 'string_format',
]);

/** True when every call of this function costs 1 at run time, whatever its arguments. */
export function hasUnitCallCost(fn: string, overloadIds: readonly string[]): boolean {
  return !SIZE_COSTED_FUNCTIONS.has(fn) && !overloadIds.some((id) => SIZE_COSTED_OVERLOADS.has(id));
}

/** Computes the runtime cost of one call from its arguments and result. */
export type CallCost = (args: readonly CelValue[], result: CelValue) => number;

const unit: CallCost = () => 1;
const stringTraversal0: CallCost = (a) => ceil(actualSize(a[0]!) * STRING_TRAVERSAL);
const regexCost: CallCost = (a) => ceil((1 + actualSize(a[0]!)) * STRING_TRAVERSAL) * ceil(actualSize(a[1]!) * REGEX_LENGTH);
const smallerSize: CallCost = (a) => ceil(Math.min(actualSize(a[0]!), actualSize(a[1]!)) * STRING_TRAVERSAL);

/**
 * The runtime cost function of a call site (CostTracker.costCall with the
 * Kubernetes estimator), chosen once by function name and overload id.
 */
export function callCost(fn: string, id: string): CallCost {
  const setsFactor = { list_sets_contains_list: 1, list_sets_intersects_list: 1, list_sets_equivalent_list: 2 }[id];
  if (setsFactor !== undefined) return (a) => 1 + Math.trunc(actualSize(a[0]!) * actualSize(a[1]!) * setsFactor);
  if (UNIT_COST_METHODS.has(fn)) return unit;
  switch (fn) {
    case 'isSorted':
    case 'sum':
    case 'max':
    case 'min':
    case 'indexOf':
    case 'lastIndexOf':
      return (a) => (a.length > 0 ? traversalCost(a[0]!) : 0);
    case 'lowerAscii':
    case 'upperAscii':
    case 'substring':
    case 'trim':
    case 'quantity':
    case 'isQuantity':
    case 'semver':
    case 'isSemver':
    case 'cidr':
    case 'isIP':
    case 'isCIDR':
      return stringTraversal0;
    case 'ip':
      return id === 'cidr_ip' ? unit : stringTraversal0;
    case 'url':
      return stringTraversal0;
    case 'getScheme':
    case 'getHostname':
    case 'getHost':
    case 'getPort':
    case 'getEscapedPath':
    case 'getQuery':
    case 'format.named':
      return unit;
    case 'validate':
      return (a) => ceil((1 + actualSize(a[1]!)) * STRING_TRAVERSAL) * ceil(((a[0] as CelFormat).maxRegexSize ?? 0) * REGEX_LENGTH);
    case 'ip.isCanonical':
      return (a) => ceil(actualSize(a[0]!) * 2 * STRING_TRAVERSAL);
    case 'masked':
    case 'prefixLength':
    case 'family':
    case 'isUnspecified':
    case 'isLoopback':
    case 'isLinkLocalMulticast':
    case 'isLinkLocalUnicast':
    case 'isGlobalUnicast':
      return unit;
    case 'containsIP':
    case 'containsCIDR':
      return (a) => {
        const c = actualSize(a[0]!);
        let cost = ceil((c + c) * STRING_TRAVERSAL);
        if (fn === 'containsCIDR') cost += ceil(c * STRING_TRAVERSAL) + 1;
        if (id.endsWith('_string')) cost += ceil(actualSize(a[1]!) * STRING_TRAVERSAL);
        return cost;
      };
    case 'replace':
    case 'split':
      return (a) => ceil(actualSize(a[0]!) * 2 * STRING_TRAVERSAL);
    case 'join':
      return (_a, r) => ceil(actualSize(r) * 2 * STRING_TRAVERSAL);
    case 'find':
    case 'findAll':
      return regexCost;
    case '_==_':
      return (a) =>
        a[0] instanceof Quantity ||
        a[0] instanceof Semver ||
        a[0] instanceof CelIP ||
        a[0] instanceof CelCIDR ||
        a[0] instanceof CelURL ||
        a[0] instanceof CelFormat
          ? 1
          : smallerSize(a, null);
  }
  switch (id) {
    case 'starts_with_string':
    case 'ends_with_string':
    case 'string_to_bytes':
    case 'bytes_to_string':
    case 'strings_quote':
    case 'string_format':
      return stringTraversal0;
    case 'in_list':
      return (a) => actualSize(a[1]!);
    case 'less_string':
    case 'greater_string':
    case 'less_equals_string':
    case 'greater_equals_string':
    case 'less_bytes':
    case 'greater_bytes':
    case 'less_equals_bytes':
    case 'greater_equals_bytes':
    case 'equals':
    case 'not_equals':
      return smallerSize;
    case 'add_string':
    case 'add_bytes':
      return (a) => ceil((actualSize(a[0]!) + actualSize(a[1]!)) * STRING_TRAVERSAL);
    case 'matches_string':
      return regexCost;
    case 'contains_string':
      return (a) => ceil(actualSize(a[0]!) * STRING_TRAVERSAL) * ceil(actualSize(a[1]!) * STRING_TRAVERSAL);
  }
  return unit;
}
