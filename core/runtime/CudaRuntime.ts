import { existsSync } from 'node:fs';
import path from 'node:path';
import koffi, { type LibraryHandle } from 'koffi';
import type { TypedArray } from './ndarray.js';
import { cudaCallFailed, cudaRuntimeMissing } from '../diagnostics/runtimeErrors.js';

/**
 * The CUDA runtime (libcudart) from Node, through koffi: device memory for hosts that
 * hold their fields in Node (tests, `bench/gpuBench.ts`). Program libraries link their
 * own runtime statically; both use the device's primary context, so pointers allocated
 * here are valid arguments to any program library in the process.
 *
 * Every failure is an `E_CUDA` diagnostic carrying the runtime's error text.
 */

const CUDA_MEMCPY_HOST_TO_DEVICE = 1;
const CUDA_MEMCPY_DEVICE_TO_HOST = 2;

interface Fns {
  getDeviceCount: (out: number[]) => number;
  malloc: (out: unknown[], bytes: number) => number;
  free: (ptr: bigint) => number;
  memcpyToDevice: (dst: bigint, src: TypedArray, bytes: number, kind: number) => number;
  memcpyToHost: (dst: TypedArray, src: bigint, bytes: number, kind: number) => number;
  memset: (ptr: bigint, value: number, bytes: number) => number;
  synchronize: () => number;
  errorString: (code: number) => string;
  runtimeVersion: (out: number[]) => number;
}

/** Where libcudart may be: $ORCH_CUDART, the toolkit of $CUDA_HOME/$CUDA_PATH, /usr/local/cuda, the loader path. */
function cudartCandidates(env: NodeJS.ProcessEnv = process.env): string[] {
  const out: string[] = [];
  if (env.ORCH_CUDART) out.push(env.ORCH_CUDART);
  for (const root of [env.CUDA_HOME, env.CUDA_PATH, '/usr/local/cuda']) {
    if (!root) continue;
    for (const dir of ['lib64', 'lib', 'targets/x86_64-linux/lib', 'targets/sbsa-linux/lib']) out.push(path.join(root, dir, 'libcudart.so'));
  }
  return [...out.filter((f) => existsSync(f)), 'libcudart.so', 'libcudart.so.13', 'libcudart.so.12'];
}

export class CudaRuntime {
  private constructor(
    readonly path: string,
    private readonly lib: LibraryHandle,
    private readonly fns: Fns,
  ) {}

  static open(env: NodeJS.ProcessEnv = process.env): CudaRuntime {
    const tried: string[] = [];
    for (const candidate of cudartCandidates(env)) {
      let lib: LibraryHandle;
      try {
        lib = koffi.load(candidate);
      } catch (e) {
        tried.push(`${candidate}: ${(e as Error).message.split('\n')[0]}`);
        continue;
      }
      const fns: Fns = {
        getDeviceCount: lib.func('int cudaGetDeviceCount(_Out_ int *count)'),
        malloc: lib.func('int cudaMalloc(_Out_ void **ptr, size_t size)'),
        free: lib.func('int cudaFree(void *ptr)'),
        memcpyToDevice: lib.func('int cudaMemcpy(void *dst, const void *src, size_t count, int kind)'),
        memcpyToHost: lib.func('int cudaMemcpy(void *dst, const void *src, size_t count, int kind)'),
        memset: lib.func('int cudaMemset(void *ptr, int value, size_t count)'),
        synchronize: lib.func('int cudaDeviceSynchronize()'),
        errorString: lib.func('const char *cudaGetErrorString(int error)'),
        runtimeVersion: lib.func('int cudaRuntimeGetVersion(_Out_ int *version)'),
      };
      return new CudaRuntime(candidate, lib, fns);
    }
    throw cudaRuntimeMissing(tried.join('\n'));
  }

  /** The runtime's version as major.minor. */
  get version(): string {
    const v = [0];
    this.check(this.fns.runtimeVersion(v), 'cudaRuntimeGetVersion');
    return `${Math.floor(v[0] / 1000)}.${(v[0] % 1000) / 10}`;
  }

  /** Visible devices; 0 with the reason when there is no driver or no GPU. */
  devices(): { count: number; reason?: string } {
    const n = [0];
    const rc = this.fns.getDeviceCount(n);
    return rc === 0 ? { count: n[0] } : { count: 0, reason: this.fns.errorString(rc) };
  }

  malloc(bytes: number): bigint {
    const out: unknown[] = [null];
    this.check(this.fns.malloc(out, Math.max(1, bytes)), `cudaMalloc of ${bytes} bytes`);
    return koffi.address(out[0]);
  }

  free(ptr: bigint): void {
    this.check(this.fns.free(ptr), 'cudaFree');
  }

  toDevice(dst: bigint, src: TypedArray): void {
    this.check(this.fns.memcpyToDevice(dst, src, src.byteLength, CUDA_MEMCPY_HOST_TO_DEVICE), 'cudaMemcpy to the device');
  }

  toHost(dst: TypedArray, src: bigint): void {
    this.check(this.fns.memcpyToHost(dst, src, dst.byteLength, CUDA_MEMCPY_DEVICE_TO_HOST), 'cudaMemcpy to the host');
  }

  memset(ptr: bigint, value: number, bytes: number): void {
    this.check(this.fns.memset(ptr, value, bytes), 'cudaMemset');
  }

  synchronize(): void {
    this.check(this.fns.synchronize(), 'cudaDeviceSynchronize');
  }

  close(): void {
    this.lib.unload();
  }

  private check(rc: number, what: string): void {
    if (rc === 0) return;
    const n = [0];
    const noDevice = this.fns.getDeviceCount(n) !== 0 || n[0] === 0;
    throw cudaCallFailed(what, this.fns.errorString(rc), rc, noDevice ? 'CUDA builds run on a machine with an NVIDIA GPU and its driver (nvidia-smi lists them); build here, run there' : undefined);
  }
}
