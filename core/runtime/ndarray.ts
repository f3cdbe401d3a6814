import { DTYPE_BYTES } from '../ir/dtypes.js';
import type { DType } from '../ir/types.js';

export type TypedArray = Float64Array | Float32Array | Int8Array | Int16Array | Int32Array | BigInt64Array | Uint8Array;

/**
 * A C-contiguous array, the unit that moves between npy files, the interpreter and
 * native libraries. int64 data is kept as BigInt64Array so it round-trips exactly;
 * bool is one byte per element (numpy's layout).
 */
export interface NDArray {
  dtype: DType;
  shape: number[];
  data: TypedArray;
}

export function allocate(dtype: DType, shape: number[]): NDArray {
  const n = shape.reduce((a, b) => a * b, 1);
  return { dtype, shape: [...shape], data: makeTypedArray(dtype, n) };
}

export function makeTypedArray(dtype: DType, n: number): TypedArray {
  switch (dtype) {
    case 'float64':
      return new Float64Array(n);
    case 'float32':
      return new Float32Array(n);
    case 'int8':
      return new Int8Array(n);
    case 'int16':
      return new Int16Array(n);
    case 'int32':
      return new Int32Array(n);
    case 'int64':
      return new BigInt64Array(n);
    case 'bool':
      return new Uint8Array(n);
  }
}

export function cloneArray(a: NDArray): NDArray {
  return { dtype: a.dtype, shape: [...a.shape], data: a.data.slice() as TypedArray };
}

/** C-order strides in elements. */
export function contiguousStrides(shape: number[]): number[] {
  const s = new Array<number>(shape.length).fill(1);
  for (let d = shape.length - 2; d >= 0; d--) s[d] = s[d + 1] * shape[d + 1];
  return s;
}

export function bytesPerElement(dtype: DType): number {
  return DTYPE_BYTES[dtype];
}
