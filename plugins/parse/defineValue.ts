import type { DType, SourceLoc } from '../../core/ir/types.js';
import { defineFloatNotFinite, defineIntOutOfRange } from '../../core/diagnostics/usageErrors.js';

/** The integers a compile-time int holds exactly: int32's range, else what a double holds exactly. */
const INT_RANGE: Partial<Record<DType, [number, number]>> = {
  int8: [-(2 ** 7), 2 ** 7 - 1],
  int16: [-(2 ** 15), 2 ** 15 - 1],
  int32: [-(2 ** 31), 2 ** 31 - 1],
  int64: [-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

/**
 * A --define (or config `defines`) value for a compile-time argument of type `dtype`,
 * refused at the boundary when the type cannot hold it: a fraction or a huge number for an
 * int, an infinity for a float. Unchecked, these reach a loop bound or generated C++.
 */
export function checkDefine(name: string, value: number | boolean, dtype: DType | undefined, entry: string, loc: SourceLoc): void {
  if (typeof value === 'boolean' || dtype === undefined) return;
  const range = INT_RANGE[dtype];
  if (range && (!Number.isInteger(value) || value < range[0] || value > range[1])) {
    throw defineIntOutOfRange(name, value, entry, dtype, range[0], range[1], Number.isFinite(value) ? Math.min(Math.max(Math.trunc(value), range[0]), range[1]) : 1, loc);
  }
  if (dtype.startsWith('float') && !Number.isFinite(value)) {
    throw defineFloatNotFinite(name, value, entry, dtype, loc);
  }
}
