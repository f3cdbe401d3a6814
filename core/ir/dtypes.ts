import type { DType } from './types.js';

/**
 * Facts about the IR's dtypes: GT4Py's cartesian DataType at the pin (gtc/common.py:
 * bool, int8, int16, int32, int64, float32, float64; no unsigned or float16).
 */

/** Every dtype, in GT4Py's DataType order (its upcasting compares them in this order). */
export const DTYPES: readonly DType[] = ['bool', 'int8', 'int16', 'int32', 'int64', 'float32', 'float64'];

export const INT_DTYPES: readonly DType[] = ['int8', 'int16', 'int32', 'int64'];

export function isIntDType(d: DType): boolean {
  return d === 'int8' || d === 'int16' || d === 'int32' || d === 'int64';
}

export function isFloatDType(d: DType): boolean {
  return d === 'float64' || d === 'float32';
}

export function isDType(s: string): s is DType {
  return (DTYPES as readonly string[]).includes(s);
}

/** Bytes per element (bool is one byte, numpy's layout). */
export const DTYPE_BYTES: Record<DType, number> = { bool: 1, int8: 1, int16: 2, int32: 4, int64: 8, float32: 4, float64: 8 };

/** The values an integer dtype holds (int64's as far as a double holds them exactly). */
export const INT_RANGE: Record<'int8' | 'int16' | 'int32' | 'int64', readonly [number, number]> = {
  int8: [-(2 ** 7), 2 ** 7 - 1],
  int16: [-(2 ** 15), 2 ** 15 - 1],
  int32: [-(2 ** 31), 2 ** 31 - 1],
  int64: [-(2 ** 63), 2 ** 63 - 1],
};

/** An integer wrapped into a narrow dtype as numpy's arithmetic does (two's complement); int64 is kept. */
export function wrapInt(v: number, d: DType): number {
  switch (d) {
    case 'int8':
      return (v << 24) >> 24;
    case 'int16':
      return (v << 16) >> 16;
    case 'int32':
      return v | 0;
    default:
      return v;
  }
}
