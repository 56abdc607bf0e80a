/**
 * Function declarations: the shape the checker resolves overloads against
 * and the interpreter calls. Mirrors cel-go `common/decls`: an overload has
 * an id, a receiver flag, argument types (receiver first) and a result type;
 * type parameters are the `typeparam` types that appear in them. A function
 * either dispatches per overload (with a runtime guard on the argument types,
 * like cel-go's guarded bindings) or has one "singleton" implementation that
 * handles every overload by the runtime types of its arguments (cel-go's
 * trait-based operator bindings).
 */
import { QUANTITY, SEMVER, type CelType } from './types.js';
import { Quantity } from './quantity.js';
import { Semver } from './semver.js';
import { CelCIDR, CelIP } from './ip.js';
import { CelURL } from './url.js';
import { CelFormat } from './format.js';
import { CelDuration, CelTimestamp } from './time.js';
import { CelError, CelMap, CelOptional, CelTypeValue, CelUint, type CelValue, noSuchOverload } from './values.js';

/** An implementation: receives evaluated arguments (receiver first); throws CelError on error. */
export type Impl = (args: readonly CelValue[]) => CelValue;

/** One overload of a function. */
export interface Overload {
  readonly id: string;
  /** True for receiver-style overloads (`x.f()`). */
  readonly member: boolean;
  /** Argument types, receiver first. */
  readonly args: readonly CelType[];
  readonly result: CelType;
  /** Per-overload implementation; unused when the function has a singleton. */
  readonly impl?: Impl;
}

/** A function and its overloads. */
export interface FunctionDecl {
  readonly name: string;
  readonly overloads: readonly Overload[];
  /** One implementation for all overloads (cel-go singleton binding). */
  readonly singleton?: Impl;
}

/** Shorthand for a global overload. */
export function global(id: string, args: readonly CelType[], result: CelType, impl?: Impl): Overload {
  return impl ? { id, member: false, args, result, impl } : { id, member: false, args, result };
}

/** Shorthand for a receiver overload. */
export function member(id: string, args: readonly CelType[], result: CelType, impl?: Impl): Overload {
  return impl ? { id, member: true, args, result, impl } : { id, member: true, args, result };
}

const typeParamCache = new WeakMap<Overload, string[]>();

/** The names of the type parameters an overload uses. */
export function typeParamsOf(o: Overload): string[] {
  const hit = typeParamCache.get(o);
  if (hit) return hit;
  const names = new Set<string>();
  const walk = (t: CelType): void => {
    if (t.kind === 'typeparam') names.add(t.name);
    for (const p of t.params) walk(p);
  };
  for (const t of o.args) walk(t);
  walk(o.result);
  const out = [...names];
  typeParamCache.set(o, out);
  return out;
}

/**
 * cel-go Type.IsAssignableRuntimeType: does a runtime value fit a declared
 * argument type. Lists and maps are checked by their first element, as cel-go does.
 */
export function matchesRuntime(t: CelType, v: CelValue): boolean {
  switch (t.kind) {
    case 'dyn':
    case 'any':
    case 'typeparam':
      return true;
    case 'int':
      return typeof v === 'bigint';
    case 'uint':
      return v instanceof CelUint;
    case 'double':
      return typeof v === 'number';
    case 'string':
      return typeof v === 'string';
    case 'bool':
      return typeof v === 'boolean';
    case 'bytes':
      return v instanceof Uint8Array;
    case 'null':
      return v === null;
    case 'list': {
      if (!Array.isArray(v)) return false;
      const first = v[0];
      return first === undefined || matchesRuntime(t.params[0]!, first);
    }
    case 'map': {
      if (!(v instanceof CelMap)) return false;
      for (const [k, val] of v.entries()) return matchesRuntime(t.params[0]!, k) && matchesRuntime(t.params[1]!, val);
      return true;
    }
    case 'struct':
      if (t === QUANTITY || t.name === QUANTITY.name) return v instanceof Quantity;
      if (t === SEMVER || t.name === SEMVER.name) return v instanceof Semver;
      if (t.name === 'kubernetes.URL') return v instanceof CelURL;
      if (t.name === 'kubernetes.NamedFormat') return v instanceof CelFormat;
      return v instanceof CelMap;
    case 'opaque':
      if (t.name === 'optional_type') return v instanceof CelOptional;
      if (t.name === 'net.IP') return v instanceof CelIP;
      if (t.name === 'net.CIDR') return v instanceof CelCIDR;
      return false;
    case 'type':
      return v instanceof CelTypeValue;
    case 'timestamp':
      return v instanceof CelTimestamp;
    case 'duration':
      return v instanceof CelDuration;
    default:
      return false;
  }
}

/** Calls the first overload whose declared argument types accept the runtime arguments. */
export function dispatch(overloads: readonly Overload[], args: readonly CelValue[]): CelValue {
  for (const o of overloads) {
    if (o.impl && o.args.length === args.length && o.args.every((t, i) => matchesRuntime(t, args[i]!))) return o.impl(args);
  }
  throw noSuchOverload();
}

/** Throws a CelError with the message (for use in expressions). */
export function fail(message: string): never {
  throw new CelError(message);
}
