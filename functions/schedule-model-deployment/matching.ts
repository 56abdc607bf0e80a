/**
 * Selector compilation and the matching of a member's device requests against
 * a pool's devices (docs/kinds/modeldeployment.md#compiling-selectors,
 * docs/kinds/modeldeployment.md#matching-requests-against-a-pool).
 *
 * Guarantees:
 * - {@link compileEngines} compiles every selector of every member before
 *   anything is decided; every failure is reported with its field path
 *   (`...nodeSelector.devices[0].selectors[0]`), sorted by path.
 * - {@link MatchTable} groups pools into classes (pools whose device lists are
 *   equal, whatever their key order: pools of one InferenceClass), evaluates
 *   CEL at most once per (class, request, device) and resolves each (class,
 *   member) at most once per call: a fleet of 1,000 clusters built from 3
 *   classes runs CEL for 3 classes. Pools are classified lazily, only when
 *   placement looks at them. A result depends only on the pool's devices,
 *   never on capacity.
 * - Resolution is greedy and never overcommits a device: requests in order,
 *   each takes the first device (published order) with enough remaining count
 *   that satisfies all its selectors. A device's count absent, 0 or negative
 *   means none. Synthetic matches constrain the pool but are not claimed.
 */
import type { JsonObject } from '../lib/function.js';
import type { DeviceMatcher } from '../lib/fleet/matcher.js';
import type { DeviceRequestSpec, EngineSpec, MemberSpec, Pool, PoolDevice, ResolvedRequest } from '../lib/fleet/model.js';

/** A request with its compiled selectors. */
export interface CompiledRequest {
  spec: DeviceRequestSpec;
  programs: unknown[];
  /** Dense index over all requests of the deployment. */
  id: number;
}

/** A member with its compiled requests. */
export interface CompiledMember {
  spec: MemberSpec;
  requests: CompiledRequest[];
  /** Dense index over all members of the deployment. */
  id: number;
}

/** An engine with its compiled members. */
export interface CompiledEngine {
  spec: EngineSpec;
  members: CompiledMember[];
}

/** A selector that does not compile. */
export interface SelectorError {
  /** Field path of the selector, e.g. `spec.engines[0].members[0].nodeSelector.devices[0].selectors[0]`. */
  path: string;
  error: string;
}

/** Phase 1: compiles every selector; errors sorted by field path. */
export function compileEngines(
  engines: readonly EngineSpec[],
  matcher: DeviceMatcher,
): { ok: true; engines: CompiledEngine[]; members: number; requests: number } | { ok: false; errors: SelectorError[] } {
  const errors: SelectorError[] = [];
  let memberId = 0;
  let requestId = 0;
  const compiled = engines.map(
    (spec): CompiledEngine => ({
      spec,
      members: spec.members.map(
        (m): CompiledMember => ({
          spec: m,
          id: memberId++,
          requests: m.requests.map((r): CompiledRequest => {
            const programs = r.selectors.map((source, i) => {
              const c = matcher.compile(source);
              if (c.ok) return c.selector;
              errors.push({ path: r.selectorPaths[i] ?? '', error: c.error });
              return undefined;
            });
            return { spec: r, programs, id: requestId++ };
          }),
        }),
      ),
    }),
  );
  if (errors.length > 0) return { ok: false, errors: errors.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)) };
  return { ok: true, engines: compiled, members: memberId, requests: requestId };
}

/** A member resolved against one class: its claimable requests, or why it does not fit. */
export type MemberMatch = { ok: true; requests: ResolvedRequest[] } | { ok: false; detail: string };

interface ClassState {
  devices: PoolDevice[];
  celDevices: unknown[] | undefined;
  /** Per request id: which devices satisfy all its selectors. */
  satisfied: (boolean[] | undefined)[];
  /** Per member id. */
  members: (MemberMatch | undefined)[];
}

/** JSON with object keys sorted: equal device lists give equal keys whatever their key order. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((v as JsonObject)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** Memoised member ↔ class matching for one call. */
export class MatchTable {
  readonly #matcher: DeviceMatcher;
  readonly #classes: ClassState[] = [];
  /** Class by the pool's raw device JSON (fast), then by its key-sorted JSON. */
  readonly #byRaw = new Map<string, ClassState>();
  readonly #byKey = new Map<string, ClassState>();
  readonly #byPool = new WeakMap<Pool, ClassState>();

  constructor(matcher: DeviceMatcher) {
    this.#matcher = matcher;
  }

  /** Number of distinct classes seen so far. */
  get classes(): number {
    return this.#classes.length;
  }

  #classOf(pool: Pool): ClassState {
    let cls = this.#byPool.get(pool);
    if (cls !== undefined) return cls;
    const raw = JSON.stringify(pool.devices);
    cls = this.#byRaw.get(raw);
    if (cls === undefined) {
      const key = canonicalJson(pool.devices);
      cls = this.#byKey.get(key);
      if (cls === undefined) {
        cls = { devices: pool.devices, celDevices: undefined, satisfied: [], members: [] };
        this.#classes.push(cls);
        this.#byKey.set(key, cls);
      }
      this.#byRaw.set(raw, cls);
    }
    this.#byPool.set(pool, cls);
    return cls;
  }

  /** The member resolved against the devices of `pool`'s class (docs/kinds/modeldeployment.md#matching-requests-against-a-pool). */
  member(pool: Pool, member: CompiledMember): MemberMatch {
    const cls = this.#classOf(pool);
    let m = cls.members[member.id];
    if (m === undefined) {
      m = this.#resolve(cls, member);
      cls.members[member.id] = m;
    }
    return m;
  }

  #cel(cls: ClassState): unknown[] {
    cls.celDevices ??= cls.devices.map((d) => this.#matcher.device(d));
    return cls.celDevices;
  }

  #satisfied(cls: ClassState, req: CompiledRequest): boolean[] {
    let sat = cls.satisfied[req.id];
    if (sat === undefined) {
      const cel = this.#cel(cls);
      sat = cel.map((d) =>
        req.programs.every((p) => this.#matcher.matches(p, d)),
      );
      cls.satisfied[req.id] = sat;
    }
    return sat;
  }

  #resolve(cls: ClassState, member: CompiledMember): MemberMatch {
    const remaining = cls.devices.map((d) => (typeof d.count === 'number' && d.count > 0 ? d.count : 0));
    const out: ResolvedRequest[] = [];
    for (const req of member.requests) {
      const sat = this.#satisfied(cls, req);
      const count = req.spec.count;
      const i = sat.findIndex((ok, di) => ok && remaining[di]! >= count);
      if (i < 0) return { ok: false, detail: this.#why(cls, req, remaining) };
      remaining[i]! -= count;
      const device = cls.devices[i]!;
      if ((device.claim ?? 'DRA') === 'DRA') {
        out.push({ name: req.spec.name, deviceClassName: device.deviceClassName ?? '', device: i, count, selectors: [...req.spec.selectors] });
      }
    }
    return { ok: true, requests: out };
  }

  /**
   * Why no device takes `req`: the first selector index no device passes
   * after passing the ones before it (with the evaluation error of the first
   * device it errors on, when it errors), or the count when some device
   * passes them all. Evaluates CEL again, only on this failure path.
   */
  #why(cls: ClassState, req: CompiledRequest, remaining: readonly number[]): string {
    const cel = this.#cel(cls);
    if (cel.length === 0) return `${req.spec.name}: the pool publishes no devices`;
    let furthest = 0;
    let most = 0;
    cel.forEach((d, di) => {
      let passed = 0;
      while (passed < req.programs.length && this.#matcher.matches(req.programs[passed], d)) passed++;
      if (passed === req.programs.length) most = Math.max(most, remaining[di]!);
      furthest = Math.max(furthest, passed);
    });
    if (furthest < req.programs.length) {
      // A selector that errors (a misspelt attribute: no such key) is said as such, not as "no device satisfies".
      for (const [di, d] of cel.entries()) {
        const error = this.#matcher.error?.(req.programs[furthest], d);
        const passedBefore = req.programs.slice(0, furthest).every((p) => this.#matcher.matches(p, d));
        if (error !== undefined && passedBefore) {
          return `${req.spec.name}: selectors[${furthest}] failed on device ${cls.devices[di]?.name ?? `#${di}`}: ${error}`;
        }
      }
      return `${req.spec.name}: no device satisfies selectors[${furthest}]`;
    }
    return `${req.spec.name}: needs ${req.spec.count} devices per node, at most ${most} available`;
  }
}
