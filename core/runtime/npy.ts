import { readFileSync } from 'node:fs';
import { dump, parse, type DType as NpyDType } from 'npyjs';
import { fail } from '../diagnostics.js';
import type { DType } from '../ir/types.js';
import type { NDArray, TypedArray } from './ndarray.js';
import { writeFileAtomic } from './atomicWrite.js';

/** .npy files through npyjs; orch adds dtype mapping and diagnostics for bad files. */

const FROM_NPY: Partial<Record<NpyDType, DType>> = { f8: 'float64', f4: 'float32', i4: 'int32', i8: 'int64', b1: 'bool' };
const TO_NPY: Record<DType, NpyDType> = { float64: 'f8', float32: 'f4', int32: 'i4', int64: 'i8', bool: 'b1' };

export function readNpy(file: string): NDArray {
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch {
    fail('E_NPY_READ', `cannot read ${file}`, { hint: 'check the path given to --in' });
  }
  let parsed;
  try {
    const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer;
    parsed = parse(ab);
  } catch (e) {
    fail('E_NPY_FORMAT', `${file} is not a valid .npy file (${(e as Error).message})`, { hint: 'write it with numpy.save' });
  }
  const dtype = FROM_NPY[parsed.dtype];
  if (!dtype) fail('E_NPY_DTYPE', `${file} has dtype ${parsed.dtype}, which orch does not support`, { hint: 'use float64, float32, int32, int64 or bool arrays' });
  if (parsed.fortranOrder) fail('E_NPY_ORDER', `${file} is stored in Fortran order`, { hint: 'save a C-ordered array: numpy.save(path, numpy.ascontiguousarray(a))' });
  const n = parsed.shape.reduce((a, b) => a * b, 1);
  const parsedData = parsed.data as TypedArray;
  if (parsedData.length !== n) fail('E_NPY_FORMAT', `${file} holds ${parsedData.length} elements but its header says ${parsed.shape.join('x')}`, { hint: 'the file is truncated; write it again' });
  // copy so the array owns aligned memory independent of the file buffer; npyjs gives
  // bools as a plain Array, orch keeps numpy's one byte per element
  const data = dtype === 'bool' ? Uint8Array.from(parsed.data as unknown as ArrayLike<boolean>, (x) => (x ? 1 : 0)) : (parsedData.slice() as TypedArray);
  return { dtype, shape: parsed.shape, data };
}

function encodeNpy(a: NDArray): Buffer {
  return Buffer.from(dump(a.data, a.shape, { dtype: TO_NPY[a.dtype] }));
}

export function writeNpy(file: string, a: NDArray): void {
  writeFileAtomic(file, encodeNpy(a));
}
