import type { EntryArgs } from './callArgs.js';
import { makeTypedArray, type NDArray, type TypedArray } from './ndarray.js';
import type { ArgValue, DeviceArray, SignatureParam } from './NativeLibrary.js';

/**
 * Host fields copied to the device for a GPU program library, and back. Arrays are laid
 * out on the device the way the build's threads read them: the last axis of the preset's
 * loop order is contiguous (I for the cuda presets, as in GT4Py's GPU storages), so
 * kernels read coalesced, as they would from a CuPy array a GT4Py user allocated.
 */

/**
 * Strides in elements of an array over `axes`, with the last axis of `loopOrder` contiguous
 * among the spatial axes; data dimensions (the extents after `axes`) stay innermost and
 * C-contiguous, as generated code addresses them.
 */
export function layoutStrides(shape: readonly number[], axes: string, loopOrder: string): number[] {
  const order = [...loopOrder.toUpperCase()].filter((a) => axes.includes(a)).map((a) => axes.indexOf(a));
  const strides = new Array<number>(shape.length).fill(0);
  let stride = 1;
  for (let d = shape.length - 1; d >= axes.length; d--) {
    strides[d] = stride;
    stride *= Math.max(1, shape[d]);
  }
  for (let n = order.length - 1; n >= 0; n--) {
    strides[order[n]] = stride;
    stride *= Math.max(1, shape[order[n]]);
  }
  return strides;
}

/** Copies C-ordered `src` into `dst` laid out with `strides` (or back, with `toStrided` false). */
function relayout(src: TypedArray, dst: TypedArray, shape: readonly number[], strides: readonly number[], toStrided: boolean): void {
  const d = dst as unknown as ArrayLike<number | bigint> & { [n: number]: number | bigint };
  const s = src as unknown as ArrayLike<number | bigint>;
  const count = shape.reduce((a, b) => a * b, 1);
  if (count === 0) return;
  if (shape.length === 0) {
    d[0] = s[0];
    return;
  }
  // C-order walk over every element (any rank: spatial axes, then data dimensions), a row
  // of the last axis at a time: a benchmark's fields have tens of millions of elements
  const last = shape.length - 1;
  const row = shape[last];
  const step = strides[last];
  const idx = new Array<number>(last).fill(0);
  for (let c = 0; c < count; ) {
    let o = 0;
    for (let n = 0; n < last; n++) o += idx[n] * strides[n];
    if (toStrided) for (let x = 0; x < row; x++, o += step) d[o] = s[c++];
    else for (let x = 0; x < row; x++, o += step) d[c++] = s[o];
    for (let n = last - 1; n >= 0; n--) {
      if (++idx[n] < shape[n]) break;
      idx[n] = 0;
    }
  }
}

/** What staging needs of device memory: CudaRuntime, or a host stand-in in tests. */
export interface DeviceMemory {
  malloc(bytes: number): bigint;
  free(ptr: bigint): void;
  toDevice(dst: bigint, src: TypedArray): void;
  toHost(dst: TypedArray, src: bigint): void;
}

export interface DeviceArgs {
  /** Arguments for `NativeLibrary.bind`: device arrays for fields, scalars as given. */
  args: Record<string, ArgValue>;
  /** Bytes of device memory the fields take. */
  bytes: number;
  /** Copies every field back into the host array it came from. */
  download(): void;
  free(): void;
}

export function stageOnDevice(rt: DeviceMemory, params: readonly SignatureParam[], args: EntryArgs, loopOrder: string): DeviceArgs {
  const out: Record<string, ArgValue> = {};
  const staged: { host: NDArray; device: DeviceArray; scratch: TypedArray }[] = [];
  let bytes = 0;
  const free = () => {
    for (const s of staged) rt.free(s.device.devicePtr);
    staged.length = 0;
  };
  try {
    for (const p of params) {
      const value = args[p.name];
      if (p.kind !== 'field' || typeof value !== 'object') {
        out[p.name] = value;
        continue;
      }
      const strides = layoutStrides(value.shape, p.axes ?? 'IJK', loopOrder);
      const scratch = makeTypedArray(value.dtype, value.data.length);
      relayout(value.data, scratch, value.shape, strides, true);
      const devicePtr = rt.malloc(scratch.byteLength);
      const device: DeviceArray = { devicePtr, dtype: value.dtype, shape: [...value.shape], strides };
      staged.push({ host: value, device, scratch });
      rt.toDevice(devicePtr, scratch);
      bytes += scratch.byteLength;
      out[p.name] = device;
    }
  } catch (e) {
    free();
    throw e;
  }
  return {
    args: out,
    bytes,
    download() {
      for (const s of staged) {
        rt.toHost(s.scratch, s.device.devicePtr);
        relayout(s.scratch, s.host.data, s.host.shape, s.device.strides!, false);
      }
    },
    free,
  };
}
