import type { Preset } from '../core/config/types.js';

/**
 * Generic NVIDIA GPU build: nvcc for the GPU found at build time ($CUDA_ARCH, else
 * nvidia-smi; the resolved architecture is part of the cache key).
 *
 * Threads run along I (loop order KJI: I varies fastest), the contiguous axis of GT4Py's
 * GPU storages (CuPy arrays with I stride 1); temporaries are laid out the same way.
 * FMA contraction is off so results match the interpreter and the CPU build to the bit
 * in the arithmetic (device libm functions may still differ in the last ulp).
 */
const cuda: Preset = {
  name: 'cuda',
  description: 'NVIDIA GPU found at build time ($CUDA_ARCH or nvidia-smi): nvcc -O3, a kernel per loop nest (pointwise PARALLEL neighbours share one)',
  backend: 'cuda',
  compiler: {
    cxx: 'nvcc',
    flags: ['-O3', '-std=c++17', '--expt-relaxed-constexpr', '--fmad=false'],
    cudaArch: 'auto',
  },
  codegen: {
    loopOrder: 'KJI',
    openmp: false,
    lineDirectives: true,
    blockSize: [128, 2, 1],
    columnBlockSize: [64, 2],
    syncLaunches: false,
  },
  plugins: [],
};

export default cuda;
