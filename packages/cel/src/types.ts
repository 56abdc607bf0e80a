/**
 * CEL types for the checker, following cel-go `common/types/types.go` and
 * the assignability/unification rules of `checker/types.go`: type
 * parameters, `dyn`, the protobuf `Any` type that Kubernetes uses for DRA
 * attribute values (treated like dyn by the checker, but a distinct output
 * type), optional types and substitutions.
 */

/** The kind of a CEL type. */
export type Kind =
  | 'bool'
  | 'bytes'
  | 'double'
  | 'int'
  | 'uint'
  | 'string'
  | 'null'
  | 'dyn'
  | 'any'
  | 'error'
  | 'list'
  | 'map'
  | 'type'
  | 'typeparam'
  | 'opaque'
  | 'struct'
  | 'timestamp'
  | 'duration';

/** A CEL type; `name` is cel-go's runtime type name. */
export interface CelType {
  readonly kind: Kind;
  readonly name: string;
  readonly params: readonly CelType[];
}

const simple = (kind: Kind, name: string): CelType => ({ kind, name, params: [] });

export const BOOL = simple('bool', 'bool');
export const BYTES = simple('bytes', 'bytes');
export const DOUBLE = simple('double', 'double');
export const INT = simple('int', 'int');
export const UINT = simple('uint', 'uint');
export const STRING = simple('string', 'string');
export const NULL = simple('null', 'null_type');
export const DYN = simple('dyn', 'dyn');
/** google.protobuf.Any: what Kubernetes declares attribute values as. */
export const ANY = simple('any', 'google.protobuf.Any');
export const ERROR = simple('error', 'error');
export const TIMESTAMP = simple('timestamp', 'google.protobuf.Timestamp');
export const DURATION = simple('duration', 'google.protobuf.Duration');
export const QUANTITY = simple('struct', 'kubernetes.Quantity');
export const SEMVER = simple('struct', 'kubernetes.Semver');
export const DRA_DEVICE = simple('struct', 'kubernetes.DRADevice');
export const IP = simple('opaque', 'net.IP');
export const URL_TYPE = simple('struct', 'kubernetes.URL');
export const FORMAT = simple('struct', 'kubernetes.NamedFormat');
export const CIDR = simple('opaque', 'net.CIDR');

export const listOf = (elem: CelType): CelType => ({ kind: 'list', name: 'list', params: [elem] });
export const mapOf = (k: CelType, v: CelType): CelType => ({ kind: 'map', name: 'map', params: [k, v] });
export const optionalOf = (t: CelType): CelType => ({ kind: 'opaque', name: 'optional_type', params: [t] });
export const typeParam = (name: string): CelType => ({ kind: 'typeparam', name, params: [] });
export const typeOf = (t?: CelType): CelType => ({ kind: 'type', name: 'type', params: t ? [t] : [] });
export const functionType = (result: CelType, args: readonly CelType[]): CelType => ({
  kind: 'opaque',
  name: 'function',
  params: [result, ...args],
});

/** checker isDyn: dyn or Any. */
export const isDyn = (t: CelType): boolean => t.kind === 'dyn' || t.kind === 'any';
/** checker isDynOrError. */
export const isDynOrError = (t: CelType): boolean => t.kind === 'error' || isDyn(t);
export const isOptional = (t: CelType): boolean => t.kind === 'opaque' && t.name === 'optional_type';

/** Type.isTypeInternal: exact (type parameter names compared) or equivalent. */
function sameType(a: CelType, b: CelType, checkParamName: boolean): boolean {
  if (a === b) return true;
  if (a.kind !== b.kind || a.params.length !== b.params.length) return false;
  if ((a.kind !== 'typeparam' || checkParamName) && a.name !== b.name) return false;
  return a.params.every((p, i) => sameType(p, b.params[i]!, checkParamName));
}

export const isExactType = (a: CelType, b: CelType): boolean => sameType(a, b, true);
export const isEquivalentType = (a: CelType, b: CelType): boolean => sameType(a, b, false);

/** Type.defaultIsAssignableType: can a value of `from` be used where `t` is expected (no unification). */
export function isAssignableType(t: CelType, from: CelType): boolean {
  if (t === from || t.kind === 'dyn' || t.kind === 'any' || t.kind === 'typeparam') return true;
  if (t.kind !== from.kind || t.name !== from.name || t.params.length !== from.params.length) return false;
  return t.params.every((p, i) => isAssignableType(p, from.params[i]!));
}

/**
 * Type-parameter substitutions (cel-go checker `mapping`). cel-go copies the
 * mapping before each unification attempt and keeps the copy on success;
 * here an undo log gives the same result without copying.
 */
export class Mapping {
  private readonly m = new Map<string, CelType>();
  private readonly log: [string, CelType | undefined][] = [];
  find(t: CelType): CelType | undefined {
    return t.kind === 'typeparam' ? this.m.get(t.name) : undefined;
  }
  add(t: CelType, sub: CelType): void {
    this.log.push([t.name, this.m.get(t.name)]);
    this.m.set(t.name, sub);
  }
  /** A point to roll back to. */
  checkpoint(): number {
    return this.log.length;
  }
  /** Undoes every add since the checkpoint. */
  rollback(cp: number): void {
    while (this.log.length > cp) {
      const [name, prev] = this.log.pop()!;
      if (prev === undefined) this.m.delete(name);
      else this.m.set(name, prev);
    }
  }
}

function isEqualOrLessSpecific(t1: CelType, t2: CelType): boolean {
  if (isDyn(t1) || t1.kind === 'typeparam') return true;
  if (isDyn(t2) || t2.kind === 'typeparam') return false;
  if (t1.kind !== t2.kind) return false;
  switch (t1.kind) {
    case 'opaque':
      return t1.name === t2.name && t1.params.length === t2.params.length && t1.params.every((p, i) => isEqualOrLessSpecific(p, t2.params[i]!));
    case 'list':
      return isEqualOrLessSpecific(t1.params[0]!, t2.params[0]!);
    case 'map':
      return isEqualOrLessSpecific(t1.params[0]!, t2.params[0]!) && isEqualOrLessSpecific(t1.params[1]!, t2.params[1]!);
    case 'type':
      return true;
    default:
      return isExactType(t1, t2);
  }
}

/** checker mostGeneral. */
export function mostGeneral(t1: CelType, t2: CelType): CelType {
  return isEqualOrLessSpecific(t1, t2) ? t1 : t2;
}

function notReferencedIn(m: Mapping, t: CelType, within: CelType): boolean {
  if (isExactType(t, within)) return false;
  switch (within.kind) {
    case 'typeparam': {
      const sub = m.find(within);
      return sub ? notReferencedIn(m, t, sub) : true;
    }
    case 'opaque':
    case 'list':
    case 'map':
    case 'type':
      return within.params.every((p) => notReferencedIn(m, t, p));
    default:
      return true;
  }
}

function isValidTypeSubstitution(m: Mapping, t1: CelType, t2: CelType): [boolean, boolean] {
  if (t1.kind === t2.kind && isExactType(t1, t2)) return [true, true];
  const t2Sub = m.find(t2);
  if (t2Sub) {
    if (t1.kind === t2Sub.kind && isExactType(t1, t2Sub)) return [true, true];
    if (internalIsAssignable(m, t1, t2Sub)) {
      const t2New = mostGeneral(t1, t2Sub);
      if (notReferencedIn(m, t2, t2New)) m.add(t2, t2New);
      return [true, true];
    }
    return [false, true];
  }
  if (notReferencedIn(m, t2, t1)) {
    m.add(t2, t1);
    return [true, false];
  }
  return [false, false];
}

const isLegacyNullable = (t: CelType): boolean =>
  t.kind === 'opaque' || t.kind === 'struct' || t.kind === 'any' || t.kind === 'duration' || t.kind === 'timestamp';

/** checker internalIsAssignable: unifies type parameters into `m` as it goes. */
export function internalIsAssignable(m: Mapping, t1: CelType, t2: CelType): boolean {
  if (t2.kind === 'typeparam') {
    const [valid, hasSub] = isValidTypeSubstitution(m, t1, t2);
    if (valid) return true;
    if (hasSub) return false;
  }
  if (t1.kind === 'typeparam') return isValidTypeSubstitution(m, t2, t1)[0];
  if (isDynOrError(t1) || isDynOrError(t2)) return true;
  if (t1.kind === 'null') return isLegacyNullable(t2) || isAssignableType(t2, NULL);
  if (t2.kind === 'null') return isLegacyNullable(t1) || isAssignableType(t1, NULL);
  switch (t1.kind) {
    case 'bool':
    case 'bytes':
    case 'double':
    case 'int':
    case 'string':
    case 'uint':
    case 'any':
    case 'duration':
    case 'timestamp':
    case 'struct':
      return isAssignableType(t2, t1);
    case 'type':
      return t2.kind === 'type';
    case 'opaque':
    case 'list':
    case 'map':
      return (
        t1.kind === t2.kind &&
        t1.name === t2.name &&
        t1.params.length === t2.params.length &&
        t1.params.every((p, i) => internalIsAssignable(m, p, t2.params[i]!))
      );
    default:
      return false;
  }
}

/** checker substitute. */
export function substitute(m: Mapping, t: CelType, typeParamToDyn: boolean): CelType {
  const sub = m.find(t);
  if (sub) return substitute(m, sub, typeParamToDyn);
  if (typeParamToDyn && t.kind === 'typeparam') return DYN;
  if (t.params.length === 0) return t;
  switch (t.kind) {
    case 'opaque':
    case 'list':
    case 'map':
    case 'type':
      return { kind: t.kind, name: t.name, params: t.params.map((p) => substitute(m, p, typeParamToDyn)) };
    default:
      return t;
  }
}

/** checker FormatCELType: how types appear in error messages. */
export function formatType(t: CelType): string {
  switch (t.kind) {
    case 'any':
      return 'any';
    case 'duration':
      return 'duration';
    case 'error':
      return '!error!';
    case 'null':
      return 'null';
    case 'timestamp':
      return 'timestamp';
    case 'typeparam':
      return t.name;
    case 'opaque':
      if (t.name === 'function') return `(${t.params.slice(1).map(formatType).join(', ')}) -> ${formatType(t.params[0]!)}`;
      break;
  }
  if (t.params.length === 0) return t.name;
  return `${t.name}(${t.params.map(formatType).join(', ')})`;
}
