import type { NDArray } from '../runtime/ndarray.js';

/** Where two sets of fields first differ, and in how many elements. */
export interface BitwiseDifference {
  field: string;
  /** Flat index of the first differing element. */
  index: number;
  expected: number | bigint;
  actual: number | bigint;
  /** Differing elements over every field. */
  count: number;
}

/**
 * The first difference between `expected` and `actual`, bit for bit (a -0 where 0 was
 * expected differs; NaNs match each other whatever their payload, as the interpreter's
 * are JavaScript's), or null when every element of every field is identical.
 */
export function bitwiseDifference(expected: Record<string, NDArray>, actual: Record<string, NDArray>): BitwiseDifference | null {
  let first: BitwiseDifference | null = null;
  let count = 0;
  for (const [field, e] of Object.entries(expected)) {
    const a = actual[field];
    if (!a || a.dtype !== e.dtype || a.data.length !== e.data.length) {
      count += e.data.length;
      first ??= { field, index: 0, expected: e.data[0] ?? 0, actual: a?.data[0] ?? NaN, count: 0 };
      continue;
    }
    for (let n = 0; n < e.data.length; n++) {
      const x = e.data[n];
      const y = a.data[n];
      if (Object.is(x, y) || (typeof x === 'number' && typeof y === 'number' && Number.isNaN(x) && Number.isNaN(y))) continue;
      count++;
      first ??= { field, index: n, expected: x, actual: y, count: 0 };
    }
  }
  return first && { ...first, count };
}
