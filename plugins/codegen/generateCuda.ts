import type { Program } from '../../core/ir/types.js';
import type { ProgramSignature } from '../../core/runtime/NativeLibrary.js';
import { programHeader, programSignature, programSymbol } from './abi.js';
import { Codegen, type CppOptions } from './Codegen.js';
import { CudaLoops } from './cudaLoops.js';
import { cudaBlockInvalid } from '../../core/diagnostics/configErrors.js';

/**
 * CUDA backend for the loop-nest IR. It shares the C++ backend's library shell, program
 * statements, bounds checks and point-statement emission (HostShell, PointEmitter,
 * ExprEmitter) and brings its own loops (cudaLoops.ts): every HLoop becomes a kernel
 * (cudaKernels.ts), queued in program order on the handle's one stream.
 *
 *  - PARALLEL: one kernel per HLoop, threads over (i, j, k) points (the IR guarantees the
 *    points of an HLoop are independent); each thread walks its K levels innermost, and the
 *    grid gets only the K blocks that fill the device (orch::cuda::layers). Consecutive
 *    PARALLEL HLoops that only share arrays at the point itself run in one kernel, point
 *    by point (cudaFusion.ts).
 *  - FORWARD/BACKWARD: one kernel per VLoop, one thread per (i, j) column that walks K in
 *    order and runs every HLoop at each level. That is only correct when no column reads
 *    what another column writes in the same VLoop; when an array written in the VLoop is
 *    read at a horizontal offset, each level needs a grid-wide barrier between HLoops and
 *    between levels, so the VLoop becomes one launch per level and HLoop instead
 *    (stream order is the barrier).
 *  - An axis that an array written by a kernel lacks (an IJ field written at every level)
 *    stays a loop inside each thread, in the interpreter's order.
 *
 * Thread mapping follows the preset's loop order, read like the CPU's: the last axis
 * varies fastest and runs along threadIdx.x, so it should be the contiguous one. Program
 * temporaries and transients are laid out the same way, from the handle's memory pool.
 *
 * Outputs per program: the host `.cpp` (the C ABI of abi.ts plus `_sync` and
 * `_set_stream`), the `.cu` with the kernels and their launchers, the launchers'
 * declarations `<symbol>_kernels.h` shared by both, and the public header.
 */

export interface CudaOptions extends CppOptions {
  /** Threads per block of PARALLEL kernels along x, y, z. */
  blockSize: [number, number, number];
  /** Threads per block of FORWARD/BACKWARD kernels along x, y. */
  columnBlockSize: [number, number];
  /** Synchronize after every launch so a kernel fault names its stencil (debugging). */
  syncLaunches: boolean;
  /** Name the generated .cu is written under; `#line` resets point at it. Default `<symbol>.cu`. */
  kernelFileName?: string;
}

export interface CudaOutput {
  /** The host `.cpp`. */
  source: string;
  /** The `.cu` with kernels and launchers. */
  kernels: string;
  /** `<symbol>_kernels.h`: launcher declarations, included by both. */
  launchers: string;
  header: string;
  symbol: string;
  signature: ProgramSignature;
}

export const DEFAULT_BLOCK: [number, number, number] = [128, 2, 1];
export const DEFAULT_COLUMN_BLOCK: [number, number] = [64, 2];

export function generateCuda(program: Program, opts: CudaOptions): CudaOutput {
  checkBlock('blockSize', opts.blockSize, 3);
  checkBlock('columnBlockSize', opts.columnBlockSize, 2);
  const symbol = programSymbol(program.name);
  const signature: ProgramSignature = { ...programSignature(program), target: 'cuda' };
  const cg = new Codegen(program, { ...opts, openmp: false }, symbol, (c) => new CudaLoops(c, opts));
  const source = cg.shell.source(signature);
  return {
    source,
    kernels: cg.loops.kernels.source(opts.kernelFileName ?? `${symbol}.cu`),
    launchers: cg.loops.kernels.launcherHeader(),
    header: programHeader(program, symbol, signature, {
      doc: [
        ` *   int         ${symbol}_sync(void* handle);`,
        ' *       CUDA: run only queues kernels on the handle\'s stream and returns; sync waits for',
        ' *       them. Returns 0, or nonzero with a kernel fault in last_error.',
        ` *   int         ${symbol}_set_stream(void* handle, void* stream);`,
        ' *       CUDA: queue later runs on `stream` (a cudaStream_t, e.g. CuPy\'s current stream);',
        ' *       NULL goes back to a stream of the handle\'s own.',
        ' *   Field data pointers must be device memory (or managed, or mapped pinned memory).',
        ' *   Errors kernels record (a read at a variable K offset outside the array) are reported',
        ' *   by the next sync; debug checks are reported right after their launch.',
      ],
      decls: [`int ${symbol}_sync(void* handle);`, `int ${symbol}_set_stream(void* handle, void* stream);`],
    }),
    symbol,
    signature,
  };
}

function checkBlock(name: string, block: readonly number[], rank: number): void {
  const limits = [1024, 1024, 64];
  const ok =
    Array.isArray(block) &&
    block.length === rank &&
    block.every((b, d) => Number.isInteger(b) && b >= 1 && b <= limits[d]) &&
    block.reduce((a, b) => a * b, 1) <= 1024;
  if (!ok) {
    throw cudaBlockInvalid(name, JSON.stringify(block), rank, JSON.stringify(rank === 3 ? DEFAULT_BLOCK : DEFAULT_COLUMN_BLOCK));
  }
}

