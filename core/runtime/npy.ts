import { closeSync, openSync, readFileSync, readSync, statSync, type Stats } from 'node:fs';
import { dump, parse, type DType as NpyDType } from 'npyjs';
import { fail, OrchError } from '../diagnostics.js';
import type { DType } from '../ir/types.js';
import type { NDArray, TypedArray } from './ndarray.js';
import { writeFileAtomic } from './atomicWrite.js';

/** .npy files through npyjs; orch adds dtype mapping and diagnostics for bad files. */

const FROM_NPY: Partial<Record<NpyDType, DType>> = { f8: 'float64', f4: 'float32', i1: 'int8', i2: 'int16', i4: 'int32', i8: 'int64', b1: 'bool' };
const TO_NPY: Record<DType, NpyDType> = { float64: 'f8', float32: 'f4', int8: 'i1', int16: 'i2', int32: 'i4', int64: 'i8', bool: 'b1' };

/** What a path is, when it is not a regular file (reading a device or a FIFO never ends). */
function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** The header's shape and item size, read before the data so the file size can be checked first. */
function readHeader(fd: number, file: string): { shape: number[]; itemBytes: number; dataOffset: number; descr: string } | undefined {
  const head = Buffer.alloc(12);
  const got = readSync(fd, head, 0, 12, 0);
  if (got < 10 || head.toString('latin1', 0, 6) !== '\x93NUMPY') return undefined;
  const major = head[6];
  const lenBytes = major === 1 ? 2 : 4;
  const headerLen = lenBytes === 2 ? head.readUInt16LE(8) : head.readUInt32LE(8);
  const start = 8 + lenBytes;
  if (headerLen > 1 << 20) return undefined;
  const text = Buffer.alloc(headerLen);
  if (readSync(fd, text, 0, headerLen, start) !== headerLen) fail('E_NPY_FORMAT', `${file} is truncated: its header is cut off`, { hint: 'the file is incomplete; write it again with numpy.save' });
  const header = text.toString('latin1');
  const descr = /'descr':\s*'([^']*)'/.exec(header)?.[1];
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(header)?.[1];
  if (descr === undefined || shapeText === undefined) return undefined;
  const shape = shapeText.split(',').map((x) => x.trim()).filter(Boolean).map(Number);
  const itemBytes = Number(/(\d+)$/.exec(descr)?.[1]);
  if (shape.some((n) => !Number.isSafeInteger(n) || n < 0) || !Number.isInteger(itemBytes)) return undefined;
  return { shape, itemBytes, dataOffset: start + headerLen, descr };
}

export function readNpy(file: string): NDArray {
  let st: Stats;
  try {
    st = statSync(file);
  } catch (e) {
    fail('E_NPY_READ', `cannot read ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`, { hint: 'check the path given to --in' });
  }
  if (!st.isFile()) fail('E_NPY_READ', `${file} is ${kindOf(st)}, not a .npy file`, { hint: 'pass a regular file written by numpy.save' });
  let buf: Buffer;
  try {
    const fd = openSync(file, 'r');
    try {
      const header = readHeader(fd, file);
      if (header) {
        const want = header.dataOffset + header.shape.reduce((a, b) => a * b, 1) * header.itemBytes;
        const shape = `shape (${header.shape.join(', ')}) of ${header.descr}`;
        if (st.size < want) {
          fail('E_NPY_FORMAT', `${file} is truncated: its header says ${shape}, which takes ${want} bytes, but the file has ${st.size}`, { hint: 'the file is incomplete; write it again with numpy.save' });
        }
        if (st.size > want) {
          fail('E_NPY_FORMAT', `${file} has ${st.size - want} bytes after the data its header describes (${shape}, ${want} bytes in all); it is not one .npy array`, {
            hint: 'several arrays appended to one file, or a wrong header: save one array per file with numpy.save',
          });
        }
      }
    } finally {
      closeSync(fd);
    }
    buf = readFileSync(file);
  } catch (e) {
    if (e instanceof OrchError) throw e;
    fail('E_NPY_READ', `cannot read ${file}: ${(e as Error).message}`, { hint: 'check the path given to --in' });
  }
  let parsed;
  try {
    const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer;
    parsed = parse(ab);
  } catch (e) {
    fail('E_NPY_FORMAT', `${file} is not a valid .npy file (${(e as Error).message})`, { hint: 'write it with numpy.save' });
  }
  const dtype = FROM_NPY[parsed.dtype];
  if (!dtype) fail('E_NPY_DTYPE', `${file} has dtype ${parsed.dtype}, which orch does not support`, { hint: 'use float64, float32, int8, int16, int32, int64 or bool arrays (GT4Py\'s dtypes; it has no unsigned or float16 fields)' });
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
