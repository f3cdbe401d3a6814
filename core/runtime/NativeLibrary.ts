import koffi, { type LibraryHandle } from 'koffi';
import { didYouMean, fail, OrchError } from '../diagnostics.js';
import type { Axes, DType } from '../ir/types.js';
import { contiguousStrides, type NDArray, type TypedArray } from './ndarray.js';
import { parseLocatedError } from './locatedError.js';

/** One parameter of a compiled program, as `<sym>_signature` reports it (ABI order). */
export interface SignatureParam {
  name: string;
  kind: 'field' | 'scalar';
  dtype: DType;
  /** Fields only. */
  axes?: Axes;
}

/** The JSON returned by `<sym>_signature`. */
export interface ProgramSignature {
  abi: number;
  program: string;
  params: SignatureParam[];
}

export type ArgValue = NDArray | number | boolean | bigint;

// Layout of `orch_array` (native/orch_runtime.h): void* data; int64_t shape[3]; int64_t strides[3].
const ORCH_ARRAY_BYTES = 56;
const POINTER_BYTES = 8;

const TYPED_ARRAY: Record<DType, new (n: number) => TypedArray> = {
  float64: Float64Array,
  float32: Float32Array,
  int32: Int32Array,
  int64: BigInt64Array,
  bool: Uint8Array,
};

interface Entry {
  init: () => unknown;
  run: (handle: unknown, args: bigint) => number;
  lastError: (handle: unknown) => string | null;
  exit: (handle: unknown) => void;
}

/**
 * A loaded program library (the ABI of plugins/codegen/cpp.ts) bound through koffi.
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
      fail('E_LOAD', `cannot load program library ${soPath}: ${(e as Error).message}`, {
        hint: 'rebuild the program (orch build); the cached library may be missing or built for another machine',
      });
    }
    let fns: Entry;
    let signature: ProgramSignature;
    try {
      fns = {
        init: lib.func(`${symbol}_init`, 'void *', []),
        run: lib.func(`${symbol}_run`, 'int', ['void *', 'void *']),
        lastError: lib.func(`${symbol}_last_error`, 'const char *', ['void *']),
        exit: lib.func(`${symbol}_exit`, 'void', ['void *']),
      };
      const sig = lib.func(`${symbol}_signature`, 'const char *', []) as () => string;
      signature = parseSignature(sig());
    } catch (e) {
      lib.unload();
      fail('E_LOAD', `${soPath} is not an orch program library for '${symbol}': ${(e as Error).message}`);
    }
    return new NativeLibrary(soPath, symbol, lib, fns, signature);
  }

  /** Allocates the library's handle (idempotent; `run` calls it when needed). */
  init(): void {
    this.live();
    if (this.handle !== null) return;
    const h = this.fns.init();
    if (h === null || h === 0n) fail('E_RUNTIME', `${this.symbol}_init failed (out of memory)`);
    this.handle = h;
  }

  /** Checks and packs every parameter; keeps the pointers for all following `run`s. */
  bind(args: Record<string, ArgValue>): void {
    this.live();
    const params = this.signature.params;
    const known = new Set(params.map((p) => p.name));
    for (const name of Object.keys(args)) {
      if (!known.has(name)) {
        const guess = didYouMean(name, known);
        fail('E_ARG_UNKNOWN', `program '${this.signature.program}' has no parameter '${name}'`, {
          hint: guess ? `did you mean '${guess}'?` : `its parameters are: ${[...known].join(', ')}`,
        });
      }
    }
    const slots = POINTER_BYTES * params.length;
    const block = new ArrayBuffer(slots + ORCH_ARRAY_BYTES * params.length);
    const view = new DataView(block);
    const base = koffi.address(block);
    const bound: ArgValue[] = [];
    params.forEach((p, n) => {
      if (!Object.prototype.hasOwnProperty.call(args, p.name) || args[p.name] === undefined) {
        fail('E_ARG_MISSING', `missing argument '${p.name}' (${p.kind} ${p.dtype}) of program '${this.signature.program}'`);
      }
      const value = args[p.name];
      const slot = slots + ORCH_ARRAY_BYTES * n;
      view.setBigUint64(POINTER_BYTES * n, base + BigInt(slot), true);
      if (p.kind === 'field') writeArray(view, slot, p, value);
      else writeScalar(view, slot, p, value);
      bound.push(value);
    });
    this.block = block;
    this.blockAddress = base;
    this.bound = bound;
  }

  /** Runs the program once with the bound arguments (binding `args` first if given). */
  run(args?: Record<string, ArgValue>): void {
    if (args) this.bind(args);
    this.init();
    if (!this.block) fail('E_ARG_MISSING', `program '${this.signature.program}' has no bound arguments`, { hint: 'call bind(args) first' });
    const rc = this.fns.run(this.handle, this.blockAddress);
    if (rc !== 0) {
      const message = this.fns.lastError(this.handle) || `${this.symbol}_run returned ${rc}`;
      const located = parseLocatedError(message);
      if (located) throw new OrchError(located);
      fail('E_RUNTIME', `program '${this.signature.program}': ${message}`);
    }
  }

  /** Frees the handle and unloads the library; later calls throw instead of crashing. */
  close(): void {
    if (!this.lib) return;
    if (this.handle !== null) this.fns.exit(this.handle);
    this.handle = null;
    this.bound = [];
    this.block = undefined;
    this.lib.unload();
    this.lib = undefined;
  }

  get closed(): boolean {
    return this.lib === undefined;
  }

  private live(): void {
    if (!this.lib) fail('E_CLOSED', `program library ${this.path} was closed`, { hint: 'open it again with NativeLibrary.open' });
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

function describe(v: ArgValue): string {
  if (isNDArray(v)) return `a ${v.dtype} array of shape [${v.shape.join(', ')}]`;
  return `a ${typeof v}`;
}

function writeArray(view: DataView, slot: number, p: SignatureParam, value: ArgValue): void {
  const axes = p.axes ?? 'IJK';
  if (!isNDArray(value)) fail('E_ARG_DTYPE', `argument '${p.name}' must be a ${p.dtype} ${axes} array, got ${describe(value)}`);
  if (value.dtype !== p.dtype || !(value.data instanceof TYPED_ARRAY[p.dtype])) {
    fail('E_ARG_DTYPE', `argument '${p.name}' must have dtype ${p.dtype}, got ${value.dtype} (${value.data.constructor.name})`, {
      hint: `convert it, e.g. numpy's .astype(${p.dtype})`,
    });
  }
  if (value.shape.length !== axes.length) {
    fail('E_ARG_RANK', `argument '${p.name}' is declared over ${axes} (${axes.length} axes) but has shape [${value.shape.join(', ')}]`);
  }
  if (value.shape.some((d) => !Number.isSafeInteger(d) || d < 0)) {
    fail('E_ARG_SHAPE', `argument '${p.name}' has an invalid shape [${value.shape.join(', ')}]`);
  }
  const count = value.shape.reduce((a, b) => a * b, 1);
  if (value.data.length !== count) {
    fail('E_ARG_SHAPE', `argument '${p.name}' has shape [${value.shape.join(', ')}] (${count} elements) but ${value.data.length} elements of data`);
  }
  // `.buffer` also moves a small on-heap typed array off the heap, so its address is stable.
  const data = koffi.address(value.data.buffer) + BigInt(value.data.byteOffset);
  view.setBigUint64(slot, data, true);
  const strides = contiguousStrides(value.shape);
  for (let d = 0; d < 3; d++) {
    view.setBigInt64(slot + 8 + 8 * d, BigInt(value.shape[d] ?? 0), true);
    view.setBigInt64(slot + 32 + 8 * d, BigInt(strides[d] ?? 0), true);
  }
}

function writeScalar(view: DataView, slot: number, p: SignatureParam, value: ArgValue): void {
  const bad = (): never => fail('E_ARG_DTYPE', `argument '${p.name}' must be a ${p.dtype} scalar, got ${describe(value)}`);
  switch (p.dtype) {
    case 'float64':
    case 'float32': {
      if (typeof value !== 'number' && typeof value !== 'bigint') return bad();
      const x = Number(value);
      if (p.dtype === 'float64') view.setFloat64(slot, x, true);
      else view.setFloat32(slot, x, true);
      return;
    }
    case 'int32':
    case 'int64': {
      if (typeof value !== 'number' && typeof value !== 'bigint') return bad();
      if (typeof value === 'number' && !Number.isSafeInteger(value)) {
        fail('E_ARG_DTYPE', `argument '${p.name}' must be an integer (${p.dtype}), got ${value}`);
      }
      const x = BigInt(value);
      const bits = p.dtype === 'int32' ? 31n : 63n;
      if (x < -(1n << bits) || x >= 1n << bits) fail('E_ARG_DTYPE', `argument '${p.name}' = ${x} does not fit in ${p.dtype}`);
      if (p.dtype === 'int32') view.setInt32(slot, Number(x), true);
      else view.setBigInt64(slot, x, true);
      return;
    }
    case 'bool':
      if (typeof value === 'boolean') view.setUint8(slot, value ? 1 : 0);
      else if (value === 0 || value === 1) view.setUint8(slot, value);
      else bad();
      return;
  }
}
