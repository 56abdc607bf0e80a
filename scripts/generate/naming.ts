/**
 * Type names for the nodes of an XR schema, deterministic and readable:
 * `<Kind>` for the XR, `<Kind>Spec` / `<Kind>Status`, spec children named
 * without `Spec` (`InferenceClassProvisioning`, `InferenceClassDevice` for the
 * items of `spec.devices`), status children with it
 * (`InferenceClassStatusCondition`). List items and map values take the
 * singular of their field name.
 */

/** `nodePools` → `NodePools`; characters not valid in an identifier are dropped. */
export function pascal(key: string): string {
  return key
    .split(/[^A-Za-z0-9]+/)
    .filter((p) => p !== '')
    .map((p) => p[0]!.toUpperCase() + p.slice(1))
    .join('');
}

/** English singular of a field name, for the element type of a list or map (`devices` → `device`). */
export function singular(key: string): string {
  if (/ies$/.test(key)) return `${key.slice(0, -3)}y`;
  if (/(ss|sh|ch|x)es$/.test(key)) return key.slice(0, -2);
  if (/[^s]s$/.test(key)) return key.slice(0, -1);
  return key;
}

/** Hands out unique names: a second, different type wanting a taken name gets a numeric suffix. */
export class NameTable {
  readonly #taken = new Set<string>();

  /** Reserves `want`, or `want2`, `want3`, … when taken. */
  claim(want: string): string {
    let name = want;
    for (let i = 2; this.#taken.has(name); i++) name = `${want}${i}`;
    this.#taken.add(name);
    return name;
  }
}
