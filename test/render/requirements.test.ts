/**
 * requirementsEqual (cli/render/requirements.ts) answers exactly what
 * comparing the two Requirements' protobuf encodings (the SDK's encoder,
 * map keys sorted) answers: on hand-picked cases where proto3's rules bite,
 * and on thousands of generated pairs that differ in one place.
 */
import { Requirements } from '@crossplane-org/function-sdk-typescript';
import { describe, expect, it } from 'vitest';
import { requirementsEqual } from '../../cli/render/requirements.js';
import { mulberry32 } from '../../scripts/oracle/grammar.js';

/** The reference: the encodings of both, with every map's keys sorted. */
function encodedEqual(a: Requirements | undefined, b: Requirements | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  const sorted = <V>(m: Record<string, V> | undefined) => Object.fromEntries(Object.entries(m ?? {}).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
  const canon = (r: Requirements): Requirements => ({
    resources: sorted(Object.fromEntries(Object.entries(r.resources ?? {}).map(([k, s]) => [k, s?.matchLabels ? { ...s, matchLabels: { labels: sorted(s.matchLabels.labels) } } : s]))),
    extraResources: sorted(r.extraResources),
    schemas: sorted(r.schemas),
  });
  const enc = (r: Requirements) => Buffer.from(Requirements.encode(canon(r)).finish());
  return enc(a).equals(enc(b));
}

const sel = (over: object = {}) => ({ apiVersion: 'modelplane.ai/v1alpha1', kind: 'InferenceCluster', ...over });
const req = (resources: Record<string, unknown>, extra: Record<string, unknown> = {}, schemas: Record<string, unknown> = {}) =>
  ({ resources, extraResources: extra, schemas }) as unknown as Requirements;

const CASES: [string, Requirements | undefined, Requirements | undefined][] = [
  ['both unset', undefined, undefined],
  ['one unset', req({}), undefined],
  ['empty and empty', req({}), req({})],
  ['same selector', req({ c: sel() }), req({ c: sel() })],
  ['keys in another order', req({ a: sel(), b: sel({ kind: 'X' }) }), req({ b: sel({ kind: 'X' }), a: sel() })],
  ['another key', req({ a: sel() }), req({ b: sel() })],
  ['empty apiVersion', req({ a: sel({ apiVersion: '' }) }), req({ a: sel() })],
  ['empty matchName is not unset', req({ a: sel({ matchName: '' }) }), req({ a: sel() })],
  ['empty namespace is not unset', req({ a: sel({ namespace: '' }) }), req({ a: sel() })],
  ['matchName differs', req({ a: sel({ matchName: 'x' }) }), req({ a: sel({ matchName: 'y' }) })],
  ['empty matchLabels is not unset', req({ a: sel({ matchLabels: { labels: {} } }) }), req({ a: sel() })],
  ['labels in another order', req({ a: sel({ matchLabels: { labels: { x: '1', y: '2' } } }) }), req({ a: sel({ matchLabels: { labels: { y: '2', x: '1' } } }) })],
  ['label value differs', req({ a: sel({ matchLabels: { labels: { x: '1' } } }) }), req({ a: sel({ matchLabels: { labels: { x: '2' } } }) })],
  ['extra resources count', req({}, { a: sel() }), req({}, { a: sel() })],
  ['extra resources differ', req({}, { a: sel() }), req({}, {})],
  ['schemas differ', req({}, {}, { s: { apiVersion: 'v1', kind: 'A' } }), req({}, {}, { s: { apiVersion: 'v1', kind: 'B' } })],
  ['empty schema kind', req({}, {}, { s: { apiVersion: 'v1', kind: '' } }), req({}, {}, { s: { apiVersion: 'v1', kind: 'K' } })],
];

describe('requirementsEqual', () => {
  for (const [name, a, b] of CASES) {
    const expected = encodedEqual(a, b);
    it(`${name}: ${expected}`, () => {
      expect(requirementsEqual(a, b)).toBe(expected);
      expect(requirementsEqual(b, a)).toBe(expected);
    });
  }

  it('agrees with the encodings on 5,000 generated pairs', () => {
    const rand = mulberry32(17);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const strings = [undefined, '', 'a', 'b'] as const;
    const selector = () => {
      // apiVersion and kind are always strings (the SDK's type); matchName and namespace may be unset
      const s: Record<string, unknown> = { apiVersion: pick(['', 'a', 'b']), kind: pick(['', 'a', 'b']) };
      for (const f of ['matchName', 'namespace']) {
        const v = pick(strings);
        if (v !== undefined || rand() < 0.5) s[f] = v;
      }
      if (rand() < 0.5) s['matchLabels'] = { labels: Object.fromEntries([...Array(Math.floor(rand() * 3))].map(() => [pick(['x', 'y', 'z']), pick(['', '1', '2'])])) };
      return s;
    };
    const map = (f: () => unknown) => Object.fromEntries([...Array(Math.floor(rand() * 3))].map(() => [pick(['p', 'q', 'r']), f()]));
    const gen = () => req(map(selector), map(selector), map(() => ({ apiVersion: pick(['', 'v1']), kind: pick(['', 'K']) })));
    let equalPairs = 0;
    for (let i = 0; i < 5000; i++) {
      const a = gen();
      // the same value rebuilt half the time, so that equal pairs are well represented
      const b = rand() < 0.5 ? (JSON.parse(JSON.stringify(a)) as Requirements) : gen();
      const expected = encodedEqual(a, b);
      if (expected) equalPairs++;
      expect(requirementsEqual(a, b), JSON.stringify([a, b])).toBe(expected);
    }
    expect(equalPairs).toBeGreaterThan(1000);
  });
});
