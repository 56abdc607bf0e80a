/**
 * Oracle questions for the libraries and the language corners: each library
 * function and operator family, syntax and literals, limits, timestamps and
 * durations, IP/CIDR, URL and Format.
 */
import type { CelQuestion } from './cases.js';

const q = (s: string): string => JSON.stringify(s);

/** One question per library function and operator family, plus compile errors. */
export function libraryQuestions(): CelQuestion[] {
  const exprs = [
    // ext strings
    '"hello".charAt(1) == "e"', '"hello".charAt(5) == ""', '"hello".charAt(6) == ""', '"héllo".charAt(1) == "é"',
    '"hello".indexOf("l") == 2', '"hello".indexOf("l", 3) == 3', '"hello".indexOf("") == 0', '"hello".indexOf("", 9) == 9',
    '"hello".indexOf("z", 10) == -1', '"hello".indexOf("l", -1) == 2', '"hello".lastIndexOf("l") == 3', '"hello".lastIndexOf("l", 2) == 2',
    '"hello".lastIndexOf("") == 5', '"🚀a🚀".lastIndexOf("🚀") == 2', '"hello".lowerAscii() == "hello"', '"HeLLo ÄÖ".lowerAscii() == "hello ÄÖ"',
    '"hello".upperAscii() == "HELLO"', '"a,b,c".split(",") == ["a", "b", "c"]', '"a,b,c".split(",", 2) == ["a", "b,c"]',
    '"a,b,c".split(",", 0) == []', '"abc".split("") == ["a", "b", "c"]', '"abc".substring(1) == "bc"', '"abc".substring(1, 2) == "b"',
    '"abc".substring(2, 1) == ""', '"abc".substring(4) == ""', '"  x \\t\\n".trim() == "x"', '"\\u00a0x\\u0085".trim() == "x"',
    '"aaa".replace("a", "b") == "bbb"', '"aaa".replace("a", "b", 2) == "bba"', '"abc".replace("", "-") == "-a-b-c-"',
    '["a", "b"].join() == "ab"', '["a", "b"].join("-") == "a-b"', '[].join("-") == ""', 'strings.quote("a\\"b\\n") == "\\"a\\\\\\"b\\\\n\\""',
    '"abc".format([1]) == "abc"', '"abc".reverse() == "cba"', '"%d items".format([3]) == "3 items"', '"%s".format(["x", 1])',
    'format.dns1123Label().validate("abc").hasValue()', 'format.named("dns1123Label").hasValue()', 'format.named("nope").hasValue()',
    // standard strings
    '"hello".contains("ell")', '"hello".startsWith("he")', '"hello".endsWith("lo")', '"hello".matches("^h.*o$")',
    'matches("hello", "l+")', '"hello".matches("a(?=b)")', 'matches("a(", "x")', '"hello".matches("[")', '"x".matches("\\\\d")',
    'size("héllo") == 5', '"héllo".size() == 5', 'size(b"\\xff\\x00") == 2', '"a" < "b"', '"\\uff61" < "🚀"', '"Z" < "a"',
    // regex (Kubernetes)
    '"abc123def456".find("[0-9]+") == "123"', '"abc".find("[0-9]+") == ""', '"abc123def456".findAll("[0-9]+") == ["123", "456"]',
    '"abc123def456".findAll("[0-9]+", 1) == ["123"]', '"abc".findAll("", -1).size() == 4', '"abc".findAll("x*") == ["", "", "", ""]',
    '"abc".find("(") == ""', 'cel.bind(p, "(", "abc".find(p) == "")', '"aaa".findAll("a*?") == ["", "", "", ""]',
    // lists (Kubernetes)
    '[1, 2, 3].isSorted()', '[3, 1].isSorted()', '["a", "b"].isSorted()', '[1.0, 2.0].isSorted()', '[true, false].isSorted()',
    '[1, 2, 3].sum() == 6', '[1.5, 2.5].sum() == 4.0', '[1u, 2u].sum() == 3u', '[].sum() == 0', '[9223372036854775807, 1].sum() > 0',
    '[1, 5, 3].max() == 5', '[1, 5, 3].min() == 1', '["b", "a"].min() == "a"', '[].max() == 0', '[1, 2, 1].indexOf(1) == 0',
    '[1, 2, 1].lastIndexOf(1) == 2', '[1, 2].indexOf(3) == -1', '"abcabc".indexOf("c") == 2',
    // sets
    'sets.contains([1, 2, 3], [2, 3])', 'sets.contains([1, 2], [3])', 'sets.equivalent([1, 2, 2], [2, 1])', 'sets.intersects([1, 2], [2, 9])',
    'sets.intersects([1], [])', 'sets.contains([1], [1.0])', 'sets.contains([dyn(1)], [dyn(1.0)])',
    // numbers and equality
    '1 == 1.0', 'dyn(1) == 1.0', 'dyn(1) == 1u', 'dyn(-1) == 18446744073709551615u', '1 < 1.5', '2u > 1', '1.5 >= 1u', 'dyn(1) < dyn(2.5)',
    'dyn("a") < dyn(1)', '1 + 1.0 == 2.0', 'dyn(1) + dyn(1.0) == 2.0', '3 / 2 == 1', '-7 / 2 == -3', '-7 % 3 == -1', '7.0 / 2.0 == 3.5',
    '1 / 0 == 0', '1 % 0 == 0', '1.0 / 0.0 > 1e308', '0u - 1u == 0u', '18446744073709551615u + 1u > 0u', '9223372036854775807 + 1 > 0',
    '-9223372036854775808 == -9223372036854775807 - 1', '--1 == 1', '-(-1) == 1', '!!true', 'int(1.9) == 1', 'int(-1.9) == -1',
    'int(9.3e18) > 0', 'int("42") == 42', 'int(" 42") == 42', 'uint(-1) == 0u', 'uint("7") == 7u', 'double("1e3") == 1000.0',
    'double("inf") > 0.0', 'double("0x10") == 16.0', 'string(1.5) == "1.5"', 'string(1e21) == "1e+21"', 'string(123456789.0) == "1.23456789e+08"',
    'string(100000.0) == "100000"', 'string(0.0001) == "0.0001"', 'string(0.00001) == "1e-05"', 'string(-0.0) == "-0"', 'string(b"\\xff") == "x"',
    'bool("true") && !bool("F")', 'bool("yes")', 'bytes("é") == b"\\xc3\\xa9"', 'string(1u) == "1"', 'string(true) == "true"',
    'type(1) == int', 'type("a") == string', 'type(device) == map', 'type(quantity("1")) == type(quantity("2"))', 'type(1) == type(1u)',
    'dyn([1, "a"]) == [1, "a"]', '[1, "a"] == [1, "a"]', '[1, dyn(2)] == [1, 2]', '{"a": 1} == {"a": 1}', '{"a": 1, "b": "x"}.size() == 2',
    '{"a": 1}["b"] == 1', '{1: "a"}[1.0] == "a"', '{1: "a"}[1u] == "a"', '{true: 1}[true] == 1', '{"a": 1, "a": 2}.size() == 1',
    '{1.5: 1}.size() == 1', '[1, 2][2] == 0', '[1, 2][-1] == 0', '[1, 2][1u] == 2', '[1, 2][1.0] == 2', '[1, 2][1.5] == 2',
    'null == null', 'dyn(null) == 1', '[null] == [null]', 'dyn(quantity("1")) == dyn(1)', 'dyn(1) == dyn(quantity("1"))',
    '[quantity("1")] == [dyn(1)]', 'semver("1.0.0") == dyn("1.0.0")', 'quantity("1Ki") == quantity("1024")', '1 in [1.0, 2.0]',
    'dyn(1) in [1.0]', '"a" in {"a": 1}', '2 in {1: "a"}',
    // macros and comprehensions
    '[1, 2, 3].all(x, x > 0)', '[1, 2, 3].exists(x, x > 2)', '[1, 2, 3].exists_one(x, x > 1)', '[1, 2, 3].map(x, x * 2) == [2, 4, 6]',
    '[1, 2, 3].map(x, x > 1, x) == [2, 3]', '[1, 2, 3].filter(x, x % 2 == 1) == [1, 3]', '[0, 1].exists(x, 1 / x > 0)', '[0, 1].all(x, 1 / x > 0)',
    '[0, 1].all(x, 1 / x > 1)', '[1, 0].exists_one(x, 1 / x > 0)', '{"a": 1, "b": 2}.all(k, k.size() == 1)', '{"a": 1}.map(k, k) == ["a"]',
    '[1, 2].all(i, v, i < v)', '[5, 6].exists(i, v, i == 1 && v == 6)', '{"a": 1}.all(k, v, k == "a" && v == 1)', '[1, 2].existsOne(i, v, v == 2)',
    '[1, 2].transformList(i, v, v * 10) == [10, 20]', '[1, 2].transformList(i, v, i == 0, v) == [1]', '[1, 2].transformMap(i, v, v + i) == {0: 1, 1: 3}',
    '{"a": 1}.transformMap(k, v, v + 1) == {"a": 2}', '{"a": 1}.transformMapEntry(k, v, {v: k}) == {1: "a"}', '[1, 1].transformMapEntry(i, v, {v: i}).size() == 1',
    'cel.bind(x, 5, x * x == 25)', 'cel.bind(x, [1, 2], cel.bind(y, x.size(), y == 2))', 'cel.bind(x, 1, cel.bind(x, 2, x == 2))',
    '[[1, 2], [3]].all(l, l.all(x, x > 0))', '[1, 2].map(x, [x, x]) == [[1, 1], [2, 2]]', 'dyn([1, 2]).all(x, x > 0)', 'dyn(1).all(x, true)',
    '[1, 2].all(x, dyn(x))', '[1].exists(__result__, true)', '[1].map(x, y, x)', '[1].all(1, true)', 'has(device)', 'has([1].x)',
    // optionals
    'optional.of(1).hasValue()', 'optional.none().hasValue()', 'optional.of(1).value() == 1', 'optional.none().value() == 1',
    'optional.none().orValue(5) == 5', 'optional.of(1).or(optional.of(2)).value() == 1', 'optional.none().or(optional.of(2)).value() == 2',
    'optional.ofNonZeroValue(0).hasValue()', 'optional.ofNonZeroValue("a").hasValue()', '{"a": 1}.?a.value() == 1', '{"a": 1}.?b.hasValue()',
    '{"a": {"b": 2}}.?a.?b.orValue(0) == 2', '[1, 2][?5].orValue(9) == 9', '{"a": 1}[?"a"].value() == 1', '[?optional.of(1), ?optional.none()] == [1]',
    '{?"a": optional.of(1), ?"b": optional.none()} == {"a": 1}', 'optional.of(2).optMap(x, x * 2).value() == 4',
    'optional.none().optMap(x, x * 2).hasValue()', 'optional.of(2).optFlatMap(x, optional.of(x + 1)).value() == 3', '[1, 2].first().value() == 1',
    '[].last().hasValue()', 'optional.unwrap([optional.of(1), optional.none()]) == [1]', '[optional.of(1)].unwrapOpt() == [1]',
    'device.attributes[?"x"].hasValue()', 'device.attributes.?x.hasValue()', 'device.attributes[?"x"].?y.hasValue()',
    'optional.of(device.capacity).?foo.hasValue()', 'optional.of(1) == optional.of(1)',
    // device edges
    'device.capacity.all(d, device.capacity[d].all(id, device.capacity[d][id].sign() >= 0))',
    'device.attributes.exists(d, device.attributes[d].exists(id, string(device.attributes[d][id]) == "x"))',
    'device.attributes["a/b"].c == 1', 'device["driver"] == ""', 'device.driver.size() >= 0', 'device.attributes[1] == 1',
    'device.capacity["x"]["y"].isInteger()', 'device.nope == 1', 'device.allowMultipleAllocations', 'device.attributes.x.y',
    'device.attributes == {}', 'device.attributes.x == {}', 'device.attributes["x"] == {}',
    // compile errors and output types
    '1 + 1', '"x"', 'device', 'dyn(true)', '1 == 1 == true', 'true ? 1 : "a"', 'true ? device.attributes["x"].y : false',
    '[device.attributes["x"].y, 1].size() == 2', '[1, dyn(2)].size() == 2', '{"a": 1, "b": "c"}.size() == 2', 'if', 'x.if == 1',
    'a.b.c', 'foo()', 'device.driver.foo()', 'quantity(1)', 'quantity("1") < quantity("2")', 'semver("1.0.0").foo',
    'quantity("1").compareTo(semver("1.0.0")) == 0', 'timestamp("2024-01-01T00:00:00Z") < timestamp("2025-01-01T00:00:00Z")',
    'duration("1h") > duration("1m")', 'url("https://x").getHost() == "x"', 'ip("1.2.3.4").family() == 4', 'isCIDR("10.0.0.0/8")',
    'Foo{a: 1}', '1 +', '(1', '"unterminated', 'true && ', '.device.driver == ""', 'device.driver == \'x\'', 'r"\\d" == "\\\\d"',
    '"""a\nb""" == "a\\nb"', '0x10 == 16', '1u == 1u', '1e3 == 1000.0', '.5 == 0.5', '9223372036854775808 == 0', '18446744073709551616u == 0u',
    '-9223372036854775809 == 0', '1e999 == 0.0', 'device.driver == "a" // comment', '`abc` == 1', 'device.`driver` == ""',
  ];
  return exprs.map((expression, i) => ({ expression, device: i % 3 === 0 ? 'multi' : 'h200' }));
}

/** Length and cost limits. */
export function limitQuestions(): CelQuestion[] {
  const longTrue = `true${' && true'.repeat(1278)}`; // 10,228 bytes
  const tooLong = `true${' && true'.repeat(1280)}`; // 10,244 bytes
  const nested = (depth: number) => `${'('.repeat(depth)}true${')'.repeat(depth)}`;
  const chain = (n: number) => `1${' + 1'.repeat(n)} > 0`;
  const deep = 'device.attributes.all(a, device.attributes.all(b, device.attributes.all(c, true)))';
  const deeper = 'device.attributes.all(a, device.attributes.all(b, device.attributes.all(c, device.attributes.all(d, true))))';
  const strs = 'device.attributes.all(a, device.attributes[a].all(b, string(device.attributes[a][b]).matches("^[a-z]+$")))';
  return [longTrue, tooLong, nested(100), chain(200), chain(260), deep, deeper, strs, `${'device.driver + '.repeat(40)}"" != ""`].map((expression) => ({
    expression,
    device: 'h200',
  }));
}

/** Lexical and syntactic corners: precedence, literals, escapes, trailing commas, reserved words. */
export function syntaxQuestions(): CelQuestion[] {
  const exprs = [
    '!true == false', '-1 < 2', '1 - -1 == 2', '1--1 == 2', 'true ? false : true ? true : false', 'false ? 1 : 2 == 2',
    '1 in [1] == true', '2 * 3 + 4 == 10', '2 + 3 * 4 == 14', '10 - 2 - 3 == 5', '100 / 10 / 5 == 2', '7 % 4 % 2 == 1',
    '1 < 2 == true', '1 < 2 < 3', '!!!false', '- - 1 == 1', '-(1) == -1', '-0.0 == 0.0', '- 9223372036854775808 < 0',
    '[1, 2, ] == [1, 2]', '{"a": 1, } == {"a": 1}', 'size([1,],) == 1', 'f(1,)', '[,]', '{,}', '(true)', '((((true))))',
    '1.0e', '1e', '.e5 == 0.0', '1..2', '1.e5', '0x', '0xg', '0XF == 15', '0xFFFFFFFFFFFFFFFF == -1', '0x7FFFFFFFFFFFFFFF > 0',
    '0xFFFFFFFFFFFFFFFFu > 0u', '1U == 1u', '1e-5 > 0.0', '1E+2 == 100.0', '00 == 0', '01 == 1', '1_000 == 1000',
    '"\\x41" == "A"', '"\\u00e9" == "é"', '"\\U0001F680" == "🚀"', '"\\101" == "A"', '"\\777" == ""', '"\\q" == ""', '"\\ud800" == ""',
    "'single' == \"single\"", "'''triple ' quote''' == \"triple ' quote\"", '"""a"b""" == "a\\"b"', 'r"\\n".size() == 2', 'R"x" == "x"',
    'b"abc" == bytes("abc")', 'b"\\xff".size() == 1', 'B"x" == b"x"', 'br"\\x" == b"\\\\x"', 'rb"x" == b"x"', 'b"é".size() == 2',
    'b"\\u00e9" == b""', '"a" + "b" + "c" == "abc"', '"é" < "ê"', '"a" < "aa"', '"" < "a"', 'b"a" < b"b"', 'true > false', 'false < true',
    'null == null', 'null != 1', '[] == []', '{} == {}', '[[]] == [[]]', '[1] != [1, 2]', 'in == 1', 'true.x', 'null.x', '1.x',
    'a.true', 'device.driver.in', 'x', 'X == 1', '_ == 1', '__result__ == 1', 'device.attributes.as', 'let == 1', 'package',
    'device.driver == "gpu.nvidia.com" /* c */', 'device.driver // c\n == "gpu.nvidia.com"', '\tdevice.driver\n==\r\n"gpu.nvidia.com"',
    '"a"\n"b"', 'true &&', '&& true', 'true || || false', '(true', 'true)', '[true', '{"a"}', '{"a": }', 'f(', 'device.', 'device..driver',
    'device[', 'device["driver"]]', '1 ? 2', '1 ? 2 :', 'has()', 'has(device)', 'has(device.driver, 1)', 'has(device["driver"])',
    'has(device.attributes["x"])', '[1].all(x)', '[1].all(x, y, z, w)', '[1].map(x, y, z, w)', 'cel.bind(1, 2, 3)', 'cel.bind(x, 1)',
    'x.bind(y, 1, y == 1)', 'cel.bind(x, 1, x) == 1', '[1].exists_one(x, x == 1, true)', '[1, 2].existsOne(x, x == 1)',
    '[1].optMap(x, x)', 'optional.of(1).optMap(1, 2)', '{"a": 1}.?a.?b.hasValue()', '[1].?x', 'device.?driver.value() == "gpu.nvidia.com"',
    '1.0 == 1.0', '0.1 + 0.2 == 0.3', '0.1 + 0.2 > 0.3', '1e308 * 10.0 > 1e308', '-1e308 * 10.0 < 0.0', '0.0 / 0.0 == 0.0 / 0.0',
    'double("nan") != double("nan")', '[double("nan")] == [double("nan")]', 'double("nan") in [double("nan")]', 'int(2.5) == 2',
    'int(-2.5) == -2', 'uint(2.9) == 2u', 'int(1e19) == 0', 'uint(1.8446744073709552e19) == 0u', 'string(1e-7) == "1e-07"',
    'string(123456.0) == "123456"', 'string(1234567.0) == "1.234567e+06"', 'string(0.1) == "0.1"', 'string(1.0) == "1"',
    'string(-1.5e-5) == "-1.5e-05"', 'string(double("inf")) == "+Inf"', 'string(double("-inf")) == "-Inf"', 'double("1_0") == 10.0',
    'double(".5") == 0.5', 'double("5.") == 5.0', 'double("1e") == 1.0', 'double("+1") == 1.0', 'double(" 1") == 1.0', 'double("Infinity") > 0.0',
    'int("+5") == 5', 'int("-0") == 0', 'int("0x10") == 16', 'uint("+5") == 5u', 'uint("-0") == 0u', 'bool("TRUE") && bool("1") && !bool("0")',
    'bool("True") && bool("t") && !bool("f")', 'bool("tRUE")', 'string(bytes("é")) == "é"', 'bytes(b"x") == b"x"', 'type(b"") == bytes',
    'type(null) == null_type', 'type(1u) == uint', 'type(1.0) == double', 'type([]) == list', 'type({}) == map', 'type(type(1)) == type',
    'type(true) == bool', 'type(optional.none()) == type(optional.of(1))', 'dyn(1) == dyn(1)', 'dyn([1]) + [2] == [1, 2]',
    '[1] + dyn([2]) == [1, 2]', 'dyn("a") + "b" == "ab"', 'dyn(1) + 1 == 2', 'dyn(1u) + 1u == 2u', 'dyn(1.5) + 1.5 == 3.0',
    '"abc"[0] == "a"', '[1, 2, 3][dyn(1)] == 2', '{"a": 1}[dyn("a")] == 1', 'size({"a": 1, "b": 2}) == 2', '{"a": 1}.size() == 1',
    'size(1)', '"abc".size(1)', 'size()', 'size("a", "b")', '"a".startsWith()', '"a".startsWith(1)', 'dyn("a").startsWith(dyn(1))',
    'dyn(1).startsWith("a")', 'dyn([1, 2]).exists(x, x == 2)', 'dyn({"a": 1}).exists(k, k == "a")', 'dyn("ab").exists(c, true)',
  ];
  return exprs.map((expression, i) => ({ expression, device: i % 2 === 0 ? 'h200' : 'multi' }));
}

/** Timestamps and durations: parsing, formatting, arithmetic, getters in zones, limits. */
export function timeQuestions(): CelQuestion[] {
  const ts = [
    '2024-01-01T00:00:00Z', '2024-02-29T23:59:59.999999999Z', '2023-02-29T00:00:00Z', '2024-12-31T23:59:60Z', '0001-01-01T00:00:00Z',
    '0000-12-31T23:59:59Z', '9999-12-31T23:59:59Z', '9999-12-31T23:59:59-01:00', '0001-01-01T00:00:00+01:00', '2024-06-15T12:30:45+05:30',
    '2024-06-15T12:30:45-08:00', '2024-06-15T3:04:05Z', '2024-06-15T12:30:45,5Z', '2024-06-15T12:30:45.1234567891Z', '2024-06-15T12:30:45+25:00',
    '2024-06-15T12:30:45+10:99', '2024-06-15 12:30:45Z', '2024-06-15t12:30:45z', '2024-6-15T12:30:45Z', '2024-06-15T12:30Z', '',
    '2024-06-15T24:00:00Z', '2024-13-01T00:00:00Z', '2024-06-15T12:30:45.Z', '2024-06-15T12:30:45+0530', '2024-06-15T12:30:45.000Z',
  ];
  const durs = ['1h', '1.5h', '-2m30s', '300ms', '1us', '1µs', '1μs', '1ns', '0', '-0', '+5s', '1h2m3s4ms5us6ns', '.5s', '5.s', '1', 'h',
    '1d', '9223372036s', '9223372037s', '2562047h47m16.854775807s', '2562047h47m16.854775808s', '-2562047h47m16.854775808s', '1.0000000001s', ''];
  const out: string[] = [];
  for (const t of ts) out.push(`string(timestamp(${q(t)})) == ""`, `int(timestamp(${q(t)})) > 0`);
  for (const d of durs) out.push(`string(duration(${q(d)})) == ""`, `int(duration(${q(d)})) > 0`);
  out.push(
    'timestamp("2024-01-01T00:00:00Z") + duration("24h") == timestamp("2024-01-02T00:00:00Z")',
    'duration("1h") + timestamp("2024-01-01T00:00:00Z") == timestamp("2024-01-01T01:00:00Z")',
    'timestamp("2024-03-01T00:00:00Z") - timestamp("2024-02-01T00:00:00Z") == duration("696h")',
    'timestamp("2024-01-01T00:00:00Z") - duration("1ns") < timestamp("2024-01-01T00:00:00Z")',
    'timestamp("9999-12-31T23:59:59Z") + duration("1s") > timestamp("2024-01-01T00:00:00Z")',
    'timestamp("0001-01-01T00:00:00Z") - duration("1ns") < timestamp("2024-01-01T00:00:00Z")',
    'timestamp("9999-12-31T23:59:59Z") - timestamp("0001-01-01T00:00:00Z") > duration("1h")',
    'duration("2562047h") + duration("2562047h") > duration("1h")', 'duration("-2562047h47m16.854775808s") - duration("1ns") < duration("0")',
    '-duration("1h") < duration("0")', 'dyn(duration("1h")) < duration("2h")', 'duration("1h") == duration("60m")', 'duration("1h") != duration("1s")',
    'timestamp("2024-01-01T00:00:00Z") == timestamp("2024-01-01T01:00:00+01:00")', 'timestamp(0) == timestamp("1970-01-01T00:00:00Z")',
    'timestamp(-62135596800) == timestamp("0001-01-01T00:00:00Z")', 'timestamp(-62135596801) < timestamp(0)', 'timestamp(253402300800) > timestamp(0)',
    'string(timestamp("2024-06-15T12:30:45+05:30") + duration("1h")) == "2024-06-15T13:30:45+05:30"', 'duration(5) > duration("1s")',
    'int(timestamp("1969-12-31T23:59:59.5Z")) == -1', 'int(duration("-1.5s")) == -1500000000', 'string(duration("-1.5s")) == "-1.5s"',
    'string(duration("1ns")) == "0.000000001s"', 'string(duration("100h")) == "360000s"', 'type(duration("1s")) == type(duration("2s"))',
    'type(timestamp(0)) != type(duration("1s"))', 'string(type(timestamp(0))) == "google.protobuf.Timestamp"', 'optional.ofNonZeroValue(duration("0")).hasValue()',
    'optional.ofNonZeroValue(timestamp("0001-01-01T00:00:00Z")).hasValue()', 'optional.ofNonZeroValue(timestamp(0)).hasValue()',
    '[duration("1h"), duration("1m")].sum() == duration("61m")', '[duration("1h"), duration("1m")].min() == duration("1m")',
    '[timestamp(5), timestamp(1)].max() == timestamp(5)', '[timestamp(1), timestamp(5)].isSorted()', '[duration("2562047h"), duration("2562047h")].sum() > duration("0")',
    'duration("1h") in [duration("60m")]', '{duration("1s"): 1}.size() == 1', 'timestamp("2024-01-01T00:00:00Z") < dyn(1)',
    'duration("90m").getHours() == 1', 'duration("-90m").getHours() == -1', 'duration("90m").getMinutes() == 90', 'duration("1.5s").getSeconds() == 1',
    'duration("1.5s").getMilliseconds() == 1500', 'duration("1h").getFullYear() == 0', 'timestamp("2024-01-01T00:00:00Z").getHours("") == 0',
  );
  const inst = 'timestamp("2024-03-10T06:59:59.123Z")';
  const zones = ['', 'UTC', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe', 'Europe/London', 'Pacific/Kiritimati', 'Etc/GMT+12', '+05:30', '-08:00', '05:30',
    '-00:30', '+14:00', 'Mars/Olympus', 'america/new_york', 'US/Pacific', '1:2:3', 'x:30'];
  const getters = ['getFullYear', 'getMonth', 'getDayOfYear', 'getDayOfMonth', 'getDate', 'getDayOfWeek', 'getHours', 'getMinutes', 'getSeconds', 'getMilliseconds'];
  getters.forEach((g, i) => {
    out.push(`${inst}.${g}() == ${i}`);
    for (const [j, z] of zones.entries()) if ((i + j) % 3 === 0) out.push(`${inst}.${g}(${q(z)}) == ${(i * 7 + j) % 24}`);
  });
  for (const [j, z] of zones.entries()) out.push(`${inst}.getHours(${q(z)}) * 60 + ${inst}.getMinutes(${q(z)}) == ${(j * 97) % 1440}`);
  for (const t of ['0001-01-01T00:00:00Z', '1582-10-10T12:00:00Z', '1900-03-01T00:00:00Z', '2000-02-29T00:00:00Z', '9999-12-31T23:59:59Z']) {
    out.push(`timestamp(${q(t)}).getDayOfWeek() == 1`, `timestamp(${q(t)}).getDayOfYear("America/Los_Angeles") == 59`, `timestamp(${q(t)}).getFullYear("+14:00") == 2000`);
  }
  return out.map((expression, i) => ({ expression, device: i % 4 === 0 ? 'h200' : 'empty' }));
}

/** The Kubernetes IP and CIDR libraries. */
export function ipQuestions(): CelQuestion[] {
  const ips = ['1.2.3.4', '0.0.0.0', '255.255.255.255', '127.0.0.1', '169.254.1.1', '224.0.0.5', '8.8.8.8', '01.2.3.4', '1.2.3', '1.2.3.4.5',
    '256.1.1.1', '1..2.3', ' 1.2.3.4', '::', '::1', 'fe80::1', 'ff02::1', '2001:db8::', '2001:DB8:0:0:1:0:0:1', '2001:db8::1:0:0:1',
    '2001:0db8:0000:0000:0000:0000:0000:0001', '::ffff:1.2.3.4', '::1.2.3.4', 'fe80::1%eth0', '1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8:9',
    '1::2::3', '12345::', 'g::', ':1', '1:', '1:2:3:4:5:6:1.2.3.4', '::ffff:0:0', 'abc', '', '0:0:0:0:0:0:0:0', '1:0:0:2:0:0:0:3'];
  const cidrs = ['10.0.0.0/8', '10.1.2.3/8', '192.168.0.0/16', '0.0.0.0/0', '1.2.3.4/32', '1.2.3.4/33', '1.2.3.4/08', '1.2.3.4/+8', '1.2.3.4/',
    '1.2.3.4', '2001:db8::/32', '2001:db8::1/128', '::/0', 'fe80::1%eth0/64', '::ffff:1.2.3.4/120', '2001:db8::/129', '10.0.0.0/8/8', '/8'];
  const out: string[] = [];
  ips.forEach((s, i) => {
    out.push(`isIP(${q(s)})`, `string(ip(${q(s)})) == ${q(s)}`);
    if (i % 2 === 0) out.push(`ip.isCanonical(${q(s)})`);
    const pred = ['isUnspecified', 'isLoopback', 'isLinkLocalMulticast', 'isLinkLocalUnicast', 'isGlobalUnicast'][i % 5]!;
    out.push(`ip(${q(s)}).${pred}()`, `ip(${q(s)}).family() == 4`);
  });
  for (const s of ['0.0.0.0', '::', '::1', '127.1.2.3', 'fe80::abcd', 'ff02::2', '255.255.255.255', '10.0.0.1', '2001:db8::1']) {
    for (const pred of ['isUnspecified', 'isLoopback', 'isLinkLocalMulticast', 'isLinkLocalUnicast', 'isGlobalUnicast']) out.push(`ip(${q(s)}).${pred}()`);
  }
  cidrs.forEach((s, i) => {
    out.push(`isCIDR(${q(s)})`, `string(cidr(${q(s)})) == ${q(s)}`, `cidr(${q(s)}).prefixLength() == 8`, `string(cidr(${q(s)}).masked()) == "10.0.0.0/8"`);
    out.push(`cidr(${q(s)}).containsIP(${q(ips[i % ips.length]!)})`, `cidr(${q(s)}).containsCIDR(${q(cidrs[(i * 5) % cidrs.length]!)})`);
    out.push(`string(cidr(${q(s)}).ip()) == "10.0.0.0"`);
  });
  out.push(
    'cidr("10.0.0.0/8").containsIP(ip("10.255.0.1"))', 'cidr("10.0.0.0/8").containsIP(ip("11.0.0.1"))', 'cidr("::/0").containsIP(ip("1.2.3.4"))',
    'cidr("10.0.0.0/8").containsCIDR(cidr("10.1.0.0/16"))', 'cidr("10.1.0.0/16").containsCIDR(cidr("10.0.0.0/8"))', 'cidr("10.0.0.0/8").containsCIDR("10.0.0.0/8")',
    'ip("1.2.3.4") == ip("1.2.3.4")', 'ip("::1") == ip("0:0::1")', 'ip("1.2.3.4") == dyn("1.2.3.4")', 'cidr("10.0.0.0/8") == cidr("10.0.0.0/8")',
    'cidr("10.0.0.1/8") == cidr("10.0.0.0/8")', 'cidr("10.0.0.1/8").masked() == cidr("10.0.0.0/8")', 'type(ip("1.2.3.4")) == type(ip("::1"))',
    'ip("1.2.3.4") in [ip("1.2.3.4")]', '[ip("1.2.3.4")] == [ip("1.2.3.4")]', 'ip(device.driver).family() == 4', 'cidr("1.2.3.4/24").ip() == ip("1.2.3.4")',
    'string(ip("2001:db8:0:0:1::1")) == "2001:db8::1:0:0:1"', 'string(ip("1:0:0:2:0:0:0:3")) == "1:0:0:2::3"', 'ip.isCanonical("2001:db8::1")',
    'ip.isCanonical("2001:DB8::1")', 'optional.ofNonZeroValue(ip("0.0.0.0")).hasValue()', 'ip("1.2.3.4") != ip("1.2.3.5")',
  );
  return out.map((expression, i) => ({ expression, device: i % 5 === 0 ? 'multi' : 'empty' }));
}

/** The Kubernetes URL library (Go net/url semantics). */
export function urlQuestions(): CelQuestion[] {
  const urls = ['https://example.com', 'https://example.com:8080/a/b?x=1&y=2&x=3#frag', 'http://user:pa%20ss@host.example:80/p%2Fq',
    'https://[::1]:443/x', 'https://[fe80::1%25eth0]/', 'https://[1.2.3.4]/', 'https://[::1', 'http://a:b:80/', 'http://host:port/',
    '/absolute/path', 'relative/path', '', '*', 'mailto:someone@example.com', 'HTTPS://EXAMPLE.com/Path', 'https://example.com/a b',
    'https://example.com/%zz', 'https://exa%41mple.com/', 'https://ex%2fample.com/', 'https://example.com/?a=%20b+c&d;e=1&&f',
    'https://example.com/?', 'https://example.com/?#', 'https://example.com/path?q=1#a%20b', 'ftp://ftp.example.com/file.txt',
    'https://example.com:/', 'https://example.com:abc/', 'https://@example.com/', 'https://u@p@example.com/', 'https://ü.example/',
    'https://example.com/ü', '//example.com/path', 'https:///path', 'https:', 'https://example.com/a\tb', '1http://x', ':foo',
    'https://example.com/%2e%2e/', 'https://example.com/a;b,c', 'http://[::ffff:1.2.3.4]:80/', 'a:b', 'http://example.com/?q=%zz&ok=1'];
  const out: string[] = [];
  urls.forEach((u, i) => {
    out.push(`isURL(${q(u)})`);
    const getter = ['getScheme', 'getHost', 'getHostname', 'getPort', 'getEscapedPath'][i % 5]!;
    out.push(`url(${q(u)}).${getter}() == ""`, `url(${q(u)}).getEscapedPath() == "/"`, `url(${q(u)}).getHost() == "example.com"`);
    out.push(`url(${q(u)}).getQuery().size() == 0`, `url(${q(u)}) == url(${q(u)})`);
  });
  out.push(
    'url("https://example.com:8080/a?x=1&x=2").getQuery()["x"] == ["1", "2"]', 'url("https://example.com/?a=%20b+c").getQuery()["a"] == [" b c"]',
    'url("https://example.com/?d;e=1&f=2").getQuery() == {"f": ["2"]}', 'url("https://example.com/a%2Fb").getEscapedPath() == "/a%2Fb"',
    'url("https://example.com/a b").getEscapedPath() == "/a%20b"', 'url("https://[::1]:443/").getHostname() == "::1"',
    'url("https://[::1]:443/").getPort() == "443"', 'url("HTTPS://x/").getScheme() == "https"', 'url("https://a/") == url("https://a")',
    'url("https://a/") == dyn("https://a/")', 'type(url("https://a")) == type(url("http://b"))', 'url("https://example.com/#a").getEscapedPath() == ""',
  );
  return out.map((expression, i) => ({ expression, device: i % 5 === 0 ? 'h200' : 'empty' }));
}

/** The Kubernetes Format library: named formats and their validation messages. */
export function formatQuestions(): CelQuestion[] {
  const names = ['dns1123Label', 'dns1123Subdomain', 'dns1035Label', 'qualifiedName', 'dns1123LabelPrefix', 'dns1123SubdomainPrefix',
    'dns1035LabelPrefix', 'labelValue', 'uri', 'uuid', 'byte', 'date', 'datetime'];
  const inputs = ['abc', 'my-name', '-abc', 'abc-', 'a.b', 'ABC', '1abc', '', 'a'.repeat(64), `${'a'.repeat(62)}-`, 'example.com/My_Name', '/x',
    'a/b/c', 'example.com/', 'https://example.com/a', 'not a uri', '123e4567-e89b-12d3-a456-426614174000', '123E4567E89B12D3A456426614174000',
    'aGVsbG8=', 'aGVsbG8', '2024-02-29', '2023-02-29', '2024-02-29T12:34:56Z', '2024-02-29t12:34:56.5+01:00', '2024-02-29T24:00:00Z',
    'x'.repeat(254), 'a_b', 'a..b'];
  const out: string[] = [];
  names.forEach((n, i) => {
    inputs.forEach((v, j) => {
      if ((i + j) % 3 === 0) out.push(`format.${n}().validate(${q(v)}).hasValue()`);
      if ((i * 5 + j) % 7 === 0) out.push(`format.${n}().validate(${q(v)}).orValue([]) == []`);
      if ((i + 2 * j) % 11 === 0) out.push(`format.named(${q(n)}).value().validate(${q(v)}).value()[0] == ""`);
    });
    out.push(`format.named(${q(n)}).hasValue()`, `format.named(${q(n)}) == optional.of(format.${n}())`);
  });
  out.push(
    'format.named("DNS1123Label").hasValue()', 'format.dns1123Label() == format.dns1123Label()', 'format.dns1123Label() == format.dns1035Label()',
    'format.dns1123Label() == dyn(1)', 'format.dns1123Label().validate(device.driver).hasValue()', 'type(format.uri()) == type(format.uuid())',
    'format.dns1123Label().validate("a.b").value() == ["must not contain dots"]', 'format.labelValue().validate("").hasValue()',
    `format.dns1123Label().validate("ABC").value() == ["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"]`,
    `format.dns1123Label().validate("ABC").value() == ["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name', or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"]`,
    'format.uri().validate("not a uri").value() == ["parse \\"not a uri\\": invalid URI for request"]',
    'format.uri().validate("https://a b").value() == ["parse \\"https://a b\\": invalid character \\" \\" in host name"]',
    'format.qualifiedName().validate("a/b/c").value()[0].startsWith("a qualified name must consist")',
    `format.qualifiedName().validate("-x").value() == ["name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName', or 'my.name', or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"]`,
    `format.dns1123Label().validate("${'a'.repeat(64)}").value()[0] == "must be no more than 63 characters"`,
  );
  return out.map((expression, i) => ({ expression, device: i % 5 === 0 ? 'h200' : 'empty' }));
}
