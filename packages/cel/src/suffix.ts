/**
 * Quantity suffixes (k8s.io/apimachinery/pkg/api/resource/suffix.go):
 * reading a suffix into base, exponent and format, and writing one back.
 */
import { inInt64 } from './int64.js';

/** How a quantity renders: the format of its suffix (resource.Format). */
export type QuantityFormat = 'DecimalExponent' | 'BinarySI' | 'DecimalSI';

const DECIMAL_SUFFIXES: ReadonlyMap<string, number> = new Map([
  ['n', -9],
  ['u', -6],
  ['m', -3],
  ['', 0],
  ['k', 3],
  ['M', 6],
  ['G', 9],
  ['T', 12],
  ['P', 15],
  ['E', 18],
]);
const DECIMAL_BY_EXPONENT: ReadonlyMap<number, string> = new Map([...DECIMAL_SUFFIXES].map(([s, e]) => [e, s]));
const BINARY_SUFFIXES: ReadonlyMap<string, number> = new Map([
  ['Ki', 10],
  ['Mi', 20],
  ['Gi', 30],
  ['Ti', 40],
  ['Pi', 50],
  ['Ei', 60],
]);
const BINARY_BY_EXPONENT: ReadonlyMap<number, string> = new Map([...BINARY_SUFFIXES].map(([s, e]) => [e, s]));

export interface Interpreted {
  base: 2 | 10;
  exponent: number;
  format: QuantityFormat;
}

/** resource suffixer.interpret. */
export function interpretSuffix(s: string): Interpreted | undefined {
  const dec = DECIMAL_SUFFIXES.get(s);
  if (dec !== undefined) return { base: 10, exponent: dec, format: 'DecimalSI' };
  const bin = BINARY_SUFFIXES.get(s);
  if (bin !== undefined) return { base: 2, exponent: bin, format: 'BinarySI' };
  if (s.length > 1 && (s[0] === 'E' || s[0] === 'e')) {
    const parsed = goParseInt64(s.slice(1));
    if (parsed === undefined) return undefined;
    return { base: 10, exponent: Number(BigInt.asIntN(32, parsed)), format: 'DecimalExponent' };
  }
  return undefined;
}

/** strconv.ParseInt(s, 10, 64). */
function goParseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const v = BigInt(s.startsWith('+') ? s.slice(1) : s);
  return inInt64(v) ? v : undefined;
}

/** suffixer.constructBytes: the suffix, or '' when there is none for that exponent. */
export function constructSuffix(base: 2 | 10, exponent: number, format: QuantityFormat): string {
  switch (format) {
    case 'DecimalSI':
      return base === 10 ? (DECIMAL_BY_EXPONENT.get(exponent) ?? '') : '';
    case 'BinarySI':
      return base === 2 ? (BINARY_BY_EXPONENT.get(exponent) ?? '') : '';
    default:
      if (base !== 10 || exponent === 0) return '';
      return `e${exponent}`;
  }
}
