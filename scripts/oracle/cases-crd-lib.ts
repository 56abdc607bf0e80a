/**
 * Hand-written CRD questions (group `crd-lib`): one small schema per topic,
 * its rules on `spec`, and objects that pass, fail and error. Topics: the
 * type of each schema shape, list types, string formats, escaping, the
 * libraries, errors at run time, transition rules, messages, and the cost
 * limits at compile and run time.
 */
import type { JSONSchemaProps, ValidationRule } from '../../functions/lib/schema/index.js';
import type { CrdQuestion } from './cases-crd.js';

type Props = Record<string, JSONSchemaProps>;
const str: JSONSchemaProps = { type: 'string' };
const int: JSONSchemaProps = { type: 'integer' };
const num: JSONSchemaProps = { type: 'number' };
const bool: JSONSchemaProps = { type: 'boolean' };
const list = (items: JSONSchemaProps, extra: Partial<JSONSchemaProps> = {}): JSONSchemaProps => ({ type: 'array', items, ...extra });
const map = (v: JSONSchemaProps, extra: Partial<JSONSchemaProps> = {}): JSONSchemaProps => ({ type: 'object', additionalProperties: v, ...extra });
const obj = (properties: Props, extra: Partial<JSONSchemaProps> = {}): JSONSchemaProps => ({ type: 'object', properties, ...extra });

/** A CRD whose spec has `props` and `rules`. */
function crd(props: Props, rules: (string | ValidationRule)[], specExtra: Partial<JSONSchemaProps> = {}): JSONSchemaProps {
  const xv = rules.map((r) => (typeof r === 'string' ? { rule: r } : r));
  return obj({ spec: obj(props, { ...specExtra, 'x-kubernetes-validations': xv }) });
}

/** Questions: the schema alone, then with each spec (and old spec, for updates). */
function topic(schema: JSONSchemaProps, specs: unknown[], updates: [unknown, unknown][] = []): CrdQuestion[] {
  return [
    { group: 'lib', schema },
    ...specs.map((spec) => ({ group: 'lib' as const, schema, object: { spec } })),
    ...updates.map(([spec, old]) => ({ group: 'lib' as const, schema, object: { spec }, oldObject: { spec: old } })),
  ];
}

const scalars: Props = { i: int, d: num, b: bool, s: str };

/** Every hand-written question. */
export function libraryCrdQuestions(): CrdQuestion[] {
  return [
    // Scalars and arithmetic.
    ...topic(
      crd(scalars, [
        'self.i + 1 > self.i',
        'self.d * 2.0 >= self.d || self.d < 0.0',
        'self.b || !self.b',
        "self.s + 'x' != self.s",
        'self.i == self.d',
        'int(self.d) <= self.i + 1',
        'self.i / (self.i - self.i) == 0',
        'string(self.i) == self.s',
        'double(self.i) == self.d',
        'self.i < 9223372036854775807',
        'self.i * 4611686018427387904 != 0',
      ]),
      [{ i: 1, d: 1, b: true, s: '1' }, { i: 2, d: 2.5, b: false, s: 'x' }, { i: -3, d: -1.25, b: true, s: '' }, { i: 2 ** 62, d: 0, b: false, s: 'big' }],
    ),
    // Missing fields, has(), optionals.
    ...topic(
      crd({ a: str, n: obj({ x: int }), o: map(str) }, [
        "has(self.a) ? self.a != '' : true",
        "self.a == 'x'",
        'has(self.n) && has(self.n.x)',
        'self.?n.?x.orValue(0) >= 0',
        "self.o.?k.orValue('') != 'bad'",
        "'k' in self.o || !has(self.a)",
        "self.?a.hasValue() == has(self.a)",
        'optional.of(1).value() == 1',
        "self.o.all(k, self.o[k].size() < 5)",
      ]),
      [{}, { a: 'x', n: { x: 1 }, o: { k: 'v' } }, { a: '', n: {}, o: { k: 'bad' } }, { a: 'y', o: { k: 'toolong' } }],
    ),
    // Nullable, int-or-string, preserve-unknown-fields, embedded resources.
    ...topic(
      crd(
        {
          n: { type: 'string', nullable: true },
          ios: { 'x-kubernetes-int-or-string': true },
          p: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: str } },
          e: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: obj({ v: int }) } },
        },
        [
          "!has(self.n) || self.n == 'x'",
          "type(self.ios) == int ? self.ios > 0 : self.ios.endsWith('%')",
          'self.ios > 0',
          "!has(self.p) || !has(self.p.known) || self.p.known != 'no'",
          "!has(self.e) || self.e.kind == 'Pod' && self.e.metadata.name != ''",
          '!has(self.e) || !has(self.e.spec) || self.e.spec.v < 10',
        ],
      ),
      [
        { n: null, ios: 5 },
        { n: 'x', ios: '50%' },
        { n: 'y', ios: 'abc' },
        { ios: -1, p: { known: 'no', extra: [1, 2] } },
        { ios: 1, e: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { v: 3 } } },
        { ios: 1, e: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { v: 30 } } },
      ],
    ),
    // String formats.
    ...topic(
      crd(
        {
          dur: { type: 'string', format: 'duration' },
          at: { type: 'string', format: 'date-time' },
          day: { type: 'string', format: 'date' },
          raw: { type: 'string', format: 'byte' },
        },
        [
          "!has(self.dur) || self.dur > duration('1m')",
          "!has(self.at) || self.at > timestamp('2020-01-01T00:00:00Z')",
          "!has(self.day) || self.day.getFullYear() == 2024",
          '!has(self.raw) || size(self.raw) == 3',
          "!has(self.at) || self.at + duration('1h') > self.at",
        ],
      ),
      [
        { dur: '5m', at: '2024-05-01T10:00:00Z', day: '2024-02-29', raw: 'YWJj' },
        { dur: '30s', at: '2019-01-01T00:00:00.5Z', day: '2023-01-01', raw: 'YWI=' },
        { dur: '1h30m', at: '2024-05-01T10:00:00+02:00' },
        { dur: '3 days' },
        { dur: 'nope' },
        { at: 'yesterday' },
        { raw: '!!' },
      ],
    ),
    // Escaped property names.
    ...topic(
      crd({ namespace: str, 'x-y': str, 'a.b': str, 'c/d': str, e__f: str, in: str, '1bad': str }, [
        "!has(self.__namespace__) || self.__namespace__ != 'kube-system'",
        "!has(self.x__dash__y) || self.x__dash__y.size() > 1",
        "!has(self.a__dot__b) || self.a__dot__b == self.c__slash__d",
        "!has(self.e__underscores__f) || self.e__underscores__f != ''",
        "!has(self.__in__) || self.__in__ == 'in'",
        'has(self.namespace)',
      ]),
      [{ namespace: 'default', 'x-y': 'ab', 'a.b': 'z', 'c/d': 'z', e__f: 'g', in: 'in', '1bad': 'q' }, { namespace: 'kube-system', 'x-y': 'a' }],
    ),
    // Lists, maps, list types.
    ...topic(
      crd(
        {
          tags: list(str, { 'x-kubernetes-list-type': 'set', maxItems: 10 }),
          ports: list(obj({ name: str, port: int }, { required: ['name'] }), { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], maxItems: 10 }),
          nums: list(int, { maxItems: 100 }),
          labels: map(str, { maxProperties: 10 }),
        },
        [
          "self.tags == ['b', 'a'] || self.tags.size() != 2",
          "(self.tags + ['a', 'z']).size() <= self.tags.size() + 2",
          "self.ports == [{'name': 'http', 'port': 80}, {'name': 'grpc', 'port': 90}] || self.ports.size() != 2",
          "(self.ports + [{'name': 'http', 'port': 81}]).exists(p, p.port == 81)",
          'self.nums.all(n, n >= 0)',
          'self.nums.exists_one(n, n == 0) || !self.nums.exists(n, n == 0)',
          'self.nums.map(n, n * 2).filter(n, n > 4).size() <= self.nums.size()',
          'self.nums.isSorted() || self.nums.size() > 3',
          'self.nums.sum() < 1000',
          "self.labels.all(k, v, k.size() + v.size() < 20)",
          'self.nums.all(i, n, i <= n)',
          "self.labels.transformList(k, v, k + '=' + v).size() == self.labels.size()",
          "sets.contains(self.tags, ['a']) || self.tags.size() == 0",
        ],
      ),
      [
        { tags: ['a', 'b'], ports: [{ name: 'grpc', port: 90 }, { name: 'http', port: 80 }], nums: [0, 1, 2], labels: { a: 'b' } },
        { tags: ['x'], ports: [{ name: 'http', port: 80 }], nums: [3, 1, 2, 5], labels: { long: 'value-that-is-long' } },
        { tags: [], ports: [], nums: [-1, 0, 0], labels: {} },
      ],
    ),
    // Libraries.
    ...topic(
      crd({ s: str, q: str, ip: str, cidr: str, url: str, v: str }, [
        "!has(self.s) || self.s.matches('^[a-z]+$')",
        "!has(self.s) || self.s.find('[0-9]+') == ''",
        "!has(self.s) || self.s.lowerAscii().upperAscii() == self.s.upperAscii()",
        "!has(self.s) || self.s.split('-').size() < 4",
        "!has(self.q) || !isQuantity(self.q) || quantity(self.q).compareTo(quantity('1Gi')) <= 0",
        "!has(self.ip) || isIP(self.ip) && ip(self.ip).family() == 4",
        "!has(self.cidr) || isCIDR(self.cidr) && cidr(self.cidr).prefixLength() >= 8",
        "!has(self.url) || isURL(self.url) && url(self.url).getScheme() == 'https'",
        "!has(self.v) || isSemver(self.v) && semver(self.v).isGreaterThan(semver('1.0.0'))",
        "!has(self.s) || format.dns1123Label().validate(self.s).hasValue() == false",
        "!has(self.s) || '%s!'.format([self.s]).endsWith('!')",
      ]),
      [
        { s: 'abc', q: '500Mi', ip: '10.0.0.1', cidr: '10.0.0.0/8', url: 'https://example.com/x', v: '1.2.3' },
        { s: 'ab1', q: '2Gi', ip: '::1', cidr: '10.0.0.0/4', url: 'http://x', v: '0.1.0' },
        { s: 'Ab-C', q: 'bogus', ip: '1:2:3:4:5:6:7:8:9', cidr: 'x', url: ':bad', v: 'v1' },
        { s: 'a-b-c-d-e' },
      ],
    ),
    // Errors at run time and dynamic types.
    ...topic(
      crd({ m: map(int), l: list(int), ios: { 'x-kubernetes-int-or-string': true } }, [
        "self.m['missing'] > 0",
        'self.l[5] == 0',
        'self.l[0] / 0 == 1',
        'self.ios + 1 > 0',
        "self.m.size() == 0 || self.m.all(k, 100 / self.m[k] > 0)",
      ]),
      [{ m: { a: 1 }, l: [1], ios: 1 }, { m: {}, l: [1, 2, 3, 4, 5, 6], ios: 'str' }, { m: { zero: 0 }, l: [0], ios: 2 }],
    ),
    // Transition rules and optional oldSelf.
    ...topic(
      crd({ v: int, name: str }, [
        { rule: 'self.v >= oldSelf.v', message: 'v may not decrease' },
        { rule: 'self.name == oldSelf.name', message: 'name is immutable', reason: 'FieldValueForbidden' },
        { rule: '!oldSelf.hasValue() || self.v != oldSelf.value().v + 100', optionalOldSelf: true, message: 'no jump of 100' },
        { rule: 'oldSelf.hasValue() || self.v < 1000', optionalOldSelf: true, message: 'created small' },
      ]),
      [{ v: 1, name: 'a' }, { v: 5000, name: 'b' }],
      [
        [{ v: 2, name: 'a' }, { v: 1, name: 'a' }],
        [{ v: 1, name: 'a' }, { v: 2, name: 'b' }],
        [{ v: 101, name: 'a' }, { v: 1, name: 'a' }],
      ],
    ),
    // Transition rules below a map, correlated by key; and on map-list items.
    ...topic(
      obj({
        spec: obj({
          byName: map(obj({ v: int }, { 'x-kubernetes-validations': [{ rule: 'self.v >= oldSelf.v', message: 'down' }] }), { maxProperties: 5 }),
          items: list(obj({ k: str, v: int }, { required: ['k'], 'x-kubernetes-validations': [{ rule: 'self.v >= oldSelf.v', message: 'item down' }] }), {
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['k'],
            maxItems: 5,
          }),
        }),
      }),
      [{ byName: { a: { v: 1 } }, items: [{ k: 'x', v: 1 }] }],
      [
        // One map key: with two, Kubernetes' answer depends on Go's map order (its runtime cost varied between runs).
        [{ byName: { a: { v: 1 } }, items: [{ k: 'x', v: 2 }, { k: 'y', v: 0 }] }, { byName: { a: { v: 2 } }, items: [{ k: 'y', v: 1 }, { k: 'x', v: 1 }] }],
      ],
    ),
    // Messages, message expressions, reasons, field paths.
    ...topic(
      crd({ a: str, b: obj({ c: str }) }, [
        { rule: "self.a != 'x'", message: '  a must not be x  ' },
        { rule: "self.a != 'y'", messageExpression: "'a is ' + self.a" },
        { rule: "self.a != 'z'", messageExpression: "''", message: 'fallback' },
        { rule: "!has(self.b) || self.b.c != 'x'", fieldPath: '.b.c', reason: 'FieldValueRequired', message: 'c' },
        { rule: "self.a != 'd'", reason: 'FieldValueDuplicate', message: 'dup' },
        { rule: "self.a != 'f'", reason: 'FieldValueForbidden' },
      ]),
      [{ a: 'x' }, { a: 'y' }, { a: 'z' }, { a: 'q', b: { c: 'x' } }, { a: 'd' }, { a: 'f' }, { a: 'ok' }],
    ),
    // Compile errors.
    ...topic(
      crd({ a: str, ios: { 'x-kubernetes-int-or-string': true } }, [
        'self.nope == 1',
        'self.a',
        'self.ios',
        "self.a.matches('[')",
        "cel.bind(x, self.a, x == 'a')",
        'undefinedFn(self.a)',
        'self.a == 1',
        '   ',
        "self.a.size() > 0 &&",
        "dyn(self.a) == 'a'",
      ]),
      [{ a: 'a', ios: 1 }],
    ),
    // Estimated costs: bounded and unbounded, nested iteration.
    ...topic(
      crd(
        {
          small: list(str, { maxItems: 5 }),
          big: list(str),
          bounded: list(obj({ name: { type: 'string', maxLength: 10 } }), { maxItems: 100 }),
          nested: list(list(int, { maxItems: 20 }), { maxItems: 20 }),
          names: map(str, { maxProperties: 50 }),
          text: { type: 'string', maxLength: 4096 },
          en: { type: 'string', enum: ['a', 'bbb'] },
        },
        [
          "self.small.all(s, s.size() < 10)",
          "self.big.all(s, s.size() < 10)",
          "self.big.all(s, s.matches('^a'))",
          'self.bounded.all(x, self.bounded.exists_one(y, y.name == x.name))',
          'self.nested.all(l, l.all(n, n > 0))',
          "self.names.exists(k, k.startsWith('x'))",
          "!has(self.text) || self.text.contains('needle')",
          "!has(self.text) || self.text.matches('^[a-z]*$')",
          "!has(self.en) || self.en == 'a'",
          "self.big.map(s, s + s).size() >= 0",
          "self.small.join(',').size() < 100",
          'self.big.all(a, self.big.all(b, a != b || true))',
        ],
      ),
      [{ small: ['a'], big: ['a', 'b'], bounded: [{ name: 'x' }, { name: 'y' }], nested: [[1, 2], [3]], names: { x1: 'a' }, text: 'a needle', en: 'a' }],
    ),
    // The runtime per-call limit and the budget.
    ...topic(crd({ big: list(str) }, ['self.big.all(a, self.big.all(b, a != b || true))']), [
      { big: Array.from({ length: 1200 }, (_, i) => `x${i}`) },
      { big: Array.from({ length: 300 }, (_, i) => `x${i}`) },
    ]),
    ...topic(
      obj({
        spec: obj({
          items: list(list(str, { 'x-kubernetes-validations': [{ rule: "self.all(x, self.all(y, x != '' && y != ''))", message: 'pairs' }] })),
        }),
      }),
      [{ items: Array.from({ length: 40 }, () => Array.from({ length: 200 }, (_, i) => `v${i}`)) }],
    ),
  ];
}
