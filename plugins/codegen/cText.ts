import { DTYPE_BYTES, INT_RANGE, isIntDType } from '../../core/ir/dtypes.js';
import type { DType, SourceLoc } from '../../core/ir/types.js';

/**
 * C emission primitives: the C types of the IR's dtypes, literals, the IR's casts, and
 * user text made safe inside C string literals and comments.
 */

export const CTYPE: Record<DType, string> = {
  float64: 'double',
  float32: 'float',
  int8: 'int8_t',
  int16: 'int16_t',
  int32: 'int32_t',
  int64: 'int64_t',
  bool: 'bool',
};
/** Element type in memory: bools are bytes (numpy's layout), read back as `!= 0`. */
export const STORAGE: Record<DType, string> = { ...CTYPE, bool: 'uint8_t' };

export const isFloat = (d: DType): boolean => d === 'float64' || d === 'float32';
export const isInt = (d: DType): boolean => isIntDType(d);

/**
 * A C string literal for any user string. Everything outside printable ASCII, and the
 * characters that mean something in a literal, become 3-digit octal escapes (never
 * greedy, unlike \x), so no user text can end the literal or form a trigraph.
 */
export function cString(s: string): string {
  let out = '"';
  for (const byte of Buffer.from(s, 'utf8')) {
    const ch = String.fromCharCode(byte);
    out += byte >= 0x20 && byte < 0x7f && ch !== '"' && ch !== '\\' && ch !== '?' ? ch : `\\${byte.toString(8).padStart(3, '0')}`;
  }
  return `${out}"`;
}

/** User text inside a comment: quoted, one line, no comment terminator, no trigraphs. */
export function commentText(s: string): string {
  return JSON.stringify(s).replace(/\*\//g, '*\\/').replace(/\?/g, '\\u003f');
}

export function locText(loc: SourceLoc): string {
  return `${loc.file}:${loc.line}:${loc.col}`;
}

export function floatLiteral(v: number, dtype: DType): string {
  let text: string;
  if (Number.isNaN(v)) text = 'std::numeric_limits<double>::quiet_NaN()';
  else if (v === Infinity) text = 'std::numeric_limits<double>::infinity()';
  else if (v === -Infinity) text = '(-std::numeric_limits<double>::infinity())';
  else {
    // JS prints the shortest string that round-trips, and g++ parses correctly rounded.
    text = Object.is(v, -0) ? '-0.0' : String(v);
    if (!/[.eE]/.test(text)) text += '.0';
    if (text.startsWith('-')) text = `(${text})`;
  }
  return dtype === 'float32' ? `static_cast<float>(${text})` : text;
}

export function intLiteral(v: number, dtype: DType): string {
  if (!Number.isInteger(v)) throw new Error(`integer literal of dtype ${dtype} has non-integer value ${v}`);
  if (dtype === 'int8' || dtype === 'int16' || dtype === 'int32') {
    const [lo, hi] = INT_RANGE[dtype];
    if (v < lo || v > hi) throw new Error(`${dtype} literal ${v} is out of range`);
    return v === -(2 ** 31) ? 'INT32_MIN' : `static_cast<${CTYPE[dtype]}>(${v < 0 ? `(${v})` : v})`;
  }
  if (v <= -(2 ** 63)) return 'INT64_MIN';
  // 2^63 is the double nearest INT64_MAX: the IR's ints are doubles, so 9223372036854775807 arrives as it
  if (v === 2 ** 63) return 'INT64_MAX';
  if (v > 2 ** 63) throw new Error(`int64 literal ${v} is out of range`);
  return v < 0 ? `(${v}LL)` : `${v}LL`;
}

/** Converts C++ code of dtype `from` to dtype `to` with the IR's cast semantics. */
export function convert(code: string, from: DType, to: DType): string {
  if (from === to) return code;
  if (to === 'bool') return `(${code} != 0)`;
  if (isInt(to) && isFloat(from)) return `orch::ftoi<${CTYPE[to]}>(${code})`;
  return `static_cast<${CTYPE[to]}>(${code})`;
}

/** The type a comparison or `**` is computed in (numpy promotion of the two operands). */
export function commonType(a: DType, b: DType): DType {
  if (a === b) return a;
  if (a === 'float64' || b === 'float64') return 'float64';
  if (a === 'float32' || b === 'float32') return isInt(a) || isInt(b) ? 'float64' : 'float32';
  if (isInt(a) && isInt(b)) return DTYPE_BYTES[a] >= DTYPE_BYTES[b] ? a : b;
  return isInt(a) ? a : b;
}
