import { DTYPES } from '../core/ir/dtypes.js';
import type { Readable } from 'node:stream';
import type { DType } from '../core/ir/types.js';
import { bytesPerElement, makeTypedArray, type NDArray } from '../core/runtime/ndarray.js';
import { fieldDtypeUnsupported } from '../core/diagnostics/runtimeErrors.js';
import { serveProtocolError } from '../core/diagnostics/tuneErrors.js';

/**
 * The framing of `orch serve` (both directions): arrays travel as raw bytes, not files.
 *
 *   "ORCH" | uint32 LE header length | header (JSON, UTF-8) | the arrays' bytes, in header order
 *
 * The header lists the arrays as `{name, dtype, shape, nbytes}`; `nbytes` is explicit so a
 * frame can be skipped whole even when its dtype is one orch refuses.
 */
export const MAGIC = Buffer.from('ORCH', 'latin1');

export interface ArrayHeader {
  name: string;
  dtype: string;
  shape: number[];
  nbytes: number;
}

export interface Frame {
  header: Record<string, unknown> & { arrays?: ArrayHeader[] };
  payload: Buffer;
}


/** Frames from a byte stream, one at a time; ends at the stream's end. */
export async function* readFrames(input: Readable): AsyncGenerator<Frame> {
  let chunks: Buffer[] = [];
  let have = 0;
  /** The first n bytes of what is buffered, consumed. */
  const take = (n: number): Buffer => {
    const all = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, have);
    chunks = all.length > n ? [all.subarray(n)] : [];
    have -= n;
    return all.subarray(0, n);
  };
  /** Pulls chunks until n bytes are buffered (or the stream ends). */
  const need = async (n: number): Promise<void> => {
    while (have < n) {
      const { value, done } = await it.next();
      if (done) return;
      const b = value as Buffer;
      chunks.push(b);
      have += b.length;
    }
  };
  const it = input[Symbol.asyncIterator]();
  for (;;) {
    // the stream ending inside a frame means the host died mid-request: nobody is left to answer
    await need(8);
    if (have < 8) return;
    const head = take(8);
    if (!head.subarray(0, 4).equals(MAGIC)) protocolError(`a request starts with ${JSON.stringify(head.subarray(0, 4).toString('latin1'))}, not "ORCH"`);
    const headerLength = head.readUInt32LE(4);
    await need(headerLength);
    if (have < headerLength) return;
    let header: Frame['header'];
    try {
      header = JSON.parse(take(headerLength).toString('utf8')) as Frame['header'];
    } catch (e) {
      protocolError(`a request header is not JSON (${(e as Error).message})`);
    }
    const payloadLength = (header.arrays ?? []).reduce((n, a) => n + a.nbytes, 0);
    await need(payloadLength);
    if (have < payloadLength) return;
    // a copy: the next frame's bytes may share the chunk
    yield { header, payload: Buffer.from(take(payloadLength)) };
  }
}

function protocolError(message: string): never {
  throw serveProtocolError(message);
}

/** The frame's arrays as NDArrays (aligned copies), by name. */
export function frameArrays(frame: Frame): Record<string, NDArray> {
  const out: Record<string, NDArray> = {};
  let at = 0;
  for (const a of frame.header.arrays ?? []) {
    const bytes = frame.payload.subarray(at, at + a.nbytes);
    at += a.nbytes;
    if (!(DTYPES as readonly string[]).includes(a.dtype)) {
      throw fieldDtypeUnsupported(a.name, a.dtype);
    }
    const dtype = a.dtype as DType;
    const n = a.shape.reduce((x, y) => x * y, 1);
    if (n * bytesPerElement(dtype) !== a.nbytes) protocolError(`field '${a.name}' is ${a.nbytes} bytes, but shape ${a.shape.join('x')} of ${dtype} needs ${n * bytesPerElement(dtype)}`);
    const data = makeTypedArray(dtype, n);
    new Uint8Array(data.buffer, data.byteOffset, data.byteLength).set(bytes);
    out[a.name] = { dtype, shape: [...a.shape], data };
  }
  return out;
}

/**
 * The arrays whose bytes differ from those the frame brought: only these travel back, so
 * an input the call only read is neither sent nor written (it may be read-only).
 */
export function changedArrays(frame: Frame, arrays: Record<string, NDArray>): Record<string, NDArray> {
  const out: Record<string, NDArray> = {};
  let at = 0;
  for (const a of frame.header.arrays ?? []) {
    const before = frame.payload.subarray(at, at + a.nbytes);
    at += a.nbytes;
    const now = arrays[a.name];
    if (now && !before.equals(new Uint8Array(now.data.buffer, now.data.byteOffset, now.data.byteLength))) out[a.name] = now;
  }
  return out;
}

/** One frame: `header` plus `arrays` (listed in the header, their bytes after it). */
export function encodeFrame(header: Record<string, unknown>, arrays: Record<string, NDArray> = {}): Buffer {
  const list = Object.entries(arrays);
  const json = Buffer.from(
    JSON.stringify({ ...header, arrays: list.map(([name, a]) => ({ name, dtype: a.dtype, shape: a.shape, nbytes: a.data.byteLength })) }),
    'utf8',
  );
  const head = Buffer.alloc(8);
  MAGIC.copy(head);
  head.writeUInt32LE(json.length, 4);
  return Buffer.concat([head, json, ...list.map(([, a]) => Buffer.from(a.data.buffer, a.data.byteOffset, a.data.byteLength))]);
}
