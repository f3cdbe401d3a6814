import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import koffi from 'koffi';
import { NATIVE_DIR } from '../../core/cache/hashing.js';
import type { DeviceMemory } from '../../core/runtime/deviceArgs.js';
import type { TypedArray } from '../../core/runtime/ndarray.js';
import type { CudaOutput } from '../../plugins/codegen/generateCuda.js';
import { compileSharedLibrary } from '../../core/toolchain/gxx.js';

/**
 * Builds the output of the CUDA backend for the CPU (see cuda_runtime_api.h beside this
 * file): the host .cpp and the kernels, with each `<<<...>>>` launch rewritten into a call
 * of `orch_emulate_launch`, in one g++ translation unit.
 */

/** The folder holding the CUDA API stand-in, from dist/test/cudaEmulation or test/cudaEmulation. */
export const SHIM_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../test/cudaEmulation');

const LAUNCH = /(\w+)<<<grid, block, 0, stream>>>\(/g;

/** Writes `out` into `dir` (generated with sourceFileName/kernelFileName there) and builds it; returns the library. */
export async function buildEmulated(out: CudaOutput, dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'host.cpp'), out.source);
  writeFileSync(path.join(dir, 'kernels.cu'), out.kernels);
  writeFileSync(path.join(dir, `${out.symbol}_kernels.h`), out.launchers);
  writeFileSync(path.join(dir, 'kernels.emulated.cpp'), out.kernels.replace(LAUNCH, 'orch_emulate_launch($1, grid, block, '));
  writeFileSync(path.join(dir, 'emulated.cpp'), '#include "host.cpp"\n#include "kernels.emulated.cpp"\n');
  const library = path.join(dir, `lib${out.symbol}.so`);
  await compileSharedLibrary({
    compiler: 'g++',
    // -O0: the emulated cases are small, and compiling is what takes the time here
    flags: ['-O0', '-std=c++17', '-fPIC', '-shared', '-fvisibility=hidden'],
    source: path.join(dir, 'emulated.cpp'),
    output: library,
    cwd: dir,
    includeDirs: [SHIM_DIR, NATIVE_DIR, dir],
  });
  return library;
}

/** Host memory standing in for device memory: the emulated kernels address it directly. */
export class HostMemory implements DeviceMemory {
  private readonly buffers = new Map<bigint, ArrayBuffer>();
  malloc(bytes: number): bigint {
    const buffer = new ArrayBuffer(Math.max(8, bytes));
    const address = koffi.address(buffer) as bigint;
    this.buffers.set(address, buffer);
    return address;
  }
  free(ptr: bigint): void {
    this.buffers.delete(ptr);
  }
  toDevice(dst: bigint, src: TypedArray): void {
    new Uint8Array(this.buffer(dst)).set(new Uint8Array(src.buffer, src.byteOffset, src.byteLength));
  }
  toHost(dst: TypedArray, src: bigint): void {
    new Uint8Array(dst.buffer, dst.byteOffset, dst.byteLength).set(new Uint8Array(this.buffer(src), 0, dst.byteLength));
  }
  private buffer(ptr: bigint): ArrayBuffer {
    const b = this.buffers.get(ptr);
    if (!b) throw new Error(`no emulated device allocation at 0x${ptr.toString(16)}`);
    return b;
  }
}
