/**
 * Kubernetes' list types at run time: a list converted from a CRD field of
 * `x-kubernetes-list-type: set` or `map` carries {@link LIST_SEMANTICS}, and
 * equality and `+` honour it (k8s.io/apiserver/pkg/cel/common
 * valuesunstructured.go `unstructuredSetList`, `unstructuredMapList`).
 * Lists without it are CEL's ordinary lists. The left operand decides, as in
 * Kubernetes. Elements are CEL values; this module reads only their scalar
 * kinds and a map's `find`, so it is generic in the element type.
 */
/** How a list compares and concatenates: Kubernetes' list types. */
export type ListSemantics = { readonly type: 'set' } | { readonly type: 'map'; readonly keys: readonly string[] };

/** The list type of a converted list, when it is a set or map list. */
export const LIST_SEMANTICS: unique symbol = Symbol('listSemantics');

/** A list that may carry its list type. */
export type TypedList<T = unknown> = readonly T[] & { readonly [LIST_SEMANTICS]?: ListSemantics };

/** The list type of a list value, if it has one. */
export function listSemantics(v: readonly unknown[]): ListSemantics | undefined {
  return (v as TypedList)[LIST_SEMANTICS];
}

interface MapLike {
  find(k: string): unknown;
}

function isMapLike(v: unknown): v is MapLike {
  return typeof v === 'object' && v !== null && typeof (v as MapLike).find === 'function' && !Array.isArray(v);
}

/** A comparable key of a scalar list element, as Go compares the decoded JSON values. */
function scalarKey(v: unknown): string | undefined {
  if (typeof v === 'bigint') return `i${v}`;
  if (typeof v === 'number') return `d${v}`;
  if (typeof v === 'string') return `s${v}`;
  if (typeof v === 'boolean') return `b${v}`;
  if (v === null) return 'n';
  return undefined;
}

function mapListKey(e: unknown, keys: readonly string[]): string {
  if (!isMapLike(e)) return '\u0000unkeyed';
  return JSON.stringify(keys.map((k) => {
    const x = e.find(k);
    return x === undefined ? null : (scalarKey(x) ?? '?');
  }));
}

/**
 * Equality of a set or map list (the left operand decides, as in
 * Kubernetes): same size, every element of `b` in `a` (by value for sets, by
 * key fields then by value for maps). `eq` compares two elements.
 */
export function typedListEquals<T>(a: TypedList<T>, b: readonly T[], eq: (x: T, y: T) => boolean): boolean {
  const sem = a[LIST_SEMANTICS]!;
  if (a.length !== b.length) return false;
  if (sem.type === 'set') {
    const set = new Set(a.map(scalarKey));
    return b.every((x) => set.has(scalarKey(x)));
  }
  const byKey = new Map(a.map((x) => [mapListKey(x, sem.keys), x] as const));
  return b.every((x) => {
    const mine = byKey.get(mapListKey(x, sem.keys));
    return mine !== undefined && eq(mine, x);
  });
}

/**
 * `a + b` for a set list (a union keeping `a`'s order, `b`'s new elements
 * appended) or a map list (`b`'s entries replace `a`'s with the same keys in
 * place, new keys appended). The result keeps `a`'s list type.
 */
export function typedListAdd<T>(a: TypedList<T>, b: readonly T[]): TypedList<T> {
  const sem = a[LIST_SEMANTICS]!;
  const out = [...a] as T[] & { [LIST_SEMANTICS]?: ListSemantics };
  if (sem.type === 'set') {
    const seen = new Set(a.map(scalarKey));
    for (const x of b) {
      const k = scalarKey(x);
      if (!seen.has(k)) {
        seen.add(k);
        out.push(x);
      }
    }
  } else {
    const index = new Map(a.map((x, i) => [mapListKey(x, sem.keys), i] as const));
    for (const x of b) {
      const i = index.get(mapListKey(x, sem.keys));
      if (i !== undefined) out[i] = x;
      else out.push(x);
    }
  }
  out[LIST_SEMANTICS] = sem;
  return out;
}
