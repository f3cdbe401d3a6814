import { closeSync, openSync, readFileSync, readSync, statSync, type Stats } from 'node:fs';
import { dump, parse, type DType as NpyDType } from 'npyjs';
import { OrchError } from '../diagnostics.js';
import type { DType } from '../ir/types.js';
import type { NDArray, TypedArray } from './ndarray.js';
import { writeFileAtomic } from './atomicWrite.js';
import { notNpyFile, notValidNpy, npyDataTruncated, npyDtypeUnsupported, npyElementCount, npyFortranOrder, npyHeaderTruncated, npyTrailingBytes, npyUnreadable } from '../diagnostics/runtimeErrors.js';

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
  if (readSync(fd, text, 0, headerLen, start) !== headerLen) throw npyHeaderTruncated(file);
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
    throw npyUnreadable(file, (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message);
  }
  if (!st.isFile()) throw notNpyFile(file, kindOf(st));
  let buf: Buffer;
  try {
    const fd = openSync(file, 'r');
    try {
      const header = readHeader(fd, file);
      if (header) {
        const want = header.dataOffset + header.shape.reduce((a, b) => a * b, 1) * header.itemBytes;
        const shape = `shape (${header.shape.join(', ')}) of ${header.descr}`;
        if (st.size < want) {
          throw npyDataTruncated(file, shape, want, st.size);
        }
        if (st.size > want) {
          throw npyTrailingBytes(file, st.size - want, shape, want);
        }
      }
    } finally {
      closeSync(fd);
    }
    buf = readFileSync(file);
  } catch (e) {
    if (e instanceof OrchError) throw e;
    throw npyUnreadable(file, (e as Error).message);
  }
  let parsed;
  try {
    const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer;
    parsed = parse(ab);
  } catch (e) {
    throw notValidNpy(file, (e as Error).message);
  }
  const dtype = FROM_NPY[parsed.dtype];
  if (!dtype) throw npyDtypeUnsupported(file, parsed.dtype);
  if (parsed.fortranOrder) throw npyFortranOrder(file);
  const n = parsed.shape.reduce((a, b) => a * b, 1);
  const parsedData = parsed.data as TypedArray;
  if (parsedData.length !== n) throw npyElementCount(file, parsedData.length, parsed.shape.join('x'));
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
