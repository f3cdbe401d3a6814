import koffi, { type LibraryHandle } from 'koffi';
import { didYouMean, OrchError } from '../diagnostics.js';
import { argumentDevice, argumentDtype, argumentRank, argumentShape } from '../diagnostics/codes.js';
import type { Axes, DType } from '../ir/types.js';
import { DTYPE_BYTES } from '../ir/dtypes.js';
import { contiguousStrides, type NDArray, type TypedArray } from './ndarray.js';
import { parseLocatedError } from './locatedError.js';
import { argumentReallocated, cannotLoadProgram, initOutOfMemory, libraryClosed, noSetCallbackSymbol, notAnOrchLibrary, programArgumentMissing, programHasNoStream, programNoCallback, programNoParameter, programNotBound, runFailed, setCallbackFailed } from '../diagnostics/runtimeErrors.js';
import { callbackReturnedNothing, noHostImplementation } from '../diagnostics/callbackErrors.js';

/** One parameter of a compiled program, as `<sym>_signature` reports it (ABI order). */
export interface SignatureParam {
  name: string;
  kind: 'field' | 'scalar';
  dtype: DType;
  /** Fields only. */
  axes?: Axes;
  /** Fields only: the data dimensions, after the spatial axes and C-contiguous. */
  dims?: number[];
  /** Fields only: whether the program writes the array (so it must be writable). */
  written?: boolean;
}

/** One host callback of a compiled program (ABI index = `index`). */
interface SignatureCallback {
  index: number;
  name: string;
  /** Where the host finds the function (Python module file and name). */
  function: { file: string; name: string };
  params: { name: string; dtype: DType }[];
  result: DType | null;
}

/** The JSON returned by `<sym>_signature`. */
export interface ProgramSignature {
  abi: number;
  program: string;
  params: SignatureParam[];
  /** Where field data lives: host memory (absent or 'cpu') or device memory ('cuda'). */
  target?: 'cpu' | 'cuda';
  callbacks?: SignatureCallback[];
}

/** A host callback implementation: scalar arguments in, a scalar (or nothing) out. */
export type HostCallback = (args: number[]) => number | boolean | bigint | undefined;

const KOFFI_TYPE: Record<DType, string> = { float64: 'double', float32: 'float', int8: 'int8_t', int16: 'int16_t', int32: 'int32_t', int64: 'int64_t', bool: 'bool' };

/**
 * A field in device memory, for libraries built for a GPU (signature target 'cuda'): the
 * device address, the element type and shape, and optionally strides in elements (default
 * C-contiguous). What CuPy's `__cuda_array_interface__` describes, strides in elements.
 */
export interface DeviceArray {
  devicePtr: bigint;
  dtype: DType;
  shape: number[];
  strides?: number[];
}

export type ArgValue = NDArray | DeviceArray | number | boolean | bigint;

export interface RunOptions {
  /** GPU libraries: return once the kernels are queued, without waiting (call `sync` later). */
  async?: boolean;
}

// Layout of `orch_array` (native/orch_runtime.h): void* data; int64_t shape[3]; int64_t strides[3].
const ORCH_ARRAY_BYTES = 56;
const POINTER_BYTES = 8;

const TYPED_ARRAY: Record<DType, new (n: number) => TypedArray> = {
  float64: Float64Array,
  float32: Float32Array,
  int8: Int8Array,
  int16: Int16Array,
  int32: Int32Array,
  int64: BigInt64Array,
  bool: Uint8Array,
};

interface Entry {
  init: () => unknown;
  setCallback: ((handle: unknown, index: number, fn: bigint) => number) | undefined;
  run: (handle: unknown, args: bigint) => number;
  lastError: (handle: unknown) => string | null;
  exit: (handle: unknown) => void;
  /** GPU libraries only. */
  sync?: (handle: unknown) => number;
  setStream?: (handle: unknown, stream: bigint | null) => number;
}

/**
 * A loaded program library (the ABI of plugins/codegen/abi.ts, with CUDA extras from generateCuda.ts for GPU
 * builds, whose fields are device arrays) bound through koffi.
 *
 * Arguments are packed once by `bind` into one native-addressable block: a `void*` table
 * (args[n]) followed by one 56-byte slot per parameter (an `orch_array`, or the scalar's
 * value). Array slots point straight at the typed arrays' memory, so `run` passes two
 * pointers and copies nothing: repeated runs cost microseconds. Rebind after replacing an
 * array's `data` or changing a scalar.
 *
 * dlopen caches by path: reopening a path whose file was rebuilt while still open returns
 * the old code, so builds should write each library to a fresh (content-addressed) path.
 */
export class NativeLibrary {
  private lib: LibraryHandle | undefined;
  private handle: unknown = null;
  private block: ArrayBuffer | undefined;
  private blockAddress = 0n;
  /** Keeps the bound arrays (and so the memory the block points at) alive. */
  private bound: ArgValue[] = [];
  /** The typed arrays that were packed, to detect reallocation before each run. */
  private boundData: (TypedArray | null)[] = [];
  private boundLength: number[] = [];
  /** Registered koffi trampolines, by callback index. */
  private trampolines: bigint[] = [];
  /** The error a callback raised during the current run (rethrown by `run`). */
  private callbackError: unknown;

  private constructor(
    readonly path: string,
    readonly symbol: string,
    lib: LibraryHandle,
    private readonly fns: Entry,
    readonly signature: ProgramSignature,
  ) {
    this.lib = lib;
  }

  static open(soPath: string, symbol: string): NativeLibrary {
    let lib: LibraryHandle;
    try {
      lib = koffi.load(soPath);
    } catch (e) {
      throw cannotLoadProgram(soPath, (e as Error).message);
    }
    let fns: Entry;
    let signature: ProgramSignature;
    try {
      fns = {
        init: lib.func(`${symbol}_init`, 'void *', []),
        setCallback: optionalFunc(lib, `${symbol}_set_callback`, 'int', ['void *', 'int', 'void *']) as Entry['setCallback'],
        run: lib.func(`${symbol}_run`, 'int', ['void *', 'void *']),
        lastError: lib.func(`${symbol}_last_error`, 'const char *', ['void *']),
        exit: lib.func(`${symbol}_exit`, 'void', ['void *']),
      };
      const sig = lib.func(`${symbol}_signature`, 'const char *', []) as () => string;
      signature = parseSignature(sig());
      if (signature.target === 'cuda') {
        fns.sync = lib.func(`${symbol}_sync`, 'int', ['void *']);
        fns.setStream = lib.func(`${symbol}_set_stream`, 'int', ['void *', 'void *']);
      }
    } catch (e) {
      lib.unload();
      throw notAnOrchLibrary(soPath, symbol, (e as Error).message);
    }
    return new NativeLibrary(soPath, symbol, lib, fns, signature);
  }

  /** Allocates the library's handle (idempotent; `run` calls it when needed). */
  init(): void {
    this.live();
    if (this.handle !== null) return;
    const h = this.fns.init();
    if (h === null || h === 0n) throw initOutOfMemory(this.symbol);
    this.handle = h;
  }

  /**
   * Registers host implementations of the program's callbacks (by name), as C function
   * pointers. A callback that throws makes the library stop the run; `run` rethrows it.
   */
  setCallbacks(impls: Record<string, HostCallback>): void {
    this.init();
    const decls = this.signature.callbacks ?? [];
    for (const name of Object.keys(impls)) {
      if (!decls.some((d) => d.name === name)) throw programNoCallback(this.signature.program, name, decls.map((d) => d.name).join(', ') || 'none');
    }
    for (const d of decls) {
      const impl = impls[d.name];
      if (!impl) throw noHostImplementation(d.name, this.signature.program);
      if (!this.fns.setCallback) throw noSetCallbackSymbol(this.path, this.symbol);
      const argTypes = d.params.map((p) => KOFFI_TYPE[p.dtype]);
      if (d.result) argTypes.push(koffi.pointer(KOFFI_TYPE[d.result]) as unknown as string);
      const proto = koffi.proto('int', argTypes);
      const n = d.params.length;
      const trampoline = koffi.register((...raw: unknown[]) => {
        try {
          const r = impl(raw.slice(0, n).map((x) => Number(x)));
          if (d.result) {
            if (r === undefined) throw callbackReturnedNothing(d.name, d.result);
            const v = d.result === 'int64' ? BigInt(Math.trunc(Number(r))) : d.result === 'bool' ? Boolean(r) : Number(r);
            koffi.encode(raw[n], KOFFI_TYPE[d.result], v);
          }
          return 0;
        } catch (e) {
          this.callbackError ??= e;
          return 1;
        }
      }, koffi.pointer(proto));
      if (this.trampolines[d.index] !== undefined) koffi.unregister(this.trampolines[d.index]);
      this.trampolines[d.index] = trampoline;
      if (this.fns.setCallback(this.handle, d.index, trampoline) !== 0) throw setCallbackFailed(this.symbol, d.index, this.fns.lastError(this.handle));
    }
  }

  /** Checks and packs every parameter; keeps the pointers for all following `run`s. */
  bind(args: Record<string, ArgValue>): void {
    this.live();
    const params = this.signature.params;
    const known = new Set(params.map((p) => p.name));
    for (const name of Object.keys(args)) {
      if (!known.has(name)) {
        const guess = didYouMean(name, known);
        throw programNoParameter(this.signature.program, name, guess ? `did you mean '${guess}'?` : `its parameters are: ${[...known].join(', ')}`);
      }
    }
    const slots = POINTER_BYTES * params.length;
    const block = new ArrayBuffer(slots + ORCH_ARRAY_BYTES * params.length);
    const view = new DataView(block);
    const base = koffi.address(block);
    const bound: ArgValue[] = [];
    params.forEach((p, n) => {
      if (!Object.prototype.hasOwnProperty.call(args, p.name) || args[p.name] === undefined) {
        throw programArgumentMissing(p.name, p.kind, p.dtype, this.signature.program);
      }
      const value = args[p.name];
      const slot = slots + ORCH_ARRAY_BYTES * n;
      view.setBigUint64(POINTER_BYTES * n, base + BigInt(slot), true);
      if (p.kind === 'field') {
        if (this.target === 'cuda') writeDeviceArray(view, slot, p, value, this.signature.program);
        else writeArray(view, slot, p, value);
      } else writeScalar(view, slot, p, value);
      bound.push(value);
    });
    this.block = block;
    this.blockAddress = base;
    this.bound = bound;
    this.boundData = bound.map((v) => (isNDArray(v) ? v.data : null));
    this.boundLength = bound.map((v) => (isNDArray(v) ? v.data.length : 0));
  }

  /** Fails if a bound array was reallocated since `bind`: its packed pointer would be stale. */
  private checkBound(): void {
    const params = this.signature.params;
    for (let n = 0; n < this.bound.length; n++) {
      const v = this.bound[n];
      // a detached buffer reads as length 0; an array bound empty (a zero-size field) stays empty
      if (isNDArray(v) && (v.data !== this.boundData[n] || v.data.length !== this.boundLength[n])) {
        throw argumentReallocated(params[n].name);
      }
    }
  }

  /** Where the library expects field data: host memory, or device memory for a GPU build. */
  get target(): 'cpu' | 'cuda' {
    return this.signature.target ?? 'cpu';
  }

  /**
   * Runs the program once with the bound arguments (binding `args` first if given). A GPU
   * library's run only queues kernels; this waits for them unless `async` is set.
   */
  run(args?: Record<string, ArgValue>, opts: RunOptions = {}): void {
    if (args) this.bind(args);
    this.init();
    if (!this.block) throw programNotBound(this.signature.program);
    this.checkBound();
    this.callbackError = undefined;
    const rc = this.fns.run(this.handle, this.blockAddress);
    if (this.callbackError !== undefined) {
      const e = this.callbackError;
      this.callbackError = undefined;
      throw e;
    }
    if (rc !== 0) this.runtimeError('run', rc);
    if (!opts.async) this.sync();
  }

  /** Waits for the kernels queued by `run` (GPU libraries; nothing to wait for on a CPU). */
  sync(): void {
    this.live();
    if (!this.fns.sync || this.handle === null) return;
    const rc = this.fns.sync(this.handle);
    if (rc !== 0) this.runtimeError('sync', rc);
  }

  /** GPU libraries: queue later runs on `stream` (a cudaStream_t address); null = the handle's own. */
  setStream(stream: bigint | null): void {
    this.init();
    if (!this.fns.setStream) throw programHasNoStream(this.signature.program);
    const rc = this.fns.setStream(this.handle, stream);
    if (rc !== 0) this.runtimeError('set_stream', rc);
  }

  private runtimeError(entry: string, rc: number): never {
    const message = this.fns.lastError(this.handle) || `${this.symbol}_${entry} returned ${rc}`;
    // errors the generated code locates in the user's source (variable K reads) stay located
    const located = parseLocatedError(message);
    if (located) throw new OrchError(located);
    const prefix = `program '${this.signature.program}'`;
    // GPU libraries name the program themselves (their messages also reach non-Node hosts).
    throw runFailed(message.startsWith(prefix) ? message : `${prefix}: ${message}`);
  }

  /** Frees the handle and unloads the library; later calls throw instead of crashing. */
  close(): void {
    if (!this.lib) return;
    if (this.handle !== null) this.fns.exit(this.handle);
    this.handle = null;
    for (const t of this.trampolines) if (t !== undefined) koffi.unregister(t);
    this.trampolines = [];
    this.bound = [];
    this.boundData = [];
    this.boundLength = [];
    this.block = undefined;
    this.lib.unload();
    this.lib = undefined;
  }

  get closed(): boolean {
    return this.lib === undefined;
  }

  private live(): void {
    if (!this.lib) throw libraryClosed(this.path);
  }
}

function optionalFunc(lib: LibraryHandle, name: string, result: string, args: string[]): unknown {
  try {
    return lib.func(name, result, args);
  } catch {
    return undefined;
  }
}

function parseSignature(text: string): ProgramSignature {
  const sig = JSON.parse(text) as ProgramSignature;
  if (typeof sig.program !== 'string' || !Array.isArray(sig.params)) throw new Error('malformed signature');
  return sig;
}

function isNDArray(v: ArgValue): v is NDArray {
  return typeof v === 'object' && v !== null && 'data' in v && 'shape' in v && 'dtype' in v;
}

function isDeviceArray(v: ArgValue): v is DeviceArray {
  return typeof v === 'object' && v !== null && 'devicePtr' in v && 'shape' in v && 'dtype' in v;
}

function describe(v: ArgValue): string {
  if (isNDArray(v)) return `a ${v.dtype} array of shape [${v.shape.join(', ')}]`;
  if (isDeviceArray(v)) return `a ${v.dtype} device array of shape [${v.shape.join(', ')}]`;
  return `a ${typeof v}`;
}

function writeDeviceArray(view: DataView, slot: number, p: SignatureParam, value: ArgValue, program: string): void {
  const axes = p.axes ?? 'IJK';
  if (isNDArray(value)) {
    throw argumentDevice(p.name, `is a host array, but program '${program}' was built for a GPU and takes device arrays`, {
      hint: 'pass { devicePtr, dtype, shape, strides? } for memory on the device (core/runtime/CudaRuntime.ts copies host arrays there)',
    });
  }
  if (!isDeviceArray(value)) throw argumentDtype(p.name, `must be a ${p.dtype} ${axes} device array, got ${describe(value)}`);
  if (value.dtype !== p.dtype) throw argumentDtype(p.name, `must have dtype ${p.dtype}, got ${value.dtype}`);
  if (typeof value.devicePtr !== 'bigint' || value.devicePtr < 0n) throw argumentDevice(p.name, `needs devicePtr as a non-negative bigint address`);
  checkRank(p, value.shape);
  if (value.shape.some((d) => !Number.isSafeInteger(d) || d < 0)) throw argumentShape(p.name, `has an invalid shape [${value.shape.join(', ')}]`);
  const strides = value.strides ?? contiguousStrides(value.shape);
  if (strides.length !== value.shape.length || strides.some((s) => !Number.isSafeInteger(s))) {
    throw argumentShape(p.name, `has strides [${strides.join(', ')}], expected ${value.shape.length} integers (in elements)`);
  }
  // generated code addresses data dimensions as contiguous after the spatial point
  const inner = contiguousStrides(p.dims ?? []);
  if (strides.slice(axes.length).some((s, d) => s !== inner[d] && value.shape[axes.length + d] > 1)) {
    throw argumentShape(p.name, `has strides [${strides.join(', ')}]: its data dimensions (${(p.dims ?? []).join(', ')}) are not contiguous`, {
      hint: 'lay the array out with its data dimensions innermost and contiguous (a C-ordered copy)',
    });
  }
  const count = value.shape.reduce((a, b) => a * b, 1);
  if (count > 0 && value.devicePtr === 0n) throw argumentDevice(p.name, `has a null device pointer`);
  view.setBigUint64(slot, value.devicePtr, true);
  writeSpatial(view, slot, axes.length, value.shape, strides);
}

/** The shape a field argument must have: one extent per spatial axis, then its data dimensions. */
function checkRank(p: SignatureParam, shape: readonly number[]): void {
  const axes = p.axes ?? 'IJK';
  const dims = p.dims ?? [];
  if (shape.length !== axes.length + dims.length) {
    throw argumentRank(p.name, `is declared over ${axes || 'no spatial axis'} (${axes.length} axes)${dims.length ? ` with data dimensions (${dims.join(', ')})` : ''} but has shape [${shape.join(', ')}]`);
  }
  if (shape.slice(axes.length).some((n, d) => n !== dims[d])) {
    throw argumentShape(p.name, `has shape [${shape.join(', ')}], but its data dimensions are (${dims.join(', ')})`, { hint: 'the last dimensions of the array are the data dimensions of its Field[...] type' });
  }
}

/** orch_array's shape and strides: the spatial axes only (data dimensions are implied). */
function writeSpatial(view: DataView, slot: number, rank: number, shape: readonly number[], strides: readonly number[]): void {
  for (let d = 0; d < 3; d++) {
    view.setBigInt64(slot + 8 + 8 * d, BigInt(d < rank ? shape[d] : 0), true);
    view.setBigInt64(slot + 32 + 8 * d, BigInt(d < rank ? strides[d] : 0), true);
  }
}

function writeArray(view: DataView, slot: number, p: SignatureParam, value: ArgValue): void {
  const axes = p.axes ?? 'IJK';
  if (isDeviceArray(value)) {
    throw argumentDevice(p.name, `is a device array, but this library is a CPU build`, { hint: 'build the program with a cuda preset, or pass a host array' });
  }
  if (!isNDArray(value)) throw argumentDtype(p.name, `must be a ${p.dtype} ${axes} array, got ${describe(value)}`);
  if (value.dtype !== p.dtype || !(value.data instanceof TYPED_ARRAY[p.dtype])) {
    throw argumentDtype(p.name, `must have dtype ${p.dtype}, got ${value.dtype} (${value.data.constructor.name})`, {
      hint: `convert it, e.g. numpy's .astype(${p.dtype})`,
    });
  }
  checkRank(p, value.shape);
  if (value.shape.some((d) => !Number.isSafeInteger(d) || d < 0)) {
    throw argumentShape(p.name, `has an invalid shape [${value.shape.join(', ')}]`);
  }
  const count = value.shape.reduce((a, b) => a * b, 1);
  if (value.data.length !== count) {
    throw argumentShape(p.name, `has shape [${value.shape.join(', ')}] (${count} elements) but ${value.data.length} elements of data`);
  }
  // `.buffer` also moves a small on-heap typed array off the heap, so its address is stable.
  const data = koffi.address(value.data.buffer) + BigInt(value.data.byteOffset);
  view.setBigUint64(slot, data, true);
  writeSpatial(view, slot, axes.length, value.shape, contiguousStrides(value.shape));
}

function writeScalar(view: DataView, slot: number, p: SignatureParam, value: ArgValue): void {
  const bad = (): never => {
    throw argumentDtype(p.name, `must be a ${p.dtype} scalar, got ${describe(value)}`);
  };
  switch (p.dtype) {
    case 'float64':
    case 'float32': {
      if (typeof value !== 'number' && typeof value !== 'bigint') return bad();
      const x = Number(value);
      if (p.dtype === 'float64') view.setFloat64(slot, x, true);
      else view.setFloat32(slot, x, true);
      return;
    }
    case 'int8':
    case 'int16':
    case 'int32':
    case 'int64': {
      if (typeof value !== 'number' && typeof value !== 'bigint') return bad();
      if (typeof value === 'number' && !Number.isSafeInteger(value)) {
        throw argumentDtype(p.name, `must be an integer (${p.dtype}), got ${value}`);
      }
      const x = BigInt(value);
      const bits = BigInt(DTYPE_BYTES[p.dtype] * 8 - 1);
      if (x < -(1n << bits) || x >= 1n << bits) throw argumentDtype(p.name, `= ${x} does not fit in ${p.dtype}`);
      if (p.dtype === 'int64') view.setBigInt64(slot, x, true);
      else view.setInt32(slot, Number(x), true);
      return;
    }
    case 'bool':
      if (typeof value === 'boolean') view.setUint8(slot, value ? 1 : 0);
      else if (value === 0 || value === 1) view.setUint8(slot, value);
      else bad();
      return;
  }
}
