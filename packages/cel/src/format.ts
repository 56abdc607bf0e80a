/**
 * The Kubernetes CEL Format library (k8s.io/apiserver/pkg/cel/library
 * format.go): named formats whose `validate(s)` returns the Kubernetes
 * validation messages (apimachinery IsDNS1123Label & co., kube-openapi
 * strfmt uuid/byte/date/datetime, net/url ParseRequestURI for uri), or
 * optional.none() when the string is valid.
 */
import { requestURIError } from './url.js';

/** A named format value (`format.dns1123Label()`). */
export class CelFormat {
  constructor(
    /** Format.Name, which equality compares. */
    readonly name: string,
    readonly validate: (s: string) => string[],
    /** Format.MaxRegexSize, used by the runtime cost. */
    readonly maxRegexSize: number,
  ) {}
}

const utf8Len = (s: string): number => Buffer.byteLength(s, 'utf8');
const maxLenError = (n: number) => `must be no more than ${n} characters`;
const emptyError = () => 'must be non-empty';

function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_LABEL = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL = new RegExp(`^${DNS1035_LABEL_FMT}$`);
const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED_NAME = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const QUALIFIED_NAME_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE = new RegExp(`^${LABEL_VALUE_FMT}$`);

function isDNS1123Label(v: string): string[] {
  const errs: string[] = [];
  if (utf8Len(v) > 63) errs.push(maxLenError(63));
  if (!DNS1123_LABEL.test(v)) {
    if (DNS1123_SUBDOMAIN.test(v)) errs.push('must not contain dots');
    else {
      errs.push(
        regexError(
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
          DNS1123_LABEL_FMT,
          'my-name',
          '123-abc',
        ),
      );
    }
  }
  return errs;
}

function isDNS1123Subdomain(v: string): string[] {
  const errs: string[] = [];
  if (utf8Len(v) > 253) errs.push(maxLenError(253));
  if (!DNS1123_SUBDOMAIN.test(v)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN_FMT,
        'example.com',
      ),
    );
  }
  return errs;
}

function isDNS1035Label(v: string): string[] {
  const errs: string[] = [];
  if (utf8Len(v) > 63) errs.push(maxLenError(63));
  if (!DNS1035_LABEL.test(v)) {
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        DNS1035_LABEL_FMT,
        'my-name',
        'abc-123',
      ),
    );
  }
  return errs;
}

function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push(`prefix part ${emptyError()}`);
    else errs.push(...isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push(`name part ${emptyError()}`);
  else if (utf8Len(name) > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!QUALIFIED_NAME.test(name)) errs.push(`name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

function isValidLabelValue(v: string): string[] {
  const errs: string[] = [];
  if (utf8Len(v) > 63) errs.push(maxLenError(63));
  if (!LABEL_VALUE.test(v)) {
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE_FMT,
        'MyValue',
        'my_value',
        '12345',
      ),
    );
  }
  return errs;
}

/** apimachinery maskTrailingDash (replaces the last two characters by "a" when the name ends in '-'). */
const maskTrailingDash = (name: string): string => (utf8Len(name) > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name);

const UUID_PATTERN = '(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$';
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;
const DATE_TIME_PATTERN = '^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$';
const DATE_TIME = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/u;

/** time.Parse("2006-01-02", s). */
function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12) return false;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1]!;
  return d >= 1 && d <= days;
}

/** strfmt IsDateTime. */
function isDateTime(str: string): boolean {
  if (utf8Len(str) < 4) return false;
  const s = str.toLowerCase().split('t');
  if (s.length < 2 || !isDate(s[0]!)) return false;
  const m = DATE_TIME.exec(s[1]!);
  return m !== null && m[1]! <= '23' && m[2]! <= '59' && m[3]! <= '59';
}

const check = (ok: (s: string) => boolean, message: string) => (s: string) => (ok(s) ? [] : [message]);

/** library.ConstantFormats, by the name after `format.`. */
export const CONSTANT_FORMATS: ReadonlyMap<string, CelFormat> = new Map([
  ['dns1123Label', new CelFormat('DNS1123Label', (s) => isDNS1123Label(s), 30)],
  ['dns1123Subdomain', new CelFormat('DNS1123Subdomain', (s) => isDNS1123Subdomain(s), 60)],
  ['dns1035Label', new CelFormat('DNS1035Label', (s) => isDNS1035Label(s), 30)],
  ['qualifiedName', new CelFormat('QualifiedName', isQualifiedName, 60)],
  ['dns1123LabelPrefix', new CelFormat('DNS1123LabelPrefix', (s) => isDNS1123Label(maskTrailingDash(s)), 30)],
  ['dns1123SubdomainPrefix', new CelFormat('DNS1123SubdomainPrefix', (s) => isDNS1123Subdomain(maskTrailingDash(s)), 60)],
  ['dns1035LabelPrefix', new CelFormat('DNS1035LabelPrefix', (s) => isDNS1035Label(maskTrailingDash(s)), 30)],
  ['labelValue', new CelFormat('LabelValue', isValidLabelValue, 40)],
  [
    'uri',
    new CelFormat(
      'URI',
      (s) => {
        const e = requestURIError(s);
        return e === undefined ? [] : [e];
      },
      1103,
    ),
  ],
  ['uuid', new CelFormat('uuid', check((s) => UUID.test(s), 'does not match the UUID format'), UUID_PATTERN.length)],
  ['byte', new CelFormat('byte', check((s) => BASE64.test(s), 'invalid base64'), 84)],
  ['date', new CelFormat('date', check(isDate, 'invalid date'), DATE_TIME_PATTERN.length)],
  ['datetime', new CelFormat('datetime', check(isDateTime, 'invalid datetime'), DATE_TIME_PATTERN.length)],
]);
