import type { ArrayDecl, DType } from '../ir/types.js';
import { contiguousStrides, type NDArray } from '../runtime/ndarray.js';
import { argumentFieldDataDims, argumentFieldDtype, argumentFieldRank } from '../diagnostics/runtimeErrors.js';

/** The interpreter's working copy of one array: its data, layout and where it came from. */
export interface ArrayState {
  decl: ArrayDecl;
  /** Working data as doubles (int64 and bool converted in and out). */
  data: Float64Array | Int8Array | Int16Array | Int32Array | Uint8Array | Float32Array;
  shape: number[];
  strides: number[];
  /** index into the compute point per array axis; set by each launch */
  origin: number[];
  /** point axis (0=i,1=j,2=k) of each array axis */
  axes: number[];
  source?: NDArray;
}

/** What memory nobody zeroed holds in the oracle: a value no correct program can depend on. */
export function poison(dtype: DType): number {
  return dtype.startsWith('float') ? NaN : dtype === 'bool' ? 1 : -987654;
}

/** A caller's array bound to its declaration, checked (dtype, rank, data dimensions); int64 is worked on as doubles. */
export function boundArray(decl: ArrayDecl, a: NDArray): ArrayState {
  if (a.dtype !== decl.dtype) throw argumentFieldDtype(decl.name, a.dtype, decl.dtype);
  const dims = decl.dims ?? [];
  if (a.shape.length !== decl.axes.length + dims.length) {
    throw argumentFieldRank(decl.name, a.shape.length, decl.axes.length + dims.length, describeAxes(decl), dims.length);
  }
  const trailing = a.shape.slice(decl.axes.length);
  if (trailing.some((n, d) => n !== dims[d])) {
    throw argumentFieldDataDims(decl.name, trailing.join(', '), dims.join(', '));
  }
  const data = a.data instanceof BigInt64Array ? Float64Array.from(a.data, (x) => Number(x)) : (a.data as ArrayState['data']);
  return { decl, data, shape: a.shape, strides: contiguousStrides(a.shape), origin: [], axes: axisMap(decl), source: a };
}

const INT64_MAX = (1n << 63n) - 1n;

/** Copies int64 results back into the caller's array (the others were worked on in place). */
export function writeBack(st: ArrayState): void {
  if (st.source && st.source.data instanceof BigInt64Array) {
    const src = st.source.data;
    // 2^63, the double nearest INT64_MAX (a literal 9223372036854775807), saturates as the C++ code's does
    for (let n = 0; n < src.length; n++) src[n] = st.data[n] >= 2 ** 63 ? INT64_MAX : BigInt(st.data[n]);
  }
}

/** `IJK` or `IJK, data (3, 2)`: what an array's dimensions are, for messages. */
export function describeAxes(decl: ArrayDecl): string {
  return [decl.axes || 'no spatial axis', ...(decl.dims ? [`data (${decl.dims.join(', ')})`] : [])].join(', ');
}

export function axisMap(decl: ArrayDecl): number[] {
  return [...decl.axes].map((a) => 'IJK'.indexOf(a));
}
